# SPDX-License-Identifier: GPL-2.0
#
# bench/results.awk: fsbench's raw rows of one boot (bench/guest's
# output, with -v kernel=NAME) to result rows: each figure as a ratio to
# the no-watcher baseline of the same boot, filesystem, loop and size,
# and each fsgate case against its fanotify counterpart. Prints CSV
# without a header (bench/report writes it). Labels hold no commas.
BEGIN {
	FS = ","
	OFS = ","
	label["none"] = "a. no watcher"
	label["inotify"] = "b. inotify with a draining reader"
	label["fan-notif"] = "c. fanotify open+close events"
	label["fsg-notif"] = "d. fsgate open+close events"
	label["fan-perm"] = "e. fanotify FAN_OPEN_PERM (allow)"
	label["fsg-perm"] = "f. fsgate FAN_OPEN_PERM (allow)"
	label["fan-perm-ignore"] = "g. e + ignore mark per file"
	label["fsg-perm-cache"] = "h. f + FSGATE_CACHE"
	label["fan-3class"] = "i. fanotify 3 groups (1 per class)"
	label["fsg-3class"] = "i. fsgate 3 groups (1 per class)"
	label["fsg-elsewhere"] = "j. fsgate watching another fs"
	label["fsg-muted"] = "k. f with the accessor muted"
	label["fsg-filter"] = "l. f with a BPF filter allowing 90%%"
	label["fsg-perm-proc"] = "m. f + FSGATE_REPORT_PROC"
	label["fsg-notif-proc"] = "m. d + FSGATE_REPORT_PROC"
	label["fan-fid"] = "n. fanotify FID create+delete events"
	label["fsg-fid"] = "n. fsgate FID create+delete events"
	label["tool-none"] = "a. no watcher"
	label["tool-fatrace"] = "fatrace on fanotify"
	label["tool-monitor"] = "fsgate-monitor"
	label["tool-clamav"] = "clamonacc + clamd on fanotify"
	label["tool-scan"] = "fsgate-scan (YARA)"
	label["tool-cp"] = "cp of the same data (MB/s)"
	label["tool-hsm"] = "fsgate-hsm restore on open (MB/s)"
	label["fan-groups"] = "fanotify perm groups: %s"
	label["fsg-prio"] = "fsgate perm groups (priorities): %s"
	label["fsg-tier"] = "fsgate perm groups (one tier): %s"
	label["fan-marks"] = "fanotify inode marks: %s"
	label["fsg-marks"] = "fsgate inode marks: %s"
	label["fan-queue"] = "fanotify queued event"
	label["fsg-queue"] = "fsgate queued event"
	label["fan-pending"] = "fanotify pending permission event"
	label["fsg-pending"] = "fsgate pending permission event"
	label["fan-cached"] = "fanotify ignore mark of a file"
	label["fsg-cached"] = "fsgate cached verdict of a file"
	# fsgate case -> the fanotify case it is compared with
	peer["fsg-notif"] = "fan-notif"
	peer["fsg-perm"] = "fan-perm"
	peer["fsg-perm-cache"] = "fan-perm-ignore"
	peer["fsg-3class"] = "fan-3class"
	peer["fsg-prio"] = "fan-groups"
	peer["fsg-tier"] = "fan-groups"
	peer["fsg-marks"] = "fan-marks"
	peer["fsg-queue"] = "fan-queue"
	peer["fsg-pending"] = "fan-pending"
	peer["fsg-cached"] = "fan-cached"
	# k. and l. against e., where fanotify asks userspace for each
	# access; m. against the same fsgate case without the record
	peer["fsg-muted"] = "fan-perm"
	peer["fsg-filter"] = "fan-perm"
	peer["fsg-perm-proc"] = "fsg-perm"
	peer["fsg-notif-proc"] = "fsg-notif"
	# n. directory entry events in FID records, as fanotify reports them
	peer["fsg-fid"] = "fan-fid"
	# the tools against what runs on in-tree fanotify
	peer["tool-monitor"] = "tool-fatrace"
	peer["tool-scan"] = "tool-clamav"
	peer["tool-hsm"] = "tool-cp"
}

# The guest's console ends its lines with CR.
{ sub(/\r$/, "") }

NF == 15 && $1 != "fs" && $5 ~ /^[0-9]+$/ {
	n++
	for (i = 1; i <= NF; i++)
		row[n, i] = $i
	# The tools part has its own baseline (tool-none).
	key[n] = $1 SUBSEP $2 SUBSEP $4 SUBSEP ($3 ~ /^tool-/)
	if ($3 == "none" || $3 == "tool-none")
		base[key[n]] = $6
	ops[key[n], $3] = $6
	if ($6 != "" && $12 > 0)
		evs[key[n], $3] = $6 * $12 / ($4 * ($5 + 1))
}

function fmt(v, digits) {
	return v == "" ? "" : sprintf("%." digits "f", v)
}

function us(ns) {
	return ns == "" ? "" : sprintf("%.1f", ns / 1000)
}

END {
	for (r = 1; r <= n; r++) {
		c = row[r, 3]
		split(c, part, ":")
		name = part[1] in label ? sprintf(label[part[1]], part[2]) : c
		o = row[r, 6]
		b = base[key[r]]
		ratio = (o != "" && b != "") ? o / b : ""
		vs = vs_ev = ""
		if (part[1] in peer) {
			p = peer[part[1]] (part[2] != "" ? ":" part[2] : "")
			q = ops[key[r], p]
			if (o != "" && q != "")
				vs = o / q
			# Readers merge more or fewer events depending on when
			# they run: events per second compare the notification
			# paths without that.
			if (evs[key[r], c] != "" && evs[key[r], p] != "")
				vs_ev = evs[key[r], c] / evs[key[r], p]
		}
		spread = (o != "" && o > 0) ? (row[r, 8] - row[r, 7]) / o * 100 : ""
		# Events read per access, the untimed pass included: below
		# 2 (open and close) where the reader merged or lost some.
		per = ""
		if (o != "" && row[r, 12] > 0)
			per = row[r, 12] / (row[r, 4] * (row[r, 5] + 1))
		print kernel, row[r, 1], row[r, 2], c, name, row[r, 4],
		      fmt(o, 1), fmt(ratio, 3), fmt(vs, 3), us(row[r, 9]),
		      us(row[r, 10]), us(row[r, 11]), fmt(spread, 2),
		      row[r, 12], row[r, 13], row[r, 14], row[r, 15], fmt(per, 2),
		      fmt(vs_ev, 3)
	}
}
