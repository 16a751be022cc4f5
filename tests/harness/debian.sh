#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian system test's verdict on a boot (debian_boot_result, which
# tests/debian/system-test runs on each boot that ended in time): a
# clean Debian 12 boot that reported is a pass, and the same boot with a
# WARN in its console is a failure that shows the WARN. consoles/
# debian.log is that clean boot's console as recorded: the check boot of
# the Debian system test on 6.1 (build/check/debian/6.1/console-check.log
# of a make check run), each line with its "\r" and a timestamp but for
# systemd's own; the WARN is the one tests/harness/crash recorded on
# 6.1 (the first two lines of consoles/splats.log), put in after fsgate
# loads. Prints TAP.
set -uo pipefail
FSGATE_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$FSGATE_TOP/tests/lib/check.sh"
consoles=$FSGATE_TOP/tests/harness/consoles
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$FSGATE_TOP/tests/scenarios/lib/tap.sh"

# verdict CONSOLE: debian_boot_result on CONSOLE for a boot that
# reported, its output in $work/boot.tap; its status.
verdict() {
	echo "rc=0" >"$work/result"
	debian_boot_result 1 "6.1: check" "$1" "$work/result" 40 >"$work/boot.tap"
}

echo "TAP version 13"
echo "1..2"

verdict "$consoles/debian.log" &&
	grep -qx 'ok 1 6.1: check: booted, ran and powered off (40 s)' "$work/boot.tap"
result $? "a clean Debian boot that reported passes" "$work/boot.tap"

head -2 "$consoles/splats.log" >"$work/warn"
sed "/fsgate: loading out-of-tree module/r $work/warn" "$consoles/debian.log" \
	>"$work/warn.log"
! verdict "$work/warn.log" &&
	grep -qx 'not ok 1 6.1: check: kernel splat' "$work/boot.tap" &&
	grep -q '^# WARNING: CPU: 1 PID: 105 at ' "$work/boot.tap"
result $? "a WARN in a Debian boot's console is a kernel splat" "$work/boot.tap"
exit $failed
