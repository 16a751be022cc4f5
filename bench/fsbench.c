// SPDX-License-Identifier: GPL-2.0
/*
 * fsbench: the guest side of `make bench`. Each run measures one case
 * (a set of listener groups) with one access loop and prints one CSV row;
 * bench/guest runs every case, bench/report turns the rows into ratios.
 * See --help.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fsgate.h>

#include "bench.h"

#define FAN_CLOSE_BOTH	(FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE)
#define NOTE_LEN	256

static const char usage[] =
"Usage: fsbench create DIR COUNT SIZE\n"
"       fsbench run [OPTION]... CASE DIR\n"
"       fsbench queue|pending|cached fanotify|fsgate DIR COUNT\n"
"       fsbench time [OPTION]... CASE BYTES COMMAND\n"
"       fsbench header\n"
"create makes COUNT files of SIZE bytes named f000000... in DIR.\n"
"run sets up the listener groups of CASE on the filesystem of DIR (a\n"
"mount of its own), runs one untimed pass and REPS timed passes of the\n"
"access loop over the files in DIR and prints one CSV row: the median\n"
"accesses per second, the slowest and fastest pass, open() latency\n"
"percentiles over all timed passes (ns), and what the groups saw.\n"
"queue measures the kernel memory of COUNT queued open events, pending\n"
"of COUNT permission events waiting at once for an answer, cached of\n"
"COUNT files' cached verdicts (fanotify: ignore marks).\n"
"time runs the shell COMMAND once and prints a row of BYTES per second\n"
"(MB/s) in the ops column; -f gives the row's file count.\n"
"\n"
"  -f, --files N     files per pass (default 2000)\n"
"  -r, --reps N      timed passes (default 5)\n"
"  -l, --loop KIND   open (open+close), read (open+read 4 KiB+close),\n"
"                    one (open+close of the first file, N times) or\n"
"                    create (create, close and unlink a file of its own,\n"
"                    c000000..., for each file)\n"
"  -s, --fs NAME     filesystem label for the row (default: DIR)\n"
"  -o, --other DIR   the other filesystem fsg-elsewhere watches\n"
"  -x, --exec CMD    the watcher is a real program: the shell COMMAND,\n"
"                    started once it has a mark and stopped after\n"
"  -L, --log FILE    with -x: the program's log, whose lines count as\n"
"                    the events it handled\n"
"  -1, --first       also print a row of the untimed first pass\n"
"                    (loop \"first\"), e.g. a scanner's first scans\n"
"  -j, --accessors N split each pass over N processes started together\n"
"                    (default 1); the row's loop becomes LOOP-NxT\n"
"  -t, --threads T   each group's events are read and answered by T\n"
"                    threads of its watcher process (default 1)\n"
"  -h, --help        show this help and exit\n"
"\n"
"CASE: none, inotify, fan-notif, fsg-notif, fan-perm, fsg-perm,\n"
"fan-perm-ignore, fsg-perm-cache, fan-3class, fsg-3class, fsg-elsewhere,\n"
"fsg-muted, fsg-filter, fsg-perm-proc, fsg-notif-proc, fan-fid, fsg-fid\n"
"(FAN_REPORT_DFID_NAME, FAN_CREATE|FAN_DELETE; for the create loop),\n"
"fan-groups:K, fsg-prio:K, fsg-tier:K (K permission groups, each its\n"
"own responder process), fan-marks:N, fsg-marks:N (N inode marks held by\n"
"one group), tool-NAME (no groups: -x names the watcher).\n"
"Exit status: 0, also for a case the module does not support (its row\n"
"says n/a), 1 on error, 2 for bad usage.\n";

void bench_name(char *buf, long i)
{
	snprintf(buf, BENCH_NAME_LEN, "f%06ld", i);
}

static const char *const loops[] = { "open", "read", "create" };

struct options {
	long files;
	int reps;
	enum loop_kind kind;
	bool one;
	const char *fs;
	const char *other;
	const char *exec;
	const char *log;
	bool first;
	int accessors;
	int threads;
	const char *loop;	/* the row's loop label, if not the loop's */
	char loop_label[32];	/* LOOP-NxT of -j and -t */
};

/*
 * The object type of whole-filesystem marks. fanotify gets the type
 * fsgate can do so that the two compare: mount marks where fsgate has
 * them, filesystem marks otherwise (the benchmark's directories are
 * mounts of their own, so both cover the same files).
 */
static unsigned int whole_fs_mark(const char *dir)
{
	int fd = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC, O_RDONLY,
			     FSGATE_PRIORITY_DEFAULT);
	unsigned int type = FAN_MARK_FILESYSTEM;

	if (fd < 0)
		return type;
	if (!fsgate_mark(fd, FSGATE_MARK_ADD | FSGATE_MARK_MOUNT, FAN_OPEN,
			 AT_FDCWD, dir))
		type = FAN_MARK_MOUNT;
	close(fd);
	return type;
}

static struct watch_group group(enum watch_api api, unsigned int flags,
				uint64_t mask, unsigned int type, const char *path)
{
	return (struct watch_group){
		.api = api, .flags = flags, .mark_type = type, .mask = mask,
		.path = path, .response = FAN_ALLOW,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
}

/* The groups of "kind:K": K permission groups on the filesystem. */
static int perm_groups(const char *kind, long k, unsigned int type,
		       const char *dir, struct watch_group *g)
{
	enum watch_api api = strcmp(kind, "fan-groups") ? API_FSGATE : API_FANOTIFY;
	long i;

	if (k < 1 || k > WATCH_MAX_GROUPS)
		return -1;
	for (i = 0; i < k; i++) {
		g[i] = group(api, FAN_CLASS_CONTENT, FAN_OPEN_PERM, type, dir);
		if (!strcmp(kind, "fsg-prio"))
			g[i].priority = FSGATE_PRIORITY_CONTENT + (unsigned int)i;
		else if (!strcmp(kind, "fsg-tier"))
			g[i].priority = FSGATE_PRIORITY_CONTENT;
	}
	return (int)k;
}

/*
 * Fill @g with the groups of @name. Returns how many, or -1 for an
 * unknown case.
 */
static int case_groups(const char *name, const char *dir,
		       const struct options *o, struct watch_group *g)
{
	const unsigned int notif = FAN_CLASS_NOTIF, content = FAN_CLASS_CONTENT;
	const uint64_t ev = FAN_OPEN | FAN_CLOSE_BOTH;
	char kind[32];
	unsigned int t;
	long k;

	if (!strcmp(name, "none") || !strncmp(name, "tool-", 5))
		return 0;
	if (!strcmp(name, "inotify")) {
		g[0] = group(API_INOTIFY, 0, IN_OPEN | IN_CLOSE, 0, dir);
		return 1;
	}
	if (sscanf(name, "%31[a-z-]:%ld", kind, &k) == 2) {
		if (!strcmp(kind, "fan-marks") || !strcmp(kind, "fsg-marks")) {
			g[0] = group(kind[1] == 'a' ? API_FANOTIFY : API_FSGATE,
				     notif | FAN_UNLIMITED_MARKS, ev,
				     FAN_MARK_INODE, dir);
			g[0].inode_marks = k;
			return 1;
		}
		return perm_groups(kind, k, whole_fs_mark(dir), dir, g);
	}
	t = whole_fs_mark(dir);
	if (!strcmp(name, "fan-notif") || !strcmp(name, "fsg-notif") ||
	    !strcmp(name, "fsg-notif-proc")) {
		g[0] = group(name[1] == 'a' ? API_FANOTIFY : API_FSGATE, notif,
			     ev, t, dir);
		if (strstr(name, "-proc"))
			g[0].flags |= FSGATE_REPORT_PROC;
		return 1;
	}
	/*
	 * n.: directory entry events in fanotify's FID records (no fd), a
	 * filesystem mark on both: fanotify takes no such events on mounts.
	 * The loop makes files only, so FAN_ONDIR is not asked for.
	 */
	if (!strcmp(name, "fan-fid") || !strcmp(name, "fsg-fid")) {
		bool fan = name[1] == 'a';

		g[0] = group(fan ? API_FANOTIFY : API_FSGATE,
			     notif | (fan ? FAN_REPORT_DFID_NAME :
				      FSGATE_REPORT_DFID_NAME),
			     FAN_CREATE | FAN_DELETE, FAN_MARK_FILESYSTEM, dir);
		return 1;
	}
	/*
	 * k., l., m.: what fsgate decides in the kernel (a muted accessor,
	 * a filter) and what its process record costs, on f.'s group.
	 */
	if (!strcmp(name, "fsg-muted") || !strcmp(name, "fsg-filter") ||
	    !strcmp(name, "fsg-perm-proc")) {
		g[0] = group(API_FSGATE, content, FAN_OPEN_PERM, t, dir);
		if (!strcmp(name, "fsg-muted"))
			g[0].mute_pid = getpid();
		else if (!strcmp(name, "fsg-filter"))
			g[0].filter_tenth = true;
		else
			g[0].flags |= FSGATE_REPORT_PROC;
		return 1;
	}
	if (!strcmp(name, "fan-perm") || !strcmp(name, "fan-perm-ignore") ||
	    !strcmp(name, "fsg-perm") || !strcmp(name, "fsg-perm-cache")) {
		g[0] = group(name[1] == 'a' ? API_FANOTIFY : API_FSGATE, content,
			     FAN_OPEN_PERM, t, dir);
		g[0].ignore_after_first = !strcmp(name, "fan-perm-ignore");
		if (!strcmp(name, "fsg-perm-cache"))
			g[0].response |= FSGATE_CACHE;
		return 1;
	}
	if (!strcmp(name, "fan-3class") || !strcmp(name, "fsg-3class")) {
		enum watch_api api = name[1] == 'a' ? API_FANOTIFY : API_FSGATE;

		g[0] = group(api, FAN_CLASS_PRE_CONTENT, FAN_OPEN_PERM, t, dir);
		g[1] = group(api, content, FAN_OPEN_PERM, t, dir);
		g[2] = group(api, notif, ev, t, dir);
		return 3;
	}
	if (!strcmp(name, "fsg-elsewhere") && o->other) {
		t = whole_fs_mark(o->other);
		g[0] = group(API_FSGATE, notif, ev, t, o->other);
		g[1] = group(API_FSGATE, content, FAN_OPEN_PERM, t, o->other);
		return 2;
	}
	return -1;
}

static const char *mark_type_name(const struct watch_group *g, int n)
{
	if (!n || g[0].api == API_INOTIFY)
		return n ? "inotify watch" : "";
	switch (g[0].mark_type) {
	case FAN_MARK_MOUNT:
		return "mount marks";
	case FAN_MARK_FILESYSTEM:
		return "filesystem marks";
	}
	return "inode marks";
}

static void print_row(const struct options *o, const char *name,
		      const char *ops, const char *lat, const struct watch *w,
		      const char *bytes, const char *note)
{
	printf("%s,%s,%s,%ld,%d,%s,%s,%ld,%ld,%s,%s\n", o->fs,
	       o->loop ? o->loop : o->one ? "one" : loops[o->kind], name,
	       o->files, o->reps, ops,
	       lat, w ? w->events : 0, w ? w->overflows : 0, bytes, note);
	fflush(stdout);
}

static int load_names(const struct options *o, char (**names)[BENCH_NAME_LEN],
		      long *n)
{
	long i;

	*n = o->one ? 1 : o->files;
	*names = calloc(*n, sizeof(**names));
	if (!*names)
		return -1;
	for (i = 0; i < *n; i++) {
		bench_name((*names)[i], i);
		/* Files the create loop makes: not the directory's own. */
		if (o->kind == LOOP_CREATE)
			(*names)[i][0] = 'c';
	}
	return 0;
}

/*
 * Untimed pass, then o->reps timed ones. Fills ops[], *first (the
 * untimed pass) and lat: the timed passes, then the untimed one.
 */
static int measure(const struct options *o, int dirfd, double *ops,
		   double *first, uint64_t *lat)
{
	char (*names)[BENCH_NAME_LEN];
	long n;
	int r;

	if (load_names(o, &names, &n) < 0)
		return -1;
	for (r = -1; r < o->reps; r++) {
		double *v = r < 0 ? first : &ops[r];

		uint64_t *l = lat + (r < 0 ? o->reps : r) * o->files;

		if (o->accessors > 1)
			*v = loop_pass_parallel(dirfd, (const void *)names, n,
						o->files, o->kind, l,
						o->accessors);
		else
			*v = loop_pass(dirfd, (const void *)names, n, o->files,
				       o->kind, l);
		if (*v < 0) {
			free(names);
			return -1;
		}
	}
	free(names);
	return 0;
}

/* Lines in @path: what a program wrote to its log, 0 if none. */
static long count_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	long n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* The latency columns of @n samples at @lat (sorts them). */
static void latencies(uint64_t *lat, size_t n, char *buf, size_t len)
{
	uint64_t p50 = percentile(lat, n, 50), p99 = percentile(lat, n, 99);

	/* lat[] is sorted now. */
	snprintf(buf, len, "%llu,%llu,%llu", (unsigned long long)p50,
		 (unsigned long long)p99, (unsigned long long)lat[n - 1]);
}

/* The untimed first pass's row: loop "first", one pass. */
static void print_first(const struct options *o, const char *name,
			double first, uint64_t *lat, const char *note)
{
	struct options f = *o;
	char row[128], lat_s[96];

	f.loop = "first";
	f.reps = 1;
	snprintf(row, sizeof(row), "%.1f,%.1f,%.1f", first, first, first);
	latencies(lat, (size_t)o->files, lat_s, sizeof(lat_s));
	/* The events are those of every pass: on the main row only. */
	print_row(&f, name, row, lat_s, NULL, "", note);
}

static int run_case(const struct options *o, const char *name, const char *dir)
{
	struct watch_group g[WATCH_MAX_GROUPS];
	char why[NOTE_LEN / 2], note[NOTE_LEN], row[128], lat_s[96], bytes[32] = "";
	size_t nlat = (size_t)o->files * o->reps;
	double *ops = calloc(o->reps, sizeof(*ops)), med, first;
	uint64_t *lat = calloc(nlat + o->files, sizeof(*lat));
	struct watch w;
	int n, i, dirfd, ret = 1, started, tool = 0;
	/* Scaling cases: each group its own responder, as K daemons. */
	bool per_group = strchr(name, ':') && !strstr(name, "marks");

	n = case_groups(name, dir, o, g);
	if (n < 0)
		errx(2, "unknown case '%s' (see --help)", name);
	for (i = 0; i < n; i++)
		g[i].threads = o->threads;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!ops || !lat || dirfd < 0)
		err(1, "%s", dir);
	started = watch_start(&w, g, n, per_group, why, sizeof(why));
	if (started == 1 && !strcmp(name, "fsg-elsewhere")) {
		/* Watch elsewhere with what the module can do. */
		started = watch_start(&w, g, 1, false, why, sizeof(why));
		snprintf(note, sizeof(note), "%s; notification group only",
			 mark_type_name(g, n));
	} else if (o->exec) {
		/* The program the command execs, with no comma. */
		const char *prog = strstr(o->exec, "exec ");

		prog = prog ? prog + 5 : o->exec;
		snprintf(note, sizeof(note), "program: %.*s",
			 (int)strcspn(prog, " ,"), prog);
	} else {
		snprintf(note, sizeof(note), "%s%s", mark_type_name(g, n),
			 per_group && n > 1 ? "; one responder process per group" : "");
	}
	if (!started && o->exec) {
		tool = tool_start(o->exec, why, sizeof(why));
		if (tool < 0)
			started = -1;
	}
	if (started == 1) {
		snprintf(note, sizeof(note), "n/a (not supported by this module: %s)",
			 why);
		print_row(o, name, ",,", ",,", NULL, "", note);
		ret = 0;
		goto out;
	}
	if (started < 0) {
		snprintf(note, sizeof(note), "error: %s", why);
		print_row(o, name, ",,", ",,", NULL, "", note);
		goto out;
	}
	if (measure(o, dirfd, ops, &first, lat) < 0) {
		snprintf(note, sizeof(note), "error: %s", strerror(errno));
		if (tool > 0)
			tool_stop(tool);
		watch_stop(&w);
		print_row(o, name, ",,", ",,", NULL, "", note);
		goto out;
	}
	if (tool > 0) {
		tool_stop(tool);
		if (o->log)
			w.events = count_lines(o->log);
	}
	if (watch_stop(&w) < 0)
		warnx("%s: the watcher did not report its counters", name);
	if (o->first)
		print_first(o, name, first, lat + nlat, note);
	med = median(ops, o->reps);
	snprintf(row, sizeof(row), "%.1f,%.1f,%.1f", med, ops[0],
		 ops[o->reps - 1]);
	latencies(lat, nlat, lat_s, sizeof(lat_s));
	/*
	 * SLUB hands out objects from per-CPU slabs that /proc/slabinfo
	 * counts as in use whole: a thousand marks are needed to show.
	 */
	if (n && g[0].inode_marks >= 1000) {
		snprintf(bytes, sizeof(bytes), "%.1f",
			 (double)w.mark_bytes / g[0].inode_marks);
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "; slab growth: %s", w.mark_top);
	}
	print_row(o, name, row, lat_s, &w, bytes, note);
	ret = 0;
out:
	close(dirfd);
	free(ops);
	free(lat);
	return ret;
}

/*
 * One timed run of the shell @cmd that moves @bytes: a row with MB/s
 * in the ops columns.
 */
static int time_command(const struct options *o, const char *name, long bytes,
			const char *cmd)
{
	struct options t = *o;
	char row[128], note[NOTE_LEN];
	uint64_t ns = tool_time(cmd);
	double mbs;

	t.reps = 1;
	if (!ns) {
		print_row(&t, name, ",,", ",,", NULL, "", "error: the command failed");
		return 1;
	}
	mbs = bytes / 1e6 / (ns / 1e9);
	snprintf(row, sizeof(row), "%.2f,%.2f,%.2f", mbs, mbs, mbs);
	snprintf(note, sizeof(note), "MB/s: %ld bytes in %.3f s", bytes, ns / 1e9);
	print_row(&t, name, row, ",,", NULL, "", note);
	return 0;
}

static int create_files(const char *dir, long count, long size)
{
	char name[BENCH_NAME_LEN], *buf = calloc(1, size + 1);
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	long i;

	if (!buf || dirfd < 0)
		err(1, "%s", dir);
	memset(buf, 'x', size);
	for (i = 0; i < count; i++) {
		bench_name(name, i);
		/*
		 * Each file starts with its name: no two have the same
		 * content, so a scanner that caches by hash scans each.
		 */
		if (size > BENCH_NAME_LEN)
			memcpy(buf, name, strlen(name));
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			    0644);
		if (fd < 0 || write(fd, buf, size) != size)
			err(1, "%s/%s", dir, name);
		close(fd);
	}
	close(dirfd);
	free(buf);
	return 0;
}

/* A memory row: @delta slab bytes over @count of @what. */
static void memory_row(const char *dir, const char *name, long delta,
		       long count, const char *what, const char *top)
{
	struct options o = { .fs = dir, .files = count };
	char note[NOTE_LEN], bytes[32];

	snprintf(bytes, sizeof(bytes), "%.1f", (double)delta / count);
	snprintf(note, sizeof(note), "%ld %s; slab growth: %s", count, what,
		 top);
	print_row(&o, name, ",,", ",,", NULL, bytes, note);
}

/*
 * Kernel memory of @count queued events: a group with no reader, one
 * open of each of @count files (distinct files, so nothing merges).
 */
static int queue_memory(const char *api, const char *dir, long count)
{
	static struct slab_snap before, after;
	/* Small reads: see serve() in watch.c. */
	static char buf[4096] __attribute__((aligned(8)));
	char name[BENCH_NAME_LEN], top[128];
	bool fan = !strcmp(api, "fanotify");
	int g, dirfd, fd;
	long i, queued = 0, delta;
	ssize_t len;

	g = fan ? fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
				FAN_UNLIMITED_QUEUE, O_RDONLY | O_LARGEFILE) :
		  fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC |
			      FSGATE_NONBLOCK | FSGATE_UNLIMITED_QUEUE, O_RDONLY,
			      FSGATE_PRIORITY_DEFAULT);
	if (g < 0)
		err(1, "%s group", api);
	if ((fan ? fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN,
				 AT_FDCWD, dir) :
		   fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
			       FAN_OPEN, AT_FDCWD, dir)) < 0)
		err(1, "%s mark", api);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		err(1, "%s", dir);
	slab_snapshot(&before);
	for (i = 0; i < count; i++) {
		bench_name(name, i);
		fd = openat(dirfd, name, O_RDONLY);
		if (fd < 0)
			err(1, "%s/%s", dir, name);
		close(fd);
	}
	slab_snapshot(&after);
	delta = slab_delta(&before, &after, top, sizeof(top));
	while ((len = read(g, buf, sizeof(buf))) > 0) {
		const struct fanotify_event_metadata *ev = (void *)buf;

		for (; FAN_EVENT_OK(ev, len); ev = FAN_EVENT_NEXT(ev, len)) {
			queued++;
			if (ev->fd >= 0)
				close(ev->fd);
		}
	}
	if (!queued)
		errx(1, "%s: no event was queued", api);
	memory_row(dir, fan ? "fan-queue" : "fsg-queue", delta, queued,
		   "events queued", top);
	close(dirfd);
	close(g);
	return 0;
}

/*
 * A content group with a filesystem mark for FAN_OPEN_PERM on @dir's
 * filesystem, in-tree fanotify's or fsgate's, with no timeout of its own
 * to end a wait early.
 */
static int memory_perm_group(bool fan, const char *dir)
{
	int g = fan ? fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC |
				    FAN_UNLIMITED_QUEUE, O_RDONLY | O_LARGEFILE) :
		      fsgate_init(FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
				  FSGATE_UNLIMITED_QUEUE, O_RDONLY,
				  FSGATE_PRIORITY_DEFAULT);

	if (g < 0)
		err(1, "%s permission group", fan ? "fanotify" : "fsgate");
	if ((fan ? fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, dir) :
		   fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
			       FAN_OPEN_PERM, AT_FDCWD, dir)) < 0)
		err(1, "%s permission mark", fan ? "fanotify" : "fsgate");
	return g;
}

/*
 * Answer what one read of @g returns, allowing; @cache: fsgate's
 * FSGATE_CACHE, or for fanotify an ignore mark on each file first, as
 * case g. does. Returns the events answered.
 */
static long memory_answer(int g, bool fan, bool cache)
{
	static char buf[4096] __attribute__((aligned(8)));
	const struct fanotify_event_metadata *ev = (void *)buf;
	struct fanotify_response res;
	ssize_t len = read(g, buf, sizeof(buf));
	long n = 0;

	for (; len > 0 && FAN_EVENT_OK(ev, len); ev = FAN_EVENT_NEXT(ev, len)) {
		if (ev->fd < 0)
			continue;
		if (cache && fan &&
		    fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
				  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN_PERM,
				  ev->fd, NULL))
			err(1, "fanotify ignore mark");
		res.fd = ev->fd;
		res.response = FAN_ALLOW | (cache && !fan ? FSGATE_CACHE : 0);
		if (write(g, &res, sizeof(res)) != sizeof(res))
			err(1, "answer");
		close(ev->fd);
		n++;
	}
	return n;
}

/* Wait for @pid, answering @g meanwhile; @cache as for memory_answer(). */
static void memory_serve_until(int g, bool fan, bool cache, pid_t pid)
{
	struct pollfd p = { .fd = g, .events = POLLIN };
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0)
		if (poll(&p, 1, 100) > 0)
			memory_answer(g, fan, cache);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		errx(1, "the accessing process failed");
}

/* Bytes of the events queued on @g, as FIONREAD counts them. */
static int memory_queued_bytes(int g)
{
	int bytes = 0;

	if (ioctl(g, FIONREAD, &bytes))
		err(1, "FIONREAD");
	return bytes;
}

/*
 * Kernel memory of @count permission events pending at once: @count
 * processes, each blocked on a pipe until all are forked, open a file
 * of their own and wait for the group, which reads nothing until every
 * event is queued. What each process holds for its open alike on both
 * sides (its path buffer, names_cache, and its struct file, filp) is
 * left out; the slab growth in the note shows it.
 */
static int pending_memory(const char *api, const char *dir, long count)
{
	static struct slab_snap before, after;
	char path[PATH_MAX], name[BENCH_NAME_LEN], top[128];
	bool fan = !strcmp(api, "fanotify");
	int g = memory_perm_group(fan, dir), go[2], fd, status;
	long i, answered = 0, delta;
	pid_t pid;

	if (pipe(go))
		err(1, "pipe");
	for (i = 0; i < count; i++) {
		pid = fork();
		if (pid < 0)
			err(1, "fork");
		if (!pid) {
			close(go[1]);
			if (read(go[0], name, 1) != 0)
				_exit(1);
			bench_name(name, i);
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			fd = open(path, O_RDONLY);
			_exit(fd < 0);
		}
	}
	close(go[0]);
	slab_snapshot(&before);
	close(go[1]);
	while (memory_queued_bytes(g) < count * (int)FAN_EVENT_METADATA_LEN)
		usleep(10000);
	slab_snapshot(&after);
	/* Each process's path buffer and struct file: alike on both sides. */
	delta = slab_delta(&before, &after, top, sizeof(top)) -
		slab_growth(&before, &after, "names_cache") -
		slab_growth(&before, &after, "filp");
	while (answered < count)
		answered += memory_answer(g, fan, false);
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			errx(1, "an accessing process failed");
	memory_row(dir, fan ? "fan-pending" : "fsg-pending", delta, count,
		   "permission events pending", top);
	close(g);
	return 0;
}

/*
 * Kernel memory of @count files' cached verdicts: one process opens each
 * file twice, the group allowing the first open with FSGATE_CACHE
 * (fsgate) or with an ignore mark on the file (fanotify, as case g.);
 * the second is answered from there (for fsgate, it also leaves the
 * consensus of the file's cached verdicts).
 */
static int cached_memory(const char *api, const char *dir, long count)
{
	static struct slab_snap before, after;
	char path[PATH_MAX], name[BENCH_NAME_LEN], top[128];
	bool fan = !strcmp(api, "fanotify");
	int g = memory_perm_group(fan, dir), fd;
	long i, pass, delta;
	pid_t pid;

	slab_snapshot(&before);
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	if (!pid) {
		for (pass = 0; pass < 2; pass++)
			for (i = 0; i < count; i++) {
				bench_name(name, i);
				snprintf(path, sizeof(path), "%s/%s", dir, name);
				fd = open(path, O_RDONLY);
				if (fd < 0)
					_exit(1);
				close(fd);
			}
		_exit(0);
	}
	memory_serve_until(g, fan, true, pid);
	/* Replaced entries go after an RCU grace period. */
	sleep(1);
	slab_snapshot(&after);
	delta = slab_delta(&before, &after, top, sizeof(top));
	memory_row(dir, fan ? "fan-cached" : "fsg-cached", delta, count,
		   "files with cached verdicts", top);
	close(g);
	return 0;
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0)
		errx(2, "'%s' is not a number (see --help)", s);
	return v;
}

/* The number @s of option -@opt, 1 to @max. */
static int count(const char *s, long max, int opt)
{
	long v = number(s);

	if (v < 1 || v > max)
		errx(2, "-%c takes 1 to %ld (see --help)", opt, max);
	return (int)v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "files", required_argument, NULL, 'f' },
		{ "reps", required_argument, NULL, 'r' },
		{ "loop", required_argument, NULL, 'l' },
		{ "fs", required_argument, NULL, 's' },
		{ "other", required_argument, NULL, 'o' },
		{ "exec", required_argument, NULL, 'x' },
		{ "first", no_argument, NULL, '1' },
		{ "log", required_argument, NULL, 'L' },
		{ "accessors", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .files = 2000, .reps = 5, .kind = LOOP_OPEN,
			     .accessors = 1, .threads = 1 };
	const char *cmd = argc > 1 ? argv[1] : "";
	int opt;

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	/* Options follow the command: skip it. */
	argv++;
	argc--;
	while ((opt = getopt_long(argc, argv, "+f:r:l:s:o:x:L:1j:t:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'f':
			o.files = number(optarg);
			break;
		case 'r':
			o.reps = (int)number(optarg);
			break;
		case 'l':
			if (!strcmp(cmd, "time")) {
				/* Any label: the row is not a loop's. */
				o.loop = optarg;
				break;
			}
			o.one = !strcmp(optarg, "one");
			if (!strcmp(optarg, "read"))
				o.kind = LOOP_READ;
			else if (!strcmp(optarg, "create"))
				o.kind = LOOP_CREATE;
			else if (strcmp(optarg, "open") && !o.one)
				errx(2, "unknown loop '%s' (see --help)", optarg);
			break;
		case 's':
			o.fs = optarg;
			break;
		case 'o':
			o.other = optarg;
			break;
		case 'x':
			o.exec = optarg;
			break;
		case '1':
			o.first = true;
			break;
		case 'L':
			o.log = optarg;
			break;
		case 'j':
			o.accessors = count(optarg, LOOP_MAX_ACCESSORS, opt);
			break;
		case 't':
			o.threads = count(optarg, WATCH_MAX_THREADS, opt);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "see fsbench --help\n");
			return 2;
		}
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc == 1 && !strcmp(cmd, "header")) {
		puts("fs,loop,case,accesses,reps,ops_s,ops_min,ops_max,"
		     "p50_ns,p99_ns,max_ns,events,overflows,bytes_per,note");
		return 0;
	}
	if (argc == 4 && !strcmp(cmd, "create"))
		return create_files(argv[1], number(argv[2]), number(argv[3]));
	if (argc == 4 && !strcmp(cmd, "time")) {
		if (!o.fs)
			o.fs = "-";
		return time_command(&o, argv[1], number(argv[2]), argv[3]);
	}
	if (argc == 4 && !strcmp(cmd, "queue"))
		return queue_memory(argv[1], argv[2], number(argv[3]));
	if (argc == 4 && !strcmp(cmd, "pending"))
		return pending_memory(argv[1], argv[2], number(argv[3]));
	if (argc == 4 && !strcmp(cmd, "cached"))
		return cached_memory(argv[1], argv[2], number(argv[3]));
	if (argc == 3 && !strcmp(cmd, "run") && o.files && o.reps) {
		if (!o.fs)
			o.fs = argv[2];
		if (o.accessors > 1 || o.threads > 1) {
			snprintf(o.loop_label, sizeof(o.loop_label), "%s-%dx%d",
				 o.one ? "one" : loops[o.kind], o.accessors,
				 o.threads);
			o.loop = o.loop_label;
		}
		return run_case(&o, argv[1], argv[2]);
	}
	fprintf(stderr, "see fsbench --help\n");
	return 2;
}
