#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/check's arguments: --help prints its usage and runs nothing, an
# unknown kernel is refused with exit 2 before anything is removed or
# run. It runs a copy of tests/check in a tree of its own, so that a
# tests/check that ignored its arguments could not touch the suite this
# test is part of. Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/scenarios/lib/tap.sh"

tree=$work/tree
for f in tests/check tests/kernels/common.sh tests/lib/check.sh; do
	install -D "$top/$f" "$tree/$f"
done
mkdir -p "$tree/build/check"
touch "$tree/build/check/marker"

# run NAME ARG...: the copy's output in $work/NAME, its exit status.
run() {
	local name=$1

	shift
	timeout 60 "$tree/tests/check" "$@" >"$work/$name" 2>&1
}
# Nothing ran: no part started and build/check/ was not cleared.
ran_nothing() {
	! grep -q '^== ' "$work/$1" && [ -e "$tree/build/check/marker" ]
}

echo "TAP version 13"
echo "1..2"
run help --help
rc=$?
[ $rc = 0 ] && grep -q '^usage: tests/check \[KERNEL\]' "$work/help" && ran_nothing help
result $? "tests/check --help prints its usage and runs nothing (exit $rc)" "$work/help"

run bad 6.1 no-such-kernel
rc=$?
[ $rc = 2 ] && grep -q "unknown kernel 'no-such-kernel'" "$work/bad" && ran_nothing bad
result $? "tests/check refuses an unknown kernel with exit 2 and runs nothing (exit $rc)" \
	"$work/bad"
exit $failed
