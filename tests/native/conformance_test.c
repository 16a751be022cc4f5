// SPDX-License-Identifier: GPL-2.0
/*
 * fanotify as programs that set no priority and no bound know it, on the
 * patched kernel: what the series must not change. The classes' order,
 * fanotify_init()'s and fanotify_mark()'s errnos, allow and deny, a
 * waiter killed while it waits, and the fdinfo line. These are the
 * fanotify behaviours tests/selftests compares fsgate against, asserted
 * here on fanotify alone, so that they run without the module.
 */
#include "native_util.h"
#include "kselftest_harness.h"

FIXTURE(conf) {
	int g[3];
};

FIXTURE_SETUP(conf)
{
	int i;

	for (i = 0; i < 3; i++)
		self->g[i] = -1;
	ASSERT_EQ(0, native_tmpfs()) TH_LOG("tmpfs: %s", strerror(errno));
}

FIXTURE_TEARDOWN(conf)
{
	int i;

	for (i = 0; i < 3; i++)
		if (self->g[i] >= 0)
			close(self->g[i]);
}

/* Created notification, content, pre-content: asked pre-content, then
 * content; the notification comes once the open is allowed. */
TEST_F(conf, classes_are_asked_highest_first)
{
	struct fanotify_event_metadata ev;
	pid_t pid;

	self->g[0] = native_group(FAN_CLASS_NOTIF, -1, O_RDONLY);
	self->g[1] = native_group(FAN_CLASS_CONTENT, -1, O_RDONLY);
	self->g[2] = native_group(FAN_CLASS_PRE_CONTENT, -1, O_RDONLY);
	ASSERT_LE(0, self->g[0]);
	ASSERT_LE(0, self->g[1]);
	ASSERT_LE(0, self->g[2]);
	ASSERT_EQ(0, native_mark(self->g[0], 1, FAN_OPEN, NATIVE_FILE));
	ASSERT_EQ(0, native_mark(self->g[1], 0, FAN_OPEN_PERM, NATIVE_FILE));
	ASSERT_EQ(0, native_mark(self->g[2], 2, FAN_OPEN_PERM, NATIVE_FILE));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(2, native_next(self->g, 3, 5000, &ev));
	EXPECT_EQ(FAN_OPEN_PERM, ev.mask);
	ASSERT_EQ(0, native_answer(self->g[2], &ev, FAN_ALLOW));
	ASSERT_EQ(1, native_next(self->g, 3, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g[1], &ev, FAN_ALLOW));
	EXPECT_EQ(0, native_reap(pid));
	ASSERT_EQ(0, native_next(self->g, 3, 5000, &ev));
	EXPECT_EQ(FAN_OPEN, ev.mask);
	EXPECT_EQ(pid, ev.pid);
	close(ev.fd);
}

TEST_F(conf, deny_is_eperm_and_allow_opens)
{
	struct fanotify_event_metadata ev;
	pid_t pid;

	self->g[0] = native_group(FAN_CLASS_CONTENT, -1, O_RDONLY);
	ASSERT_LE(0, self->g[0]);
	ASSERT_EQ(0, native_mark(self->g[0], 2, FAN_OPEN_PERM, NATIVE_FILE));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(self->g, 1, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g[0], &ev, FAN_DENY));
	EXPECT_EQ(EPERM, native_reap(pid));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(self->g, 1, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g[0], &ev, FAN_ALLOW));
	EXPECT_EQ(0, native_reap(pid));
}

/* A waiter killed while it waits goes; the group is not stuck. */
TEST_F(conf, a_killed_waiter_leaves_nothing_behind)
{
	struct fanotify_event_metadata ev;
	int status;
	pid_t pid;

	self->g[0] = native_group(FAN_CLASS_CONTENT, -1, O_RDONLY);
	ASSERT_LE(0, self->g[0]);
	ASSERT_EQ(0, native_mark(self->g[0], 0, FAN_OPEN_PERM, NATIVE_FILE));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(self->g, 1, 5000, &ev));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	/* The late answer is accepted, as fanotify always did. */
	EXPECT_EQ(0, native_answer(self->g[0], &ev, FAN_ALLOW));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(self->g, 1, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g[0], &ev, FAN_ALLOW));
	EXPECT_EQ(0, native_reap(pid));
}

/* fanotify_init(2)'s errnos for the flags programs use. */
TEST(init_errnos)
{
	static const struct {
		unsigned int flags;
		int err;
	} cases[] = {
		{ FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT, EINVAL },
		{ FAN_CLASS_NOTIF | FAN_REPORT_PIDFD | FAN_REPORT_TID, EINVAL },
		{ FAN_CLASS_CONTENT | FAN_REPORT_FID, EINVAL },
		{ FAN_CLASS_NOTIF | FAN_REPORT_NAME, EINVAL },
		{ FAN_CLASS_NOTIF | 0x00800000, EINVAL },
		{ FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, 0 },
		{ FAN_CLASS_PRE_CONTENT | FAN_UNLIMITED_QUEUE, 0 },
	};
	unsigned int i;
	int g;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		g = fanotify_init(cases[i].flags, O_RDONLY);
		EXPECT_EQ(cases[i].err, g < 0 ? errno : 0)
			TH_LOG("flags %#x", cases[i].flags);
		if (g >= 0)
			close(g);
	}
	EXPECT_EQ(-1, fanotify_init(FAN_CLASS_NOTIF, O_ACCMODE));
	EXPECT_EQ(EINVAL, errno);
}

/* Permission marks on procfs are EINVAL, notification marks are not;
 * mount and filesystem marks on a pipe's internal mount are EINVAL. */
TEST(mark_errnos)
{
	char path[64];
	int g, i, p[2];

	g = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
	ASSERT_LE(0, g);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-1, native_mark(g, i, FAN_OPEN_PERM, "/proc/self/status"));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, native_mark(g, i, FAN_OPEN, "/proc/self/status"));
	}
	ASSERT_EQ(0, pipe(p));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	for (i = 1; i < 3; i++) {
		EXPECT_EQ(-1, native_mark(g, i, FAN_OPEN, path));
		EXPECT_EQ(EINVAL, errno);
	}
	EXPECT_EQ(0, native_mark(g, 0, FAN_OPEN, path));
	close(p[0]);
	close(p[1]);
	close(g);
}

/* The fdinfo of a group without priority or bound, as it always was. */
TEST(fdinfo_line)
{
	char line[256], want[128];
	int g;

	g = fanotify_init(FAN_CLASS_PRE_CONTENT | FAN_UNLIMITED_QUEUE, O_RDWR);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, native_fdinfo_line(g, line, sizeof(line)));
	snprintf(want, sizeof(want), "fanotify flags:%x event-flags:%x",
		 FAN_CLASS_PRE_CONTENT | FAN_UNLIMITED_QUEUE, O_RDWR | KERNEL_O_LARGEFILE);
	EXPECT_STREQ(want, line);
	close(g);
}

TEST_HARNESS_MAIN
