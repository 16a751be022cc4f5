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
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

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

static void note(const char *call, int n, long ret, int err)
{
	char site[300];

	fault_site(site, sizeof(site));
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
	if (faults_setup())
		SKIP(return, "no fail-nth or failslab in this kernel");
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
}

/*
 * The mutes, FSGATE_IOC_MUTE with the n-th allocation failing: an add
 * (two entries beforehand), set_mode and a clear each fail with ENOMEM
 * and leave the entries and mode as they were, or work.
 */
TEST_F_TIMEOUT(fault, mute, 300)
{
	static const char *const calls[] = { "mute add", "mute set_mode",
					     "mute clear" };
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
	for (c = 0; c < 3; c++) {
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
			else
				ret = fsgate_mute_clear(g);
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
				EXPECT_EQ(c == 0 ? 3 : c == 1 ? 2 : 0,
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
}

TEST_F_TIMEOUT(fault, access_notification, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_access(_metadata, "open, one notification group", self->file, 1, 1);
}

/* More groups than fsgate collects on the stack: its own allocation. */
TEST_F_TIMEOUT(fault, access_many_groups, 300)
{
	if (!self->dev)	/* the 6.1 harness runs a test whose setup skipped */
		SKIP(return, "no fail-nth or failslab in this kernel");
	sweep_access(_metadata, "open, seventeen content groups", self->file,
		     17, 0);
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
}

TEST_HARNESS_MAIN
