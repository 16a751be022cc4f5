#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: fatrace, unmodified, runs on fsgate through fsgate-run, in a
# group with the priority and timeout given to fsgate-run, and logs a
# scripted workload with the right pids, event letters and paths;
# fatrace on in-tree fanotify logs the same workload the same way. fsgate
# serves fatrace's FAN_REPORT_FID probe, so fatrace takes the same mode
# (FID records resolved with open_by_handle_at()) on both, which their
# fdinfo's "fanotify flags:" lines show. Records of one process on one
# file may be merged or not, so letters are compared per process and
# file. Prints TAP.
. scenario-tap.sh
need fatrace
d=/tmp/fatrace.$$
w=$d/w
mkdir -p $w
# Made before any tracing, so that FID mode has no creation to report.
echo hello >$w/a
echo data >$w/b

# Wait until process $1 has a mark in place, fsgate's or fanotify's.
wait_marked() {
	i=0
	while ! grep -qE '^(fsgate-mark |fanotify (ino|mnt_id|sdev):)' \
		/proc/$1/fdinfo/* 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}

# Each step records its pid in $d/NAME.pid, then does one thing under $w.
step() {
	name=$1
	shift
	sh -c 'echo $$ >'$d/$name.pid'; exec "$@"' sh "$@" >/dev/null
}
workload() {
	step reset sh -c "echo hello >$w/a"
	step cat cat $w/a
	step append sh -c "echo more >>$w/a"
	step cp cp $w/b $w/a
	step ls ls $w
}

# trace RUN [WRAPPER...]: fatrace (under WRAPPER) on the filesystem of $w
# while the workload runs; RUN.out is its log, RUN.fdinfo its marks.
trace() {
	run=$1
	shift
	(cd $w && exec "$@" fatrace -c -o $d/$run.out) 2>$d/$run.err &
	tracer=$!
	if ! wait_marked $tracer; then
		echo "# $run: fatrace set no mark"
		sed 's/^/# /' $d/$run.err
	fi
	cat /proc/$tracer/fdinfo/* >$d/$run.fdinfo 2>/dev/null
	workload
	sleep 0.5
	kill -INT $tracer
	wait $tracer
	touch $d/$run.out
}

# "STEP PATH LETTERS" for every step and file under $w, letters in
# fatrace's order; lines from any other process are "? PATH LETTERS".
table() {
	for s in reset cat append cp ls; do
		echo "$(cat $d/$s.pid) $s"
	done >$d/steps
	sed -n 's/^.*(\([0-9]*\)): \([^ ]*\) *\(.*\)$/\1 \2 \3/p' $d/$1.out |
		awk -v w=$w 'NR == FNR { step[$1] = $2; next }
		$3 == w || index($3, w "/") == 1 {
			key = (($1 in step) ? step[$1] : "?") " " $3
			seen[key] = seen[key] $2 }
		END { for (k in seen) { o = ""
			for (i = 1; i <= 4; i++) { c = substr("RCWO", i, 1)
				if (index(seen[k], c)) o = o c }
			print k, o } }' $d/steps - | sort
}


trace fsgate fsgate-run --priority 2500 --timeout 250 --timeout-verdict deny
table fsgate >$d/fsgate.table
trace fanotify
table fanotify >$d/fanotify.table
cat >$d/expected <<EXPECTED
append $w/a CWO
cat $w/a RCO
cp $w/a CWO
cp $w/b RCO
ls $w RCO
reset $w/a CWO
EXPECTED

echo "1..7"
grep -q '^fsgate-mark ' $d/fsgate.fdinfo
result $? "fatrace under fsgate-run marks through fsgate" $d/fsgate.err
grep -q '^fsgate-group .* priority:2500 .* timeout-ms:250 timeout-verdict:deny ' \
	$d/fsgate.fdinfo
result $? "fsgate-run's priority and timeout reach the group" $d/fsgate.fdinfo
grep -v '^?' $d/fsgate.table | diff $d/expected - >$d/diff
result $? "fsgate: each step's pid, letters and paths" $d/diff
! grep '^?' $d/fsgate.table >$d/others
result $? "fsgate: no other process, not fatrace itself" $d/others
grep -q '^fsgate-mark ' $d/fanotify.fdinfo
[ $? != 0 ] && [ -s $d/fanotify.out ]
result $? "plain fatrace runs on in-tree fanotify" $d/fanotify.err
diff $d/fsgate.table $d/fanotify.table >$d/diff
result $? "in-tree fanotify gives the same lines" $d/diff
grep '^fanotify flags:' $d/fsgate.fdinfo >$d/fsgate.flags
grep '^fanotify flags:' $d/fanotify.fdinfo >$d/fanotify.flags
[ -s $d/fanotify.flags ] && diff $d/fanotify.flags $d/fsgate.flags >$d/diff
result $? "fatrace asks fsgate for the flags it asks fanotify for (FID mode)" $d/diff
exit $failed
