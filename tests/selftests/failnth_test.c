// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: every slab allocation of each call fsgate serves fails
 * in turn, through the calling task's /proc/thread-self/fail-nth and
 * failslab (with ignore-gfp-wait off, so that GFP_KERNEL allocations fail
 * too): FSGATE_IOC_INIT, FSGATE_IOC_MARK (add, update, remove, flush),
 * FSGATE_IOC_STATS and FIONREAD, read(), write(), fdinfo and
 * /proc/fsgate/groups, close(), FSGATE_IOC_PERSIST, FSGATE_IOC_ATTACH
 * and FSGATE_IOC_REMOVE, and the event path, where the task that
 * makes the access arms its own fail-nth before its open. For n = 1, 2,
 * ... until the call runs without a failure injected: the call fails
 * cleanly (ENOMEM, or for an access the documented verdict) or works,
 * nothing is half changed (the group's marks as fdinfo lists them, its
 * stats identity), and the same call then works. Each injected failure's
 * allocation site, read from the kernel log, is printed as a comment;
 * kmemleak, scanned by the guest after the run, catches what leaked.
 * Skips where the kernel has no fail-nth or failslab (the stock ones).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"
#include "alloc_sites.h"

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define MAX_N 200	/* more allocations than any one call makes */
#define WAIT_MS 5000

/* --- fail-nth and the kernel log --- */

static int kmsg = -1;

/* Set a failslab knob; 0, or -1 where there is no failslab. */
static int failslab_set(const char *knob, const char *value)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), FAILSLAB "%s", knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, value, strlen(value)) < 0 ? -1 : 0;
	close(fd);
	return ret;
}

/*
 * failslab fails only what fail-nth asks (probability stays 0), GFP_KERNEL
 * allocations included, and logs every failure with its stack.
 * Return: 0, or -1 if this kernel cannot inject.
 */
static int faults_setup(void)
{
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    failslab_set("ignore-gfp-wait", "N") ||
	    failslab_set("verbose", "2") ||
	    failslab_set("verbose_ratelimit_burst", "1000000") ||
	    failslab_set("verbose_ratelimit_interval_ms", "1"))
		return -1;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	return 0;
}

static int trace_setup(void);
static int trace_sites(char *site, size_t len, char *ours, size_t olen);

static int nth_write(int n)
{
	char buf[16];
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	int len = snprintf(buf, sizeof(buf), "%d", n), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, buf, len) == len ? fd : -1;
	if (ret < 0)
		close(fd);
	return ret;
}

/* The fail-nth file, for nth_set(); -1 if there is none. */
static int nth_open(void)
{
	return open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
}

/* Arm the fail-nth file @fd of nth_open(): 0, or -1. */
static int nth_set(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -1;
}

/* Fail the @n-th allocation from now on; the fd to pass to fault_done(). */
static int fault_arm(int n)
{
	return nth_write(n);
}

/* Whether the armed failure happened; disarms it. */
static int fault_done(int fd)
{
	char buf[16] = "";
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);
	int injected = len > 0 && atoi(buf) == 0;

	if (write(fd, "0", 1) < 0)
		injected = -1;
	close(fd);
	return injected;
}

/* Frames of the fault machinery and the allocators, not the site. */
static int frame_is_machinery(const char *f)
{
	static const char *const skip[] = {
		"dump_stack", "should_fail", "failslab", "slab_pre_alloc",
		"kmem_cache_alloc", "kmalloc", "kzalloc", "kcalloc",
		"krealloc", "kmemdup", "kstrdup", "__kmem_cache", "slab_alloc",
		"show_stack", "fail_dump", "<TASK>", "Call Trace",
		"slab_post_alloc", "mem_pool_alloc",
	};
	unsigned int i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strstr(f, skip[i]))
			return 1;
	return 0;
}

/*
 * The allocation site of the failure just injected, from the kernel log:
 * the first frame past the allocator, and the first of fsgate's if that
 * is another.
 */
static void fault_site(char *site, size_t len)
{
	char rec[1024], first[128] = "", ours[128] = "", *msg, *end;
	ssize_t n;

	snprintf(site, len, "no stack: a __GFP_NOWARN allocation");
	if (kmsg < 0)
		return;
	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (strstr(msg, "FAULT_INJECTION: forcing a failure")) {
			first[0] = ours[0] = '\0';
			continue;
		}
		if (msg[0] != ' ' || !strstr(msg, "+0x") || frame_is_machinery(msg))
			continue;
		msg += strspn(msg, " ?");
		*strchrnul(msg, '+') = '\0';
		/* kmemleak's metadata for the object just allocated */
		if (strstr(msg, "kmemleak") || strstr(msg, "create_object"))
			snprintf(ours, sizeof(ours), "kmemleak's own");
		if (!first[0])
			snprintf(first, sizeof(first), "%s", msg);
		if (!ours[0] && strstr(rec, "[fsgate]"))
			snprintf(ours, sizeof(ours), "%s", msg);
	}
	if (first[0])
		snprintf(site, len, "%s%s%s", first,
			 ours[0] && strcmp(ours, first) ? " in " : "",
			 ours[0] && strcmp(ours, first) ? ours : "");
}

/*
 * --- which of fsgate's allocation sites failed ---
 *
 * failslab prints no stack for a __GFP_NOWARN allocation, as most of
 * fsgate's in the event path are, and the debug kernel has no
 * CONFIG_FAULT_INJECTION_STACKTRACE_FILTER to confine failures to
 * fsgate: every slab allocation the task makes is counted by fail-nth.
 * The site is read instead from the kmem:kmalloc and
 * kmem:kmem_cache_alloc trace events of allocations that returned NULL,
 * each with a stack (a "stacktrace" trigger): the first frame past the
 * allocator is the site. It is fsgate's when that function is one of
 * fsgate's (every site function is named fsgate_*, and kept out of line:
 * tests/selftests/alloc-sites). A failure inside the allocator (kmemleak's
 * metadata) or in the kernel's own code is no site of fsgate's.
 */

#define TRACEFS "/sys/kernel/tracing/"

static int tpipe = -1;
static char trace_buf[1 << 16];
static size_t trace_len;

static int trace_set(const char *file, const char *value)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), TRACEFS "events/kmem/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, value, strlen(value)) < 0 ? -1 : 0;
	close(fd);
	return ret;
}

/* Whether @file in tracefs holds @what. */
static int trace_has(const char *file, const char *what)
{
	char path[128], buf[512] = "";
	int fd;

	snprintf(path, sizeof(path), TRACEFS "events/kmem/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strstr(buf, what) != NULL;
}

/* Trace every allocation that returns NULL, with its stack: 0 or -1. */
static int trace_setup(void)
{
	static const char *const events[] = { "kmalloc", "kmem_cache_alloc" };
	char file[64];
	unsigned int i;

	if (access(TRACEFS "events", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	for (i = 0; i < 2; i++) {
		snprintf(file, sizeof(file), "%s/filter", events[i]);
		if (trace_set(file, "ptr == 0"))
			return -1;
		snprintf(file, sizeof(file), "%s/trigger", events[i]);
		/*
		 * Set once per boot: a second is refused. (An event without
		 * triggers lists the available ones, "stacktrace" among them.)
		 */
		if (!trace_has(file, "stacktrace:"))
			trace_set(file, "stacktrace if ptr == 0");
		if (!trace_has(file, "stacktrace:"))
			return -1;
		snprintf(file, sizeof(file), "%s/enable", events[i]);
		if (trace_set(file, "1"))
			return -1;
	}
	tpipe = open(TRACEFS "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return tpipe < 0 ? -1 : 0;
}

/* Frames of the tracing and of the allocators, not the site. */
static int frame_is_allocator(const char *f)
{
	static const char *const skip[] = {
		"trace", "kmem_cache_alloc", "kmalloc", "kzalloc", "kcalloc",
		"kvmalloc", "kvzalloc", "kvcalloc", "krealloc", "kmemdup",
		"kstrdup", "kstrndup", "kasprintf", "__kmem_cache", "slab_",
		"should_fail", "failslab",
	};
	unsigned int i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strstr(f, skip[i]))
			return 1;
	return 0;
}

/*
 * Read the traced failures so far; the site of the last (the frame past
 * the allocator, without a ".constprop.0" suffix) into @site, and each
 * of fsgate's sites, comma-separated, into @ours. Return: how many
 * failures were traced.
 */
static int trace_sites(char *site, size_t len, char *ours, size_t olen)
{
	char *line, *next, frame[128];
	int stack = 0, n = 0;
	ssize_t got;

	site[0] = ours[0] = '\0';
	if (tpipe < 0)
		return 0;
	trace_len = 0;
	while ((got = read(tpipe, trace_buf + trace_len,
			   sizeof(trace_buf) - 1 - trace_len)) > 0) {
		trace_len += got;
		if (trace_len == sizeof(trace_buf) - 1)
			break;
	}
	trace_buf[trace_len] = '\0';
	if (getenv("FAILNTH_DEBUG"))
		printf("# trace: %zd bytes, last read %zd (%m): %.300s\n",
		       trace_len, got, trace_buf);
	for (line = trace_buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strstr(line, "<stack trace>")) {
			stack = 1;
			n++;
			continue;
		}
		line += strspn(line, " ");
		if (!stack || strncmp(line, "=> ", 3))
			continue;
		snprintf(frame, sizeof(frame), "%s", line + 3);
		frame[strcspn(frame, "+. ")] = '\0';
		if (frame_is_allocator(frame))
			continue;
		stack = 0;
		snprintf(site, len, "%s", frame);
		if (strncmp(frame, "fsgate_", 7) || strlen(ours) + strlen(frame) + 2 >= olen)
			continue;
		if (ours[0])
			strcat(ours, ",");
		strcat(ours, frame);
	}
	return n;
}

/*
 * The sites of fsgate's that injected failures hit: this test's, and
 * the run's, in a file the test cases of one run share (each runs in a
 * process of its own, forked by the harness's).
 */
#define MAX_HITS 64
static char hits[MAX_HITS][64];
static int nhits;

static void hits_file(char *path, size_t len)
{
	snprintf(path, len, "/tmp/failnth-sites.%d", getppid());
}

static void hit(const char *call, const char *site)
{
	char path[64];
	int i;
	FILE *f;

	for (i = 0; i < nhits; i++)
		if (!strcmp(hits[i], site))
			return;
	if (nhits < MAX_HITS)
		snprintf(hits[nhits++], sizeof(hits[0]), "%.63s", site);
	hits_file(path, sizeof(path));
	f = fopen(path, "ae");
	if (f) {
		fprintf(f, "%s %s\n", site, call);
		fclose(f);
	}
}

static int was_hit(const char *site)
{
	int i;

	for (i = 0; i < nhits; i++)
		if (!strcmp(hits[i], site))
			return 1;
	return 0;
}

/* The sweep's injected failures hit each of @want, NULL-ended. */
static void expect_sites(struct __test_metadata *_metadata,
			 const char *const *want)
{
	for (; *want; want++) {
		EXPECT_TRUE(was_hit(*want))
			TH_LOG("no injected failure hit %s", *want);
	}
}

#define EXPECT_SITES(...) \
	expect_sites(_metadata, (const char *const[]){ __VA_ARGS__, NULL })

static void note(const char *call, int n, long ret, int err)
{
	char site[300], traced[128], ours[256], *p, *comma;

	fault_site(site, sizeof(site));
	if (trace_sites(traced, sizeof(traced), ours, sizeof(ours)))
		snprintf(site, sizeof(site), "%s", traced);
	for (p = ours; *p; p = comma ? comma + 1 : p + strlen(p)) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		hit(call, p);
	}
	printf("# fail-nth %s: allocation %d (%s) -> %s\n", call, n, site,
	       ret < 0 ? strerror(err) : "worked");
	fflush(stdout);
}

/* --- the state a failure must leave as it was --- */

static char *strstrnul(char *s, const char *what)
{
	char *p = strstr(s, what);

	return p ? p : s + strlen(s);
}

/* The group's marks as its fdinfo lists them. */
static void marks_of(int g, char *buf, size_t len)
{
	char path[64], line[512];
	size_t used = 0;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "fsgate-mark", 11))
			continue;
		/*
		 * Not the object's union mask: after a removal whose
		 * recalculation failed it is a superset, which is harmless
		 * (fsgate_sub_destroy()).
		 */
		line[strcspn(line, "\n")] = '\0';
		*strstrnul(line, " fsnotify_mask:") = '\0';
		if (used + strlen(line) + 1 < len)
			used += snprintf(buf + used, len - used, "%s\n", line);
	}
	fclose(f);
}

/* asked = answered + timedout + orphaned + cancelled + overflows + unopened + pending */
static int identity_holds(int g)
{
	struct fsgate_stats s;

	if (fsgate_stats(g, &s))
		return 0;
	return s.asked == s.answered + s.timedout + s.orphaned + s.cancelled +
			  s.perm_overflows + s.unopened + s.pending;
}

static int group(unsigned int class, unsigned int timeout_verdict)
{
	return perm_group(class, FSGATE_PRIORITY_DEFAULT, WAIT_MS,
			  timeout_verdict, FSGATE_VERDICT_DEFAULT);
}

FIXTURE(fault) {
	char dir[64];
	char file[80];
	int dev;
};

FIXTURE_SETUP(fault)
{
	char site[8], ours[8];

	if (faults_setup())
		SKIP(return, "no fail-nth or failslab in this kernel");
	/* A kernel that can inject has the trace events: the debug one. */
	ASSERT_EQ(0, trace_setup()) TH_LOG("no kmem trace events: %m");
	trace_sites(site, sizeof(site), ours, sizeof(ours));
	ASSERT_EQ(0, fsgate_test_tmpfs("failnth", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
	self->dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->dir[0])
		fsgate_test_tmpfs_done(self->dir);
	failslab_set("ignore-gfp-wait", "Y");
}

TEST_F_TIMEOUT(fault, init, 300)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_NONBLOCK | FSGATE_CLOEXEC,
	};
	int n, f, g, err, injected;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		f = fault_arm(n);
		ASSERT_LE(0, f);
		g = ioctl(self->dev, FSGATE_IOC_INIT, &init);
		err = errno;
		injected = fault_done(f);
		ASSERT_LE(0, injected);
		if (!injected) {
			ASSERT_LE(0, g);
			close(g);
			break;
		}
		note("FSGATE_IOC_INIT", n, g, err);
		if (g >= 0) {
			close(g);
			continue;
		}
		EXPECT_TRUE(err == ENOMEM || err == ENFILE || err == EMFILE)
			TH_LOG("allocation %d: %s", n, strerror(err));
		/* No group left behind, and the next one is made. */
		EXPECT_EQ(0, fsgate_test_groups_of(getpid()));
		g = ioctl(self->dev, FSGATE_IOC_INIT, &init);
		ASSERT_LE(0, g);
		close(g);
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_SITES("fsgate_group_alloc", "fsgate_group_set_self");
}

/* One mark request of a sweep, and what it needs around it. */
struct mark_case {
	const char *name;
	const char *file;
	int on_dir;	/* the directory, not the file */
	unsigned int flags;
	uint64_t mask;
	uint64_t pre;	/* marked beforehand (an update or a removal) */
	int other;	/* another group marks the object too */
};

/*
 * Make the request with the @n-th allocation failing (none for 0), in
 * fresh groups; the group's marks before, after and after the same
 * request once more if the first failed, as fdinfo shows them. Return:
 * whether a failure was injected, or -1.
 */
static int mark_once(const struct mark_case *c, int n, char bufs[3][2048],
		     int *ret, int *err)
{
	unsigned int type = c->flags & FSGATE_MARK_TYPES;
	int f = -1, g, o = -1, injected = 0;

	g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
	if (g < 0)
		return -1;
	if (c->other) {
		o = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		if (o < 0 || fsgate_mark(o, FSGATE_MARK_ADD | type,
					 FAN_OPEN_PERM | FAN_OPEN, AT_FDCWD, c->file))
			injected = -1;
	}
	if (c->pre && fsgate_mark(g, FSGATE_MARK_ADD | type, c->pre, AT_FDCWD,
				  c->file))
		injected = -1;
	marks_of(g, bufs[0], sizeof(bufs[0]));
	if (n && injected == 0)
		f = fault_arm(n);
	*ret = fsgate_mark(g, c->flags, c->mask, AT_FDCWD, c->file);
	*err = errno;
	if (f >= 0)
		injected = fault_done(f);
	marks_of(g, bufs[1], sizeof(bufs[1]));
	bufs[2][0] = '\0';
	if (*ret && fsgate_mark(g, c->flags, c->mask, AT_FDCWD, c->file) == 0)
		marks_of(g, bufs[2], sizeof(bufs[2]));
	if (o >= 0)
		close(o);
	close(g);
	return injected;
}

/*
 * A mark request with the n-th allocation failing, for every n: the
 * group's marks are as before (ENOMEM) or as the request without a
 * failure leaves them, never between; after a failure the same request
 * works.
 */
static void sweep_mark(struct __test_metadata *_metadata,
		       const struct mark_case *c)
{
	char ref[3][2048], bufs[3][2048];
	int n, ret, err, injected;

	ASSERT_EQ(0, mark_once(c, 0, ref, &ret, &err));
	ASSERT_EQ(0, ret);
	for (n = 1; n < MAX_N; n++) {
		injected = mark_once(c, n, bufs, &ret, &err);
		ASSERT_LE(0, injected);
		if (!injected)
			break;
		note(c->name, n, ret, err);
		if (ret) {
			EXPECT_EQ(ENOMEM, err);
			EXPECT_STREQ(bufs[0], bufs[1])
				TH_LOG("%s, allocation %d: the marks changed", c->name, n);
			EXPECT_STREQ(ref[1], bufs[2])
				TH_LOG("%s, allocation %d: asked again", c->name, n);
		} else {
			EXPECT_STREQ(ref[1], bufs[1])
				TH_LOG("%s, allocation %d: worked otherwise", c->name, n);
		}
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_EQ(0, ret);
}

/*
 * Adds of inode, filesystem (on an object another group marks) and mount
 * marks, an add to a mark, an ignore mask, removals of some and of the
 * last events.
 */
TEST_F_TIMEOUT(fault, marks, 900)
{
	static const struct mark_case cases[] = {
		{ .name = "mark add inode", .on_dir = 0,
		  .flags = FSGATE_MARK_ADD,
		  .mask = FAN_OPEN_PERM | FAN_CLOSE_WRITE, .pre = 0, .other = 0 },
		{ .name = "mark add filesystem (shared object)", .on_dir = 1,
		  .flags = FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
		  .mask = FAN_OPEN_PERM, .pre = 0, .other = 1 },
		{ .name = "mark add mount", .on_dir = 1,
		  .flags = FSGATE_MARK_ADD | FSGATE_MARK_MOUNT,
		  .mask = FAN_OPEN | FAN_ACCESS_PERM, .pre = 0, .other = 0 },
		{ .name = "mark add to a mark (update)", .on_dir = 0,
		  .flags = FSGATE_MARK_ADD,
		  .mask = FAN_ACCESS_PERM | FAN_MODIFY, .pre = FAN_OPEN,
		  .other = 1 },
		{ .name = "mark add ignore mask", .on_dir = 0,
		  .flags = FSGATE_MARK_ADD | FSGATE_MARK_IGNORED_MASK |
			   FSGATE_MARK_IGNORED_SURV_MODIFY,
		  .mask = FAN_OPEN_PERM, .pre = FAN_OPEN_PERM, .other = 0 },
		{ .name = "mark remove some events", .on_dir = 0,
		  .flags = FSGATE_MARK_REMOVE,
		  .mask = FAN_OPEN, .pre = FAN_OPEN | FAN_OPEN_PERM, .other = 1 },
		{ .name = "mark remove the last events", .on_dir = 0,
		  .flags = FSGATE_MARK_REMOVE,
		  .mask = FAN_OPEN_PERM, .pre = FAN_OPEN_PERM, .other = 1 },
	};
	struct mark_case c;
	unsigned int i;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = cases[i];
		c.file = c.on_dir ? self->dir : self->file;
		sweep_mark(_metadata, &c);
	}
	EXPECT_SITES("fsgate_obj_alloc", "fsgate_sub_create");
}

TEST_F_TIMEOUT(fault, mark_flush, 300)
{
	char after[2048];
	int n, f, g, o, ret, err, injected;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		o = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_LE(0, o);
		ASSERT_EQ(0, fsgate_mark(o, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN,
					 AT_FDCWD, self->dir));
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = fsgate_mark(g, FSGATE_MARK_FLUSH, 0, 0, NULL);
		err = errno;
		injected = fault_done(f);
		ASSERT_LE(0, injected);
		if (injected)
			note("mark flush", n, ret, err);
		/* A flush cannot fail: every mark goes. */
		EXPECT_EQ(0, ret);
		marks_of(g, after, sizeof(after));
		EXPECT_STREQ("", after);
		close(o);
		close(g);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
}

TEST_F_TIMEOUT(fault, stats_and_fionread, 300)
{
	struct fsgate_stats st;
	int n, f, g, ret, err, injected, q;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	for (n = 1; n < MAX_N; n++) {
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = fsgate_stats(g, &st);
		if (!ret)
			ret = ioctl(g, FIONREAD, &q);
		err = errno;
		injected = fault_done(f);
		if (injected)
			note("FSGATE_IOC_STATS, FIONREAD", n, ret, err);
		if (!injected) {
			EXPECT_EQ(0, ret);
			break;
		}
	}
	ASSERT_LT(n, MAX_N);
	close(g);
}

/* Reading fdinfo and /proc/fsgate/groups: ENOMEM or the text, then the text. */
TEST_F_TIMEOUT(fault, proc_files, 300)
{
	char path[64], buf[4096];
	const char *files[2] = { path, "/proc/fsgate/groups" };
	int i, n, f, fd, g, err, injected;
	ssize_t ret;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				 self->file));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	for (i = 0; i < 2; i++) {
		for (n = 1; n < MAX_N; n++) {
			fd = open(files[i], O_RDONLY | O_CLOEXEC);
			ASSERT_LE(0, fd);
			f = fault_arm(n);
			ASSERT_LE(0, f);
			ret = read(fd, buf, sizeof(buf));
			err = errno;
			injected = fault_done(f);
			close(fd);
			if (injected)
				note(files[i] == path ? "read of fdinfo" :
				     "read of /proc/fsgate/groups", n, ret, err);
			if (ret < 0)
				EXPECT_EQ(ENOMEM, err);
			if (!injected) {
				EXPECT_LT(0, ret);
				break;
			}
		}
		ASSERT_LT(n, MAX_N);
	}
	close(g);
	EXPECT_SITES("fsgate_subs_show_fdinfo");
}

/*
 * The mutes, FSGATE_IOC_MUTE with the n-th allocation failing: an add
 * (two entries beforehand), set_mode and a clear each fail with ENOMEM
 * and leave the entries and mode as they were, or work.
 */
TEST_F_TIMEOUT(fault, mute, 300)
{
	static const char *const calls[] = { "mute add", "mute set_mode",
					     "mute clear", "mute list" };
	struct fsgate_mute_entry e = { .type = FSGATE_MUTE_UID, .id = 65534 };
	struct fsgate_mute_entry pre[2] = {
		{ .type = FSGATE_MUTE_UID, .id = 1 },
		{ .type = FSGATE_MUTE_PROCESS, .id = getpid() },
	};
	struct fsgate_mute_entry got[4];
	unsigned int mode;
	int c, n, f, g, ret, err, injected;
	ssize_t before;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (c = 0; c < 4; c++) {
		for (n = 1; n < MAX_N; n++) {
			g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
			ASSERT_LE(0, g);
			ASSERT_EQ(0, fsgate_mute_add(g, &pre[0]));
			ASSERT_EQ(0, fsgate_mute_add(g, &pre[1]));
			before = fsgate_mute_list(g, got, 4, &mode);
			ASSERT_EQ(2, before);
			f = fault_arm(n);
			ASSERT_LE(0, f);
			if (c == 0)
				ret = fsgate_mute_add(g, &e);
			else if (c == 1)
				ret = fsgate_mute_set_mode(g, FSGATE_MUTE_MODE_ONLY);
			else if (c == 2)
				ret = fsgate_mute_clear(g);
			else
				ret = fsgate_mute_list(g, got, 4, &mode) == 2 ? 0 : -1;
			err = errno;
			injected = fault_done(f);
			ASSERT_LE(0, injected);
			if (injected)
				note(calls[c], n, ret, err);
			if (ret) {
				EXPECT_EQ(ENOMEM, err);
				EXPECT_EQ(before, fsgate_mute_list(g, got, 4, &mode));
				EXPECT_EQ(FSGATE_MUTE_MODE_MUTE, mode);
			} else {
				EXPECT_EQ(c == 0 ? 3 : c == 2 ? 0 : 2,
					  fsgate_mute_list(g, got, 4, &mode));
				EXPECT_EQ(c == 1 ? FSGATE_MUTE_MODE_ONLY :
					  FSGATE_MUTE_MODE_MUTE, mode);
			}
			close(g);
			if (!injected)
				break;
		}
		ASSERT_LT(n, MAX_N);
	}
	EXPECT_SITES("fsgate_mutes_copy", "fsgate_mute_list");
}

/*
 * FSGATE_IOC_FLUSH_CACHE of a group with a verdict cached: it drops it
 * or fails with ENOMEM and keeps it; either way the group's next answer
 * still decides.
 */
TEST_F_TIMEOUT(fault, flush_cache, 300)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	int n, f, g, ret, err, injected;
	pid_t pid;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		pid = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
		ASSERT_EQ(sizeof(struct fanotify_response),
			  answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE));
		ASSERT_EQ(0, reap(pid));
		ASSERT_EQ(0, fsgate_stats(g, &st));
		ASSERT_EQ(1, st.cache_entries);
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = fsgate_cache_flush(g, -1);
		err = errno;
		injected = fault_done(f);
		ASSERT_LE(0, injected);
		if (injected)
			note("FSGATE_IOC_FLUSH_CACHE", n, ret, err);
		ASSERT_EQ(0, fsgate_stats(g, &st));
		if (ret < 0) {
			EXPECT_EQ(ENOMEM, err);
			EXPECT_EQ(1, st.cache_entries);
		} else {
			EXPECT_EQ(1, ret);
			EXPECT_EQ(0, st.cache_entries);
		}
		close(g);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
}

/* Answer every permission event of @g, allowing; return how many. */
static int serve(int g, int timeout_ms)
{
	struct fanotify_event_metadata ev[8];
	struct fanotify_response r;
	ssize_t len, i;
	int n = 0;

	if (!readable(g, timeout_ms))
		return 0;
	len = read(g, ev, sizeof(ev));
	for (i = 0; len > 0 && i < len / (ssize_t)sizeof(ev[0]); i++) {
		if (ev[i].fd < 0)
			continue;
		if (ev[i].mask & FSGATE_PERM_EVENTS) {
			r.fd = ev[i].fd;
			r.response = FSGATE_ALLOW;
			if (write(g, &r, sizeof(r)) == sizeof(r))
				n++;
		}
		close(ev[i].fd);
	}
	return n;
}

/*
 * read() with its n-th allocation failing, a permission event and a
 * notification queued: it fails cleanly (the permission event stays
 * queued, or is denied as unopened) and the next read works.
 */
TEST_F_TIMEOUT(fault, read, 300)
{
	struct fanotify_event_metadata ev[4];
	int n, f, g, err, injected, st, i;
	ssize_t ret;
	pid_t pid;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD,
					 FAN_OPEN_PERM | FAN_CLOSE_NOWRITE,
					 AT_FDCWD, self->file));
		pid = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_TRUE(readable(g, WAIT_MS));
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = read(g, ev, sizeof(ev));
		err = errno;
		injected = fault_done(f);
		if (injected)
			note("read", n, ret, err);
		if (ret < 0)
			EXPECT_TRUE(err == ENOMEM || err == EMFILE || err == ENFILE)
				TH_LOG("allocation %d: %s", n, strerror(err));
		for (i = 0; ret > 0 && i < ret / (ssize_t)sizeof(ev[0]); i++) {
			if (ev[i].mask & FSGATE_PERM_EVENTS) {
				EXPECT_EQ(sizeof(struct fanotify_response),
					  answer(g, ev[i].fd, FSGATE_ALLOW));
			} else if (ev[i].fd >= 0) {
				close(ev[i].fd);
			}
		}
		/* Whatever is left reads now; the opener ends either way. */
		while (serve(g, 200))
			;
		st = reap(pid);
		EXPECT_TRUE(st == 0 || (injected && st == EPERM))
			TH_LOG("allocation %d: the open ended with %d", n, st);
		EXPECT_TRUE(identity_holds(g));
		close(g);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
}

/*
 * write(): nine responses (past the ones answered without allocating)
 * that name no pending event: ENOMEM while an allocation fails, then
 * ENOENT; and an answer with FSGATE_CACHE, which must be applied whether
 * or not its cache entry could be made.
 */
TEST_F_TIMEOUT(fault, write, 300)
{
	struct fanotify_response r[9];
	struct fanotify_event_metadata ev;
	int n, i, f, g, err, injected;
	ssize_t ret;
	pid_t pid;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	for (i = 0; i < 9; i++)
		r[i] = (struct fanotify_response){ .fd = 1000 + i,
						   .response = FSGATE_ALLOW };
	for (n = 1; n < MAX_N; n++) {
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = write(g, r, sizeof(r));
		err = errno;
		injected = fault_done(f);
		if (injected)
			note("write of nine responses", n, ret, err);
		ASSERT_GT(0, ret);
		/*
		 * ENOENT where the failure was one the allocator absorbed
		 * (kmemleak's own metadata falls back on its pool).
		 */
		if (injected) {
			EXPECT_TRUE(err == ENOMEM || err == ENOENT)
				TH_LOG("allocation %d: %s", n, strerror(err));
		} else {
			EXPECT_EQ(ENOENT, err);
		}
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	close(g);
	/* A group of its own each time: a verdict it cached is not asked. */
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		pid = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
		r[0] = (struct fanotify_response){
			.fd = ev.fd, .response = FSGATE_ALLOW | FSGATE_CACHE };
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = write(g, r, sizeof(r[0]));
		err = errno;
		injected = fault_done(f);
		close(ev.fd);
		if (injected)
			note("write of an answer to cache", n, ret, err);
		EXPECT_EQ(sizeof(r[0]), ret) TH_LOG("%s", strerror(err));
		EXPECT_EQ(0, reap(pid));
		EXPECT_TRUE(identity_holds(g));
		close(g);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_SITES("fsgate_answers_get", "fsgate_cache_merge");
}

/*
 * The event path: a child arms its own fail-nth and opens the file that
 * @ngroups groups watch, while the test answers them (allow). The open
 * works, fails with ENOMEM (the VFS's allocations, or fsgate's when it
 * cannot collect every group that must decide), or gets the timeout
 * verdict of a group whose event could not be made (deny here), counted
 * as a perm_overflow; every group's identity holds after.
 */
static void sweep_access(struct __test_metadata *_metadata, const char *name,
			 const char *file, int ngroups, int notif)
{
	int g[20], n, i, st, p[2], r[2], injected, asked;
	struct fsgate_stats s;
	unsigned long long over;
	pid_t pid;

	for (n = 1; n < MAX_N; n++) {
		for (i = 0; i < ngroups; i++) {
			g[i] = group(notif ? FSGATE_CLASS_NOTIF :
				     FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DENY);
			ASSERT_LE(0, g[i]);
			ASSERT_EQ(0, fsgate_mark(g[i], FSGATE_MARK_ADD,
						 notif ? FAN_OPEN : FAN_OPEN_PERM,
						 AT_FDCWD, file));
		}
		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int f, fd, err;

			close_range(3, p[1] - 1, 0);
			f = fault_arm(n);
			fd = open(file, O_RDONLY);
			err = errno;
			r[0] = fd < 0 ? err : 0;
			r[1] = fault_done(f);
			if (write(p[1], r, sizeof(r)) < 0)
				_exit(1);
			_exit(0);
		}
		close(p[1]);
		/* Answer until the child is done. */
		while (!readable(p[0], notif ? 10 : 0))
			for (i = 0; i < ngroups; i++)
				if (!notif)
					serve(g[i], 10);
		r[0] = r[1] = -1;
		EXPECT_EQ(sizeof(r), read(p[0], r, sizeof(r)));
		close(p[0]);
		st = reap(pid);
		EXPECT_EQ(0, st);
		injected = r[1];
		ASSERT_LE(0, injected);
		over = asked = 0;
		for (i = 0; i < ngroups; i++) {
			/* An open that happened was told: its record or an overflow. */
			if (notif)
				EXPECT_EQ(r[0] ? 0 : 1, fsgate_test_drain(g[i], NULL));
			ASSERT_EQ(0, fsgate_stats(g[i], &s));
			over += s.perm_overflows;
			asked += s.asked;
			EXPECT_TRUE(identity_holds(g[i]));
		}
		if (injected)
			note(name, n, r[0] ? -1 : 0, r[0]);
		EXPECT_TRUE(r[0] == 0 || r[0] == ENOMEM ||
			    (r[0] == EPERM && over > 0))
			TH_LOG("%s, allocation %d: the open failed with %s",
			       name, n, strerror(r[0]));
		for (i = 0; i < ngroups; i++)
			close(g[i]);
		if (!injected) {
			EXPECT_EQ(0, r[0]);
			EXPECT_EQ(notif ? 0 : ngroups, asked);
			break;
		}
	}
	ASSERT_LT(n, MAX_N);
}

TEST_F_TIMEOUT(fault, access_one_group, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_access(_metadata, "open, one content group", self->file, 1, 0);
	EXPECT_SITES("fsgate_perm_ask");
}

TEST_F_TIMEOUT(fault, access_notification, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_access(_metadata, "open, one notification group", self->file, 1, 1);
	EXPECT_SITES("fsgate_event_add");
}

/* More groups than fsgate collects on the stack: its own allocation. */
TEST_F_TIMEOUT(fault, access_many_groups, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_access(_metadata, "open, seventeen content groups", self->file,
		     17, 0);
	EXPECT_SITES("fsgate_dispatch_matched", "fsgate_perm_ask");
}

/*
 * close() of a group sharing its object with another: the other group
 * is still asked, and (kmemleak) nothing leaks.
 */
TEST_F_TIMEOUT(fault, close, 300)
{
	int n, f, g, o, ret, err, injected;
	pid_t pid;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		o = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_LE(0, o);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD,
					 FAN_OPEN_PERM | FAN_ACCESS_PERM,
					 AT_FDCWD, self->file));
		ASSERT_EQ(0, fsgate_mark(o, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = close(g);
		err = errno;
		injected = fault_done(f);
		if (injected)
			note("close", n, ret, err);
		EXPECT_EQ(0, ret);
		pid = spawn_open(self->file, O_RDONLY, 1);
		EXPECT_EQ(1, serve(o, WAIT_MS));
		EXPECT_EQ(0, reap(pid));
		close(o);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
}

/* A child's open of @file: its errno, or 0. */
static int open_errno(const char *file)
{
	return reap(spawn_open(file, O_RDONLY, 0));
}

/*
 * A persistent group (absent verdict EIO at once): FSGATE_IOC_PERSIST,
 * FSGATE_IOC_ATTACH and FSGATE_IOC_REMOVE with each allocation failing
 * in turn. A failed request changes nothing: the group is not made
 * persistent, no fd is counted as attached (the group stays absent, so
 * an open still gets EIO at once), the group is not removed; the same
 * request then works.
 */
TEST_F_TIMEOUT(fault, persist_attach_remove, 300)
{
	struct fsgate_persist req = {
		.size = sizeof(req),
		.name = "failnth",
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.absent_verdict = FSGATE_VERDICT_DENY,
		.absent_errno = EIO,
		.flags = FSGATE_PERSIST_UNTIL_REMOVED,
	};
	struct fsgate_attach a = { .flags = FSGATE_CLOEXEC, .name = "failnth" };
	int n, f, g, ret, err, injected;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				 self->file));
	for (n = 1; n < MAX_N; n++) {
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = ioctl(g, FSGATE_IOC_PERSIST, &req);
		err = errno;
		injected = fault_done(f);
		if (!injected || !ret)
			break;
		note("FSGATE_IOC_PERSIST", n, ret, err);
		EXPECT_EQ(ENOMEM, err);
		EXPECT_EQ(-1, ioctl(self->dev, FSGATE_IOC_ATTACH, &a));
	}
	ASSERT_EQ(0, ret);
	ASSERT_LT(n, MAX_N);
	close(g);
	EXPECT_EQ(EIO, open_errno(self->file));

	for (n = 1; n < MAX_N; n++) {
		f = fault_arm(n);
		ASSERT_LE(0, f);
		g = ioctl(self->dev, FSGATE_IOC_ATTACH, &a);
		err = errno;
		injected = fault_done(f);
		if (g >= 0)
			close(g);
		if (!injected)
			break;
		note("FSGATE_IOC_ATTACH", n, g, err);
		if (g < 0)
			EXPECT_TRUE(err == ENOMEM || err == ENFILE || err == EMFILE)
				TH_LOG("allocation %d: %s", n, strerror(err));
		/* Nobody attached: absent still, decided at once. */
		EXPECT_EQ(EIO, open_errno(self->file));
	}
	ASSERT_LT(n, MAX_N);

	for (n = 1; n < MAX_N; n++) {
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = ioctl(self->dev, FSGATE_IOC_REMOVE,
			    &(struct fsgate_attach){ .name = "failnth" });
		err = errno;
		injected = fault_done(f);
		if (!injected || !ret)
			break;
		note("FSGATE_IOC_REMOVE", n, ret, err);
		EXPECT_EQ(ENOMEM, err);
		EXPECT_EQ(EIO, open_errno(self->file));
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, open_errno(self->file));
	fsgate_remove("failnth");
	EXPECT_SITES("fsgate_persist_alloc");
}

/*
 * A notification group's event, made by a child whose @n-th allocation
 * fails as it opens @file (creates it, with @create): the open works or
 * fails with ENOMEM; if it worked, the group has its record or an
 * overflow event (an event fsgate could not make is never silently
 * lost), and none when no failure was injected.
 */
static void sweep_notify(struct __test_metadata *_metadata, const char *name,
			 unsigned int flags, uint64_t mask, const char *marked,
			 const char *file, int create)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK | FSGATE_CLOEXEC |
			 flags,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	struct fsgate_test_tally t;
	int n, g, p[2], r[2], injected;
	pid_t pid;

	for (n = 1; n < MAX_N; n++) {
		g = fsgate_init_ext(&init);
		ASSERT_LE(0, g) TH_LOG("%s: %m", name);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, mask, AT_FDCWD,
					 marked));
		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int f, fd, err;

			close_range(3, p[1] - 1, 0);
			f = fault_arm(n);
			fd = create ? open(file, O_WRONLY | O_CREAT | O_EXCL, 0600) :
				      open(file, O_RDONLY);
			err = errno;
			r[0] = fd < 0 ? err : 0;
			r[1] = fault_done(f);
			if (write(p[1], r, sizeof(r)) < 0)
				_exit(1);
			_exit(0);
		}
		close(p[1]);
		r[0] = r[1] = -1;
		EXPECT_EQ(sizeof(r), read(p[0], r, sizeof(r)));
		close(p[0]);
		EXPECT_EQ(0, reap(pid));
		injected = r[1];
		ASSERT_LE(0, injected);
		if (injected)
			note(name, n, r[0] ? -1 : 0, r[0]);
		memset(&t, 0, sizeof(t));
		EXPECT_EQ(r[0] ? 0 : 1, fsgate_test_drain(g, &t))
			TH_LOG("%s, allocation %d", name, n);
		/* tmpfs reports an inode it could not allocate as ENOSPC. */
		EXPECT_TRUE(r[0] == 0 || r[0] == ENOMEM ||
			    (create && r[0] == ENOSPC))
			TH_LOG("%s, allocation %d: the open failed with %s",
			       name, n, strerror(r[0]));
		if (create && r[0] == 0)
			EXPECT_EQ(0, unlink(file));
		close(g);
		if (!injected) {
			EXPECT_EQ(0, r[0]);
			EXPECT_EQ(0, t.overflows);
			break;
		}
	}
	ASSERT_LT(n, MAX_N);
}

/* The FID record (and the process record after it) of a create. */
TEST_F_TIMEOUT(fault, access_fid_record, 300)
{
	char file[96];

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	snprintf(file, sizeof(file), "%s/created", self->dir);
	sweep_notify(_metadata, "create, a DFID_NAME and PROC group",
		     FSGATE_REPORT_DFID_NAME | FSGATE_REPORT_PROC, FAN_CREATE,
		     self->dir, file, 1);
	EXPECT_SITES("fsgate_fid_alloc", "fsgate_proc_take");
}

/* The process record of an fd-mode event. */
TEST_F_TIMEOUT(fault, access_process_record, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_notify(_metadata, "open, a PROC group", FSGATE_REPORT_PROC,
		     FAN_OPEN, self->file, self->file, 0);
	EXPECT_SITES("fsgate_event_add", "fsgate_proc_take");
}

/*
 * read() of a queued event with its n-th allocation failing, in a group
 * of @flags told of a create in the directory (a FID group) or of an
 * open of the file: the read returns the event as it does without a
 * failure, or fails (ENOMEM, or for an fd-mode event an fd that could
 * not be had); a FID event then stays queued for the next read, an
 * fd-mode notification is dropped (logged); nothing else is left.
 */
static void sweep_read_records(struct __test_metadata *_metadata,
			       FIXTURE_DATA(fault) *self, const char *name,
			       unsigned int flags, int fid)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK | FSGATE_CLOEXEC |
			 flags,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	char buf[4096] __attribute__((aligned(8))), file[320];
	const struct fanotify_event_metadata *ev;
	int n, f, g, err, injected, fd;
	ssize_t ret, ref = -1;

	/* A long name: records larger than fsgate lays out on its stack. */
	snprintf(file, sizeof(file), "%s/created%0200d", self->dir, 0);
	for (n = 0; n < MAX_N; n++) {
		g = fsgate_init_ext(&init);
		ASSERT_LE(0, g) TH_LOG("%s: %m", name);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD,
					 fid ? FAN_CREATE : FAN_OPEN, AT_FDCWD,
					 fid ? self->dir : self->file));
		fd = open(fid ? file : self->file,
			  fid ? O_WRONLY | O_CREAT | O_EXCL : O_RDONLY, 0600);
		ASSERT_LE(0, fd);
		close(fd);
		ASSERT_TRUE(readable(g, WAIT_MS));
		f = n ? fault_arm(n) : -1;
		ret = read(g, buf, sizeof(buf));
		err = errno;
		injected = f >= 0 ? fault_done(f) : 0;
		ASSERT_LE(0, injected);
		if (injected)
			note(name, n, ret, err);
		if (ret < 0) {
			EXPECT_TRUE(err == ENOMEM ||
				    (!fid && (err == EMFILE || err == ENFILE)))
				TH_LOG("%s, allocation %d: %s", name, n,
				       strerror(err));
			/* Kept for the next read, or (fd mode) dropped. */
			ret = read(g, buf, sizeof(buf));
			if (!fid && ret < 0 && errno == EAGAIN)
				ret = ref;
		}
		if (n == 0)
			ref = ret;
		EXPECT_EQ(ref, ret) TH_LOG("%s, allocation %d", name, n);
		ev = (void *)buf;
		if (ret > 0 && ev->fd >= 0 && ret == ref)
			close(ev->fd);
		/* Nothing else queued. */
		EXPECT_EQ(-1, read(g, buf, sizeof(buf)));
		if (fid)
			EXPECT_EQ(0, unlink(file));
		close(g);
		if (n && !injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	ASSERT_LT(0, ref);
}

/* A FID group's records are built for each read, off the stack. */
TEST_F_TIMEOUT(fault, read_fid, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_read_records(_metadata, self, "read, a DFID_NAME and FID group",
			   FSGATE_REPORT_DFID_NAME | FSGATE_REPORT_FID, 1);
	EXPECT_SITES("fsgate_event_copy");
}

/*
 * An fd-mode event with its process record: no allocation of fsgate's
 * (the record is laid out on the stack), the kernel's for the fd.
 */
TEST_F_TIMEOUT(fault, read_process_record, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_read_records(_metadata, self, "read, a PROC group",
			   FSGATE_REPORT_PROC, 0);
}

/*
 * read() of a permission event when the fd number it would get is the
 * one an unanswered event already read holds (its fd closed by the
 * reader): fsgate holds such numbers aside while it looks for another.
 * ENOMEM (the event stays queued) or an fd; both opens end allowed, or
 * the second denied as unopened.
 */
TEST_F_TIMEOUT(fault, read_fd_taken, 300)
{
	struct fanotify_event_metadata first, ev[4];
	int n, f, g, err, injected, st, i;
	ssize_t ret;
	pid_t one, two;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		/* Opened now, so that it does not take the number freed. */
		f = nth_open();
		ASSERT_LE(0, f);
		one = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_EQ(0, next_event(g, WAIT_MS, &first));
		/* Its number is free again, but still the pending event's. */
		close(first.fd);
		two = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_TRUE(readable(g, WAIT_MS));
		ASSERT_EQ(0, nth_set(f, n));
		ret = read(g, ev, sizeof(ev));
		err = errno;
		injected = fault_done(f);
		ASSERT_LE(0, injected);
		if (injected)
			note("read, an fd number taken", n, ret, err);
		if (ret < 0)
			EXPECT_TRUE(err == ENOMEM || err == EMFILE || err == ENFILE)
				TH_LOG("allocation %d: %s", n, strerror(err));
		for (i = 0; ret > 0 && i < ret / (ssize_t)sizeof(ev[0]); i++) {
			EXPECT_NE(first.fd, ev[i].fd);
			EXPECT_EQ(sizeof(struct fanotify_response),
				  answer(g, ev[i].fd, FSGATE_ALLOW));
		}
		EXPECT_EQ(sizeof(struct fanotify_response),
			  answer(g, first.fd, FSGATE_ALLOW));
		while (serve(g, 200))
			;
		EXPECT_EQ(0, reap(one));
		st = reap(two);
		EXPECT_TRUE(st == 0 || (injected && st == EPERM))
			TH_LOG("allocation %d: the open ended with %d", n, st);
		EXPECT_TRUE(identity_holds(g));
		close(g);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_SITES("fsgate_event_get_fd");
}

/*
 * FSGATE_IOC_SET_FILTER of a filter that allows every access: ENOMEM
 * and the group is still asked, or the filter decides without asking.
 */
TEST_F_TIMEOUT(fault, set_filter, 300)
{
	static const struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ALLOW),
	};
	struct fsgate_stats st;
	int n, f, g, ret, err, injected;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM,
					 AT_FDCWD, self->file));
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = fsgate_set_filter(g, allow, 1);
		err = errno;
		injected = fault_done(f);
		ASSERT_LE(0, injected);
		if (injected)
			note("FSGATE_IOC_SET_FILTER", n, ret, err);
		if (ret) {
			EXPECT_EQ(ENOMEM, err);
			EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
		} else {
			EXPECT_TRUE(decided_quietly(g, self->file));
		}
		ASSERT_EQ(0, fsgate_stats(g, &st));
		EXPECT_EQ(ret ? 0 : 1, st.filtered);
		EXPECT_EQ(ret ? 1 : 0, st.asked);
		close(g);
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_SITES("fsgate_filter_set");
}

/*
 * FSGATE_IOC_GROUPS with room for every group: ENOMEM, or the records
 * of as many groups as without a failure.
 */
TEST_F_TIMEOUT(fault, ioc_groups, 300)
{
	static struct fsgate_group_entry e[64];
	struct fsgate_groups req = {
		.size = sizeof(e[0]),
		.count = 64,
		.entries = (uintptr_t)e,
	};
	int n, f, g, h, ret, err, injected, ref;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	g = group(FSGATE_CLASS_CONTENT, FSGATE_VERDICT_DEFAULT);
	h = group(FSGATE_CLASS_NOTIF, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	ref = ioctl(self->dev, FSGATE_IOC_GROUPS, &req);
	ASSERT_LE(2, ref);
	for (n = 1; n < MAX_N; n++) {
		memset(e, 0, sizeof(e));
		f = fault_arm(n);
		ASSERT_LE(0, f);
		ret = ioctl(self->dev, FSGATE_IOC_GROUPS, &req);
		err = errno;
		injected = fault_done(f);
		ASSERT_LE(0, injected);
		if (injected)
			note("FSGATE_IOC_GROUPS", n, ret, err);
		if (ret < 0) {
			EXPECT_EQ(ENOMEM, err);
		} else {
			EXPECT_EQ(ref, ret);
		}
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	close(h);
	close(g);
	EXPECT_SITES("fsgate_ioctl_groups");
}

/*
 * A consensus forming: two groups have allowed the file with
 * FSGATE_CACHE, and a child whose n-th allocation fails opens it, every
 * group's cache allowing. The open works (or fails with ENOMEM in the
 * VFS), no group is asked, and the next open is not asked either,
 * whether or not the consensus could be kept.
 */
TEST_F_TIMEOUT(fault, consensus, 300)
{
	struct fanotify_event_metadata ev;
	int n, i, g[2], p[2], r[2], answered, injected;
	pid_t pid;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		for (i = 0; i < 2; i++) {
			g[i] = content_group(1000 + 1000 * i);
			ASSERT_LE(0, g[i]);
			ASSERT_EQ(0, perm_mark(g[i], FAN_OPEN_PERM, self->file));
		}
		pid = spawn_open(self->file, O_RDONLY, 0);
		for (answered = 0; answered < 2;)
			for (i = 0; i < 2; i++)
				if (readable(g[i], 10)) {
					ASSERT_EQ(0, next_event(g[i], WAIT_MS, &ev));
					ASSERT_EQ(sizeof(struct fanotify_response),
						  answer(g[i], ev.fd,
							 FSGATE_ALLOW | FSGATE_CACHE));
					answered++;
				}
		ASSERT_EQ(0, reap(pid));
		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int f, fd, err;

			close_range(3, p[1] - 1, 0);
			f = fault_arm(n);
			fd = open(self->file, O_RDONLY);
			err = errno;
			r[0] = fd < 0 ? err : 0;
			r[1] = fault_done(f);
			if (write(p[1], r, sizeof(r)) < 0)
				_exit(1);
			_exit(0);
		}
		close(p[1]);
		r[0] = r[1] = -1;
		EXPECT_EQ(sizeof(r), read(p[0], r, sizeof(r)));
		close(p[0]);
		EXPECT_EQ(0, reap(pid));
		injected = r[1];
		ASSERT_LE(0, injected);
		if (injected)
			note("open, a consensus of two cached allows", n,
			     r[0] ? -1 : 0, r[0]);
		EXPECT_TRUE(r[0] == 0 || r[0] == ENOMEM)
			TH_LOG("allocation %d: %s", n, strerror(r[0]));
		for (i = 0; i < 2; i++) {
			EXPECT_FALSE(readable(g[i], 0));
			EXPECT_TRUE(identity_holds(g[i]));
		}
		EXPECT_TRUE(decided_quietly(g[0], self->file));
		EXPECT_FALSE(readable(g[1], 0));
		for (i = 0; i < 2; i++)
			close(g[i]);
		if (!injected) {
			EXPECT_EQ(0, r[0]);
			break;
		}
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_SITES("fsgate_consensus_store");
}

/*
 * A group made by a caller without CAP_SYS_ADMIN: an unprivileged one,
 * tied to its user's count of marks. Only the uids are dropped, around
 * the request (the saved uid stays 0, so the capabilities come back):
 * the sweep's own files stay root's. The fail-nth file is opened as
 * root; the task writes its own after.
 */
TEST_F_TIMEOUT(fault, unprivileged_init, 300)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID |
			 FSGATE_CLOEXEC,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	int n, f, g, err, injected;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	for (n = 1; n < MAX_N; n++) {
		f = nth_open();
		ASSERT_LE(0, f);
		ASSERT_EQ(0, setresuid(65534, 65534, 0));
		ASSERT_EQ(0, nth_set(f, n));
		g = fsgate_init_ext(&init);
		err = errno;
		injected = fault_done(f);
		ASSERT_EQ(0, setresuid(0, 0, 0));
		ASSERT_LE(0, injected);
		if (injected)
			note("unprivileged FSGATE_IOC_INIT", n, g, err);
		if (g < 0) {
			EXPECT_EQ(ENOMEM, err);
		} else {
			close(g);
		}
		if (!injected)
			break;
	}
	ASSERT_LT(n, MAX_N);
	EXPECT_SITES("fsgate_group_set_unpriv");
}

/*
 * fsgate's allocation sites that no sweep can reach, and why; every
 * other site in alloc_sites.h must be hit by an injected failure.
 */
static const char *const unswept[][2] = {
	{ NULL, NULL },
};

/*
 * Every allocation site of fsgate's (alloc_sites.h, generated from
 * kmod's sources by tests/selftests/alloc-sites) was hit by an injected
 * failure of some sweep of this run, or is listed above: a site added
 * without a sweep fails here. Runs last, after the whole program; the
 * sweeps' hits are in the run's file.
 */
TEST_F_TIMEOUT(fault, every_site_swept, 60)
{
	static const char *const sites[][3] = { FSGATE_ALLOC_SITES };
	char path[64], line[256], *sp;
	unsigned int i, j, found;
	FILE *f;

	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	hits_file(path, sizeof(path));
	f = fopen(path, "re");
	ASSERT_NE(NULL, f) TH_LOG("no sweep of this run hit a site: %s", path);
	while (fgets(line, sizeof(line), f)) {
		sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		if (nhits < MAX_HITS && !was_hit(line))
			snprintf(hits[nhits++], sizeof(hits[0]), "%.63s", line);
	}
	fclose(f);
	for (i = 0; sites[i][0]; i++) {
		for (j = 0, found = 0; unswept[j][0]; j++)
			if (!strcmp(unswept[j][0], sites[i][0]))
				found = 1;
		if (found) {
			EXPECT_FALSE(was_hit(sites[i][0]))
				TH_LOG("%s is listed as unswept but was hit",
				       sites[i][0]);
			continue;
		}
		EXPECT_TRUE(was_hit(sites[i][0]))
			TH_LOG("no sweep hit %s (%s, %s())", sites[i][0],
			       sites[i][1], sites[i][2]);
	}
	/* A listed site that is gone from the module. */
	for (j = 0; unswept[j][0]; j++) {
		for (i = 0, found = 0; sites[i][0]; i++)
			if (!strcmp(unswept[j][0], sites[i][0]))
				found = 1;
		EXPECT_TRUE(found) TH_LOG("%s is no site", unswept[j][0]);
	}
	/* Sites of fsgate's that the list lacks: a stale alloc_sites.h. */
	for (j = 0; j < (unsigned int)nhits; j++) {
		for (i = 0, found = 0; sites[i][0]; i++)
			if (!strcmp(hits[j], sites[i][0]))
				found = 1;
		EXPECT_TRUE(found) TH_LOG("%s was hit but is not listed", hits[j]);
	}
	unlink(path);
}

TEST_HARNESS_MAIN
