#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario: the trace example (fatrace-like) shows the accesses of shell
# commands with the right pids, event letters and paths. Records of one
# process on one file may be merged or not, depending on when the reader
# runs, so the letters are compared per process and file. Prints TAP.
. scenario-tap.sh
d=/tmp/trace.$$
mkdir -p $d && echo hello >$d/a
trace $d >$d.out 2>$d.err &
tracer=$!
wait_text $d.err watching
ready=$?

sh -c 'echo $$ >'$d'.pid1; exec cat '$d'/a >/dev/null'
sh -c 'echo more >>'$d'/a; echo $$ >'$d'.pid2'
# The appending shell's close, the last access, read and printed.
wait_text $d.out "^$(cat $d.pid2) [A-Z]*C[A-Z]* $d/a\$"
kill $tracer
wait $tracer 2>/dev/null

# The letters one process's records on $d/a add up to, in fatrace order.
letters() {
	awk -v pid="$1" -v path="$d/a" '$1 == pid && $3 == path { s = s $2 }
		END { for (i = 1; i <= length("RWOXC"); i++) {
			c = substr("RWOXC", i, 1); if (index(s, c)) o = o c }
		      print o }' $d.out
}
# check PIDFILE LETTERS DESCRIPTION
check() {
	got=$(letters "$(cat $1)")
	[ "$got" = "$2" ]
	result $? "$3 (got '$got')" $d.out
}
echo "1..4"
result $ready "the tracer starts watching" $d.err
check $d.pid1 ROC "cat: open, read and close, with its pid"
check $d.pid2 WOC "appending shell: open, write and close"
others=$(awk -v a="$(cat $d.pid1)" -v b="$(cat $d.pid2)" \
	'$1 != a && $1 != b' $d.out | grep -c .)
[ "$others" = 0 ]
result $? "no other process and not the tracer itself" $d.out
exit $failed
