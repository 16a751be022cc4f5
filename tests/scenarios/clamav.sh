#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: ClamAV's on-access scanner, unmodified, prevents access on
# fsgate. clamd loads a signature database made here (a body signature
# for a test string and an MD5 signature for one file; nothing comes from
# the network) and clamonacc, under fsgate-run in a content group of
# priority 2000, watches a tmpfs with OnAccessPrevention: opening a file
# that matches fails with EPERM, clean files open, clamonacc and clamd
# log the verdict, and files and directories made later are covered too.
#
# clamd scans a file by its name, which opens it and so asks clamonacc
# again: clamd runs as nobody (User) and clamonacc lets nobody's accesses
# through (OnAccessExcludeUname), so those opens never wait on a scan.
# A second clamonacc passes the event fd to clamd instead (--fdpass);
# I/O on an event fd raises no events, so clamd asks nothing at all.
# Prints TAP.
. scenario-tap.sh
need clamd clamonacc
if ! grep -q '^nobody:' /etc/passwd; then
	echo "1..0 # SKIP no user nobody for clamd to run as"
	exit 4
fi

d=/tmp/clamav.$$
w=$d/w
sig=FSGATE-CLAMAV-TEST-SIGNATURE
clamd_pid= onacc_pid= hsm_pid=

# Whatever happens, clamonacc goes first (its group's pending accesses
# are then allowed), then clamd, then the tmpfs.
cleanup() {
	stop_hsm
	stop_onacc
	if [ -n "$clamd_pid" ]; then
		kill $clamd_pid 2>/dev/null
		wait $clamd_pid 2>/dev/null
		clamd_pid=
	fi
	umount $w 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Seconds since boot, to the hundredth, and the time since $1.
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# wait_for TICKS COMMAND...: poll COMMAND every 0.1 s, TICKS times at most.
wait_for() {
	max=$1 i=0
	shift
	until "$@"; do
		i=$((i + 1))
		[ $i -lt $max ] || return 1
		sleep 0.1
	done
}

# wait_marks PID N: until process PID's fsgate groups have N marks (from
# its fdinfo); fails after 30 s or if PID ends first.
wait_marks() {
	i=0
	until [ "$(cat /proc/$1/fdinfo/* 2>/dev/null | grep -c '^fsgate-mark ')" -ge $2 ]; do
		i=$((i + 1))
		[ $i -lt 300 ] && ! not_running $1 || return 1
		sleep 0.1
	done
}

# start_onacc NAME [ARG...]: clamonacc under fsgate-run, its log in
# $d/NAME.log; returns once it has marked the watched tmpfs.
start_onacc() {
	onacc_log=$d/$1.log
	shift
	fsgate-run --priority 2000 -- clamonacc --foreground --verbose \
		--config-file=$d/clamd.conf --log=$onacc_log "$@" \
		>$onacc_log.out 2>&1 &
	onacc_pid=$!
	wait_marks $onacc_pid 1
}
stop_onacc() {
	[ -n "$onacc_pid" ] || return 0
	kill $onacc_pid 2>/dev/null
	wait_for 100 not_running $onacc_pid || kill -9 $onacc_pid 2>/dev/null
	wait $onacc_pid 2>/dev/null
	onacc_pid=
}
stop_hsm() {
	[ -n "$hsm_pid" ] || return 0
	kill $hsm_pid 2>/dev/null
	wait $hsm_pid 2>/dev/null
	hsm_pid=
}

# Gone, or a zombie that wait will reap.
not_running() {
	[ ! -e /proc/$1 ] || grep -q '^[0-9]* (.*) Z' /proc/$1/stat 2>/dev/null
}

# opens NAME FILE: cat FILE, its output and errors in $d/NAME.{out,err}.
opens() { cat "$2" >$d/$1.out 2>$d/$1.err; }
# denied NAME FILE: opening FILE fails with EPERM.
denied() {
	! opens "$1" "$2" && grep -q 'Operation not permitted' $d/$1.err
}

mkdir -p $d/db $d/run $d/tmp $w
chown nobody $d/run $d/tmp
mount -t tmpfs -o mode=0755 clamav $w
# The database: a body signature (.ndb: name, any target, any offset,
# hex) for $sig, and an MD5 signature (.hdb: md5, size, name) for a file
# that does not hold $sig.
echo "Fsgate.Test.Signature:0:*:$(printf %s $sig | od -An -tx1 | tr -d ' \n')" \
	>$d/db/fsgate.ndb
echo "fsgate: a file listed by its hash" >$d/hashed
echo "$(md5sum <$d/hashed | cut -d' ' -f1):$(wc -c <$d/hashed | tr -d ' '):Fsgate.Test.Hash" \
	>$d/db/fsgate.hdb
echo "just text" >$w/clean
echo "before $sig after" >$w/bad
cp $d/hashed $w/hashed
cat >$d/clamd.conf <<CONF
Foreground yes
User nobody
LocalSocket $d/run/clamd.sock
DatabaseDirectory $d/db
TemporaryDirectory $d/tmp
LogFile $d/clamd.log
LogVerbose yes
OnAccessIncludePath $w
OnAccessPrevention yes
OnAccessExcludeUname nobody
CONF

t0=$(now)
clamd --config-file=$d/clamd.conf >$d/clamd.out 2>&1 &
clamd_pid=$!
wait_for 600 test -S $d/run/clamd.sock
clamd_ok=$?
echo "# clamd listening after $(since $t0) s"
t1=$(now)
start_onacc onacc
onacc_ok=$?
echo "# clamonacc marked after $(since $t1) s"
cat /proc/$onacc_pid/fdinfo/* >$d/onacc.fdinfo 2>/dev/null
onacc_pid1=$onacc_pid
t2=$(now)

echo "1..17"
[ $clamd_ok = 0 ] && grep -q 'Loaded 2 signatures' $d/clamd.log
result $? "clamd loads the local database and listens" $d/clamd.out
# OnAccessPrevention: FAN_OPEN_PERM | FAN_ACCESS_PERM on the tmpfs root.
mask=$(sed -n "s/^fsgate-mark inode ino:$(printf %x "$(stat -c %i $w)") .* mask:\([0-9a-f]*\) .*/\1/p" \
	$d/onacc.fdinfo)
[ $onacc_ok = 0 ] && [ -n "$mask" ] && [ $((0x$mask & 0x30000)) = $((0x30000)) ]
result $? "clamonacc under fsgate-run marks the tmpfs for permission events" \
	$onacc_log.out
# clamonacc asks for FAN_CLASS_CONTENT | FAN_UNLIMITED_QUEUE |
# FAN_UNLIMITED_MARKS; the layer keeps them as fsgate's flags.
flags=$(sed -n 's/^fsgate-group .* class:content priority:2000 flags:\(0x[0-9a-f]*\) .*/\1/p' \
	$d/onacc.fdinfo)
[ -n "$flags" ] && [ $((flags & 0x34)) = $((0x34)) ]
result $? "its group: content, priority 2000, unlimited queue and marks" \
	$d/onacc.fdinfo

opens clean $w/clean && [ "$(cat $d/clean.out)" = "just text" ]
result $? "a clean file opens and reads" $d/clean.err
denied bad $w/bad
result $? "a file with the signature fails to open with EPERM" $d/bad.err
denied hashed $w/hashed
result $? "a file listed by its MD5 fails to open with EPERM" $d/hashed.err
grep -q "^$w/bad: Fsgate.Test.Signature.UNOFFICIAL FOUND" $onacc_log &&
	grep -q "^$w/hashed: Fsgate.Test.Hash.UNOFFICIAL FOUND" $onacc_log
result $? "clamonacc logs both verdicts" $onacc_log
grep 'FOUND$' $onacc_log | sed 's/^/# clamonacc: /'
grep -q "$w/bad: Fsgate.Test.Signature.UNOFFICIAL FOUND" $d/clamd.log
result $? "clamd logs the verdict" $d/clamd.log
grep -q "$w/clean skipped (excluded UID)" $onacc_log
result $? "clamd's own opens for its scans are let through (nobody excluded)" \
	$onacc_log

# Written after clamonacc started: the open to write finds an empty,
# clean file; the open to read finds the signature.
echo "late $sig" >$w/late && denied late $w/late
result $? "a file written now is created, then fails to open" $d/late.err
# clamonacc's inotify sees the new directory and marks it too.
mkdir $w/sub
wait_marks $onacc_pid 2 && echo "sub $sig" >$w/sub/bad &&
	denied sub $w/sub/bad && opens subclean $w/clean
result $? "a directory made now is marked, and its file fails to open" \
	$d/sub.err

# The group's counters: every access it was asked about was answered in
# time, none timed out, and the four denials are its.
sed -n "1p; /^[0-9]* $onacc_pid clamonacc /p" /proc/fsgate/groups >$d/groups
awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ ok = $col["pending"] == 0 && $col["timedout"] == 0 &&
	       $col["asked"] == $col["answered"] && $col["denied"] == 4 }
	END { exit !(NR == 2 && ok) }' $d/groups
result $? "the group answered every access, denied four, none timed out" \
	$d/groups
echo "# on-access run took $(since $t2) s"

# Two programs in a chosen order: the example HSM (examples/hsm, priority
# 3000) restores stubs before clamonacc (2000) is asked, so ClamAV scans
# the restored content: a stub empty a moment ago fails with EPERM.
mkdir -p $d/archive
echo "restored $sig" >$d/archive/signed
echo "restored, clean" >$d/archive/plain
if mkstub $w/stub-signed signed && mkstub $w/stub-plain plain; then
	hsm $w $d/archive >$d/hsm.log 2>&1 &
	hsm_pid=$!
	wait_marks $hsm_pid 1 && opens stubplain $w/stub-plain &&
		grep -q 'restored, clean' $d/stubplain.out &&
		denied stubsigned $w/stub-signed
	hsm_ok=$?
	stop_hsm
else
	hsm_ok=1
fi
result $hsm_ok "an HSM at 3000 restores stubs, then ClamAV at 2000 scans what it restored" \
	$d/hsm.log

# Once clamonacc is gone, so is its group: the file opens again.
stop_onacc
! grep -q "^[0-9]* $onacc_pid1 " /proc/fsgate/groups && opens gone $w/bad
result $? "clamonacc stopped: its group is gone and the file opens" $d/gone.err

# Passing the event fd: clamd reads the file through it and opens nothing.
t3=$(now)
start_onacc fdpass --fdpass
fdpass_ok=$?
echo "# clamonacc --fdpass marked after $(since $t3) s"
[ $fdpass_ok = 0 ] && opens fdclean $w/clean && denied fdbad $w/bad
result $? "--fdpass: the clean file opens, the signed one fails with EPERM" \
	$onacc_log.out
grep -q "^$w/bad: Fsgate.Test.Signature.UNOFFICIAL FOUND" $onacc_log
result $? "--fdpass: clamonacc logs the verdict" $onacc_log
[ $fdpass_ok = 0 ] && ! grep -q 'skipped (excluded UID)' $onacc_log
result $? "--fdpass: clamd's reads through the event fd ask nothing" $onacc_log
stop_onacc
echo "# scenario took $(since $t0) s"
exit $failed
