#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo` (busybox sh); see examples/demo. make
# check runs it too, as demo_test.
step=0

say() {
	step=$((step + 1))
	printf '\n[%d] %s\n' "$step" "$*"
}
fail() {
	printf '\nDEMO FAILED at step %d: %s\n' "$step" "$*"
	exit 1
}
# Priorities of the groups listed in /proc/fsgate/groups, in list order.
listed() {
	awk 'NR > 1 { printf "%s ", $5 }' /proc/fsgate/groups
}

say "fsgate.ko is loaded in a Debian $(uname -r) guest; no group exists yet:"
cat /proc/fsgate/groups
[ "$(listed)" = "" ] || fail "groups exist before any was made"

say "Three programs make groups, in the worst possible order: a monitor
    (notif class), a scanner (content) and an HSM (pre-content), each
    taking its class's default priority."
mkfifo /tmp/hold
mkgroups notif content pre-content </tmp/hold &
exec 3>/tmp/hold
sleep 1
cat /proc/fsgate/groups
[ "$(listed)" = "3000 2000 1000 " ] ||
	fail "groups are not in priority order: $(listed)"
echo "    Listed, and asked, highest priority first: HSM, scanner, monitor."

say "A second scanner asks for an explicit priority of 2500: it is placed
    between the HSM and the first scanner, whatever its class says."
mkgroups content:2500 </tmp/hold 3>&- &
sleep 1
cat /proc/fsgate/groups
[ "$(listed)" = "3000 2500 2000 1000 " ] ||
	fail "explicit priority not honoured: $(listed)"

say "The groups live as long as their fds: the programs exit."
exec 3>&-
wait
cat /proc/fsgate/groups
[ "$(listed)" = "" ] || fail "groups left behind: $(listed)"

printf '\nSummary: groups were ordered by explicit priority (3000, 2500,
2000, 1000) regardless of the order they were made in, and went away with
their programs. Events and allow/deny decisions come next.\n'
