// SPDX-License-Identifier: GPL-2.0
/*
 * Permission events and the decision chain: asking order, tiers, deny
 * always winning, responses, timeouts, orphans, the pending limit, exec,
 * the verdict cache and in-tree fanotify beside fsgate.
 *
 * The access is made by a forked process, which exits with its errno;
 * the test itself answers for its groups.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NONE_MS 300	/* for events that must not */

static int notif_group_for_write(void)
{
	return fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			   FSGATE_PRIORITY_DEFAULT);
}

static void append_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write(fd, "+", 1) != 1)
		perror(path);
	close(fd);
}

FIXTURE(perm) {
	char dir[64];
	char file[80];
};

/* Each test gets a tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(perm)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("perm", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
}

FIXTURE_TEARDOWN(perm)
{
	fsgate_test_tmpfs_done(self->dir);
}

/* Answer whichever of @g has an event, allowing; its index, or -1. */
static int answer_any(const int *g, int n, uint32_t response)
{
	struct fanotify_event_metadata ev;
	int i, t;

	for (t = 0; t < WAIT_MS / 10; t++) {
		for (i = 0; i < n; i++) {
			if (!readable(g[i], 0))
				continue;
			if (read(g[i], &ev, sizeof(ev)) != sizeof(ev) ||
			    answer(g[i], ev.fd, response) != sizeof(struct fanotify_response))
				return -1;
			return i;
		}
		usleep(10000);
	}
	return -1;
}

/* 600 accesses, 1800 answers: minutes on the debug kernel. */
TEST_F_TIMEOUT(perm, groups_are_asked_highest_priority_first, 600)
{
	static const unsigned int orders[6][3] = {
		{ 3000, 2000, 1000 }, { 3000, 1000, 2000 }, { 2000, 3000, 1000 },
		{ 2000, 1000, 3000 }, { 1000, 3000, 2000 }, { 1000, 2000, 3000 },
	};
	int p, rep, i, k, g[3];
	pid_t pid;

	for (p = 0; p < 6; p++) {
		for (i = 0; i < 3; i++) {
			g[i] = content_group(orders[p][i]);
			ASSERT_LE(0, g[i]);
			ASSERT_EQ(0, perm_mark(g[i], FAN_OPEN_PERM, self->dir));
		}
		for (rep = 0; rep < 100; rep++) {
			pid = spawn_open(self->file, O_RDONLY, 0);
			for (k = 0; k < 3; k++) {
				i = answer_any(g, 3, FSGATE_ALLOW);
				ASSERT_LE(0, i);
				EXPECT_EQ(3000 - 1000 * k, orders[p][i])
					TH_LOG("creation order %d, repetition %d",
					       p, rep);
			}
			EXPECT_EQ(0, reap(pid));
		}
		for (i = 0; i < 3; i++)
			close(g[i]);
	}
}

TEST_F(perm, one_tier_is_asked_at_once)
{
	struct fanotify_event_metadata a, b;
	int ga = content_group(2000), gb = content_group(2000);
	pid_t pid;

	ASSERT_LE(0, ga);
	ASSERT_LE(0, gb);
	ASSERT_EQ(0, perm_mark(ga, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, perm_mark(gb, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	/* Both hold the event before either answers. */
	ASSERT_EQ(0, next_event(ga, WAIT_MS, &a));
	ASSERT_EQ(0, next_event(gb, WAIT_MS, &b));
	EXPECT_EQ(FAN_OPEN_PERM, a.mask);
	EXPECT_EQ(pid, a.pid);
	EXPECT_EQ(sizeof(struct fanotify_response), answer(gb, b.fd, FSGATE_ALLOW));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(ga, a.fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	close(ga);
	close(gb);
}

/* One group denies, one allows: @deny_prio and @allow_prio set the order. */
static void deny_beats_allow(struct __test_metadata *_metadata,
			     const char *dir, const char *file,
			     unsigned int deny_prio, unsigned int allow_prio,
			     int deny_created_first, int deny_answers_first)
{
	struct fanotify_event_metadata ev, ev2;
	int gd, ga, g[2];
	pid_t pid;

	if (deny_created_first) {
		gd = content_group(deny_prio);
		ga = content_group(allow_prio);
	} else {
		ga = content_group(allow_prio);
		gd = content_group(deny_prio);
	}
	ASSERT_LE(0, gd);
	ASSERT_LE(0, ga);
	ASSERT_EQ(0, perm_mark(gd, FAN_OPEN_PERM, dir));
	ASSERT_EQ(0, perm_mark(ga, FAN_OPEN_PERM, dir));
	pid = spawn_open(file, O_RDONLY, 0);
	if (deny_prio > allow_prio) {
		ASSERT_EQ(0, next_event(gd, WAIT_MS, &ev));
		answer(gd, ev.fd, FSGATE_DENY);
		/* No lower tier hears of a denied access. */
		EXPECT_FALSE(readable(ga, NONE_MS));
	} else if (deny_prio < allow_prio) {
		EXPECT_FALSE(readable(gd, NONE_MS));
		ASSERT_EQ(0, next_event(ga, WAIT_MS, &ev));
		answer(ga, ev.fd, FSGATE_ALLOW);
		ASSERT_EQ(0, next_event(gd, WAIT_MS, &ev));
		answer(gd, ev.fd, FSGATE_DENY);
	} else {
		/*
		 * One tier: both are asked at once. Both events are read
		 * first, since a deny ends the tier and withdraws the other
		 * member's event (an allow after it finds none).
		 */
		g[0] = deny_answers_first ? gd : ga;
		g[1] = deny_answers_first ? ga : gd;
		ASSERT_EQ(0, next_event(g[0], WAIT_MS, &ev));
		ASSERT_EQ(0, next_event(g[1], WAIT_MS, &ev2));
		answer(g[0], ev.fd, g[0] == gd ? FSGATE_DENY : FSGATE_ALLOW);
		answer(g[1], ev2.fd, g[1] == gd ? FSGATE_DENY : FSGATE_ALLOW);
	}
	EXPECT_EQ(EPERM, reap(pid));
	close(gd);
	close(ga);
}

TEST_F(perm, an_allow_never_overrides_a_deny)
{
	static const unsigned int prios[3][2] = {
		{ 3000, 2000 }, { 2000, 3000 }, { 2000, 2000 },
	};
	int p, created, answered;

	for (p = 0; p < 3; p++)
		for (created = 0; created < 2; created++)
			for (answered = 0; answered < 2; answered++)
				deny_beats_allow(_metadata, self->dir,
						 self->file, prios[p][0],
						 prios[p][1], created,
						 answered);
}

TEST_F(perm, deny_carries_the_chosen_errno)
{
	static const int errs[] = { EACCES, ETXTBSY, EIO, EPERM, EAGAIN };
	struct fanotify_event_metadata ev;
	int g = content_group(2000);
	unsigned int i;
	pid_t pid;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		pid = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
		EXPECT_EQ(sizeof(struct fanotify_response),
			  answer(g, ev.fd, FSGATE_DENY_ERRNO(errs[i])));
		EXPECT_EQ(errs[i], reap(pid));
	}
	close(g);
}

TEST_F(perm, bad_responses_change_nothing)
{
	struct fanotify_event_metadata ev;
	struct fanotify_response r[2];
	static const uint32_t bad[] = {
		0, FSGATE_ALLOW | FSGATE_DENY, FSGATE_CACHE, FAN_AUDIT | FSGATE_ALLOW,
		0x100, FSGATE_DENY_ERRNO(ENOENT), FSGATE_DENY_ERRNO(EINVAL),
		FSGATE_ALLOW | (EPERM << FSGATE_ERRNO_SHIFT),
	};
	int g = content_group(2000), n = notif_group_for_write();
	unsigned int i;
	pid_t pid;

	ASSERT_LE(0, g);
	ASSERT_LE(0, n);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r[0] = (struct fanotify_response){ ev.fd, bad[i] };
		errno = 0;
		EXPECT_EQ(-1, write(g, r, sizeof(r[0]))) TH_LOG("0x%x", bad[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("0x%x", bad[i]);
	}
	r[0] = (struct fanotify_response){ ev.fd, FSGATE_ALLOW };
	/* A short write, a negative fd, an fd that is no event. */
	EXPECT_EQ(-1, write(g, r, 4));
	EXPECT_EQ(EINVAL, errno);
	r[1] = (struct fanotify_response){ -1, FSGATE_ALLOW };
	EXPECT_EQ(-1, write(g, &r[1], sizeof(r[1])));
	EXPECT_EQ(EINVAL, errno);
	r[1] = (struct fanotify_response){ g, FSGATE_ALLOW };
	EXPECT_EQ(-1, write(g, &r[1], sizeof(r[1])));
	EXPECT_EQ(ENOENT, errno);
	/* A batch with one bad response applies none of it. */
	EXPECT_EQ(-1, write(g, r, sizeof(r)));
	EXPECT_EQ(ENOENT, errno);
	/* Two answers to one event in one write. */
	r[1] = r[0];
	EXPECT_EQ(-1, write(g, r, sizeof(r)));
	EXPECT_EQ(ENOENT, errno);
	/* Notification groups are never asked. */
	EXPECT_EQ(-1, write(n, r, sizeof(r[0])));
	EXPECT_EQ(EINVAL, errno);
	/* The event is still pending: the process still waits. */
	EXPECT_EQ(0, waitpid(pid, NULL, WNOHANG));
	r[0].response = FSGATE_DENY_ERRNO(EACCES);
	EXPECT_EQ(sizeof(r[0]), write(g, r, sizeof(r[0])));
	EXPECT_EQ(EACCES, reap(pid));
	/* Answered: a second answer finds nothing. */
	EXPECT_EQ(-1, write(g, r, sizeof(r[0])));
	EXPECT_EQ(ENOENT, errno);
	close(ev.fd);
	close(g);
	close(n);
}

TEST_F(perm, answers_out_of_order_reach_their_own_access)
{
	struct fanotify_event_metadata ev[8];
	char path[8][96], link[64], got[128];
	int g = content_group(2000), i, j, answered = 0, seen = 0;
	pid_t pid[8];
	ssize_t n;

	ASSERT_LE(0, g);
	for (i = 0; i < 8; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/f%d", self->dir, i);
		write_file(path[i], "x");
	}
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	for (i = 0; i < 8; i++)
		pid[i] = spawn_open(path[i], O_RDONLY, 0);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, next_event(g, WAIT_MS, &ev[i]));
	/* Last read, first answered: odd files denied, even allowed. */
	for (i = 7; i >= 0; i--) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", ev[i].fd);
		n = readlink(link, got, sizeof(got) - 1);
		ASSERT_LT(0, n);
		got[n] = '\0';
		j = got[n - 1] - '0';
		ASSERT_TRUE(j >= 0 && j < 8) TH_LOG("event for %s", got);
		/* Each file's event comes once. */
		EXPECT_FALSE(seen & 1 << j) TH_LOG("file %d twice", j);
		seen |= 1 << j;
		if (answer(g, ev[i].fd, j % 2 ? FSGATE_DENY : FSGATE_ALLOW) ==
		    sizeof(struct fanotify_response))
			answered++;
	}
	EXPECT_EQ(8, answered);
	EXPECT_EQ(0xff, seen);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i % 2 ? EPERM : 0, reap(pid[i])) TH_LOG("file %d", i);
	close(g);
}

TEST_F(perm, a_closed_group_resolves_its_events_by_orphan_verdict)
{
	static const struct {
		unsigned int verdict;
		int err;
		int read_first;
	} cases[] = {
		{ FSGATE_VERDICT_DEFAULT, 0, 0 }, { FSGATE_VERDICT_DEFAULT, 0, 1 },
		{ FSGATE_VERDICT_DENY, EPERM, 0 }, { FSGATE_VERDICT_DENY, EPERM, 1 },
	};
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	unsigned int i;
	pid_t pid;
	int g;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		g = perm_group(FSGATE_CLASS_CONTENT, 2000, PERM_LONG_MS,
			       FSGATE_VERDICT_DEFAULT, cases[i].verdict);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
		pid = spawn_open(self->file, O_RDONLY, 0);
		if (cases[i].read_first) {
			ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
			close(ev.fd);
		} else {
			ASSERT_TRUE(readable(g, WAIT_MS));
		}
		ASSERT_EQ(0, fsgate_stats(g, &st));
		EXPECT_EQ(1, st.pending);
		close(g);
		EXPECT_EQ(cases[i].err, reap(pid)) TH_LOG("case %u", i);
	}
}

TEST_F(perm, a_killed_daemon_resolves_its_events_by_orphan_verdict)
{
	int ready[2], g;
	pid_t daemon, pid;
	char c;

	ASSERT_EQ(0, pipe(ready));
	daemon = fork();
	ASSERT_LE(0, daemon);
	if (!daemon) {
		g = perm_group(FSGATE_CLASS_CONTENT, 2000, PERM_LONG_MS,
			       FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DENY);
		if (g < 0 || perm_mark(g, FAN_OPEN_PERM, self->dir))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	pid = spawn_open(self->file, O_RDONLY, 0);
	usleep(200000);
	EXPECT_EQ(0, waitpid(pid, NULL, WNOHANG));
	kill(daemon, SIGKILL);
	waitpid(daemon, NULL, 0);
	EXPECT_EQ(EPERM, reap(pid));
	close(ready[0]);
	close(ready[1]);
}

TEST_F(perm, timeouts_apply_the_timeout_verdict)
{
	static const struct {
		unsigned int verdict;
		int err;
		int read_first;
	} cases[] = {
		{ FSGATE_VERDICT_DEFAULT, 0, 0 }, { FSGATE_VERDICT_ALLOW, 0, 1 },
		{ FSGATE_VERDICT_DENY, EPERM, 0 }, { FSGATE_VERDICT_DENY, EPERM, 1 },
	};
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	struct timespec t0;
	unsigned int i;
	pid_t pid;
	long ms;
	int g;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		g = perm_group(FSGATE_CLASS_CONTENT, 2000, 200,
			       cases[i].verdict, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = spawn_open(self->file, O_RDONLY, 0);
		/* A daemon that reads and never answers, or never reads. */
		if (cases[i].read_first)
			ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
		EXPECT_EQ(cases[i].err, reap(pid)) TH_LOG("case %u", i);
		ms = ms_since(&t0);
		EXPECT_LE(200 - JIFFY_MS, ms) TH_LOG("case %u", i);
		EXPECT_GT(200 + late_ms(), ms) TH_LOG("case %u", i);
		ASSERT_EQ(0, fsgate_stats(g, &st));
		EXPECT_EQ(1, st.timedout);
		EXPECT_EQ(0, st.pending);
		if (cases[i].read_first) {
			/* Too late: the access is decided. */
			EXPECT_EQ(-1, answer(g, ev.fd, FSGATE_ALLOW));
			EXPECT_EQ(ENOENT, errno);
		}
		close(g);
	}
}

TEST_F(perm, sigkill_ends_a_wait_without_bound)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	struct timespec t0;
	int g = content_group(2000), n = -1;
	pid_t pid;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_TRUE(readable(g, WAIT_MS));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGKILL);
	EXPECT_EQ(-1, reap(pid));
	EXPECT_GT(late_ms(), ms_since(&t0));
	/* Counted as cancelled, and its unread event left the queue. */
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.asked);
	EXPECT_EQ(1, st.cancelled);
	EXPECT_EQ(0, st.pending);
	EXPECT_EQ(0, st.queued);
	EXPECT_EQ(0, ioctl(g, FIONREAD, &n));
	EXPECT_EQ(0, n);
	EXPECT_NE(0, next_event(g, NONE_MS, &ev));
	close(g);
}

TEST_F(perm, the_pending_limit_applies_the_timeout_verdict_at_once)
{
	static const struct {
		unsigned int verdict;
		int err;
	} cases[] = { { FSGATE_VERDICT_DEFAULT, 0 }, { FSGATE_VERDICT_DENY, EPERM } };
	struct fsgate_stats st;
	char old[32], cur[32];
	unsigned int i;
	pid_t first;
	int g;

	ASSERT_EQ(0, fsgate_test_param("max_pending_events", "1", old, sizeof(old)));
	for (i = 0; i < 2; i++) {
		g = perm_group(FSGATE_CLASS_CONTENT, 2000, PERM_LONG_MS,
			       cases[i].verdict, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
		first = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_TRUE(readable(g, WAIT_MS));
		/* The second access is decided at once, by the policy. */
		EXPECT_EQ(cases[i].err, reap(spawn_open(self->file, O_RDONLY, 0)));
		ASSERT_EQ(0, fsgate_stats(g, &st));
		EXPECT_EQ(1, st.perm_overflows);
		EXPECT_EQ(2, st.asked);
		EXPECT_EQ(1, st.pending);
		close(g);
		EXPECT_EQ(0, reap(first));
	}
	ASSERT_EQ(0, fsgate_test_param("max_pending_events", old, cur, sizeof(cur)));
	EXPECT_STREQ("1", cur);
}

TEST_F(perm, exec_can_be_denied_while_reading_stays_allowed)
{
	struct fanotify_event_metadata ev;
	struct fanotify_response r;
	char prog[96];
	int g = content_group(2000);
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/prog", self->dir);
	write_file(prog, "#!/bin/sh\nexit 0\n");
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_EXEC_PERM, self->dir));
	EXPECT_EQ(0, reap(spawn_open(prog, O_RDONLY, 1)));
	EXPECT_FALSE(readable(g, NONE_MS));
	pid = spawn_exec(prog);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(FAN_OPEN_EXEC_PERM, ev.mask);
	answer(g, ev.fd, FSGATE_DENY);
	EXPECT_EQ(EPERM, reap(pid));
	pid = spawn_exec(prog);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	/*
	 * Were the event fd writable, exec would deny it (ETXTBSY) unless
	 * closed before the answer: closing first is the safe habit. The
	 * answer names the event by the fd's number all the same.
	 */
	close(ev.fd);
	r = (struct fanotify_response){ ev.fd, FSGATE_ALLOW };
	EXPECT_EQ(sizeof(r), write(g, &r, sizeof(r)));
	EXPECT_EQ(0, reap(pid));
	close(g);
}

TEST_F(perm, read_permission_events_gate_reads)
{
	struct fanotify_event_metadata ev;
	int g = content_group(2000);
	pid_t pid;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_ACCESS_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 1);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(FAN_ACCESS_PERM, ev.mask);
	answer(g, ev.fd, FSGATE_DENY_ERRNO(EIO));
	EXPECT_EQ(EIO, reap(pid));
	close(g);
}

TEST_F(perm, cached_verdicts_hold_until_the_file_changes)
{
	char bad[96];
	struct fsgate_stats st;
	int g = content_group(2000), fd;

	snprintf(bad, sizeof(bad), "%s/bad", self->dir);
	write_file(bad, "bad");
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(EACCES, open_answered(g, bad,
					FSGATE_DENY_ERRNO(EACCES) | FSGATE_CACHE));
	/* Unchanged files: decided without an event. */
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_EQ(EACCES, reap(spawn_open(bad, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, NONE_MS));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.cached);
	EXPECT_EQ(2, st.asked);
	/* The cache's inode mark is the group's own, not one to remove. */
	errno = 0;
	EXPECT_EQ(-1, fsgate_mark(g, FSGATE_MARK_REMOVE, FAN_OPEN_PERM,
				  AT_FDCWD, self->file));
	EXPECT_EQ(ENOENT, errno);
	/* Written and closed (by a process the group does not ask). */
	fd = open(self->dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_REMOVE | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, fd, NULL));
	append_to(self->file);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	close(fd);
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	close(g);
}

TEST_F(perm, a_cache_entry_does_not_outlive_a_quiet_write)
{
	struct fanotify_event_metadata ev;
	int g = content_group(2000), h;
	pid_t pid;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	/* A higher group writes through its event fd, which raises no events. */
	h = hsm_group(3000);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, perm_mark(h, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(h, WAIT_MS, &ev));
	ASSERT_EQ(8, pwrite(ev.fd, "changed!", 8, 0));
	answer(h, ev.fd, FSGATE_ALLOW);
	/* The file changed: the lower group is asked again. */
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	answer(g, ev.fd, FSGATE_ALLOW);
	EXPECT_EQ(0, reap(pid));
	close(h);
	close(g);
}

TEST_F(perm, no_cached_verdict_while_someone_may_write)
{
	struct fanotify_event_metadata ev;
	int g = content_group(2000), hold[2];
	pid_t writer, pid;
	char c;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	/* Answered from the cache, then by the consensus it makes. */
	EXPECT_TRUE(quiet_opens(g, self->file, 3));
	/* A writer keeps the file open (as a shared writable mmap would). */
	ASSERT_EQ(0, pipe(hold));
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer) {
		int fd = open(self->file, O_WRONLY);

		_exit(fd < 0 || read(hold[0], &c, 1) < 0);
	}
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_ALLOW));
	/* It may change the file at any moment: the group is asked. */
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	ASSERT_EQ(1, write(hold[1], "x", 1));
	EXPECT_EQ(0, reap(writer));
	close(hold[0]);
	close(hold[1]);
	close(g);
}

/* What the HSM restores: the content a stub's name stands for. */
static const char *hsm_content(const char *name)
{
	return strstr(name, "bad") ? "X5O!EICAR-LIKE-TEST" : "hello, world\n";
}

/* The HSM fills a stub through its event fd, then allows the open. */
static void hsm_serve(int g)
{
	struct fanotify_event_metadata ev;
	char link[64], path[128];
	const char *s;
	struct stat st;
	ssize_t n;

	if (next_event(g, WAIT_MS, &ev))
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ev.fd);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	s = hsm_content(path);
	if (!fstat(ev.fd, &st) && !st.st_size &&
	    pwrite(ev.fd, s, strlen(s), 0) != (ssize_t)strlen(s))
		perror("hsm");
	answer(g, ev.fd, FSGATE_ALLOW);
}

/* The scanner reads through its event fd and denies what matches. */
static void scanner_serve(int g, int *saw_content)
{
	struct fanotify_event_metadata ev;
	char buf[64] = "";

	if (next_event(g, WAIT_MS, &ev))
		return;
	if (pread(ev.fd, buf, sizeof(buf) - 1, 0) > 0)
		*saw_content = 1;
	answer(g, ev.fd, strstr(buf, "EICAR") ? FSGATE_DENY : FSGATE_ALLOW);
}

TEST_F(perm, the_hsm_fills_before_the_scanner_reads)
{
	struct fanotify_event_metadata ev;
	char good[96], bad[96], got[64] = "";
	int hsm, scan, mon, out[2], saw = 0, fd;
	pid_t pid;
	ssize_t n;

	snprintf(good, sizeof(good), "%s/good.stub", self->dir);
	snprintf(bad, sizeof(bad), "%s/bad.stub", self->dir);
	write_file(good, "");
	write_file(bad, "");
	hsm = hsm_group(FSGATE_PRIORITY_DEFAULT);
	scan = content_group(FSGATE_PRIORITY_DEFAULT);
	mon = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			  FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, hsm);
	ASSERT_LE(0, scan);
	ASSERT_LE(0, mon);
	ASSERT_EQ(0, perm_mark(hsm, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, perm_mark(scan, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, perm_mark(mon, FAN_OPEN, self->dir));

	/* A clean stub: restored, scanned, opened; the monitor hears of it. */
	ASSERT_EQ(0, pipe(out));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		fd = open(good, O_RDONLY);
		if (fd < 0)
			_exit(errno);
		n = read(fd, got, sizeof(got));
		_exit(write(out[1], got, n > 0 ? n : 0) == n ? 0 : 1);
	}
	hsm_serve(hsm);
	scanner_serve(scan, &saw);
	EXPECT_EQ(0, reap(pid));
	n = read(out[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = '\0';
	EXPECT_STREQ("hello, world\n", got);
	EXPECT_EQ(1, saw);
	ASSERT_EQ(0, next_event(mon, WAIT_MS, &ev));
	EXPECT_EQ(FAN_OPEN, ev.mask & FAN_OPEN);
	close(ev.fd);

	/* An empty stub whose content matches: the scanner sees it filled. */
	saw = 0;
	pid = spawn_open(bad, O_RDONLY, 0);
	hsm_serve(hsm);
	scanner_serve(scan, &saw);
	EXPECT_EQ(EPERM, reap(pid));
	EXPECT_EQ(1, saw);
	/* No open happened, so the monitor hears nothing. */
	EXPECT_FALSE(readable(mon, NONE_MS));
	close(out[0]);
	close(out[1]);
	close(hsm);
	close(scan);
	close(mon);
}

/*
 * Whether fsgate's fsnotify group outranks fanotify's content groups:
 * on 6.1 it does (it takes the top priority); 6.12 only has a few
 * priority levels and orders groups of one level by address, so either
 * may be asked first there (see README, "Limitations").
 */
/* fanotify_order=first (6.1 only) puts fsgate ahead of every in-tree group. */
static int fsgate_outranks_fanotify(void)
{
	char order[16];

	return !fanotify_order(order, sizeof(order)) && !strcmp(order, "first");
}

/* A boot made for one fanotify_order (tests/check) has it. */
TEST(the_module_has_the_fanotify_order_the_boot_asked_for)
{
	char order[16];

	ASSERT_EQ(0, fanotify_order(order, sizeof(order)));
	EXPECT_STREQ(fanotify_order_wanted(), order);
}

/* Answer the group that asks first with @first, the other with allow. */
static int answer_first(struct __test_metadata *_metadata, int g, int fan,
			uint32_t first, int *fsgate_first)
{
	struct fanotify_event_metadata ev;
	int i, t, fds[2] = { g, fan };

	for (t = 0; t < WAIT_MS / 10; t++) {
		for (i = 0; i < 2; i++) {
			if (!readable(fds[i], 0))
				continue;
			EXPECT_EQ(0, next_event(fds[i], 0, &ev));
			*fsgate_first = i == 0;
			/* One after the other, never both at once. */
			EXPECT_FALSE(readable(fds[!i], NONE_MS));
			EXPECT_EQ(sizeof(struct fanotify_response),
				  answer(fds[i], ev.fd, first));
			if (first == FAN_DENY) {
				EXPECT_FALSE(readable(fds[!i], NONE_MS));
				return 0;
			}
			EXPECT_EQ(0, next_event(fds[!i], WAIT_MS, &ev));
			EXPECT_EQ(sizeof(struct fanotify_response),
				  answer(fds[!i], ev.fd, FAN_ALLOW));
			return 0;
		}
		usleep(10000);
	}
	return -1;
}

TEST_F(perm, fsgate_and_in_tree_fanotify_decide_one_after_the_other)
{
	int g = content_group(2000), fan, fsgate_first;
	pid_t pid;

	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			    O_RDONLY);
	ASSERT_LE(0, fan);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_OPEN_PERM, AT_FDCWD, self->dir));
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));

	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, answer_first(_metadata, g, fan, FAN_ALLOW, &fsgate_first));
	EXPECT_EQ(0, reap(pid));
	if (fsgate_outranks_fanotify())
		EXPECT_TRUE(fsgate_first);

	/* The first one's deny: the other is not asked at all. */
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, answer_first(_metadata, g, fan, FAN_DENY, &fsgate_first));
	EXPECT_EQ(EPERM, reap(pid));
	if (fsgate_outranks_fanotify())
		EXPECT_TRUE(fsgate_first);
	close(fan);
	close(g);
}

TEST_F(perm, counters_account_for_every_access)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	char line[512], want[64];
	int g = perm_group(FSGATE_CLASS_CONTENT, 2000, 200, 0, 0), found = 0;
	FILE *f;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	EXPECT_EQ(EPERM, open_answered(g, self->file, FSGATE_DENY));
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));	/* times out */
	/* Its event went with the access it was about. */
	EXPECT_NE(0, next_event(g, 0, &ev));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(3, st.asked);
	EXPECT_EQ(2, st.answered);
	EXPECT_EQ(1, st.denied);
	EXPECT_EQ(1, st.timedout);
	EXPECT_EQ(0, st.pending);
	/*
	 * /proc/fsgate/groups shows the same, after priority and marks, and
	 * then no cache entries or evictions, no cache flush, nothing muted,
	 * no request for more time, nothing filtered, no absent verdict,
	 * nothing re-reported; one fd attached, no bound running (it is not
	 * persistent), no attach or handover, no name.
	 */
	snprintf(want, sizeof(want),
		 " 2000 1 0 2 0 0 3 2 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 1 - - 0 0 -\n");
	f = fopen("/proc/fsgate/groups", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, want))
			found = 1;
	fclose(f);
	EXPECT_EQ(1, found) TH_LOG("no line with \"%s\"", want);
	close(g);
}

TEST_HARNESS_MAIN
