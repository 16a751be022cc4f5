#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fixed list of tests (tests/manifest) and of expected skips
# (tests/skips), as tests/check holds a run against them (tests/lib/
# check.sh): a run that matches passes; a missing program, a program the
# manifest does not list, another number of cases, an unexpected skip
# (where skips are enforced) and an expected skip that did not happen
# each fail, naming the program; --update-manifest takes the run's
# counts for its own parts and kernels only, and refuses a run with
# failures; README.md's figure is the manifest's, and tests/skips names
# only cases the manifest counts. The runs are constructed: a 6.1 guest
# part as run-suite prints it (its skip unnamed, as 6.1's kselftest
# harness prints one) and a host part. Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/kernels/common.sh"
. "$top/tests/lib/check.sh"
count=$top/build/bin/ktap-count
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/scenarios/lib/tap.sh"
out=$work/check
mkdir -p "$out/6.1"

# guest PROGRAM...: a run-suite stream of PROGRAMs in $out/6.1/output.log;
# "a_test" has two cases, the second skipped, "b_test" one.
guest() {
	local i=0 p

	printf 'KTAP version 1\n1..%s\n' $#
	for p; do
		i=$((i + 1))
		printf '    TAP version 13\n    1..%s\n' "$([ "$p" = a_test ] && echo 2 || echo 1)"
		printf '    #  RUN           %s.first ...\n    ok 1 %s.first\n' "$p" "$p"
		[ "$p" != a_test ] ||
			printf '    #  RUN           a.gone ...\n    ok 2 # SKIP no such thing here\n'
		echo "ok $i $p"
	done
}
# run PROGRAM...: the run's cases (part_cases) for a host part of one
# binary and the 6.1 part of PROGRAMs; then the manifest check on them
# into $work/manifest.tap and the skip check, enforced, into
# $work/skips.tap. Its status: ktap-count's on both.
run() {
	guest "$@" >"$out/6.1/output.log"
	printf 'TAP version 13\n1..1\nok 1 6.1 (boot 1 of 1): guest ran cleanly (9 s)\n' \
		>"$out/6.1/guest.tap"
	printf '1..2\nok 1 - x\nok 2 - y\n' >"$out/host-h_test.tap"
	host_result h_test 0 >"$out/host-h_test.exit.tap"
	printf '%s\n' "$out/host-h_test.tap" "$out/host-h_test.exit.tap" >"$out/host.files"
	printf '%s\n' "$out/6.1/guest.tap" "$out/6.1/output.log" >"$out/6.1.files"
	for p in host 6.1; do
		part_cases "$p" "$out/$p.files"
	done >"$out/cases"
	printf 'kernels 6.1\nparts host 6.1\n' >"$out/run"
	manifest_check "$work/manifest" "$out/cases" 6.1 "host 6.1" >"$work/manifest.tap"
	skips_check "$work/skips" "$out/cases" 6.1 "host 6.1" "${strict:-1}" >"$work/skips.tap"
	cat "$work/manifest.tap" "$work/skips.tap" >"$work/both.tap"
	"$count" "$work/manifest.tap" "$work/skips.tap" >>"$work/both.tap"
}

cat >"$work/manifest" <<-'TXT'
	# a manifest
	- host 3 h_test
	6.1 6.1 1 K/guest
	6.1 6.1 2 a_test
	6.1 6.1 1 b_test
	6.1 6.1 1 c_test
	6.12 6.12 9 a_test
TXT
cat >"$work/skips" <<-'TXT'
	# expected skips
	6.1 6.1/a_test/a.gone :: no such thing here :: constructed
	6.12 6.12/a_test/a.gone :: no such thing here :: not this run's kernel
TXT

echo "TAP version 13"
echo "1..10"

run a_test b_test c_test
[ $? = 0 ] && grep -q '^ok 2 manifest: 6.1: 4 programs, 5 cases' "$work/manifest.tap" &&
	grep -q '^ok 2 skips: 6.1: the 1 skips' "$work/skips.tap"
result $? "a run with the manifest's programs and cases and the expected skip passes" \
	"$work/both.tap"

run a_test c_test
[ $? = 1 ] && grep -q '^not ok [0-9]* manifest: 6.1: 6.1: b_test: missing: .* lists 1 cases$' \
	"$work/manifest.tap"
result $? "a program missing from the run fails, named" "$work/both.tap"

run a_test b_test c_test d_test
[ $? = 1 ] && grep -q '^not ok [0-9]* manifest: 6.1: 6.1: d_test: not in .* (1 cases)$' \
	"$work/manifest.tap"
result $? "a program the manifest does not list fails, named" "$work/both.tap"

sed -i 's/^6.1 6.1 1 b_test$/6.1 6.1 3 b_test/' "$work/manifest"
run a_test b_test c_test
[ $? = 1 ] && grep -q '^not ok [0-9]* manifest: 6.1: 6.1: b_test: 1 cases, .* lists 3$' \
	"$work/manifest.tap" && [ "$(grep -c '^not ok [0-9]' "$work/both.tap")" = 1 ]
result $? "another number of cases fails, named, and only that" "$work/both.tap"
sed -i 's/^6.1 6.1 3 b_test$/6.1 6.1 1 b_test/' "$work/manifest"

sed -i '/^6.1 /d' "$work/skips"
run a_test b_test c_test
[ $? = 1 ] &&
	grep -q '^not ok [0-9]* skips: unexpected skip, .*: 6.1 6.1/a_test/a.gone :: no such thing here$' \
		"$work/skips.tap"
result $? "an unexpected skip fails where skips are enforced" "$work/both.tap"
strict=0 run a_test b_test c_test
[ $? = 0 ] && grep -q '^# skips: unexpected skip, ' "$work/skips.tap"
result $? "elsewhere an unexpected skip is reported, not failed" "$work/both.tap"

echo '6.1 6.1/b_test/b_test.first :: gone :: once skipped' >>"$work/skips"
echo '6.1 6.1/a_test/a.gone :: no such thing here :: constructed' >>"$work/skips"
run a_test b_test c_test
[ $? = 1 ] && grep -q "^not ok [0-9]* skips: .* expects this skip, which did not happen (once skipped): 6.1 6.1/b_test/b_test.first :: gone$" \
	"$work/skips.tap"
result $? "an expected skip that did not happen fails" "$work/both.tap"

# --update-manifest: the run's parts and kernel rewritten (b_test gone,
# d_test new), 6.12's line kept, README's figure rewritten.
run a_test c_test d_test
printf 'intro\n`tests/manifest` holds 0 cases in all\nend\n' >"$work/README.md"
update_manifest "$out" "$work/manifest" "$work/README.md" >"$work/update.out" 2>&1 &&
	diff - <(grep -v '^#' "$work/manifest") <<-'TXT' >>"$work/update.out" &&
	- host 3 h_test
	6.1 6.1 1 K/guest
	6.1 6.1 2 a_test
	6.1 6.1 1 c_test
	6.1 6.1 1 d_test
	6.12 6.12 9 a_test
	TXT
	grep -qx '# a manifest' "$work/manifest" &&
	grep -qx "$(manifest_figure "$work/manifest")" "$work/README.md" &&
	grep -q '^`tests/manifest` holds 17 cases in all: 3 of no one kernel' "$work/README.md"
result $? "--update-manifest rewrites the run's lines and README's figure, keeps the rest" \
	"$work/update.out"
printf 'TAP version 13\n1..1\nnot ok 1 c.first\n' >"$out/6.1/output.log"
part_cases 6.1 "$out/6.1.files" >"$out/cases"
cp "$work/manifest" "$work/manifest.before"
! update_manifest "$out" "$work/manifest" "$work/README.md" >"$work/update.out" 2>&1 &&
	cmp -s "$work/manifest" "$work/manifest.before" && grep -q 'has failures' "$work/update.out"
result $? "--update-manifest refuses a run with failures" "$work/update.out"

# The tree's own lists: README.md's figure is tests/manifest's, and each
# expected skip is a case of a program the manifest counts.
{
	grep -qxF "$(manifest_figure "$top/tests/manifest")" "$top/README.md" ||
		echo "README.md lacks: $(manifest_figure "$top/tests/manifest")"
	grep -v '^#' "$top/tests/skips" | awk -F' :: ' 'NF' | while read -r k c _; do
		p=${c#*/} p=${p%%/*}
		grep -q "^$k ${c%%/*} [0-9]* $p\$" "$top/tests/manifest" ||
			echo "tests/skips: $k $c: no such program in tests/manifest"
	done
} >"$work/tree.out"
[ ! -s "$work/tree.out" ]
result $? "README.md's figure is tests/manifest's; tests/skips names its programs" \
	"$work/tree.out"
exit $failed
