#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: inotify users keep working beside fsgate. inotifywait watches
# a directory while an fsgate scanner decides every open on its
# filesystem and the trace example reports it: all three see the same
# accesses, and a denied open is one inotify never hears of. Prints TAP.
. scenario-tap.sh
need inotifywait scanner trace

d=/tmp/inotify.$$
mkdir -p $d/w
mount -t tmpfs inotify $d/w || exit 1
echo hello >$d/w/clean
echo last >$d/w/last
echo "X5O!P%@AP[4\\PZX54(P^)7CC)7}\$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!\$H+H*" \
	>$d/w/eicar
pids=
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	wait 2>/dev/null
	umount $d/w 2>/dev/null
}
trap cleanup EXIT

inotifywait -m -e open -e close_write --format '%e %w%f' $d/w \
	>$d/ino.out 2>$d/ino.err &
pids="$pids $!"
scanner --no-cache $d/w >$d/scan.out 2>&1 &
pids="$pids $!"
trace $d/w >$d/trace.out 2>$d/trace.err &
pids="$pids $!"
wait_text $d/ino.err 'Watches established' &&
	wait_text $d/trace.err watching && wait_text $d/scan.out watching
ready=$?

cat $d/w/clean >/dev/null
echo more >>$d/w/clean
cat $d/w/eicar >/dev/null 2>$d/denied.err
denied=$?
# A last open, after the denied one: once inotifywait and the tracer
# report it, anything they were to hear of the denied open is in too.
cat $d/w/last >/dev/null
wait_text $d/ino.out "^OPEN $d/w/last" &&
	wait_text $d/trace.out " $d/w/last\$"

echo "1..5"
result $ready "inotifywait, the scanner and the tracer start" $d/ino.err
grep -q "^OPEN $d/w/clean" $d/ino.out &&
	grep -q "^CLOSE_WRITE,CLOSE $d/w/clean" $d/ino.out
result $? "inotifywait sees the open and the write of an allowed file" \
	$d/ino.out
[ $denied != 0 ] && grep -q 'Operation not permitted' $d/denied.err &&
	! grep -q "$d/w/eicar" $d/ino.out
result $? "the scanner's deny: the open fails and inotify hears nothing" \
	$d/ino.out
grep -q "^scanner: clean: $d/w/clean .*: allow\$" $d/scan.out &&
	grep -q "^scanner: found .* in $d/w/eicar for cat .*: deny\$" $d/scan.out
result $? "the scanner decided both opens" $d/scan.out
# trace prints "PID LETTERS PATH".
awk -v f=$d/w/clean -v e=$d/w/eicar '$3 == f && $2 ~ /O/ { clean = 1 }
	$3 == e && $2 ~ /O/ { eicar = 1 } END { exit !(clean && !eicar) }' \
	$d/trace.out
result $? "the tracer saw the allowed open and not the denied one" \
	$d/trace.out
exit $failed
