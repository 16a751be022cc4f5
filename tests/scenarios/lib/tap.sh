# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scenarios (installed beside them in the guest's
# /fsgate/bin, which is on PATH): their TAP results.

n=0 failed=0
# result STATUS DESCRIPTION [LOG]: "ok" for STATUS 0, else "not ok" with
# LOG shown as TAP comments; a failure leaves $failed at 1 for the exit.
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
		[ -z "$3" ] || sed 's/^/# /' "$3"
	fi
}
