// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded permission waits (patches/fanotify-priority/ 4):
 * FAN_IOC_SET_RESPONSE_TIMEOUT with the plain fanotify API on a patched
 * kernel. An unanswered event gets the group's timeout response after
 * the bound, whether the listener read it or not; a late answer is
 * accepted and changes nothing; an answer in time wins; the errnos.
 */
#include "native_util.h"
#include "kselftest_harness.h"

#define BOUND_MS 300

FIXTURE(bound) {
	int g;
};

FIXTURE_SETUP(bound)
{
	self->g = -1;
	ASSERT_EQ(0, native_tmpfs()) TH_LOG("tmpfs: %s", strerror(errno));
	self->g = native_group(FAN_CLASS_CONTENT, -1, O_RDONLY);
	ASSERT_LE(0, self->g);
	ASSERT_EQ(0, native_mark(self->g, 0, FAN_OPEN_PERM, NATIVE_FILE));
}

FIXTURE_TEARDOWN(bound)
{
	if (self->g >= 0)
		close(self->g);
}

static int set_bound(int g, unsigned int ms, unsigned int response)
{
	struct fanotify_response_timeout rt = {
		.timeout_ms = ms,
		.response = response,
	};

	return ioctl(g, FAN_IOC_SET_RESPONSE_TIMEOUT, &rt) ? errno : 0;
}

/* An open nobody answers, with the event left unread or read: its
 * result, and how long it took. */
static int unanswered_open(struct __test_metadata *_metadata, int g,
			   int read_it, long *ms)
{
	struct fanotify_event_metadata ev;
	struct timespec t0;
	int ret, late;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = native_open_child(NATIVE_FILE);
	if (read_it)
		EXPECT_EQ(0, native_next(&g, 1, 5000, &ev));
	ret = native_reap(pid);
	*ms = native_ms_since(&t0);
	if (read_it) {
		/* Late: accepted, goes nowhere. */
		struct fanotify_response r = { .fd = ev.fd, .response = FAN_DENY };

		late = write(g, &r, sizeof(r));
		EXPECT_EQ((ssize_t)sizeof(r), late);
		close(ev.fd);
	} else {
		/* The unread event left the queue. */
		EXPECT_EQ(-1, native_next(&g, 1, 100, &ev));
	}
	return ret;
}

TEST_F(bound, unread_event_gets_deny_after_the_bound)
{
	long ms;

	ASSERT_EQ(0, set_bound(self->g, BOUND_MS, FAN_DENY));
	EXPECT_EQ(EPERM, unanswered_open(_metadata, self->g, 0, &ms));
	EXPECT_LE(BOUND_MS - 20, ms);
	EXPECT_GT(BOUND_MS + 4000, ms);
}

TEST_F(bound, unread_event_gets_allow_after_the_bound)
{
	long ms;

	ASSERT_EQ(0, set_bound(self->g, BOUND_MS, FAN_ALLOW));
	EXPECT_EQ(0, unanswered_open(_metadata, self->g, 0, &ms));
	EXPECT_LE(BOUND_MS - 20, ms);
}

TEST_F(bound, read_event_gets_the_verdict_and_a_late_answer_is_harmless)
{
	long ms;

	ASSERT_EQ(0, set_bound(self->g, BOUND_MS, FAN_DENY));
	EXPECT_EQ(EPERM, unanswered_open(_metadata, self->g, 1, &ms));
	EXPECT_LE(BOUND_MS - 20, ms);
	ASSERT_EQ(0, set_bound(self->g, BOUND_MS, FAN_ALLOW));
	EXPECT_EQ(0, unanswered_open(_metadata, self->g, 1, &ms));
}

/* An answer in time wins over the timeout response. */
TEST_F(bound, an_answer_in_time_wins)
{
	struct fanotify_event_metadata ev;
	pid_t pid;

	ASSERT_EQ(0, set_bound(self->g, 3000, FAN_ALLOW));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(&self->g, 1, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g, &ev, FAN_DENY));
	EXPECT_EQ(EPERM, native_reap(pid));
}

/* A bound of 0 waits without bound again. */
TEST_F(bound, zero_removes_the_bound)
{
	struct fanotify_event_metadata ev;
	pid_t pid;

	ASSERT_EQ(0, set_bound(self->g, 100, FAN_DENY));
	ASSERT_EQ(0, set_bound(self->g, 0, FAN_DENY));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(&self->g, 1, 5000, &ev));
	usleep(600000);
	ASSERT_EQ(0, native_answer(self->g, &ev, FAN_ALLOW));
	EXPECT_EQ(0, native_reap(pid));
}

/* Two groups: the first one's bound runs out with allow, the second is
 * asked next and its deny stands. */
TEST_F(bound, a_timeout_allow_does_not_skip_the_next_group)
{
	struct fanotify_event_metadata ev;
	int g2;
	pid_t pid;

	ASSERT_EQ(0, set_bound(self->g, BOUND_MS, FAN_ALLOW));
	g2 = native_group(FAN_CLASS_CONTENT, -1, O_RDONLY);
	ASSERT_LE(0, g2);
	ASSERT_EQ(0, native_mark(g2, 2, FAN_OPEN_PERM, NATIVE_FILE));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(0, native_next(&g2, 1, 5000, &ev));
	ASSERT_EQ(0, native_answer(g2, &ev, FAN_DENY));
	EXPECT_EQ(EPERM, native_reap(pid));
	close(g2);
}

TEST_F(bound, errnos_and_fdinfo)
{
	struct fanotify_response_timeout rt = { 100, FAN_DENY };
	char line[256], want[160];
	int n, status;
	pid_t pid;

	EXPECT_EQ(EINVAL, set_bound(self->g, 100, 0));
	EXPECT_EQ(EINVAL, set_bound(self->g, 100, FAN_ALLOW | FAN_DENY));
	EXPECT_EQ(EINVAL, set_bound(self->g, 100, FAN_DENY | FAN_AUDIT));
	EXPECT_EQ(-1, ioctl(self->g, FAN_IOC_SET_RESPONSE_TIMEOUT, NULL));
	EXPECT_EQ(EFAULT, errno);
	n = native_group(FAN_CLASS_NOTIF, -1, O_RDONLY);
	ASSERT_LE(0, n);
	EXPECT_EQ(EINVAL, set_bound(n, 100, FAN_DENY));
	close(n);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (native_drop_privileges())
			_exit(100);
		_exit(ioctl(self->g, FAN_IOC_SET_RESPONSE_TIMEOUT, &rt) ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));

	ASSERT_EQ(0, set_bound(self->g, 1500, FAN_DENY));
	ASSERT_EQ(0, native_fdinfo_line(self->g, line, sizeof(line)));
	snprintf(want, sizeof(want),
		 "fanotify flags:%x event-flags:%x response-timeout-ms:1500 timeout-response:%x",
		 FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
		 O_RDONLY | KERNEL_O_LARGEFILE | O_CLOEXEC, FAN_DENY);
	EXPECT_STREQ(want, line);
}

TEST_HARNESS_MAIN
