#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each tool's man page against its --help, both ways: every option the
# page's OPTIONS section defines (the tags of its .TP entries) is one
# --help names, and every option --help names is defined in the page,
# so that neither can gain or lose an option alone. First the checker
# itself, on a constructed tool and page that differ by one option each
# way: it must name both. Last, pages against the sources they
# describe: fsgatectl(8) names every parameter fsgate.ko declares, and
# fsgate_version(3) every feature bit of the uapi header; and each bash
# completion offers the long options of its tool's --help, no more.
# Runs the built tools (build/bin/); prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/scenarios/lib/tap.sh"

# The options in text on stdin, one a line, sorted: -x or --long, never
# within a word (fsgate-run, absent-ms=) nor a lone --.
options() {
	perl -ne 'print "$1\n" while /(?<![\w-])(--[A-Za-z][\w-]*[A-Za-z0-9]|-[A-Za-z0-9])(?![\w])/g' |
		sort -u
}

# page_options PAGE: the options PAGE's OPTIONS section defines, from
# the tag line after each .TP (nested .RS lists included), troff's
# escapes taken out. Nothing when the page has no OPTIONS section.
page_options() {
	awk '/^\.SH / { in_opts = ($0 ~ /^\.SH "?OPTIONS"?$/); next }
	     in_opts && tag { print; tag = 0; next }
	     in_opts && /^\.TP/ { tag = 1 }' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/^\.[A-Z]* //' |
		options
}

# compare NAME PROGRAM PAGE: PROGRAM's --help against PAGE, each
# difference named in $work/NAME.out; 0 when there is none.
compare() {
	local name=$1 prog=$2 page=$3 out=$work/$1.out

	: >"$out"
	if ! "$prog" --help >"$work/$name.help" 2>&1; then
		echo "$prog --help failed:" >>"$out"
		cat "$work/$name.help" >>"$out"
		return 1
	fi
	options <"$work/$name.help" >"$work/$name.help.opts"
	page_options "$page" >"$work/$name.page.opts"
	if [ ! -s "$work/$name.page.opts" ]; then
		echo "${page#"$top"/}: no options in an OPTIONS section" >>"$out"
		return 1
	fi
	comm -23 "$work/$name.help.opts" "$work/$name.page.opts" |
		sed "s|^|${page#"$top"/} lacks |; s|\$| (in $name --help)|" >>"$out"
	comm -13 "$work/$name.help.opts" "$work/$name.page.opts" |
		sed "s|^|$name --help lacks |; s|\$| (in ${page#"$top"/})|" >>"$out"
	[ ! -s "$out" ]
}

echo "TAP version 13"
echo "1..10"

# The checker: --help has --gone, which the page lacks; the page has
# -n, --new, which --help lacks; -a, --also is in both.
cat >"$work/tool" <<-'SH'
	#!/bin/sh
	cat <<'TXT'
	Usage: tool [OPTION]... [--] PATH
	  -a, --also N        both have it (non-blocking, see tool-run)
	      --gone          only --help
	  -h, --help          show this help and exit
	TXT
SH
chmod +x "$work/tool"
cat >"$work/tool.1" <<-'MAN'
	.TH TOOL 1
	.SH DESCRIPTION
	.TP
	.B \-\-description\-only
	not in OPTIONS: not counted
	.SH OPTIONS
	.TP
	.BR \-a ", " \-\-also =\fIN\fP
	both have it.
	.TP
	.BR \-n ", " \-\-new
	only the page; prose that names \-\-gone is not a definition.
	.TP
	.BR \-h ", " \-\-help
	show a summary and exit.
	.SH SEE ALSO
	.TP
	.B \-\-see\-also\-only
MAN
compare tool "$work/tool" "$work/tool.1"
rc=$?
cp "$work/tool.out" "$work/checker.out"
[ $rc = 1 ] && [ "$(wc -l <"$work/tool.out")" = 3 ] &&
	grep -qxF "$work/tool.1 lacks --gone (in tool --help)" "$work/tool.out" &&
	grep -qxF "tool --help lacks -n (in $work/tool.1)" "$work/tool.out" &&
	grep -qxF "tool --help lacks --new (in $work/tool.1)" "$work/tool.out"
result $? "the checker names an option only --help has and one only the page has, and nothing else" \
	"$work/checker.out"

for t in fsgatectl:8 fsgate-monitor:1 fsgate-run:1 fsgate-scan:8 fsgate-hsm:8 fsgate-check:8; do
	name=${t%:*}
	compare "$name" "$top/build/bin/$name" "$top/man/$name.${t#*:}"
	result $? "$name: the options of $name.${t#*:} are those of --help" "$work/$name.out"
done

# Every module_param*(NAME, ...) of kmod/ is a word of fsgatectl(8);
# none found is a failure too.
grep -ho 'module_param[_a-z]*([a-z_]*' "$top"/kmod/*.c | sed 's/.*(//' |
	sort -u >"$work/params"
while read -r param; do
	grep -qw -- "$param" "$top/man/fsgatectl.8" ||
		echo "man/fsgatectl.8 lacks the parameter $param"
done <"$work/params" >"$work/params.out"
[ -s "$work/params" ] || echo "no module_param in kmod/*.c" >>"$work/params.out"
[ ! -s "$work/params.out" ]
result $? "fsgatectl.8 names every parameter of fsgate.ko" "$work/params.out"

# Every FSGATE_FEATURE_* the uapi header defines is a tag of
# fsgate_version(3)'s list.
grep -o '^#define FSGATE_FEATURE_[A-Z0-9_]*' "$top/include/uapi/linux/fsgate.h" |
	sed 's/^#define //' >"$work/features"
while read -r feature; do
	grep -qx "\.B $feature" "$top/man/fsgate_version.3" ||
		echo "man/fsgate_version.3 lacks $feature"
done <"$work/features" >"$work/features.out"
[ -s "$work/features" ] || echo "no FSGATE_FEATURE_ in the uapi header" >>"$work/features.out"
[ ! -s "$work/features.out" ]
result $? "fsgate_version.3 describes every FSGATE_FEATURE_ bit" "$work/features.out"

# completion/NAME's --long words against NAME --help's (run above).
: >"$work/completion.out"
for f in "$top"/completion/*; do
	name=${f##*/}
	grep -o -- '--[a-z][a-z-]*' "$work/$name.help.opts" >"$work/$name.help.long"
	options <"$f" | grep -- '^--' >"$work/$name.completion.long"
	comm -23 "$work/$name.help.long" "$work/$name.completion.long" |
		sed "s|^|completion/$name lacks |" >>"$work/completion.out"
	comm -13 "$work/$name.help.long" "$work/$name.completion.long" |
		sed "s|^|completion/$name offers |; s|\$|, which $name --help lacks|" \
			>>"$work/completion.out"
done
[ ! -s "$work/completion.out" ]
result $? "each bash completion offers the long options of --help, no more" \
	"$work/completion.out"
exit $failed
