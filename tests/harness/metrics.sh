#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fsgatectl metrics against Prometheus's own parser, promtool check
# metrics: the text tools_report_test checks with its grammar (three
# groups, one persistent, one with a comm to escape) and what the built
# fsgatectl prints here, on a host without fsgate.ko loaded or with it;
# first promtool itself, which must refuse a label value with a bad
# escape. promtool is the one make deps takes out of Debian's prometheus
# package into the cache ($FSGATE_CACHE/tools/promtool), else one on
# PATH; without it a skip, or a failure with FSGATE_REQUIRE_PROGS=1.
# Runs the built programs (build/); prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/scenarios/lib/tap.sh"
promtool=${FSGATE_CACHE:-/var/cache/fsgate}/tools/promtool
[ -x "$promtool" ] || promtool=$(command -v promtool) || promtool=

echo "TAP version 13"
if [ -z "$promtool" ]; then
	if [ "${FSGATE_REQUIRE_PROGS:-0}" = 1 ]; then
		echo "1..1"
		echo "not ok 1 promtool is in the cache (make deps takes it out of Debian's prometheus package)"
		exit 1
	fi
	echo "1..0 # SKIP promtool is not installed"
	exit 0
fi
echo "1..3"

printf '# HELP a_total x\n# TYPE a_total counter\na_total{l="\\x"} 1\n' >"$work/bad.prom"
! "$promtool" check metrics <"$work/bad.prom" >"$work/bad.out" 2>&1
result $? "promtool refuses a label value with an escape the format lacks" \
	"$work/bad.out"

FSGATE_METRICS_SAMPLE=$work/sample.prom "$top/build/tests/tools_report_test" \
	>"$work/sample.out" 2>&1 && [ -s "$work/sample.prom" ] &&
	"$promtool" check metrics <"$work/sample.prom" >>"$work/sample.out" 2>&1
result $? "the groups tools_report_test writes pass promtool" "$work/sample.out"

"$top/build/bin/fsgatectl" metrics >"$work/host.prom" 2>"$work/host.out"
rc=$?
{ [ $rc = 0 ] || [ $rc = 3 ]; } &&
	"$promtool" check metrics <"$work/host.prom" >>"$work/host.out" 2>&1
result $? "fsgatectl metrics on this host (exit $rc) passes promtool" \
	"$work/host.out"
exit $failed
