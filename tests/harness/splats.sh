#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The splat detector (tests/guest/find-splats with tests/guest/splats)
# against console lines as the kernels print them, "\r\n" and timestamps
# included: each line of consoles/splats.log must be found, and nothing
# of consoles/clean.log (a clean boot's lines). splats.log begins with
# lines taken from the consoles of tests/harness/crash on 6.1, 6.12 and
# the debug kernel (WARN, BUG, KASAN, kmemleak); the rest follow the
# kernels' own formats for what a module cannot safely provoke in a
# short boot (Oops, general protection fault, UBSAN, lockdep, sleeping
# in atomic context, RCU stalls, hung tasks, soft lockups, panics, and
# kmemleak switching itself off, after which no leak would be reported).
# Prints TAP.
set -uo pipefail
here=$(dirname "$0")
find=$here/../guest/find-splats
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "TAP version 13"
echo "1..$(($(grep -c . "$here/consoles/splats.log") + 1))"
n=0 failed=0
while IFS= read -r line; do
	n=$((n + 1))
	printf '%s\n' "$line" >"$work/line"
	text=$(tr -d '\r' <"$work/line" | sed 's/^\[[ 0-9.]*\] //')
	if [ "$("$find" "$work/line")" = "$text" ]; then
		echo "ok $n splat found: $text"
	else
		echo "not ok $n splat found: $text"
		failed=1
	fi
done <"$here/consoles/splats.log"

n=$((n + 1))
if "$find" "$here/consoles/clean.log" >"$work/found"; then
	echo "not ok $n a clean boot shows no splat"
	sed 's/^/# /' "$work/found"
	failed=1
else
	echo "ok $n a clean boot shows no splat"
fi
exit $failed
