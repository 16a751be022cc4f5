#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: fsgatectl with the example scanner (2000) and fsgate-monitor
# (1000) running: status, groups in asking order as text and JSON, top's
# rates while files are opened, and params with their checks. Prints
# TAP; a failed step is named and its output shown.

. scenario-tap.sh
need fsgatectl fsgate-monitor scanner
d=/tmp/ctl.$$
mkdir -p $d/w
mount -t tmpfs ctl $d/w || exit 1
i=0
while [ $i -lt 50 ]; do echo "file $i" >$d/w/f$i; i=$((i + 1)); done
pids=
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	wait 2>/dev/null
	umount $d/w 2>/dev/null
}
trap cleanup EXIT

echo "1..9"

fsgatectl --help >$d/help.out && grep -q 'params \[NAME' $d/help.out &&
	fsgatectl --version | grep -q '^fsgatectl [0-9]'
st=$?
fsgatectl frobnicate 2>>$d/help.out
st2=$?
[ $st = 0 ] && [ $st2 = 2 ]
result $? "--help, --version; an unknown command exits 2" $d/help.out

fsgatectl status >$d/status.out
[ $? = 0 ] && grep -q "^fsgate.ko: loaded, version $(cat /sys/module/fsgate/version), " $d/status.out &&
	grep -q '^device: /dev/fsgate present' $d/status.out &&
	grep -q '^features: .* report-perm report-proc extend version' $d/status.out &&
	grep -q '^  default_timeout_ms  *10000  ' $d/status.out
result $? "status: loaded, the device, the parameters" $d/status.out

scanner --no-cache $d/w >$d/scan.out 2>&1 &
pids="$pids $!"
fsgate-monitor -q -e open $d/w >$d/mon.out 2>&1 &
mon=$!
pids="$pids $mon"
# Both groups listed and marked, which the listing below checks.
wait_text $d/scan.out watching && wait_group $mon '$6 > 0'

fsgatectl groups >$d/groups.out
awk 'NR > 1 { print $3, $4, $5 }' $d/groups.out >$d/order.out
[ "$(cat $d/order.out)" = "scanner content 2000
fsgate-monitor notif 1000" ]
result $? "groups: in asking order, with comm, class and priority" \
	$d/groups.out

fsgatectl groups --json >$d/groups.json
grep -q '^\[{"id":[0-9]*,"pid":[0-9]*,"comm":"scanner","class":"content","priority":2000,"marks":1,.*"cached":0,"absent":0,"rereported":0,"attached":1,"persist":null},{"id":[0-9]*,"pid":[0-9]*,"comm":"fsgate-monitor","class":"notif","priority":1000,.*}\]$' \
	$d/groups.json
result $? "groups --json: one array, the fields named" $d/groups.json

# The opens after top's first frame, in the interval of its second: top
# prints a frame, flushed, at the end of each interval.
(wait_text $d/top.out '^fsgatectl top' >/dev/null &&
	for i in $(seq 0 49); do cat $d/w/f$i; done >/dev/null) &
fsgatectl top -d 1.5 -n 2 >$d/top.out
st=$?
awk '$2 == "scanner" && $6 > 0 { found = 1 } END { exit !found }' $d/top.out
seen=$?
[ $st = 0 ] && [ $seen = 0 ] && [ "$(grep -c '^fsgatectl top' $d/top.out)" = 2 ]
result $? "top -n 2: two frames; the scanner's asked/s while files open" \
	$d/top.out

fsgatectl top --once -d 0.2 >$d/once.out
[ $? = 0 ] && [ "$(grep -c '^fsgatectl top' $d/once.out)" = 1 ]
result $? "top --once: one frame" $d/once.out

fsgatectl params default_timeout_ms=5000 >$d/params.out 2>&1 &&
	[ "$(fsgatectl params default_timeout_ms)" = "default_timeout_ms = 5000" ] &&
	[ "$(cat /sys/module/fsgate/parameters/default_timeout_ms)" = 5000 ]
result $? "params NAME=VALUE sets, NAME reads it back" $d/params.out

fsgatectl params default_timeout_ms=9999999 >>$d/params.out 2>&1
st1=$?
fsgatectl params max_groups=3 nosuch=1 >>$d/params.out 2>&1
st2=$?
[ $st1 = 2 ] && [ $st2 = 2 ] &&
	[ "$(cat /sys/module/fsgate/parameters/default_timeout_ms)" = 5000 ] &&
	[ "$(cat /sys/module/fsgate/parameters/max_groups)" = 128 ] &&
	grep -q 'must be a number in 1..3600000' $d/params.out
result $? "params: out of range or unknown: exit 2, nothing changed" \
	$d/params.out

fsgatectl params default_timeout_ms=10000 >/dev/null
fsgatectl params >$d/all.out
[ "$(grep -c '^  [a-z_]*  *[0-9]*  ' $d/all.out)" = 11 ]
result $? "params: every parameter with its value" $d/all.out
exit $failed
