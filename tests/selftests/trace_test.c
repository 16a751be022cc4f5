// SPDX-License-Identifier: GPL-2.0
/*
 * The module's trace events, read from tracefs: a group created and
 * closed, an allowed and a denied open (the group asked, its answer,
 * the access's verdict and who decided it), a verdict from the group's
 * cache, and a group that did not answer in time. Each test enables
 * events/fsgate/, clears the trace buffer, acts, then looks in "trace"
 * for an event line whose key=value fields are the ones expected.
 *
 * Issue 40, item 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define TRACEFS "/sys/kernel/tracing/"
#define WAIT_MS 5000		/* for events that must come */
#define TIMEOUT_MS 200		/* the timeout test's group's timeout */
#define TRACE_MAX (1 << 20)	/* of the trace file read back */

/* Write @value to the tracefs file @name: 0 or -1. */
static int trace_set(const char *name, const char *value)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TRACEFS "%s", name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* The trace buffer as text, NUL-terminated (malloc'd), or NULL. */
static char *trace_read(void)
{
	char *buf = malloc(TRACE_MAX);
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(TRACEFS "trace", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while (len < TRACE_MAX - 1 &&
	       (n = read(fd, buf + len, TRACE_MAX - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Whether @line (up to @end) has the field @kv ("key=value") exactly. */
static int line_has(const char *line, const char *end, const char *kv)
{
	size_t len = strlen(kv);
	const char *p;

	for (p = line; (p = strstr(p, kv)) && p < end; p++)
		if (p[-1] == ' ' && (p + len == end || p[len] == ' '))
			return 1;
	return 0;
}

/*
 * Whether the trace holds an @event line with each of the NULL-ended
 * "key=value" fields; with @line, the first such line is copied there.
 */
static int trace_find(char *line, size_t size, const char *event, ...)
{
	char *buf = trace_read(), *p, *end, tag[64];
	const char *kv;
	int found = 0;
	va_list ap;

	if (!buf)
		return 0;
	snprintf(tag, sizeof(tag), " %s: ", event);
	for (p = buf; !found && (p = strstr(p, tag)); p = end) {
		end = strchrnul(p, '\n');
		found = 1;
		va_start(ap, event);
		while (found && (kv = va_arg(ap, const char *)))
			found = line_has(p + 1, end, kv);
		va_end(ap);
		if (found && line)
			snprintf(line, size, "%.*s", (int)(end - p), p);
	}
	free(buf);
	return found;
}

/* A field of @line as a number, or -1. */
static long long field_num(const char *line, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), " %s=", key);
	p = strstr(line, k);
	return p ? strtoll(p + strlen(k), NULL, 10) : -1;
}

FIXTURE(trace) {
	char dir[64];
	char file[80];
	char dev[32];		/* "dev=MAJOR:MINOR" of the tmpfs */
	char ino[32];		/* "ino=N" of @file */
	int g;
	char group[32];		/* "group=ID" of @g */
};

/*
 * A tmpfs of the test's own with one file, and tracefs (mounted if it
 * is not) with the fsgate events enabled and the buffer empty.
 */
FIXTURE_SETUP(trace)
{
	struct stat st;

	self->g = -1;
	if (access(TRACEFS "events", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "events", F_OK))
		SKIP(return, "no tracefs at " TRACEFS);
	ASSERT_EQ(0, access(TRACEFS "events/fsgate/enable", F_OK))
		TH_LOG("the module's trace events are missing");
	ASSERT_EQ(0, trace_set("events/fsgate/enable", "1"));
	ASSERT_EQ(0, trace_set("trace", ""));

	ASSERT_EQ(0, fsgate_test_tmpfs("trace", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "data\n");
	ASSERT_EQ(0, stat(self->file, &st));
	snprintf(self->dev, sizeof(self->dev), "dev=%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	snprintf(self->ino, sizeof(self->ino), "ino=%lu",
		 (unsigned long)st.st_ino);
}

FIXTURE_TEARDOWN(trace)
{
	if (self->g >= 0)
		close(self->g);
	fsgate_test_tmpfs_done(self->dir);
	trace_set("events/fsgate/enable", "0");
}

/* Make @self->g with @timeout_ms and deny as its timeout verdict. */
static int make_group(FIXTURE_DATA(trace) *self, unsigned int timeout_ms)
{
	char id[16];

	self->g = perm_group(FSGATE_CLASS_CONTENT, 150, timeout_ms,
			     FSGATE_VERDICT_DENY, FSGATE_VERDICT_DENY);
	if (self->g < 0 || fsgate_test_fdinfo(self->g, "id", id, sizeof(id)))
		return -1;
	snprintf(self->group, sizeof(self->group), "group=%s", id);
	return perm_mark(self->g, FAN_OPEN_PERM, self->dir);
}

/* A group made and closed: both events, with its id, class and creator. */
TEST_F(trace, group_create_close)
{
	char pid[32], fd[32];

	ASSERT_EQ(0, make_group(self, 1000));
	snprintf(pid, sizeof(pid), "pid=%d", getpid());
	snprintf(fd, sizeof(fd), "fd=%d", self->g);
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_group_create", self->group,
			       "priority=150", "class=content", pid, fd,
			       "timeout_ms=1000", "attached=1", "persistent=0",
			       NULL));
	EXPECT_FALSE(trace_find(NULL, 0, "fsgate_group_close", self->group,
				NULL));
	close(self->g);
	self->g = -1;
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_group_close", self->group,
			       "priority=150", "class=content", pid,
			       "attached=0", "persistent=0", NULL));
}

/*
 * An open the group answers with @response: the group asked of it, its
 * answer with a latency, and the access's verdict, by the group's id for
 * a deny and by none for an allow.
 */
static void answered(struct __test_metadata *_metadata,
		     FIXTURE_DATA(trace) *self, uint32_t response,
		     const char *verdict, const char *err)
{
	struct fanotify_event_metadata ev;
	char pid[32], line[512];
	pid_t child;

	ASSERT_EQ(0, make_group(self, 10000));
	child = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, child);
	ASSERT_EQ(0, next_event(self->g, WAIT_MS, &ev));
	snprintf(pid, sizeof(pid), "pid=%d", child);
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_perm_ask", self->group,
			       "priority=150", "class=content", pid, self->dev,
			       self->ino, "mask=OPEN_PERM", NULL));
	ASSERT_EQ(sizeof(struct fanotify_response),
		  answer(self->g, ev.fd, response));
	EXPECT_EQ(response == FSGATE_ALLOW ? 0 : EPERM, reap(child));
	ASSERT_TRUE(trace_find(line, sizeof(line), "fsgate_perm_answer",
			       self->group, pid, self->dev, self->ino,
			       "mask=OPEN_PERM", verdict, err, "by=answer",
			       NULL));
	EXPECT_LT(0, field_num(line, "id"));
	EXPECT_LT(0, field_num(line, "latency_ns"));
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_access_verdict", pid,
			       self->dev, self->ino, "mask=OPEN_PERM", verdict,
			       err, response == FSGATE_ALLOW ? "group=0" :
			       self->group, "by=answer", "groups=1", NULL));
}

TEST_F(trace, allowed_open)
{
	answered(_metadata, self, FSGATE_ALLOW, "verdict=allow", "errno=0");
}

TEST_F(trace, denied_open)
{
	answered(_metadata, self, FSGATE_DENY, "verdict=deny", "errno=1");
}

/* A second open, which the group's cache allows: not asked, by=cache. */
TEST_F(trace, cached_verdict)
{
	char pid[32];
	pid_t child;

	ASSERT_EQ(0, make_group(self, 10000));
	ASSERT_EQ(0, open_answered(self->g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	ASSERT_EQ(0, trace_set("trace", ""));
	child = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, child);
	EXPECT_EQ(0, reap(child));
	EXPECT_FALSE(readable(self->g, 0));
	snprintf(pid, sizeof(pid), "pid=%d", child);
	EXPECT_FALSE(trace_find(NULL, 0, "fsgate_perm_ask", pid, NULL));
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_perm_answer", self->group,
			       "id=0", pid, self->dev, self->ino,
			       "mask=OPEN_PERM", "verdict=allow", "errno=0",
			       "by=cache", "latency_ns=0", NULL));
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_access_verdict", pid,
			       self->ino, "verdict=allow", "group=0",
			       "by=cache", "groups=1", NULL));
}

/* A group that does not answer: its timeout verdict, after its timeout. */
TEST_F(trace, timeout)
{
	char pid[32], line[512];
	pid_t child;

	ASSERT_EQ(0, make_group(self, TIMEOUT_MS));
	child = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, child);
	EXPECT_EQ(EPERM, reap(child));
	snprintf(pid, sizeof(pid), "pid=%d", child);
	ASSERT_TRUE(trace_find(line, sizeof(line), "fsgate_perm_answer",
			       self->group, pid, self->ino, "verdict=deny",
			       "errno=1", "by=timeout", NULL));
	/* The deadline is in jiffies: it may come a tick early. */
	EXPECT_LE((TIMEOUT_MS - JIFFY_MS) * 1000000LL,
		  field_num(line, "latency_ns"));
	EXPECT_TRUE(trace_find(NULL, 0, "fsgate_access_verdict", pid,
			       self->ino, "verdict=deny", "errno=1",
			       self->group, "by=timeout", NULL));
}

TEST_HARNESS_MAIN
