#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: a persistent group made by an administrator with fsgatectl
# before any daemon runs, as an early-boot unit would: from that moment
# an open on the marked filesystem is decided by the group's absent
# verdict (no daemon attached), the group is listed by name with no fd
# attached, a second group of the same name is refused, and removing it
# lets opens through again. Prints TAP; a failed step is named and its
# output shown.

. scenario-tap.sh
need fsgatectl
d=/tmp/persist.$$
mkdir -p $d/w
mount -t tmpfs persist $d/w || exit 1
echo content >$d/w/file
cleanup() {
	fsgatectl group remove gate 2>/dev/null
	umount $d/w 2>/dev/null
}
trap cleanup EXIT

echo "1..9"

fsgatectl group create gate --class content --priority 2500 \
	--mark $d/w --absent deny:EIO --absent-ms 0 >$d/create.out 2>&1
result $? "group create: a content group on the filesystem, absent verdict EIO" \
	$d/create.out

cat $d/w/file >$d/cat.out 2>&1
st=$?
[ $st != 0 ] && grep -q 'Input/output error' $d/cat.out
result $? "with no daemon attached an open gets EIO, not the file" $d/cat.out

# Columns by the names of the header line: no fd attached, the name.
awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     $c["class"] == "content" && $c["priority"] == 2500 &&
     $c["attached"] == 0 && $c["name"] == "gate" { f = 1 }
     END { exit !f }' /proc/fsgate/groups
result $? "/proc/fsgate/groups lists it by name with no fd attached" \
	/proc/fsgate/groups

# fsgatectl names it, its absent verdict and that it decides by it now.
fsgatectl groups >$d/groups.out 2>&1 &&
	grep -q ' 0 gate deny:EIO, absent now$' $d/groups.out
result $? "fsgatectl groups: no fd attached, the name, absent now" \
	$d/groups.out

fsgatectl groups --json >$d/groups.json 2>&1 &&
	grep -q '"attached":0,"persist":{"name":"gate","owner":0,"absent_ms":0,"absent_verdict":"deny:EIO","linger_ms":null,"absent_left_ms":0,"linger_left_ms":null,"attaches":0,"handovers":0}' \
		$d/groups.json
result $? "fsgatectl groups --json: the persist object, kept until removed" \
	$d/groups.json

# Group ids are handed out one after another: a create refused for its
# name made no group meanwhile (none marked, none for an open to wait
# on) if the probes made around it have ids one apart.
probe_id() {
	fsgatectl group create "$1" --class notif --mark $d/w &&
		awk -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["name"] == n { print $c["id"] }' /proc/fsgate/groups &&
		fsgatectl group remove "$1"
}
id1=$(probe_id probe1 2>>$d/again.out)
fsgatectl group create gate --mark $d/w >>$d/again.out 2>&1
st=$?
id2=$(probe_id probe2 2>>$d/again.out)
echo "probe ids: ${id1:-none} ${id2:-none}" >>$d/again.out
[ $st = 1 ] && grep -q 'another group has that name' $d/again.out &&
	[ -n "$id1" ] && [ "$id2" = $((id1 + 1)) ]
result $? "a second group of the same name: exit 1, saying why, and no group made meanwhile" \
	$d/again.out

fsgatectl group create half --mark $d/w --mark $d/missing >$d/half.out 2>&1
st=$?
[ $st = 1 ] && grep -q "cannot mark $d/missing" $d/half.out &&
	! awk 'NR > 1 && $NF == "half"' /proc/fsgate/groups | grep -q .
result $? "a mark that fails: exit 1, and no group of that name is left" $d/half.out

fsgatectl group remove gate >$d/remove.out 2>&1 &&
	[ "$(cat $d/w/file)" = content ]
result $? "group remove: opens go through again" $d/remove.out

fsgatectl group remove gate >$d/remove2.out 2>&1
st=$?
[ $st = 1 ] && grep -q 'no persistent group has that name' $d/remove2.out
result $? "removing it again: exit 1, no such group" $d/remove2.out
exit $failed
