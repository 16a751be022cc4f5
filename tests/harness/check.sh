#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fsgate-check on the host, with no fsgate.ko needed: its module check
# names why a module is missing (--kmod of one this kernel has not got,
# or of one loaded without the device), and its daemon check reads a
# group list from a file (--groups) and the units' states from a
# systemctl of the test's own, first on PATH, which answers `show` from
# $work/units (UNIT LoadState ActiveState UnitFileState, a line each).
# Runs the built program (build/); prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/scenarios/lib/tap.sh"
check=$top/build/bin/fsgate-check

mkdir "$work/bin"
cat >"$work/bin/systemctl" <<'EOS'
#!/bin/sh
unit=$(for a; do :; done; echo "$a")
awk -v u="$unit" '$1 == u { print "LoadState=" $2; print "ActiveState=" $3; print "UnitFileState=" $4; f = 1 }
	END { if (!f) { print "LoadState=not-found"; print "ActiveState=inactive"; print "UnitFileState=" } }' \
	"$FSGATE_TEST_UNITS"
EOS
chmod +x "$work/bin/systemctl"
export FSGATE_TEST_UNITS=$work/units

# run NAME ARG...: fsgate-check's output in $work/NAME, its exit status.
run() {
	local name=$1

	shift
	PATH=$work/bin:$PATH "$check" "$@" >"$work/$name" 2>&1
}
# units LINE...: the units' states the fake systemctl reports.
units() { printf '%s\n' "$@" >"$work/units"; }
# groups LINE...: a group list (header first) in $work/groups.
groups() {
	printf 'id pid comm class priority attached name\n' >"$work/groups"
	printf '%s\n' "$@" >>"$work/groups"
}

echo "TAP version 13"
echo "1..9"

run built -m --kmod fsgate_not_built
rc=$?
[ $rc = 3 ] && grep -q '^fsgate_not_built: fsgate_not_built.ko is not loaded: it is not built for the running kernel .*dkms status fsgate_not_built' "$work/built"
result $? "a module not built for this kernel: exit 3 (got $rc), and it says so, with dkms status" "$work/built"

# /sys/module/kernel: the parameters of the kernel itself, always there.
run nodev -m --kmod kernel --device "$work/nodev"
rc=$?
[ $rc = 3 ] && grep -q "^kernel: kernel.ko is loaded but $work/nodev is missing: udev" "$work/nodev"
result $? "a module loaded without its device: exit 3 (got $rc), and it says the device is missing" "$work/nodev"

units "fsgate-scan.service loaded active enabled" "fsgate-hsm.service loaded active enabled"
groups "3 40 fsgate-scan content 2000 1 -" "5 41 fsgate-hsm pre-content 3000 1 fsgate-hsm"
run fine --groups "$work/groups"
rc=$?
[ $rc = 0 ] && [ "$(cat "$work/fine")" = "ok: every enabled daemon is protecting" ]
result $? "both daemons active with their groups read: exit 0 (got $rc), ok" "$work/fine"

units "fsgate-scan.service loaded active enabled" "fsgate-hsm.service loaded failed enabled"
groups "3 40 fsgate-scan content 2000 1 -"
run failed --groups "$work/groups"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$work/failed")" = 1 ] &&
	grep -q '^fsgate-hsm.service: fsgate-hsm.service is enabled but failed: not protecting' "$work/failed"
result $? "an enabled unit that failed: exit 1 (got $rc), one line naming it" "$work/failed"

units "fsgate-scan.service loaded active enabled" "fsgate-hsm.service loaded active enabled"
groups "3 40 fsgate-scan content 2000 1 -"
run nogroup --groups "$work/groups"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$work/nogroup")" = 1 ] &&
	grep -q '^fsgate-hsm.service: fsgate-hsm.service is active but no group of fsgate-hsm is in the module' "$work/nogroup"
result $? "an active unit whose group is not in the module's list: exit 1 (got $rc), one line" "$work/nogroup"

# Any user may make a notification group under the daemon's name: it
# does not stand for the daemon's group, which decides accesses.
units "fsgate-scan.service loaded active enabled" "fsgate-hsm.service loaded inactive disabled"
groups "9 60 fsgate-scan notif 0 1 -"
run impostor --groups "$work/groups"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$work/impostor")" = 1 ] &&
	grep -q '^fsgate-scan.service: fsgate-scan.service is active but no group of fsgate-scan is in the module' "$work/impostor"
result $? "a user's notification group named as the daemon is not its group: exit 1 (got $rc), one line" "$work/impostor"

units "fsgate-scan.service loaded active enabled" "fsgate-hsm.service loaded inactive disabled"
groups "3 40 fsgate-scan content 2000 1 -" "5 41 fsgate-hsm pre-content 3000 0 fsgate-hsm"
run absent --groups "$work/groups"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$work/absent")" = 1 ] &&
	grep -q '^fsgate-hsm: persistent group fsgate-hsm (id 5) has no daemon attached' "$work/absent"
result $? "a persistent group with no daemon attached: exit 1 (got $rc), one line; a disabled unit is none" "$work/absent"

units "fsgate-scan.service loaded active enabled" "fsgate-hsm.service loaded activating enabled"
run json --json --groups "$work/groups"
rc=$?
[ $rc = 1 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False
assert [(p["what"], p["subject"]) for p in d["problems"]] == \
	[("unit", "fsgate-hsm.service"), ("group", "fsgate-hsm")], d
' "$work/json" >>"$work/json" 2>&1
result $? "--json: ok false and both problems, each with what, subject and reason (exit $rc)" "$work/json"

units "fapolicyd.service loaded active enabled" "fsgate-hsm.service loaded failed enabled"
groups "7 50 fsgate-run content 2500 1 -"
run unit --unit fapolicyd.service=fsgate-run --groups "$work/groups"
rc=$?
[ $rc = 0 ] && grep -q '^ok:' "$work/unit"
result $? "--unit UNIT=COMM checks that unit in place of the default ones (exit $rc)" "$work/unit"
exit $failed
