#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: fsgatectl with the example scanner (2000) and fsgate-monitor
# (1000) running: status, groups in asking order as text and JSON (each
# group's policies and marks by type too), top's rates while files are
# opened, metrics in the Prometheus text format, why and trace from the
# module's trace events, and params with their checks, --persist's
# modprobe.d file too. Prints TAP; a failed step is named and its output
# shown.

. scenario-tap.sh
need fsgatectl fsgate-monitor scanner
d=/tmp/ctl.$$
mkdir -p $d/w
mount -t tmpfs ctl $d/w || exit 1
i=0
while [ $i -lt 50 ]; do echo "file $i" >$d/w/f$i; i=$((i + 1)); done
echo "X5O!P%@AP[4\\PZX54(P^)7CC)7}\$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!\$H+H*" \
	>$d/w/eicar
pids=
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	wait 2>/dev/null
	umount $d/w 2>/dev/null
}
trap cleanup EXIT

echo "1..17"

fsgatectl --help >$d/help.out && grep -q 'params \[-p|--persist\] \[NAME' $d/help.out &&
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
grep -q '^\[{"id":[0-9]*,"pid":[0-9]*,"comm":"scanner","class":"content","priority":2000,"marks":1,.*"cached":0,"absent":0,"rereported":0,"attached":1,"persist":null,"policy":{"timeout_ms":10000,"max_wait_ms":60000,"timeout_verdict":"allow","orphan_verdict":"allow"},"marks_by_type":{"inode":0,"mount":0,"filesystem":1}},{"id":[0-9]*,"pid":[0-9]*,"comm":"fsgate-monitor","class":"notif","priority":1000,.*}\]$' \
	$d/groups.json
result $? "groups --json: one array, the fields named, policies and marks by type" \
	$d/groups.json

grep -q '"comm":"scanner",.*"perm_overflows":[0-9]*,"unopened":[0-9]*,"cache_entries":[0-9]*,"cache_evictions":[0-9]*,"cache_flushes":[0-9]*,"muted":[0-9]*,"extended":[0-9]*,"filtered":[0-9]*,"cached":0,' \
	$d/groups.json
result $? "groups --json: every counter of struct fsgate_stats" $d/groups.json

# One access the scanner is asked about (cat waits for its answer).
cat $d/w/f0 >/dev/null
fsgatectl metrics --output $d/m/fsgate.prom 2>$d/metrics.out
st=$?
mkdir -p $d/m
fsgatectl metrics --output $d/m/fsgate.prom 2>>$d/metrics.out
st2=$?
{ cat $d/m/fsgate.prom; ls $d/m; } >>$d/metrics.out 2>&1
[ $st = 1 ] && [ $st2 = 0 ] && [ "$(ls $d/m)" = fsgate.prom ] &&
	grep -q '^fsgate_loaded 1$' $d/m/fsgate.prom &&
	grep -q '^fsgate_groups 2$' $d/m/fsgate.prom &&
	grep -q '^fsgate_parameter{name="max_groups"} 128$' $d/m/fsgate.prom &&
	grep -q '^# TYPE fsgate_group_asked_total counter$' $d/m/fsgate.prom &&
	grep -q '^fsgate_group_asked_total{id="[0-9]*",comm="scanner",class="content",priority="2000"} [1-9][0-9]*$' \
		$d/m/fsgate.prom &&
	grep -q '^fsgate_group_pending{id="[0-9]*",comm="fsgate-monitor",class="notif",priority="1000"} 0$' \
		$d/m/fsgate.prom &&
	grep -q '^fsgate_group_timeout_seconds{id="[0-9]*",comm="scanner",class="content",priority="2000"} 10$' \
		$d/m/fsgate.prom &&
	grep -q '^fsgate_group_orphan_verdict{id="[0-9]*",comm="scanner",class="content",priority="2000",verdict="allow"} 1$' \
		$d/m/fsgate.prom &&
	grep -q '^fsgate_group_marks_by_type{id="[0-9]*",comm="scanner",class="content",priority="2000",type="filesystem"} 1$' \
		$d/m/fsgate.prom
result $? "metrics --output: the file replaced whole, or exit 1 without its directory" \
	$d/metrics.out

# why: the next access to the file, once its tracefs instance is made.
fsgatectl why -n 1 -t 30 $d/w/eicar >$d/why.out 2>$d/why.err &
why=$!
wait_text $d/why.err '^fsgatectl: tracing in '
inst=$(sed -n 's/^fsgatectl: tracing in //p' $d/why.err)
cat $d/w/f1 $d/w/eicar >/dev/null 2>&1
wait $why
st=$?
{ cat $d/why.err; echo "instance: $inst"; } >>$d/why.out
[ $st = 0 ] && [ -n "$inst" ] && [ ! -e "$inst" ] &&
	[ "$(grep -c '^access' $d/why.out)" = 1 ] &&
	grep -q "^access 1 at [0-9.]*: pid [0-9]* (cat) OPEN_PERM on [0-9]*:[0-9]* inode [0-9]* $d/w/eicar\$" \
		$d/why.out &&
	grep -q '^  1\. group [0-9]* scanner (content, priority 2000): deny EPERM by answer after [0-9.]* ms$' \
		$d/why.out &&
	grep -q '^  verdict: deny EPERM, decided by group [0-9]* scanner (answer); 1 group matched$' \
		$d/why.out
result $? "why PATH: the group asked, its deny, the verdict that stood; its instance removed" \
	$d/why.out

# trace --json -p: one line per access of that process, until SIGTERM.
sh -c 'while [ ! -e '$d'/go ]; do sleep 0.1; done; exec cat '$d'/w/f2 '$d'/w/f3' \
	>/dev/null &
reader=$!
fsgatectl trace --json -p $reader >$d/trace.json 2>$d/trace.err &
tracer=$!
wait_text $d/trace.err '^fsgatectl: tracing in '
inst=$(sed -n 's/^fsgatectl: tracing in //p' $d/trace.err)
cat $d/w/f4 >/dev/null
touch $d/go
wait $reader
wait_text $d/trace.json "\"ino\":$(stat -c %i $d/w/f3),"
kill -TERM $tracer
# Bounded: a tracer that does not end is a failure, with where it waits.
i=0
while kill -0 $tracer 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $tracer 2>/dev/null; then
	{ echo "# still running after SIGTERM:"; cat /proc/$tracer/wchan
	  echo; cat /proc/$tracer/stack; ps; } >>$d/trace.err 2>&1
	kill -KILL $tracer
fi
wait $tracer
st=$?
{ cat $d/trace.err; echo "instance: $inst"; } >>$d/trace.json
line='^{"access":[0-9]*,"ts":[0-9.]*,"pid":'$reader',"tid":'$reader',"comm":"cat","dev":"[0-9]*:[0-9]*","ino":[0-9]*,"path":null,"mask":"OPEN_PERM","asked":\[{"group":[0-9]*,"group_comm":"scanner","class":"content","priority":2000,"id":[0-9]*,"verdict":"allow","errno":null,"by":"answer","latency_ns":[0-9]*}\],"more":0,"verdict":"allow","errno":null,"decided_by":0,"decided_by_comm":null,"by":"[a-z]*","groups":1}$'
[ $st = 0 ] && [ -n "$inst" ] && [ ! -e "$inst" ] &&
	[ "$(grep -c '^{' $d/trace.json)" = 2 ] &&
	[ "$(grep -c "$line" $d/trace.json)" = 2 ] &&
	grep -q "\"ino\":$(stat -c %i $d/w/f2)," $d/trace.json &&
	grep -q "\"ino\":$(stat -c %i $d/w/f3)," $d/trace.json
result $? "trace --json -p PID: a JSON line per access of PID; SIGTERM removes its instance" \
	$d/trace.json

# Without tracefs (a mount namespace without it), and as a user: said.
unshare -m sh -c 'umount -l /sys/kernel/tracing 2>/dev/null
	umount -l /sys/kernel/debug/tracing 2>/dev/null
	umount -l /sys/kernel/debug 2>/dev/null
	exec fsgatectl why -t 1' >$d/notrace.out 2>&1
st=$?
su -s /bin/sh nobody -c "$(command -v fsgatectl) why -t 1" >$d/user.out 2>&1
st2=$?
cat $d/user.out >>$d/notrace.out
[ $st = 1 ] && [ $st2 = 1 ] &&
	grep -q '^fsgatectl: tracefs is not mounted .*mount -t tracefs tracefs /sys/kernel/tracing$' \
		$d/notrace.out &&
	grep -q "^fsgatectl: reading the kernel's trace events needs root" $d/user.out
result $? "why: no tracefs, or not root: said, exit 1" $d/notrace.out

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
[ "$(grep -c '^  [a-z_]*  *[0-9]*  ' $d/all.out)" = 12 ]
result $? "params: every parameter with its value" $d/all.out

# --persist writes /etc/modprobe.d/fsgate.conf: this guest's, made here.
conf=/etc/modprobe.d/fsgate.conf
made_dir=
[ -d /etc/modprobe.d ] || { mkdir -p /etc/modprobe.d && made_dir=1; }
rm -f $conf
fsgatectl params --persist max_groups=64 default_timeout_ms >$d/persist.out 2>&1 &&
	[ "$(cat /sys/module/fsgate/parameters/max_groups)" = 64 ] &&
	grep -qx 'options fsgate max_groups=64 default_timeout_ms=10000' $conf &&
	fsgatectl params --persist max_groups=32 >>$d/persist.out 2>&1 &&
	grep -qx 'options fsgate max_groups=32 default_timeout_ms=10000' $conf &&
	[ "$(grep -c '^options' $conf)" = 1 ]
st=$?
cat $conf >>$d/persist.out 2>&1
result $st "params --persist: set now, written to modprobe.d, one options line" \
	$d/persist.out

cp $conf $d/conf.before
fsgatectl params --persist max_marks=5 nosuch=1 >$d/unknown.out 2>&1
st=$?
[ $st = 2 ] && cmp -s $conf $d/conf.before &&
	[ "$(cat /sys/module/fsgate/parameters/max_marks)" != 5 ] &&
	grep -q "unknown parameter 'nosuch'; it takes .*max_groups.* fanotify_order" \
		$d/unknown.out
result $? "params --persist: an unknown name refused with the names it takes" \
	$d/unknown.out

order=$(cat /sys/module/fsgate/parameters/fanotify_order)
fsgatectl params --persist fanotify_order=content >$d/order.out 2>&1 &&
	grep -qx 'options fsgate max_groups=32 default_timeout_ms=10000 fanotify_order=content' $conf &&
	[ "$(cat /sys/module/fsgate/parameters/fanotify_order)" = "$order" ]
st=$?
fsgatectl params --persist fanotify_order >>$d/order.out 2>&1
st2=$?
cat $conf >>$d/order.out 2>&1
[ $st = 0 ] && [ $st2 = 2 ]
result $? "params --persist fanotify_order: written for the next load only" \
	$d/order.out
fsgatectl params max_groups=128 >/dev/null
rm -f $conf
[ -z "$made_dir" ] || rmdir /etc/modprobe.d
exit $failed
