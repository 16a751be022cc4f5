#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: fsgate-hsm (3000) with fsgate-scan (2000) on one tmpfs, the
# store on another. Released files become stubs of the same size with no
# blocks, duplicates share one object, status restores nothing; the
# daemon restores a stub on open, after which the scanner denies one
# whose content is malicious; an executable stub runs after its restore;
# 20 concurrent opens of one stub restore it once; a missing or corrupt
# object fails the open with EIO and a clear log line; restore works
# without the daemon. Prints TAP; a failed step is named and its log
# shown.

. scenario-tap.sh
need fsgate-hsm fsgate-scan
d=/tmp/hsm.$$
S=$d/store
mkdir -p $d/w $d/rules
mount -t tmpfs hsm $d/w || exit 1
marker="FSGATE-TEST-""MARKER"
echo "Quarterly report: revenue up, nothing to hide." >$d/w/report.txt
cp $d/w/report.txt $d/w/copy.txt
echo "looks harmless: $marker" >$d/w/mal.txt
echo "this one's object will be lost" >$d/w/gone.txt
echo "this one's object will be damaged" >$d/w/bad.txt
cp /bin/busybox $d/w/busybox
dd if=/dev/urandom of=$d/w/big bs=1024 count=256 2>/dev/null
bigsum=$(md5sum <$d/w/big)
reportsize=$(stat -c %s $d/w/report.txt)
cat >$d/rules/marker.yar <<YAR
rule Test_marker { strings: \$m = "FSGATE-TEST-MARKER" condition: \$m }
YAR
pids=
cleanup() {
	for p in $pids; do kill -9 $p 2>/dev/null; done
	wait 2>/dev/null
	umount $d/w 2>/dev/null
}
trap cleanup EXIT
# object FILE: the store's object of a stub.
object() {
	key=$(fsgate-hsm status "$1" | awk '$1 == "stub" { print $4 }')
	key=${key#sha256:}
	ls $S/objects/*/* | grep "/$(echo $key | cut -c1-2)/$(echo $key | cut -c3-)"
}
hsm() { fsgate-hsm -s $S "$@"; }

echo "1..15"

fsgate-hsm --help >$d/help.out && grep -q 'release FILE' $d/help.out &&
	fsgate-hsm --version | grep -q '^fsgate-hsm [0-9]' &&
	! fsgate-hsm frobnicate 2>/dev/null
result $? "--help, --version, an unknown command" $d/help.out

hsm release $d/w/report.txt $d/w/copy.txt $d/w/mal.txt $d/w/gone.txt \
	$d/w/bad.txt $d/w/busybox $d/w/big >$d/release.log 2>&1
[ $? = 0 ] && [ "$(grep -c '^fsgate-hsm: released' $d/release.log)" = 7 ]
result $? "release: seven files" $d/release.log

[ "$(ls $S/objects/*/* | wc -l)" = 6 ]
result $? "duplicates share one object: six for seven files" $d/release.log

hsm status $d/w >$d/status.out
[ "$(stat -c '%s %b' $d/w/report.txt)" = "$reportsize 0" ] &&
	grep -q "^stub  *$reportsize  $d/w/report.txt  sha256:" $d/status.out &&
	grep -q '^7 stubs' $d/status.out &&
	hsm status $d/w | grep -q '^7 stubs'
result $? "a stub keeps its size, has no blocks; status restores nothing" \
	$d/status.out

fsgate-hsm -s $S daemon $d/w 2>$d/hsm.log &
pids="$pids $!"
hsmd=$!
fsgate-scan -r $d/rules $d/w 2>$d/scan.log &
pids="$pids $!"
wait_text $d/hsm.log 'ready:' && wait_text $d/scan.log 'ready:'
result $? "the daemon and the scanner start" $d/hsm.log

[ "$(cat $d/w/report.txt)" = "Quarterly report: revenue up, nothing to hide." ] &&
	grep -q "restored $d/w/report.txt ($reportsize bytes) for cat (pid [0-9]*)" $d/hsm.log
result $? "an open restores a stub, checksum verified, before it reads" \
	$d/hsm.log

cat $d/w/mal.txt >/dev/null 2>$d/err
[ $? != 0 ] && grep -q 'Operation not permitted' $d/err &&
	grep -q "restored $d/w/mal.txt" $d/hsm.log &&
	grep -q "detected Test_marker in $d/w/mal.txt" $d/scan.log
result $? "malicious content: restored by the HSM, then denied by the scanner" \
	$d/scan.log

[ "$($d/w/busybox echo ran 2>$d/err)" = ran ] &&
	grep -q "restored $d/w/busybox .*, an exec" $d/hsm.log
result $? "an executable stub runs after its restore (no ETXTBSY)" $d/err

i=0
while [ $i -lt 20 ]; do
	(md5sum <$d/w/big >$d/sum.$i 2>&1) &
	i=$((i + 1))
done
wait_sums() {
	for i in $(seq 0 19); do wait_text $d/sum.$i . || return 1; done
}
wait_sums
bad=0
for i in $(seq 0 19); do [ "$(cat $d/sum.$i)" = "$bigsum" ] || bad=1; done
[ $bad = 0 ] && [ "$(grep -c "restored $d/w/big " $d/hsm.log)" = 1 ]
result $? "20 concurrent opens of one stub: each reads it whole, one restore" \
	$d/hsm.log

rm "$(object $d/w/gone.txt)"
cat $d/w/gone.txt >/dev/null 2>$d/err
[ $? != 0 ] && grep -q 'Input/output error' $d/err &&
	grep -q "cannot restore $d/w/gone.txt .*its object is missing from the store: deny (EIO)" $d/hsm.log
result $? "a missing object: EIO and a clear log line" $d/hsm.log

echo junk >>"$(object $d/w/bad.txt)"
cat $d/w/bad.txt >/dev/null 2>$d/err
[ $? != 0 ] && grep -q 'Input/output error' $d/err &&
	grep -q "cannot restore $d/w/bad.txt .*checksum is wrong: deny (EIO)" $d/hsm.log &&
	hsm status $d/w/bad.txt | grep -q '^stub'
result $? "a corrupt object: EIO, a clear log line, the file stays a stub" \
	$d/hsm.log

kill -USR1 $hsmd
wait_text $d/hsm.log 'stats: restored 4 .*failed 2'
result $? "SIGUSR1: the daemon's counts" $d/hsm.log

kill $hsmd
wait $hsmd
result $? "SIGTERM stops the daemon with status 0" $d/hsm.log

hsm restore $d/w/copy.txt >$d/restore.log 2>&1 &&
	[ "$(cat $d/w/copy.txt)" = "Quarterly report: revenue up, nothing to hide." ] &&
	hsm status $d/w/copy.txt | grep -q '^resident'
result $? "restore without the daemon" $d/restore.log

# Six objects less the one removed above; the report's is there already.
hsm release $d/w/report.txt >$d/again.log 2>&1 &&
	[ "$(ls $S/objects/*/* | wc -l)" = 5 ]
result $? "releasing a restored file again reuses its object" $d/again.log
exit $failed
