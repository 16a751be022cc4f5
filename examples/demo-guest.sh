#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo` (busybox sh); see examples/demo. An HSM,
# a scanner and a monitor (examples/hsm.c, scanner.c, monitor.c) guard a
# filesystem of stub files, and shell commands open the stubs.
#
#   demo_test            the steps' checks as TAP, as `make check` runs it
#   demo_test --narrate  each step told in plain words as it happens
#
# Either way a step that does not behave as told fails the run, naming
# the step: the demo and the test are one script and cannot drift apart.
narrate=0
case ${1:-} in
--narrate) narrate=1 ;;
"") ;;
*) echo "usage: $0 [--narrate]" >&2; exit 2 ;;
esac

D=/tmp/demo
S=$D/store		# the HSM's filesystem, a tmpfs of its own
A=$D/archive		# where the stubs' content lives
STEPS=10
step=0
name=
pids=

# The EICAR test string, split so that this file is not flagged itself.
eicar='X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR'
eicar=$eicar'-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'

# step NAME TEXT: start a step; TEXT is narrated.
step() {
	step=$((step + 1))
	name=$1
	shift
	[ $narrate = 1 ] && printf '\n[%d] %s\n' "$step" "$*"
	return 0
}
# Narration only: indented text, and commands shown as typed.
tell() { [ $narrate = 0 ] || printf '    %s\n' "$@"; }
show() { [ $narrate = 0 ] || sed 's/^/    /' "$@"; }
passed() { [ $narrate = 1 ] || echo "ok $step $name"; }
fail() {
	if [ $narrate = 1 ]; then
		printf '\nDEMO FAILED at step %d (%s): %s\n' "$step" "$name" "$*"
		echo "What the daemons logged:"
		cat $D/*.log
	else
		echo "not ok $step $name # $*"
		for f in $D/*.log; do sed "s|^|# ${f##*/}: |" "$f"; done
	fi
	cleanup
	exit 1
}
cleanup() {
	stop_daemons
	umount $S 2>/dev/null
	rm -rf $D
}

# What the daemons logged since the last call, indented, in log order.
news() {
	for d in hsm scanner monitor; do
		[ -f $D/$d.log ] || continue
		seen=$(cat $D/$d.seen 2>/dev/null || echo 0)
		total=$(wc -l <$D/$d.log)
		[ "$total" -gt "$seen" ] &&
			sed -n "$((seen + 1)),${total}p" $D/$d.log | show
		echo "$total" >$D/$d.seen
	done
}
# Lines of LOG matching PATTERN.
count() { grep -c "$2" "$1" 2>/dev/null; }
# wait_for LOG PATTERN [N]: up to 10 s (the debug kernel is slow) for N
# (1) lines matching PATTERN.
wait_for() {
	i=0
	while [ "$(count "$1" "$2")" -lt "${3:-1}" ]; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.1
	done
}

# start_daemons HSM_PRIORITY SCANNER_PRIORITY: each waits for its marks
# before saying it is ready, so nothing is missed after this returns.
starts=0
start_daemons() {
	starts=$((starts + 1))
	hsm --priority "$1" $S $A >>$D/hsm.log 2>&1 &
	pids="$pids $!"
	scanner --priority "$2" --timeout-ms 1000 --timeout-verdict deny $S \
		>>$D/scanner.log 2>&1 &
	scanner=$!
	pids="$pids $!"
	monitor $S >>$D/monitor.log 2>&1 &
	pids="$pids $!"
	for d in hsm scanner monitor; do
		wait_for $D/$d.log watching $starts || fail "$d did not start"
	done
}
stop_daemons() {
	[ -n "$pids" ] || return 0
	kill -CONT $pids 2>/dev/null
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	pids=
}
# Priority and comm of each group in /proc/fsgate/groups, in list order.
groups() { awk 'NR > 1 { printf "%s:%s ", $3, $5 }' /proc/fsgate/groups; }
# A counter of the group COMM: column NAME of /proc/fsgate/groups.
counter() {
	awk -v comm="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == col) c = i; next } $3 == comm { print $c }' \
		/proc/fsgate/groups
}
# The columns of /proc/fsgate/groups the demo is about, aligned.
COLUMNS="comm class priority delivered asked denied timedout cached"
table() {
	awk -v want="$COLUMNS" 'NR == 1 { n = split(want, name)
		for (i = 1; i <= NF; i++) col[$i] = i }
	     { for (i = 1; i <= n; i++) { v[NR, i] = $(col[name[i]])
		if (length(v[NR, i]) > w[i]) w[i] = length(v[NR, i]) } }
	     END { for (r = 1; r <= NR; r++) { s = ""
		for (i = 1; i <= n; i++) s = s sprintf("%-" w[i] "s ", v[r, i])
		sub(/ +$/, "", s); print s } }' /proc/fsgate/groups | show
}
# cat_stub FILE: cat FILE as a user would; sets out, err, rc, cat_pid,
# elapsed (in hundredths of a second).
cat_stub() {
	tell "\$ cat ${1#$D/}"
	t0=$(cut -d' ' -f1 /proc/uptime)
	cat "$1" >$D/out 2>$D/err &
	cat_pid=$!
	wait $cat_pid
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 100 }')
	out=$(cat $D/out)
	err=$(cat $D/err)
	show $D/out $D/err
}
size() { stat -c %s "$1"; }

[ $narrate = 1 ] || echo "1..$STEPS"

step setup "A tmpfs at $S is the HSM's filesystem. Four files on it
    are stubs: empty, with an extended attribute (trusted.fsgate.stub)
    naming their content in the archive, $A."
rm -rf $D && mkdir -p $S $A || fail "cannot make $D"
mount -t tmpfs tmpfs $S || fail "cannot mount a tmpfs on $S"
printf 'Quarterly report: revenue up, nothing to hide.\n' >$A/report.txt
printf '%s\n' "$eicar" >$A/invoice.com
cp $A/invoice.com $A/payload.com
printf 'Minutes of the last meeting.\n' >$A/late.txt
for f in report.txt invoice.com payload.com late.txt; do
	mkstub $S/$f $f || fail "mkstub $f failed"
	[ "$(size $S/$f)" = 0 ] || fail "stub $f is not empty"
done
tell "\$ ls -l ${S#$D/}"
ls -l $S | awk 'NR > 1 { printf "%s %s %s\n", $1, $5, $9 }' | show
tell "In the archive, invoice.com and payload.com hold the EICAR test string."
passed

step start "Three daemons start; each makes one fsgate group and marks the
    filesystem:
      hsm      pre-content, priority 3000: restores stubs through its
               read-write event fd before allowing their open;
      scanner  content, 2000: reads each opened file through its event fd,
               denies it if it holds the EICAR string; an open waits at
               most 1000 ms for it, then its timeout verdict (deny) applies;
      monitor  notification, 1000: prints who opened what.
    /proc/fsgate/groups (some of its columns) lists them in the order they
    are asked:"
start_daemons 3000 2000
table
news
[ "$(groups)" = "hsm:3000 scanner:2000 monitor:1000 " ] ||
	fail "groups not listed hsm, scanner, monitor: $(groups)"
passed

step clean_stub_is_restored "A user reads the stub report.txt. The open waits
    while the HSM restores it, then the scanner reads what was restored and
    allows it; cat prints the content, and the monitor hears of the open."
cat_stub $S/report.txt
wait_for $D/monitor.log "pid $cat_pid.*report.txt" ||
	fail "the monitor did not report cat's open of report.txt"
news
[ $rc = 0 ] || fail "cat report.txt failed: $err"
[ "$out" = "$(cat $A/report.txt)" ] || fail "cat printed '$out', not the content"
[ "$(count $D/hsm.log 'restored .*report.txt')" = 1 ] ||
	fail "the HSM did not restore report.txt once"
[ "$(count $D/scanner.log 'clean: .*report.txt')" = 1 ] ||
	fail "the scanner did not pass report.txt once"
passed

step bad_stub_is_denied "A user reads the stub invoice.com. The HSM restores
    it; the scanner, asked next, finds the EICAR string in what was restored
    and denies: cat fails with EPERM, although the file was empty a moment
    before."
cat_stub $S/invoice.com
news
[ $rc != 0 ] || fail "cat invoice.com succeeded: $out"
case $err in
*"Operation not permitted"*) ;;
*) fail "cat invoice.com did not fail with EPERM: $err" ;;
esac
[ "$(count $D/scanner.log 'EICAR test string in .*invoice.com')" = 1 ] ||
	fail "the scanner did not deny invoice.com"
[ "$(size $S/invoice.com)" -gt 0 ] ||
	fail "invoice.com was not restored before the scanner read it"
tell "invoice.com now holds $(size $S/invoice.com) bytes: the scanner saw what the HSM restored."
passed

step monitor_sees_only_allowed_opens "The monitor reported the open of
    report.txt but not that of invoice.com: a denied open never happened."
sleep 0.5
news
[ "$(count $D/monitor.log 'opened')" = 1 ] ||
	fail "the monitor reported $(count $D/monitor.log opened) opens, not 1"
grep -q 'invoice.com' $D/monitor.log && fail "the monitor reported invoice.com"
tell "monitor: $(count $D/monitor.log opened) open reported, of report.txt."
passed

step clean_verdict_is_cached "report.txt again. The scanner allowed it with
    FSGATE_CACHE, so fsgate decides for it without asking; the HSM put an
    ignore mask on the file once it was restored. Nobody is asked."
cat_stub $S/report.txt
wait_for $D/monitor.log "pid $cat_pid.*report.txt" ||
	fail "the monitor did not report the second open of report.txt"
news
[ $rc = 0 ] || fail "the second cat of report.txt failed: $err"
[ "$(count $D/scanner.log 'clean: .*report.txt')" = 1 ] ||
	fail "the scanner was asked again about report.txt"
[ "$(count $D/hsm.log 'report.txt')" = 1 ] ||
	fail "the HSM was asked again about report.txt"
passed

step counters "/proc/fsgate/groups counts, for each group, the events it
    read, the decisions asked of it, its denials, its timeouts and the
    accesses its verdict cache decided:"
table
[ "$(counter scanner asked)" = 2 ] || fail "scanner asked $(counter scanner asked) times, not 2"
[ "$(counter scanner denied)" = 1 ] || fail "scanner denied $(counter scanner denied), not 1"
[ "$(counter scanner cached)" = 1 ] || fail "scanner cached $(counter scanner cached), not 1"
[ "$(counter monitor delivered)" = 2 ] ||
	fail "monitor was delivered $(counter monitor delivered) events, not 2"
tell "The scanner was asked twice, denied once, and its cache decided once."
passed

step wrong_order_lets_bad_content_through "The daemons restart with the
    scanner and the HSM swapped in priority: scanner 3000, hsm 2000 (an
    explicit priority outranks the class). A user reads the stub
    payload.com: the scanner, asked first, reads an empty file and allows
    it; then the HSM restores the EICAR string, and cat prints it. Order
    matters; with fsgate it is explicit."
stop_daemons
start_daemons 2000 3000
table
news
[ "$(groups)" = "scanner:3000 hsm:2000 monitor:1000 " ] ||
	fail "groups not listed scanner, hsm, monitor: $(groups)"
cat_stub $S/payload.com
news
[ $rc = 0 ] || fail "cat payload.com failed: $err"
[ "$out" = "$eicar" ] || fail "cat printed '$out', not the EICAR string"
grep -q 'clean: .*payload.com (0 bytes)' $D/scanner.log ||
	fail "the scanner did not pass payload.com as an empty file"
passed

step timeout_verdict "The daemons restart in the right order, and the
    scanner is stopped (SIGSTOP). A user reads the stub late.txt: the HSM
    restores it, then the open waits for the scanner, at most its 1000 ms,
    and gets its timeout verdict, deny: cat fails with EPERM after a second
    instead of hanging."
stop_daemons
start_daemons 3000 2000
news
kill -STOP $scanner
tell "\$ kill -STOP $scanner    # the scanner"
cat_stub $S/late.txt
news
late=$((elapsed / 100)).$((elapsed / 10 % 10))
tell "(cat took $late s)"
[ $rc != 0 ] || fail "cat late.txt succeeded with the scanner stopped"
case $err in
*"Operation not permitted"*) ;;
*) fail "cat late.txt did not fail with EPERM: $err" ;;
esac
# At least the scanner's 1000 ms; well below the module's default of
# 10 s, which would mean the scanner's own timeout was not applied.
[ "$elapsed" -ge 90 ] && [ "$elapsed" -lt 800 ] ||
	fail "cat late.txt took $late s, not about 1 s"
[ "$(counter scanner timedout)" = 1 ] ||
	fail "scanner timedout is $(counter scanner timedout), not 1"
passed

step scanner_resumes "The scanner continues (SIGCONT). The event it missed
    left its queue with the open it was about, so it has nothing stale to
    answer; the next cat of late.txt is scanned and allowed."
kill -CONT $scanner
tell "\$ kill -CONT $scanner"
cat_stub $S/late.txt
news
[ $rc = 0 ] || fail "cat late.txt failed with the scanner running: $err"
[ "$out" = "$(cat $A/late.txt)" ] || fail "cat printed '$out', not the content"
grep -q 'answer not taken' $D/scanner.log &&
	fail "the scanner read the event that had timed out"
passed

stop_daemons
[ -z "$(groups)" ] || fail "groups left after the daemons exited: $(groups)"

if [ $narrate = 1 ]; then
	cat <<EOF

Summary: all $STEPS steps behaved as told.
  hsm (3000)       restored each stub before the scanner (2000) read it.
  scanner (2000)   read what was restored: passed report.txt and cached
                   the verdict (its second open asked nobody); denied
                   invoice.com with EPERM though it had been an empty stub.
  monitor (1000)   reported only the opens that happened.
  wrong order      with the scanner at 3000 and hsm at 2000, the scanner
                   passed the empty payload.com: the EICAR string got
                   through.
  stopped scanner  the open of late.txt waited $late s, then got the
                   scanner's timeout verdict, deny; continued, it served
                   again.
EOF
fi
cleanup
exit 0
