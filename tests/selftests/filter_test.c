// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel decides before a group is asked: flushing a group's
 * verdict cache (FSGATE_IOC_FLUSH_CACHE).
 *
 * The accesses are made by forked processes, which exit with their
 * errno; the test itself reads and answers for its groups.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NONE_MS 300	/* for events that must not */

FIXTURE(filter) {
	char dir[64];
	char file[80];
	char other[80];
};

/* Each test gets a tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(filter)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("filter", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/other", self->dir);
	write_file(self->file, "content\n");
	write_file(self->other, "other\n");
}

FIXTURE_TEARDOWN(filter)
{
	fsgate_test_tmpfs_done(self->dir);
}

/* A content group gating opens on the tmpfs of @dir, without a bound. */
static int open_gate(const char *dir)
{
	int g = content_group(2000);

	if (g < 0 || perm_mark(g, FAN_OPEN_PERM, dir))
		return -1;
	return g;
}

/* Open @path in a child while @g answers with @response; its errno. */
static int open_answered(struct __test_metadata *_metadata, int g,
			 const char *path, uint32_t response)
{
	struct fanotify_event_metadata ev;
	pid_t pid = spawn_open(path, O_RDONLY, 0);

	EXPECT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, response));
	return reap(pid);
}

/* Whether an open of @path by a child is decided without asking @g. */
static int decided_quietly(int g, const char *path)
{
	return reap(spawn_open(path, O_RDONLY, 0)) == 0 && !readable(g, NONE_MS);
}

TEST_F(filter, a_flushed_clean_verdict_is_asked_again)
{
	struct fsgate_stats st;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(_metadata, g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, open_answered(_metadata, g, self->other,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_TRUE(decided_quietly(g, self->file));

	EXPECT_EQ(2, fsgate_cache_flush(g, -1));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.cache_flushes);
	EXPECT_EQ(0, open_answered(_metadata, g, self->file, FSGATE_ALLOW));
	EXPECT_EQ(0, open_answered(_metadata, g, self->other, FSGATE_ALLOW));
	/* Nothing left to flush. */
	EXPECT_EQ(0, fsgate_cache_flush(g, -1));
	close(g);
}

TEST_F(filter, a_one_file_flush_leaves_the_others_cached)
{
	int g = open_gate(self->dir), fd;

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(_metadata, g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, open_answered(_metadata, g, self->other,
				   FSGATE_ALLOW | FSGATE_CACHE));
	/* Any fd of the file names it; O_PATH raises no event. */
	fd = open(self->file, O_PATH);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fsgate_cache_flush(g, fd));
	EXPECT_EQ(0, fsgate_cache_flush(g, fd));
	close(fd);
	EXPECT_TRUE(decided_quietly(g, self->other));
	EXPECT_EQ(0, open_answered(_metadata, g, self->file, FSGATE_ALLOW));
	close(g);
}

TEST_F(filter, a_flush_with_a_bad_fd_changes_nothing)
{
	struct fsgate_cache_flush req = { .flags = FSGATE_FLUSH_FILE, .fd = 1000 };
	struct fsgate_stats st;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(_metadata, g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EBADF, errno);
	req.fd = -5;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EBADF, errno);
	/* Unknown flags, an fd without FSGATE_FLUSH_FILE, reserved bits. */
	req = (struct fsgate_cache_flush){ .flags = 2 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EINVAL, errno);
	req = (struct fsgate_cache_flush){ .fd = 1 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EINVAL, errno);
	req = (struct fsgate_cache_flush){ .reserved[2] = 1 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, fsgate_cache_flush(g, -2));
	EXPECT_EQ(EBADF, errno);

	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.cache_flushes);
	EXPECT_TRUE(decided_quietly(g, self->file));
	close(g);
}

/* A scanner flushes while a worker still holds an event of the old rules. */
TEST_F(filter, an_answer_to_an_event_asked_before_a_flush_is_not_cached)
{
	struct fanotify_event_metadata ev;
	int g = open_gate(self->dir);
	pid_t pid;

	ASSERT_LE(0, g);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(0, fsgate_cache_flush(g, -1));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, reap(pid));
	/* The answer decided its access, and is not remembered. */
	EXPECT_EQ(0, open_answered(_metadata, g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	/* Asked after the flush: cached as usual. */
	EXPECT_TRUE(decided_quietly(g, self->file));
	close(g);
}

/* A flush is the group's own: another group's cache stays. */
TEST_F(filter, a_flush_leaves_other_groups_caches)
{
	struct fanotify_event_metadata ev;
	pid_t pid;
	int g = open_gate(self->dir), h = content_group(1000);

	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, perm_mark(h, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE);
	ASSERT_EQ(0, next_event(h, WAIT_MS, &ev));
	answer(h, ev.fd, FSGATE_ALLOW | FSGATE_CACHE);
	EXPECT_EQ(0, reap(pid));
	EXPECT_EQ(1, fsgate_cache_flush(g, -1));
	EXPECT_EQ(0, open_answered(_metadata, g, self->file, FSGATE_ALLOW));
	EXPECT_FALSE(readable(h, NONE_MS));
	close(h);
	close(g);
}

TEST_HARNESS_MAIN
