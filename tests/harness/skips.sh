#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real program missing from the guest: run-suite with the three
# scenarios that need one (clamav, fatrace, inotify), on this host with
# none of their programs on PATH, must count three skips, or three
# failures with FSGATE_REQUIRE_PROGS=1 (CI, or after make deps); and
# making the guest programs must name what is missing. Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
count=$top/build/bin/ktap-count
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/scenarios/lib/tap.sh"

# A PATH of the few tools run-suite itself uses, and the scenarios.
mkdir -p "$work/path" "$work/bin"
for tool in sh sed cat grep ls rm; do
	ln -s "$(command -v $tool)" "$work/path/$tool"
done
ln -s "$top/tests/scenarios/lib/tap.sh" "$work/path/scenario-tap.sh"
for s in clamav fatrace inotify; do
	install -m 0755 "$top/tests/scenarios/$s.sh" "$work/bin/${s}_scenario_test"
done

suite() {
	env -i PATH="$work/path" FSGATE_BIN="$work/bin" TMPDIR="$work" \
		FSGATE_REQUIRE_PROGS="$1" sh "$top/tests/guest/run-suite" \
		>"$work/suite.$1.tap" 2>&1
	"$count" --quiet --name suite "$work/suite.$1.tap" >"$work/count.$1" 2>&1
	echo $? >>"$work/count.$1"
}

echo "TAP version 13"
echo "1..3"
suite 0
[ "$(cat "$work/count.0")" = "$(printf 'suite: 0 passed, 0 failed, 3 skipped\n0')" ]
result $? "missing programs: three scenarios counted as skipped" "$work/suite.0.tap"
suite 1
[ "$(cat "$work/count.1")" = "$(printf 'suite: 0 passed, 3 failed, 0 skipped\n1')" ]
result $? "missing programs when required: three failures" "$work/suite.1.tap"

make -s -C "$top" --no-print-directory guest GUEST_PROG_DIRS="$work/none" \
	>"$work/make.out" 2>&1 &&
	grep -q 'not in the guest: fatrace clamd clamonacc inotifywait' "$work/make.out"
result $? "make names the real programs it cannot put in the guest" "$work/make.out"
exit $failed
