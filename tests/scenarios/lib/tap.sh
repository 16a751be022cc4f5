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
# most; 1 if it never did, saying so as a TAP comment. (Not wait_for:
# scenarios have their own.)
wait_text() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ]; then
			echo "# wait_text: after 10 s $1 still lacks '$2'"
			return 1
		fi
		sleep 0.1
	done
}

# wait_group PID CONDITION: until the fsgate group of process PID meets
# CONDITION, an awk expression on its line of /proc/fsgate/groups ($6
# marks, $7 queued: events not yet read, $8 delivered, $10 pending:
# accesses waiting for its answer), 10 s at most; 1 if it never did,
# saying so. The state itself, where a sleep would only guess that a
# listener has marked, read its events or left an access waiting.
wait_group() {
	_i=0
	until awk -v p="$1" "\$2 == p && ($2) { f = 1 } END { exit !f }" \
		/proc/fsgate/groups 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ]; then
			echo "# wait_group: after 10 s the group of pid $1 still not at $2:"
			awk -v p="$1" 'NR == 1 || $2 == p' /proc/fsgate/groups 2>&1 |
				sed 's/^/#   /'
			return 1
		fi
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
