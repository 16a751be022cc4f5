#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: fsgate-monitor as a user runs it. Text and JSON lines name
# the process, its uid, the events and the path; the filters (events,
# pid, comm, path prefix) keep only what they name; --count, --timeout
# and errors end it with inotifywait's exit codes; --journal falls back
# to stderr where there is no journal (this guest); a denied open is
# never reported. Prints TAP; a failed step is named and its output
# shown.

. scenario-tap.sh
need fsgate-monitor scanner
d=/tmp/monitor.$$
mkdir -p $d/w $d/other
mount -t tmpfs monitor $d/w || exit 1
mkdir $d/w/sub
echo hello >$d/w/a
echo below >$d/w/sub/b
echo elsewhere >$d/other/c
eicar='X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR'
echo "$eicar-STANDARD-ANTIVIRUS-TEST-FILE!\$H+H*" >$d/w/eicar
pids=
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	wait 2>/dev/null
	umount $d/w 2>/dev/null
}
trap cleanup EXIT

# start NAME ARG...: fsgate-monitor ARG... in the background, output in
# $d/NAME.out and .err, once its watches are set.
start() {
	name=$1
	shift
	fsgate-monitor "$@" >$d/$name.out 2>$d/$name.err &
	pids="$pids $!"
	eval "pid_$name=$!"
	wait_text $d/$name.err 'Watches established'
}
# stop NAME: end it with SIGTERM once it has read every event queued
# for it (the accesses before were queued as they happened); its exit
# status.
stop() {
	eval "_p=\$pid_$1"
	wait_group $_p '$7 == 0'
	kill $_p
	wait $_p
}
# held OUT PATTERN BODY [USER]: sh -c BODY (as USER) in the background,
# kept alive after BODY, so that the monitor can read its comm and uid
# from /proc, until OUT holds PATTERN (PID in it stands for the shell's
# pid, also left in $held), 10 s at most; 1 if it never did.
held() {
	# held.pid empty and writable by USER too; $d is root's.
	rm -f $d/release
	: >$d/held.pid
	chmod 666 $d/held.pid
	_body='echo $$ >'$d'/held.pid; '"$3"'; i=0
		while [ ! -e '$d'/release ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
	if [ -n "${4:-}" ]; then
		su -s /bin/sh "$4" -c "$_body" &
	else
		sh -c "$_body" &
	fi
	_h=$!
	wait_text $d/held.pid . && held=$(cat $d/held.pid) &&
		wait_text "$1" "$(echo "$2" | sed "s/PID/$held/")"
	_st=$?
	touch $d/release
	wait $_h
	return $_st
}

echo "1..14"

fsgate-monitor --help >$d/help.out && grep -q -- '--count' $d/help.out &&
	fsgate-monitor --version | grep -q '^fsgate-monitor [0-9]'
result $? "--help and --version" $d/help.out

fsgate-monitor --bogus $d/w >$d/bad.out 2>&1
st1=$?
fsgate-monitor -e open,bogus $d/w >>$d/bad.out 2>&1
st2=$?
fsgate-monitor -e open_perm $d/w >>$d/bad.out 2>&1
st3=$?
[ $st1 = 1 ] && [ $st2 = 1 ] && [ $st3 = 1 ] &&
	grep -q "unknown event at 'bogus'" $d/bad.out &&
	grep -q 'only notification events' $d/bad.out
result $? "bad usage exits 1 and says why" $d/bad.out

fsgate-monitor $d/nonexistent >$d/missing.out 2>&1
[ $? = 1 ] && grep -q "cannot watch $d/nonexistent" $d/missing.out
result $? "a path that cannot be watched exits 1" $d/missing.out

# Text: the directory with its files, every event. The readers stay
# alive until their open is reported, so that their comm and uid can be
# read.
start text $d/w
held $d/text.out "^[0-9:.]* PID sh 0 OPEN $d/w/a\$" "exec 3<$d/w/a"
shpid=$held
held $d/text.out "^[0-9:.]* [0-9]* sh 65534 OPEN $d/w/a\$" "exec 3<$d/w/a" nobody
stop text
grep -q "^[0-9:.]* $shpid sh 0 OPEN $d/w/a\$" $d/text.out &&
	grep -q "^[0-9:.]* $shpid sh 0 CLOSE_NOWRITE $d/w/a\$" $d/text.out
result $? "text: time, pid, comm, uid, event and path of an open and its close" \
	$d/text.out
grep -q "^[0-9:.]* [0-9]* sh 65534 OPEN $d/w/a\$" $d/text.out
result $? "text: the uid is the accessing process's" $d/text.out
! grep -q "$d/w/sub/b" $d/text.out
result $? "a directory mark does not reach into subdirectories" $d/text.out

# JSON, for one event type.
start json --json -e close_write $d/w
held $d/json.out '"CLOSE_WRITE"' "echo more >>$d/w/a"
cat $d/w/a >/dev/null
stop json
grep -q '^{"time":"[0-9-]*T[0-9:.]*Z","pid":[0-9]*,"comm":"sh","uid":0,"events":\["CLOSE_WRITE"\],"path":"'$d'/w/a"}$' \
	$d/json.out && [ "$(grep -c . $d/json.out)" = 1 ]
result $? "--json, -e close_write: one JSON line for the write only" \
	$d/json.out

# Filters on a filesystem mark: tail -f stays alive, to be named.
start filt --filesystem -e open --comm tail --prefix $d/w/sub $d/w
cat $d/w/sub/b >/dev/null
tail -f $d/w/a >/dev/null &
t1=$!
tail -f $d/w/sub/b >/dev/null &
t2=$!
# tail's open reported; the other two came before it.
wait_text $d/filt.out "^[0-9:.]* $t2 tail 0 OPEN $d/w/sub/b\$"
kill $t1 $t2
stop filt
grep -q "^[0-9:.]* $t2 tail 0 OPEN $d/w/sub/b\$" $d/filt.out &&
	[ "$(grep -c . $d/filt.out)" = 1 ]
result $? "--filesystem with --comm and --prefix: only tail's open below sub/" \
	$d/filt.out

# The process waits for its cue, so that its pid is known before it opens.
sh -c 'while [ ! -e '$d'/go ]; do sleep 0.1; done; exec cat '$d'/w/a' >/dev/null &
reader=$!
pids="$pids $reader"
start pid -e open --pid $reader $d/w
cat $d/w/a >/dev/null
touch $d/go
wait $reader
stop pid
[ "$(grep -c . $d/pid.out)" = 1 ] && grep -q "^[0-9:.]* $reader .* OPEN $d/w/a\$" $d/pid.out
result $? "--pid: only that process's open" $d/pid.out

# --count: exits 0 by itself after N events.
fsgate-monitor -e open -n 2 $d/w >$d/count.out 2>$d/count.err &
mon=$!
pids="$pids $mon"
wait_text $d/count.err 'Watches established'
cat $d/w/a $d/w/a $d/w/a >/dev/null
cat $d/w/a >/dev/null
i=0
while kill -0 $mon 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
wait $mon
[ $? = 0 ] && [ "$(grep -c . $d/count.out)" = 2 ]
result $? "--count 2 exits 0 after two events" $d/count.out

fsgate-monitor -q -t 1 $d/other >$d/timeout.out 2>&1
[ $? = 2 ] && [ ! -s $d/timeout.out ]
result $? "--timeout with no event exits 2" $d/timeout.out
fsgate-monitor -t 5 $d/other >$d/timeout2.out 2>$d/timeout2.err &
mon=$!
pids="$pids $mon"
wait_text $d/timeout2.err 'Watches established'
cat $d/other/c >/dev/null
wait $mon
[ $? = 0 ] && grep -q "OPEN $d/other/c" $d/timeout2.out
result $? "--timeout with an event exits 0" $d/timeout2.out

start journal --journal -e open $d/w
held $d/journal.err "^fsgate-monitor: OPEN $d/w/a by sh (pid PID)\$" "exec 3<$d/w/a"
stop journal
grep -q "^fsgate-monitor: OPEN $d/w/a by sh (pid [0-9]*)\$" $d/journal.err
result $? "--journal without a journal: the lines go to stderr" $d/journal.err

# The scanner (priority 2000) denies the EICAR file: no open to report.
scanner --no-cache $d/w >$d/scan.out 2>&1 &
pids="$pids $!"
wait_text $d/scan.out watching
start denied -e open $d/w
cat $d/w/eicar >/dev/null 2>&1
cat $d/w/a >/dev/null
stop denied
grep -q "OPEN $d/w/a\$" $d/denied.out && ! grep -q eicar $d/denied.out
result $? "a denied open is never reported" $d/denied.out
exit $failed
