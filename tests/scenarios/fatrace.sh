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
# file. fatrace's options -c (the current mount: nothing from another
# filesystem), -f (event types, directory entry types among them) and -t
# (a timestamp on every line) give the same lines both ways too, and the
# lines they should. Prints TAP.
. scenario-tap.sh
need fatrace
d=/tmp/fatrace.$$
w=$d/w
# Another filesystem, which fatrace -c in $w must not report.
o=$d/o
mkdir -p $w $o
mount -t tmpfs tmpfs $o || exit 1
trap 'umount $o' EXIT

# The files the workload finds: made before any tracing, so that FID
# mode reports no creation but the workload's own.
prepare() {
	rm -rf $w/new $w/moved $w/sub $o/x
	echo hello >$w/a
	echo data >$w/b
	echo old >$w/old
	echo gone >$w/gone
}

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
# Files are created, renamed and removed only where no step opens them
# afterwards, so that fatrace resolves every handle to the same path
# however late it reads.
STEPS="reset cat append cp ls new mv rm mkdir other"
workload() {
	step reset sh -c "echo hello >$w/a"
	step cat cat $w/a
	step append sh -c "echo more >>$w/a"
	step cp cp $w/b $w/a
	step ls ls $w
	step new sh -c ": >$w/new"
	step mv mv $w/old $w/moved
	step rm rm $w/gone
	step mkdir mkdir $w/sub
	step other sh -c "echo other >$o/x"
}

# trace RUN "OPTIONS" [WRAPPER...]: fatrace -c OPTIONS (under WRAPPER) on
# the filesystem of $w while the workload runs; RUN.out is its log,
# RUN.fdinfo its marks, RUN.steps the pid of each step ("PID STEP"),
# RUN.start and RUN.end the time (seconds) before it started and after
# it stopped.
trace() {
	run=$1
	opts=$2
	shift 2
	prepare
	date +%s >$d/$run.start
	(cd $w && exec "$@" fatrace -c $opts -o $d/$run.out) 2>$d/$run.err &
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
	date +%s >$d/$run.end
	touch $d/$run.out
	for s in $STEPS; do
		echo "$(cat $d/$s.pid) $s"
	done >$d/$run.steps
}

# fatrace's letters, in its order.
LETTERS='RCWO+D<>'

# table RUN [LOG]: "STEP PATH LETTERS" for every step and file under $w
# in LOG (RUN.out), letters in fatrace's order; lines from any other
# process are "? PATH LETTERS".
table() {
	sed -n 's/^.*(\([0-9]*\)): \([^ ]*\) *\(.*\)$/\1 \2 \3/p' \
		"${2:-$d/$1.out}" |
		awk -v w=$w -v letters="$LETTERS" '
		NR == FNR { step[$1] = $2; next }
		$3 == w || index($3, w "/") == 1 {
			key = (($1 in step) ? step[$1] : "?") " " $3
			seen[key] = seen[key] $2 }
		END { for (k in seen) { o = ""
			for (i = 1; i <= length(letters); i++) {
				c = substr(letters, i, 1)
				if (index(seen[k], c)) o = o c }
			print k, o } }' $d/$1.steps - | sort
}

# only TYPES: lines of a table with only the letters of TYPES, those
# left with none dropped. fatrace -f TYPES prints the events that have a
# type of TYPES with all their letters, and which others come along
# depends on what merged; a letter of TYPES stands for event types that
# TYPES lets through, all of them, so these letters are what the table
# without -f has of them.
only() {
	awk -v types="$1" '{ o = ""
		for (i = 1; i <= length($3); i++) {
			c = substr($3, i, 1)
			if (index(types, c)) o = o c }
		if (o != "") print $1, $2, o }'
}

FSGATE_RUN="fsgate-run --priority 2500 --timeout 250 --timeout-verdict deny"
trace fsgate "" $FSGATE_RUN
table fsgate >$d/fsgate.table
trace fanotify ""
table fanotify >$d/fanotify.table
# In FID mode fatrace reports a directory entry event (+ D < >) on the
# directory.
cat >$d/expected <<EXPECTED
append $w/a CWO
cat $w/a RCO
cp $w/a CWO
cp $w/b RCO
ls $w RCO
mkdir $w +
mv $w <>
new $w +
new $w/new CWO
reset $w/a CWO
rm $w D
EXPECTED

# -f TYPES: sets of event types, directory entry types among them.
FILTERS='+D <>W RO'
k=0
for f in $FILTERS; do
	k=$((k + 1))
	trace fsgate-f$k "-f $f" $FSGATE_RUN
	trace fanotify-f$k "-f $f"
done
# -t: the time of day before each line.
trace fsgate-t "-t" $FSGATE_RUN
trace fanotify-t "-t"

# stamped RUN: whether every line of RUN.out starts with a well-formed
# "HH:MM:SS.uuuuuu " between the run's start and end (a second either
# side); the lines that do not, and why, in RUN.stamps. RUN.unstamped
# is the log without them. (Not their order: with fatrace on in-tree
# fanotify in a TCG guest, a line was seen stamped 13 ms before the one
# above it.)
stamped() {
	awk -v start="$(cat $d/$1.start)" -v end="$(cat $d/$1.end)" '
	function sod(t) { return t % 86400 }
	{
		if ($0 !~ /^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9][0-9][0-9][0-9][0-9][0-9] [^ ]/) {
			print "malformed: " $0; bad = 1; next
		}
		split(substr($0, 1, 15), t, /[:.]/)
		s = t[1] * 3600 + t[2] * 60 + t[3] + t[4] / 1e6
		# Across midnight the window wraps: no window is checked.
		if (sod(start) <= sod(end) && (s < sod(start) - 1 || s > sod(end) + 1)) {
			print "outside " sod(start) ".." sod(end) ": " $0; bad = 1
		}
		lines++
	}
	END { if (!lines) { print "no lines"; bad = 1 }; exit bad }' \
		$d/$1.out >$d/$1.stamps
	rc=$?
	cut -d' ' -f2- $d/$1.out >$d/$1.unstamped
	return $rc
}

echo "1..$((11 + 2 * $(echo $FILTERS | wc -w)))"
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

# -c: nothing from the other filesystem, whose step did write there.
grep -h "$o/" $d/fsgate.out $d/fanotify.out >$d/other
[ -s $d/other.pid ] && [ -s $o/x ] && [ ! -s $d/other ]
result $? "-c: neither reports another filesystem" $d/other

k=0
for f in $FILTERS; do
	k=$((k + 1))
	only "$f" <$d/expected >$d/expected-f$k
	table fsgate-f$k | only "$f" >$d/fsgate-f$k.table
	table fanotify-f$k | only "$f" >$d/fanotify-f$k.table
	grep -v '^?' $d/fsgate-f$k.table | diff $d/expected-f$k - >$d/diff
	result $? "fsgate: -f $f: each step's pid, letters of $f and paths" $d/diff
	diff $d/fanotify-f$k.table $d/fsgate-f$k.table >$d/diff
	result $? "-f $f: in-tree fanotify gives the same lines" $d/diff
done

stamped fsgate-t
result $? "fsgate: -t: every line starts with its time of day" \
	$d/fsgate-t.stamps
stamped fanotify-t
result $? "fanotify: -t: every line starts with its time of day" \
	$d/fanotify-t.stamps
table fsgate-t $d/fsgate-t.unstamped >$d/fsgate-t.table
table fanotify-t $d/fanotify-t.unstamped >$d/fanotify-t.table
grep -v '^?' $d/fsgate-t.table | diff $d/expected - >$d/diff &&
	diff $d/fanotify-t.table $d/fsgate-t.table >>$d/diff
result $? "-t: without the times, the lines of the run without -t, both ways" $d/diff
exit $failed
