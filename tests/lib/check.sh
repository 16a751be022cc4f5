# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/check, tests/debian/system-test and the harness's own
# tests (tests/harness/): how each part of `make check` becomes TAP that
# ktap-count can count, so that no failure goes uncounted. Each function
# but guest_boot, which writes its TAP to a file, prints TAP on stdout.

# host_result NAME STATUS: a host test binary's exit status, one result
# of its own, so that a binary that dies before its plan still fails.
host_result() {
	echo "TAP version 13"
	echo "1..1"
	if [ "$2" = 0 ]; then
		echo "ok 1 $1: exit status 0"
	else
		echo "not ok 1 $1: exit status $2"
	fi
}

# guest_result KERNEL STATUS SECONDS LOGDIR: whether the guest itself
# behaved (booted, no splat, module unloaded, kmemleak clean, no
# timeout), from tests/vm's exit status. The suite's own failures
# (status 1) are counted from its output; tests/vm's own (status 126)
# are a failure here, whether or not the guest ran.
guest_result() {
	echo "TAP version 13"
	echo "1..1"
	case $2 in
	0|1) echo "ok 1 $1: guest ran cleanly ($3 s)" ;;
	124) echo "not ok 1 $1: guest timed out" ;;
	126) echo "not ok 1 $1: harness error (tests/vm failed, status 126)" ;;
	*)   echo "not ok 1 $1: guest failed (status $2, see $4/console.log)" ;;
	esac
}

# guest_boot KERNEL NAME LOGDIR LIST VM_ARG...: one boot of tests/vm on
# KERNEL, its messages shown (from LOGDIR.vm.err); its result
# (guest_result, in LOGDIR/guest.tap) and the output the guest wrote
# (LOGDIR/output.log, missing if it never ran) go on LIST for
# count_part.
guest_boot() {
	local k=$1 name=$2 logs=$3 list=$4 t0=$SECONDS status

	shift 4
	"$FSGATE_TOP/tests/vm" --kernel "$k" --logs "$logs" "$@" \
		>/dev/null 2>"$logs.vm.err"
	status=$?
	sed 's/^/  /' "$logs.vm.err"
	mkdir -p "$logs"
	guest_result "$name" "$status" $((SECONDS - t0)) "$logs" >"$logs/guest.tap"
	printf '%s\n' "$logs/guest.tap" "$logs/output.log" >>"$list"
}

# debian_boot_result N NAME CONSOLE RESULT SECONDS: result N of the
# Debian system test's boots.tap, for its boot NAME that ended within
# its time: that boot ran cleanly if its kernel CONSOLE shows no splat
# and its RESULT channel holds the stage's "rc=N". Debian's console lines
# carry a timestamp and "\r" as tests/vm's do, so the splats are found
# as in every other boot, by tests/guest/find-splats. Returns 1 if the
# boot did not run cleanly.
debian_boot_result() {
	local n=$1 name=$2 console=$3 result=$4 splats rc

	splats=$("$FSGATE_TOP/tests/guest/find-splats" "$console" || true)
	rc=$(sed -n 's/^rc=\([0-9]*\)$/\1/p' "$result")
	if [ -n "$splats" ]; then
		echo "not ok $n $name: kernel splat"
		printf '%s\n' "$splats" | head -20 | sed 's/^/# /'
	elif [ -z "$rc" ]; then
		echo "not ok $n $name: the guest died before reporting"
		tail -20 "$console" | sed 's/^/# /'
	else
		echo "ok $n $name: booted, ran and powered off ($5 s)"
		return 0
	fi
	return 1
}

# kunit_tap CONSOLE_LOG SUITES: KUnit's KTAP from a guest's kernel
# console, checked against SUITES, a file naming every suite that must
# report (one a line; whichever module runs them). At boot KUnit prints
# its own header and a plan "1..0" for the built-in suites, none; the
# modules' suites then follow with no plan of their own. Both lines go,
# and a plan for the listed suites takes their place, so that a missing
# suite breaks the plan; each listed suite without a result of its own
# is one failure more, by name.
kunit_tap() {
	local console=$1 suites=$2 tap name

	tap=$("$FSGATE_TOP/tests/guest/console-text" "$console" |
		grep -vxE 'KTAP version 1|1\.\.0')
	printf 'KTAP version 1\n1..%s\n%s\n' "$(grep -c . "$suites")" "$tap"
	while read -r name; do
		[ -n "$name" ] || continue
		grep -qE "^(not )?ok [0-9]+ $name( |$)" <<<"$tap" && continue
		printf 'KTAP version 1\n1..1\nnot ok 1 %s: the suite did not report\n' \
			"$name"
	done <"$suites"
}

# failure_context FILE...: each failed result in the TAP FILEs with the
# comments just before it (a kselftest's EXPECT lines) and after it (a
# scenario's log), indented, so that CI's output says why without the
# build directory; bounded, 20 lines before and 40 after each, 200 in all.
failure_context() {
	awk 'FNR == 1 { nb = 0; after = 0 }
	     /^[ \t]*#/ { if (after > 0) { if (shown++ < 200) print "    " $0; after-- }
			  else before[nb++ % 20] = $0; next }
	     { after = 0 }
	     /^[ \t]*not ok / {
		for (i = (nb > 20 ? nb - 20 : 0); i < nb; i++)
			if (shown++ < 200) print "    " before[i % 20]
		if (shown++ < 200) print "    " FILENAME ": " $0
		after = 40
	     }
	     /^[ \t]*(not )?ok / { nb = 0 }' "$@"
}

# count_part NAME LIST: count the TAP files named in LIST (one a line)
# with ktap-count ($count). A file that is missing (a guest that left no
# log) is a failure, and so is a part that counted nothing: a TAP file
# saying so is written beside LIST and takes its place in LIST, so that
# the total counts it too.
count_part() {
	local name=$1 list=$2 files=() fails=() f status i
	local fail=${2%.*}.fail.tap

	while read -r f; do
		if [ -r "$f" ]; then
			files+=("$f")
		else
			fails+=("$f is missing")
		fi
	done <"$list"
	if [ ${#files[@]} -gt 0 ]; then
		"$count" --name "$name" "${files[@]}"
		status=$?
	else
		echo "$name: nothing to count"
		status=2
	fi
	[ "$status" != 1 ] || failure_context "${files[@]}"
	[ "$status" -le 1 ] ||
		fails+=("$name: no results (ktap-count status $status)")
	[ ${#fails[@]} -gt 0 ] || return "$status"
	{
		echo "TAP version 13"
		echo "1..${#fails[@]}"
		for i in "${!fails[@]}"; do
			echo "not ok $((i + 1)) ${fails[i]}"
		done
	} >"$fail"
	printf 'not ok: %s\n' "${fails[@]}"
	files+=("$fail")
	printf '%s\n' "${files[@]}" >"$list"
	return 1
}

# The manifest (tests/manifest) and the expected skips (tests/skips):
# what a run must count, program by program, so that a test program that
# stops building, a case that disappears and a skip nobody expected each
# fail the run instead of passing unseen.

# part_kernel PART: the kernel a part runs on ("6.1" for 6.1, debian-6.1
# and debian-6.1-dkms), or "-" for a part that is not one kernel's
# (host, harness, style, packages: their results name a kernel as "K: "
# where they are one kernel's).
part_kernel() {
	local k

	for k in $FSGATE_KERNELS_ALL; do
		case $1 in
		"$k" | "debian-$k" | "debian-$k-dkms") echo "$k"; return ;;
		esac
	done
	echo -
}

# part_cases PART LIST: every leaf result of the TAP files LIST names,
# one a line, tab-separated: kernel, part, program, "ok"/"not ok"/"skip",
# case, skip reason. A file that is a KTAP stream of programs (run-suite's
# output, kunit.tap) holds one program per top-level result; any other
# file is one program, named by its path under $out with the kernel's
# name as K ("K/crash", "K.2/guest", "harness-parts.sh" as "parts.sh"),
# so that a kernel's programs have the same names on every kernel.
# count_part's own failures (PART.fail.tap) and missing files are left
# out: they are failures already, and a missing file's programs are
# missing from the manifest's view too.
part_cases() {
	local part=$1 list=$2 k f key suite

	k=$(part_kernel "$part")
	while read -r f; do
		case $f in *.fail.tap) continue ;; esac
		[ -r "$f" ] || continue
		key=${f#"$out"/}
		key=${key%.exit.tap} key=${key%.tap} key=${key%.log}
		key=${key#host-} key=${key#harness-}
		[ "$k" = - ] || key=$(sed -E "s#(^|[/-])${k//./\\.}([/.-]|$)#\1K\2#g" <<<"$key")
		suite=0
		[ "$(grep -m1 -oE '^(K)?TAP version' "$f")" = "KTAP version" ] && suite=1
		"$count" --list "$f" | awk -F'\t' -v OFS='\t' -v part="$part" \
			-v k="$k" -v key="$key" -v suite=$suite -v kernels="$FSGATE_KERNELS_ALL" '
		{
			kernel = k
			if (kernel == "-") {
				n = split(kernels, ks, " ")
				for (i = 1; i <= n; i++)
					if (index($2, ks[i] ": ") == 1)
						kernel = ks[i]
			}
			if (suite) {
				prog = $2
				sub(/\/.*/, "", prog)
				name = $2
			} else {
				prog = key
				name = $2 == "" ? key : key "/" $2
			}
			print kernel, part, prog, $1, name, $3
		}'
	done <"$list"
}

# manifest_counts CASES: the manifest's lines ("KERNEL PART CASES
# PROGRAM", sorted) for the results part_cases printed into CASES.
manifest_counts() {
	awk -F'\t' '{ n[$1 " " $2 "\t" $3]++ }
	END { for (k in n) { split(k, a, "\t"); print a[1], n[k], a[2] } }' "$1" |
		LC_ALL=C sort -k1,1 -k2,2 -k4
}

# manifest_select MANIFEST KERNELS PARTS: the manifest's lines for the
# parts PARTS on the kernels KERNELS (both space-separated): those of a
# part in PARTS for one of KERNELS, or for no kernel ("-").
manifest_select() {
	grep -v '^#' "$1" | awk -v kernels=" $2 " -v parts=" $3 " \
		'NF >= 4 && index(parts, " " $2 " ") && ($1 == "-" || index(kernels, " " $1 " "))'
}

# manifest_check MANIFEST CASES KERNELS PARTS: TAP, one result per part
# in PARTS: ok if its programs and their numbers of cases in CASES are
# the manifest's, else one failure per difference, naming the program:
# missing, not in the manifest, or a different number of cases.
manifest_check() {
	local manifest=$1 cases=$2 kernels=$3 parts=$4

	manifest_counts "$cases" >"$cases.counts"
	manifest_select "$manifest" "$kernels" "$parts" |
		awk -v parts="$parts" -v counts="$cases.counts" -v file="${manifest#"$FSGATE_TOP"/}" '
		function key(   k, j) { k = $1 " " $2 " " $4; for (j = 5; j <= NF; j++) k = k " " $j; return k }
		{ want[key()] = $3; part[key()] = $2 }
		END {
			while ((getline < counts) > 0) { got[key()] = $3; part[key()] = $2 }
			np = split(parts, ps, " ")
			print "TAP version 13"
			for (i = 1; i <= np; i++) {
				bad = 0; progs = 0; total = 0
				for (k in part) {
					if (part[k] != ps[i])
						continue
					split(k, f, " ")
					prog = substr(k, length(f[1]) + length(f[2]) + 3)
					where = (f[1] == "-" ? "" : f[1] ": ") prog
					if (!(k in got))
						msg = "missing: " file " lists " want[k] " cases"
					else if (!(k in want))
						msg = "not in " file " (" got[k] " cases)"
					else if (got[k] != want[k])
						msg = got[k] " cases, " file " lists " want[k]
					else {
						progs++; total += got[k]
						continue
					}
					printf "not ok %d manifest: %s: %s: %s\n", ++n, ps[i], where, msg
					bad = 1
				}
				if (!bad)
					printf "ok %d manifest: %s: %d programs, %d cases, as %s lists\n", ++n, ps[i], progs, total, file
			}
			print "1.." n
		}'
}

# skips_check SKIPS CASES KERNELS PARTS STRICT: TAP, one result per
# kernel in KERNELS (and one for the results of no kernel): ok if the
# skips in CASES of the parts PARTS are those SKIPS expects, else one
# failure per difference. SKIPS holds lines "KERNEL PART/CASE :: skip
# reason as printed :: why it is expected". A skip SKIPS does not list
# is a failure when STRICT is 1 (CI, make check), else only reported; a
# listed one that did not skip is a failure either way: its reason no
# longer holds (the kernel gained what it lacked, the case was renamed)
# and the list would go on excusing a skip that hides nothing.
skips_check() {
	local skips=$1 cases=$2 kernels=$3 parts=$4 strict=$5

	awk -F'\t' -v parts=" $parts " 'index(parts, " " $2 " ") && $4 == "skip" {
		print $1 " " $2 "/" $5 " :: " $6 }' "$cases" >"$cases.skips"
	awk -v kernels="- $kernels" -v parts=" $parts " -v strict="$strict" \
		-v got="$cases.skips" -v file="${skips#"$FSGATE_TOP"/}" '
	function part(s,   p) { p = s; sub(/^[^ ]* /, "", p); sub(/\/.*/, "", p); return p }
	/^#/ || !NF { next }
	{
		split($0, f, / :: /)
		if (!index(parts, " " part(f[1]) " "))
			next
		want[f[1] " :: " f[2]] = f[3]
	}
	END {
		print "TAP version 13"
		while ((getline line < got) > 0)
			seen[line] = 1
		nk = split(kernels, ks, " ")
		for (i = 1; i <= nk; i++) {
			bad = 0; count = 0
			for (s in seen) {
				if (substr(s, 1, length(ks[i]) + 1) != ks[i] " ")
					continue
				if (s in want) {
					count++
					continue
				}
				if (strict) {
					printf "not ok %d skips: unexpected skip, not in %s: %s\n", ++n, file, s
					bad = 1
				} else {
					printf "# skips: unexpected skip, not in %s (a failure in CI and make check): %s\n", file, s
				}
			}
			for (s in want) {
				if (substr(s, 1, length(ks[i]) + 1) != ks[i] " " || s in seen)
					continue
				printf "not ok %d skips: %s expects this skip, which did not happen (%s): %s\n", ++n, file, want[s], s
				bad = 1
			}
			if (!bad)
				printf "ok %d skips: %s: the %d skips %s expects\n", ++n, ks[i] == "-" ? "no kernel" : ks[i], count, file
		}
		print "1.." n
	}' "$skips"
}

# manifest_figure MANIFEST: README.md's line on the manifest's figures,
# so that the README's count of the suite is the manifest's.
manifest_figure() {
	grep -v '^#' "$1" | awk '
	NF >= 4 { total += $3; k[$1] += $3 }
	END {
		printf "`tests/manifest` holds %d cases in all: %d of no one kernel (host, harness, style, packages), %d on 6.1, %d on 6.12, %d on the debug kernel; ", total, k["-"], k["6.1"], k["6.12"], k["debug"]
		print "`make check` counts each, and the results of its own manifest and skip checks besides."
	}'
}

# update_manifest OUT MANIFEST README: MANIFEST's lines for the parts
# and kernels of the run in OUT (OUT/run, OUT/cases) rewritten from its
# results, the others kept; README's line on the figures follows. A run
# with failures is refused: its counts are not the suite's.
update_manifest() {
	local out=$1 manifest=$2 readme=$3 kernels parts new

	if [ ! -r "$out/run" ] || [ ! -r "$out/cases" ]; then
		msg "no run to take the manifest from in $out/ (run tests/check first)"
		return 2
	fi
	kernels=$(sed -n 's/^kernels //p' "$out/run")
	parts=$(sed -n 's/^parts //p' "$out/run")
	awk -F'\t' -v parts=" $parts " 'index(parts, " " $2 " ") && $4 == "not ok"' \
		"$out/cases" >"$out/cases.failed"
	if [ -s "$out/cases.failed" ]; then
		msg "the run in $out/ has failures; not taking the manifest from it:"
		cut -f1,2,5 "$out/cases.failed" | sed 's/^/  /' >&2
		return 1
	fi
	new=$(mktemp)
	{
		grep '^#' "$manifest"
		{
			grep -v '^#' "$manifest" | awk -v kernels=" $kernels " -v parts=" $parts " \
				'NF >= 4 && !(index(parts, " " $2 " ") && ($1 == "-" || index(kernels, " " $1 " ")))'
			awk -F'\t' -v parts=" $parts " 'index(parts, " " $2 " ")' "$out/cases" >"$new"
			manifest_counts "$new"
		} | LC_ALL=C sort -k1,1 -k2,2 -k4
	} >"$manifest.new"
	rm -f "$new"
	mv "$manifest.new" "$manifest"
	sed -i "s|^\`tests/manifest\` holds .*|$(manifest_figure "$manifest" | sed 's/[|&\\]/\\&/g')|" "$readme"
	echo "$manifest: $(grep -vc '^#' "$manifest") programs (kernels: $kernels; parts: $parts)"
	git --no-pager diff --stat -- "$manifest" "$readme" 2>/dev/null || true
}
