#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How tests/check counts its parts (tests/lib/check.sh): a host binary
# that dies before its plan, a part with no results, a missing log, a
# truncated stream, a KUnit suite that does not report and a guest boot
# whose tests/vm failed before it booted are each a failure in the part
# and in the total; tests/guest/kunit-suites names every suite kmod/
# declares. Prints TAP.
set -uo pipefail
FSGATE_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$FSGATE_TOP/tests/lib/check.sh"
count=$FSGATE_TOP/build/bin/ktap-count
consoles=$FSGATE_TOP/tests/harness/consoles
suites=$FSGATE_TOP/tests/guest/kunit-suites
# The suites the recorded console (consoles/kunit.log) ran: the live list
# grows with kmod/, the recording does not.
recorded=$consoles/kunit-suites
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$FSGATE_TOP/tests/scenarios/lib/tap.sh"

# counts LIST STATUS "P passed, F failed, S skipped": count_part on
# LIST returns STATUS, and the total over what LIST then names is that.
counts() {
	local list=$1 want=$2 totals=$3 status files

	count_part part "$list" >"$work/part.out" 2>&1
	status=$?
	mapfile -t files <"$list"
	"$count" --quiet --name total "${files[@]}" >>"$work/part.out" 2>&1
	[ "$status" = "$want" ] && grep -q "^total: $totals" "$work/part.out"
}

echo "TAP version 13"
echo "1..9"

# A cmocka binary killed before its plan printed its version line only.
printf 'TAP version 13\n' >"$work/died.tap"
host_result died_test 139 >"$work/died.exit.tap"
printf '%s\n' "$work/died.tap" "$work/died.exit.tap" >"$work/l1"
counts "$work/l1" 1 "0 passed, 1 failed, 0 skipped"
result $? "a host binary that dies before its plan is a failure" "$work/part.out"

: >"$work/empty.log"
echo "$work/empty.log" >"$work/l2"
counts "$work/l2" 1 "0 passed, 1 failed, 0 skipped"
result $? "a part with no results is a failure" "$work/part.out"

printf 'TAP version 13\n1..1\nok 1 a\n' >"$work/one.tap"
printf '%s\n' "$work/one.tap" "$work/gone.log" >"$work/l3"
counts "$work/l3" 1 "1 passed, 1 failed, 0 skipped"
result $? "a missing log is a failure" "$work/part.out"

printf 'TAP version 13\n1..3\nok 1 a\n' >"$work/short.tap"
echo "$work/short.tap" >"$work/l4"
counts "$work/l4" 1 "1 passed, 1 failed, 0 skipped"
result $? "a part short of its plan is a failure" "$work/part.out"

kunit_tap "$consoles/kunit.log" "$recorded" >"$work/kunit.tap"
echo "$work/kunit.tap" >"$work/l5"
counts "$work/l5" 0 "6 passed, 0 failed, 0 skipped"
result $? "KUnit: every listed suite reports" "$work/part.out"

# The same console without fsgate_event's output.
awk '/# Subtest: fsgate_event/ { skip = 1 } !skip { print }
     skip && /ok [0-9]+ fsgate_event/ { skip = 0 }' \
	"$consoles/kunit.log" >"$work/missing.log"
kunit_tap "$work/missing.log" "$recorded" >"$work/kunit.tap"
echo "$work/kunit.tap" >"$work/l6"
counts "$work/l6" 1 "4 passed, 2 failed, 0 skipped" &&
	grep -q "fsgate_event: the suite did not report" "$work/part.out"
result $? "KUnit: a suite that does not report is a failure" "$work/part.out"

# tests/check's jiffies boot where tests/vm dies before booting (no
# kernel prepared in an empty cache): its result names the harness
# error, and its output, which the guest never wrote, is missing.
FSGATE_CACHE=$work/cache guest_boot 6.1 "6.1: filter_test on a jiffies clock" \
	"$work/jiffies" "$work/l7" --append clocksource=jiffies \
	-- /fsgate/bin/filter_test >"$work/boot.out"
counts "$work/l7" 1 "0 passed, 2 failed, 0 skipped" &&
	grep -q "not ok 1 6.1: filter_test on a jiffies clock: harness error" \
		"$work/jiffies/guest.tap" && grep -q "kernel '6.1' is not prepared" "$work/boot.out"
status=$?
cat "$work/boot.out" "$work/jiffies/guest.tap" >>"$work/part.out"
result $status "a guest boot whose tests/vm fails before booting is a failure" \
	"$work/part.out"

# A failure's reasons reach CI's output: the kselftest lines before it
# and a scenario's log after it, not those of the results that passed.
printf '%s\n' 'TAP version 13' '1..3' '# RUN a' '# a passed' 'ok 1 a' \
	'# x.c:12:b:Expected 1 (1) == 2 (2)' 'not ok 2 b' '# b: log line' \
	'ok 3 c' '# c: after' >"$work/why.tap"
echo "$work/why.tap" >"$work/l8"
counts "$work/l8" 1 "2 passed, 1 failed, 0 skipped" &&
	grep -q "^    # x.c:12:b:Expected 1 (1) == 2 (2)$" "$work/part.out" &&
	grep -q "^    $work/why.tap: not ok 2 b$" "$work/part.out" &&
	grep -q "^    # b: log line$" "$work/part.out" &&
	! grep -qE "a passed|c: after" "$work/part.out"
result $? "a failure is shown with the comments around it" "$work/part.out"

grep -rhoE --include='*.c' '\.name = "fsgate_[a-z_]+"' "$FSGATE_TOP/kmod" |
	sed -E 's/.*"(.*)"/\1/' | sort >"$work/declared"
sort "$suites" | diff - "$work/declared" >"$work/diff"
result $? "tests/guest/kunit-suites names every suite kmod/ declares" "$work/diff"
exit $failed
