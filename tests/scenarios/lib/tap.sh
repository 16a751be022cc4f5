# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scenarios (installed beside them in the guest's
# /fsgate/bin, which is on PATH): their TAP results, and waiting for a
# program they started to say it is ready.

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
		[ -z "${3:-}" ] || sed 's/^/# /' "$3"
	fi
}

# wait_text FILE TEXT: until FILE holds TEXT (a grep pattern), 10 s at
# most; 1 if it never did. (Not wait_for: scenarios have their own.)
wait_text() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -le 100 ] || return 1
		sleep 0.1
	done
}

# need PROGRAM...: the programs a scenario runs, real ones (fatrace,
# clamd...) and fsgate's own (fsgatectl, the examples...). A missing one
# ends the scenario as a skip ("1..0 # SKIP", exit 4), counted as
# skipped; when FSGATE_REQUIRE_PROGS=1 (tests/check sets it in CI and
# once `make deps` ran, which installs the real ones) it ends it as a
# failure instead.
need() {
	for prog; do
		command -v "$prog" >/dev/null && continue
		if [ "${FSGATE_REQUIRE_PROGS:-0}" = 1 ]; then
			echo "1..1"
			echo "not ok 1 $prog is in the guest (make userspace builds fsgate's, make deps installs the others)"
			exit 1
		fi
		echo "1..0 # SKIP $prog is not in the guest"
		exit 4
	done
}
