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
