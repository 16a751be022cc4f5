// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded waits: the ceiling on one access's whole chain (max_chain_ms),
 * unbounded waits only where an administrator allows them
 * (allow_unbounded_waits), a tier that ends at its first deny, and an
 * fsfreeze while an HSM restores a file that is opened with O_TRUNC.
 *
 * The access is made by a forked process, which exits with its errno;
 * the test itself reads and answers for its groups. Every test restores
 * the module parameters it changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for what must come */
#define LONG_MS 60000	/* a group timeout no test waits for */

/* The parameters a test may change, restored by the teardown. */
static const char *const params[] = {
	"max_chain_ms", "allow_unbounded_waits", "default_timeout_ms",
	"default_max_wait_ms", "max_groups", "max_marks", "max_mutes",
	"max_pending_events", "max_queued_events",
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))

FIXTURE(bounds) {
	char dir[64];
	char file[80];
	char saved[NPARAMS][32];
};

static int read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/fsgate/parameters/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

FIXTURE_SETUP(bounds)
{
	unsigned int i;

	for (i = 0; i < NPARAMS; i++)
		ASSERT_EQ(0, read_param(params[i], self->saved[i],
					sizeof(self->saved[i])))
			TH_LOG("parameter %s", params[i]);
	ASSERT_EQ(0, fsgate_test_tmpfs("bounds", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
}

FIXTURE_TEARDOWN(bounds)
{
	unsigned int i;

	for (i = 0; i < NPARAMS; i++)
		if (self->saved[i][0])
			fsgate_test_param(params[i], self->saved[i], NULL, 0);
	fsgate_test_tmpfs_done(self->dir);
}

/*
 * Wait for @pid until @ms after @t0 (CLOCK_MONOTONIC; NULL: now): its
 * exit status, -2 if it is still running then (it is left running), -1
 * on error.
 */
static int reap_within(pid_t pid, const struct timespec *t0, long ms)
{
	struct timespec now;
	int status;
	pid_t r;

	if (!t0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		t0 = &now;
	}
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (r < 0)
			return -1;
		if (ms_since(t0) >= ms)
			return -2;
		usleep(5000);
	}
}

TEST_F(bounds, the_defaults_bound_every_chain_and_refuse_unbounded_waits)
{
	char buf[32];

	ASSERT_EQ(0, read_param("max_chain_ms", buf, sizeof(buf)));
	EXPECT_STREQ("30000", buf);
	ASSERT_EQ(0, read_param("allow_unbounded_waits", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	ASSERT_EQ(0, read_param("default_timeout_ms", buf, sizeof(buf)));
	EXPECT_STREQ("10000", buf);
}

/*
 * A value out of range is refused with EINVAL, one past what an unsigned
 * int holds with ERANGE, and either changes nothing.
 */
TEST_F(bounds, parameters_out_of_range_are_refused)
{
	static const struct {
		const char *name, *value;
		int err;
	} bad[] = {
		{ "max_chain_ms", "0", EINVAL },
		{ "max_chain_ms", "3600001", EINVAL },
		{ "max_chain_ms", "-1", EINVAL },
		{ "max_chain_ms", "ten", EINVAL },
		{ "default_timeout_ms", "0", EINVAL },
		{ "default_timeout_ms", "3600001", EINVAL },
		{ "default_max_wait_ms", "0", EINVAL },
		{ "default_max_wait_ms", "3600001", EINVAL },
		{ "allow_unbounded_waits", "2", EINVAL },
		/* A limit of 0 would refuse everything without saying why. */
		{ "max_groups", "0", EINVAL },
		{ "max_marks", "0", EINVAL },
		{ "max_mutes", "0", EINVAL },
		{ "max_pending_events", "0", EINVAL },
		{ "max_queued_events", "0", EINVAL },
		{ "max_mutes", "4294967296", ERANGE },
	};
	char before[32], after[32];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, read_param(bad[i].name, before, sizeof(before)));
		errno = 0;
		EXPECT_EQ(-1, fsgate_test_param(bad[i].name, bad[i].value,
						NULL, 0))
			TH_LOG("%s=%s", bad[i].name, bad[i].value);
		EXPECT_EQ(bad[i].err, errno);
		ASSERT_EQ(0, read_param(bad[i].name, after, sizeof(after)));
		EXPECT_STREQ(before, after);
	}
	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "3600000", NULL, 0));
	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "1", NULL, 0));
	ASSERT_EQ(0, fsgate_test_param("default_max_wait_ms", "3600000",
				       NULL, 0));
	ASSERT_EQ(0, fsgate_test_param("max_mutes", "4294967295", NULL, 0));
	ASSERT_EQ(0, fsgate_test_param("max_groups", "1", NULL, 0));
}

/*
 * Three tiers that never answer, each with a timeout far beyond the
 * ceiling: the first tier's wait is ended by the ceiling, the tiers
 * below are not asked at all, and every one of them gives its timeout
 * verdict, counted as timed out. The last one fails closed, so the
 * access is denied.
 */
TEST_F(bounds, a_chain_of_slow_tiers_ends_at_the_ceiling)
{
	struct timespec t0;
	static const struct { unsigned int prio, verdict; } groups[] = {
		{ 3000, FSGATE_VERDICT_ALLOW },
		{ 2000, FSGATE_VERDICT_ALLOW },
		{ 1000, FSGATE_VERDICT_DENY },
	};
	struct fsgate_stats st;
	int g[3], i;
	pid_t pid;

	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "500", NULL, 0));
	for (i = 0; i < 3; i++) {
		g[i] = perm_group(FSGATE_CLASS_CONTENT, groups[i].prio, LONG_MS,
				  groups[i].verdict, FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g[i]);
		ASSERT_EQ(0, perm_mark(g[i], FAN_OPEN_PERM, self->dir));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = spawn_open(self->file, O_RDONLY, 0);
	EXPECT_EQ(EPERM, reap_within(pid, &t0, 500 + late_ms()));
	EXPECT_LE(500 - JIFFY_MS, ms_since(&t0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, fsgate_stats(g[i], &st));
		EXPECT_EQ(1, st.asked) TH_LOG("group %d", i);
		EXPECT_EQ(1, st.timedout) TH_LOG("group %d", i);
		EXPECT_EQ(0, st.pending) TH_LOG("group %d", i);
		/* The tiers below the first were never asked. */
		if (i)
			EXPECT_EQ(0, readable(g[i], 0)) TH_LOG("group %d", i);
		close(g[i]);
	}
}

/*
 * The ceiling ends what is still waiting, and a tier whose turn comes
 * after it is not asked: each gives its timeout verdict (here the HSM
 * fails open, the scanner closed), and an answer after the ceiling
 * finds no event.
 */
TEST_F(bounds, the_ceiling_ends_a_wait_and_leaves_later_tiers_unasked)
{
	struct timespec t0;
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	int hsm, scan;
	pid_t pid;

	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "1000", NULL, 0));
	hsm = perm_group(FSGATE_CLASS_CONTENT, 3000, LONG_MS,
			 FSGATE_VERDICT_ALLOW, FSGATE_VERDICT_DEFAULT);
	scan = perm_group(FSGATE_CLASS_CONTENT, 2000, LONG_MS,
			  FSGATE_VERDICT_DENY, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, hsm);
	ASSERT_LE(0, scan);
	ASSERT_EQ(0, perm_mark(hsm, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, perm_mark(scan, FAN_OPEN_PERM, self->dir));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(hsm, WAIT_MS, &ev));
	/* The HSM takes the whole ceiling, then allows: too late. */
	EXPECT_EQ(EPERM, reap_within(pid, &t0, 1000 + late_ms()));
	EXPECT_LE(1000 - JIFFY_MS, ms_since(&t0));
	EXPECT_EQ(-1, answer(hsm, ev.fd, FSGATE_ALLOW));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, fsgate_stats(hsm, &st));
	EXPECT_EQ(1, st.timedout);
	EXPECT_EQ(0, st.answered);
	ASSERT_EQ(0, fsgate_stats(scan, &st));
	EXPECT_EQ(1, st.timedout);
	EXPECT_EQ(0, st.delivered);
	EXPECT_EQ(0, readable(scan, 0));
	close(hsm);
	close(scan);
}

/* CLOCK_MONOTONIC now in ns, the clock of struct fsgate_info_perm. */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define NS_PER_MS 1000000ULL
/* A reported time, read from jiffies twice: within two of exact. */
#define EXPECT_NS_NEAR(want, got) do {					\
	EXPECT_LE((want) - 2 * JIFFY_MS * NS_PER_MS, (got));		\
	EXPECT_GE((want) + 2 * JIFFY_MS * NS_PER_MS, (got));		\
} while (0)

/*
 * Ask for ten minutes more for the access of @rec on @g: the waiter
 * (@pid) gets the timeout verdict at @rec's latest_ns all the same.
 */
#define EXPECT_MORE_TIME_ENDS_AT_LATEST(g, rec, pid) do {		\
	uint64_t ended;							\
									\
	ASSERT_EQ(0, fsgate_extend((g), (rec).id, 600000));		\
	EXPECT_EQ(EPERM, reap(pid));					\
	ended = mono_ns();						\
	EXPECT_LE((rec).latest_ns - JIFFY_MS * NS_PER_MS, ended);	\
	EXPECT_GE((rec).latest_ns + late_ms() * NS_PER_MS, ended);	\
} while (0)

/*
 * The permission record says how long requests for more time can hold
 * an access (latest_ns): the group's max_wait_ms after it was asked.
 * A daemon that holds accesses answers by then, or the group's timeout
 * verdict does.
 */
TEST_F(bounds, the_record_says_how_long_more_time_can_hold_an_access)
{
	struct fsgate_info_perm rec;
	pid_t pid;
	int g;

	g = deadline_group(1000, 2000);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_perm_record(g, WAIT_MS, &rec));
	EXPECT_EQ(0, rec.flags);
	EXPECT_NS_NEAR(rec.deadline_ns + 1000 * NS_PER_MS, rec.latest_ns);
	EXPECT_MORE_TIME_ENDS_AT_LATEST(g, rec, pid);
	close(g);
}

/*
 * Where the chain's ceiling comes before the group's max_wait_ms, the
 * record's latest_ns is the ceiling: a request for more time that
 * succeeds gives no time past it.
 */
TEST_F(bounds, the_record_says_where_the_ceiling_ends_more_time)
{
	struct fsgate_info_perm rec;
	pid_t pid;
	int g;

	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "1500", NULL, 0));
	g = deadline_group(1000, LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_perm_record(g, WAIT_MS, &rec));
	EXPECT_NS_NEAR(rec.deadline_ns + 500 * NS_PER_MS, rec.latest_ns);
	EXPECT_MORE_TIME_ENDS_AT_LATEST(g, rec, pid);
	close(g);
}

TEST_F(bounds, an_unbounded_group_is_refused_unless_allowed)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	pid_t pid;
	int g;

	errno = 0;
	EXPECT_EQ(-1, perm_group(FSGATE_CLASS_CONTENT, 2000,
				 FSGATE_TIMEOUT_NONE, FSGATE_VERDICT_DEFAULT,
				 FSGATE_VERDICT_DEFAULT));
	EXPECT_EQ(EPERM, errno);
	errno = 0;
	EXPECT_EQ(-1, perm_group(FSGATE_CLASS_PRE_CONTENT, 3000,
				 FSGATE_TIMEOUT_NONE, FSGATE_VERDICT_DENY,
				 FSGATE_VERDICT_DENY));
	EXPECT_EQ(EPERM, errno);

	ASSERT_EQ(0, fsgate_test_param("allow_unbounded_waits", "1", NULL, 0));
	g = perm_group(FSGATE_CLASS_CONTENT, 2000, FSGATE_TIMEOUT_NONE,
		       FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	/* No ceiling for an access that such a group decides. */
	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "100", NULL, 0));
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(-2, reap_within(pid, NULL, 1000));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.pending);
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_DENY));
	EXPECT_EQ(EPERM, reap_within(pid, NULL, WAIT_MS));
	close(g);
}

/*
 * Withdrawing the permission bounds the groups that have it from the
 * next access on: the ceiling ends their wait.
 */
TEST_F(bounds, withdrawn_permission_puts_unbounded_groups_under_the_ceiling)
{
	struct timespec t0;
	struct fsgate_stats st;
	pid_t pid;
	int g;

	ASSERT_EQ(0, fsgate_test_param("allow_unbounded_waits", "1", NULL, 0));
	g = perm_group(FSGATE_CLASS_CONTENT, 2000, FSGATE_TIMEOUT_NONE,
		       FSGATE_VERDICT_DENY, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, fsgate_test_param("allow_unbounded_waits", "0", NULL, 0));
	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "300", NULL, 0));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = spawn_open(self->file, O_RDONLY, 0);
	EXPECT_EQ(EPERM, reap_within(pid, &t0, 300 + late_ms()));
	EXPECT_LE(300 - JIFFY_MS, ms_since(&t0));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.timedout);
	close(g);
}

/*
 * Two groups of one tier: the first deny ends the tier at once. The
 * other member's event is withdrawn (counted as cancelled), and its
 * late answer finds no event.
 */
/*
 * Two groups of one tier on @dir, both asked about an open of @file by
 * *@pid; their groups go to @g, their events to @ev. Return: 0 or -1.
 */
static int ask_a_tier_of_two(const char *dir, const char *file, int *g,
			     struct fanotify_event_metadata *ev, pid_t *pid)
{
	int i;

	for (i = 0; i < 2; i++) {
		g[i] = perm_group(FSGATE_CLASS_CONTENT, 2000, LONG_MS,
				  FSGATE_VERDICT_ALLOW, FSGATE_VERDICT_DEFAULT);
		if (g[i] < 0 || perm_mark(g[i], FAN_OPEN_PERM, dir))
			return -1;
	}
	*pid = spawn_open(file, O_RDONLY, 0);
	for (i = 0; i < 2; i++)
		if (next_event(g[i], WAIT_MS, &ev[i]))
			return -1;
	return 0;
}

TEST_F(bounds, the_first_deny_ends_a_tier)
{
	struct fanotify_event_metadata ev[2];
	struct fsgate_stats st;
	int g[2], i;
	pid_t pid;

	ASSERT_EQ(0, ask_a_tier_of_two(self->dir, self->file, g, ev, &pid));
	/* The second member denies; the first never answers in time. */
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g[1], ev[1].fd, FSGATE_DENY_ERRNO(EIO)));
	EXPECT_EQ(EIO, reap_within(pid, NULL, WAIT_MS));
	ASSERT_EQ(0, fsgate_stats(g[0], &st));
	EXPECT_EQ(0, st.pending);
	EXPECT_EQ(1, st.cancelled);
	EXPECT_EQ(-1, answer(g[0], ev[0].fd, FSGATE_ALLOW));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, fsgate_stats(g[1], &st));
	EXPECT_EQ(1, st.denied);
	for (i = 0; i < 2; i++)
		close(g[i]);
}

/* A member's allow does not end its tier: the tier waits for the rest. */
TEST_F(bounds, an_allow_waits_for_the_rest_of_the_tier)
{
	struct fanotify_event_metadata ev[2];
	int g[2], i;
	pid_t pid;

	ASSERT_EQ(0, ask_a_tier_of_two(self->dir, self->file, g, ev, &pid));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g[0], ev[0].fd, FSGATE_ALLOW));
	EXPECT_EQ(-2, reap_within(pid, NULL, 300));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g[1], ev[1].fd, FSGATE_DENY));
	EXPECT_EQ(EPERM, reap_within(pid, NULL, WAIT_MS));
	for (i = 0; i < 2; i++)
		close(g[i]);
}

/*
 * fsfreeze during a restore. An O_TRUNC open takes the filesystem's
 * write access (mnt_want_write(), which is sb_start_write()) before its
 * FAN_OPEN_PERM is raised, and holds it while the HSM is asked; a
 * freeze then waits for the opener, and the HSM's write through its
 * event fd waits for the freeze. The chain's ceiling ends the opener's
 * wait (the HSM's timeout verdict), the freeze completes, and the HSM's
 * write goes through once the filesystem is thawed.
 */
FIXTURE(freeze) {
	char img[64];
	char mnt[64];
	char dev[32];
	char file[96];
	char chain[32];
};

FIXTURE_SETUP(freeze)
{
	ASSERT_EQ(0, read_param("max_chain_ms", self->chain,
				sizeof(self->chain)));
	ASSERT_EQ(0, fsgate_test_own_mounts());
	snprintf(self->img, sizeof(self->img), "/tmp/freeze.%d.img", getpid());
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/freeze.%d", getpid());
	snprintf(self->file, sizeof(self->file), "%s/stub", self->mnt);
	ASSERT_EQ(0, fsgate_test_ext4(self->img, self->dev, sizeof(self->dev)));
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
	ASSERT_EQ(0, mount(self->dev, self->mnt, "ext4", 0, NULL));
	write_file(self->file, "stub\n");
}

FIXTURE_TEARDOWN(freeze)
{
	int fd = open(self->mnt, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ioctl(fd, FITHAW, 0);
		close(fd);
	}
	umount2(self->mnt, MNT_DETACH);
	fsgate_test_loop_detach(self->dev);
	unlink(self->img);
	rmdir(self->mnt);
	if (self->chain[0])
		fsgate_test_param("max_chain_ms", self->chain, NULL, 0);
}

/* Fork a process that freezes the filesystem of @dir; exits with errno. */
static pid_t spawn_freeze(const char *dir)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	fd = open(dir, O_RDONLY | O_CLOEXEC);
	_exit(fd < 0 || ioctl(fd, FIFREEZE, 0) ? errno : 0);
}

/* Fork a process that writes @s at the start of @fd; exits with errno. */
static pid_t spawn_write(int fd, const char *s)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	_exit(pwrite(fd, s, strlen(s), 0) < 0 ? errno : 0);
}

/*
 * The cycle itself: with @accessor waiting for @ev's answer (its ask
 * began after @t0) while it holds the filesystem's write access, @mnt is
 * frozen and the HSM writes through the event's fd. The ceiling of 2000
 * ms ends the wait (the HSM's timeout verdict, allow), the freeze then
 * completes, and the write goes through once thawed.
 */
static void freeze_during(struct __test_metadata *_metadata, const char *mnt,
			  const struct fanotify_event_metadata *ev,
			  pid_t accessor, const struct timespec *t0)
{
	pid_t freezer, writer;
	int fd;

	freezer = spawn_freeze(mnt);
	/* Not an assertion: give the freeze time to start waiting. */
	usleep(200000);
	writer = spawn_write(ev->fd, "restored\n");
	EXPECT_EQ(0, reap_within(accessor, t0, 2000 + late_ms()));
	EXPECT_LE(2000 - JIFFY_MS, ms_since(t0));
	EXPECT_EQ(0, reap_within(freezer, NULL, WAIT_MS));
	fd = open(mnt, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, FITHAW, 0));
	close(fd);
	EXPECT_EQ(0, reap_within(writer, NULL, WAIT_MS));
}

TEST_F(freeze, a_freeze_during_a_restore_is_ended_by_the_ceiling)
{
	struct timespec t0;
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	pid_t opener;
	int g;

	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "2000", NULL, 0));
	g = hsm_group(3000);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->mnt));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	opener = spawn_open(self->file, O_WRONLY | O_TRUNC, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	freeze_during(_metadata, self->mnt, &ev, opener, &t0);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.timedout);
	EXPECT_EQ(-1, answer(g, ev.fd, FSGATE_ALLOW));
	EXPECT_EQ(ENOENT, errno);
	close(g);
}

/*
 * Fork a process that copies @src to a new file @dst of the same
 * filesystem with copy_file_range(); exits with errno. ext4 has no
 * ->copy_file_range, so the copy is a splice that reads @src.
 */
static pid_t spawn_copy(const char *src, const char *dst)
{
	pid_t pid = fork();
	int in, out;

	if (pid)
		return pid;
	in = open(src, O_RDONLY);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		_exit(errno);
	_exit(copy_file_range(in, NULL, out, NULL, 5, 0) == 5 ? 0 : errno ?: EIO);
}

/* Whether the running kernel is older than @major.@minor. */
static bool kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/*
 * The same cycle through copy_file_range() on one ext4 filesystem (no
 * ->copy_file_range: a splice). Before 6.8 the copy asks FAN_ACCESS_PERM
 * twice: once before it takes the destination's write access, and again
 * in do_splice_to() while it holds it (file_start_write() around
 * do_splice_direct()); that second event is the cycle: the freeze waits
 * for the copier, the HSM's write waits for the freeze, and the ceiling
 * ends it. 6.8 dropped the second check, so there the copy asks once,
 * holding nothing.
 */
TEST_F(freeze, a_freeze_during_a_copy_file_range_is_ended_by_the_ceiling)
{
	struct timespec t0;
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	pid_t copier;
	char dst[128];
	int g;

	snprintf(dst, sizeof(dst), "%s/copy", self->mnt);
	ASSERT_EQ(0, fsgate_test_param("max_chain_ms", "2000", NULL, 0));
	g = hsm_group(3000);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_ACCESS_PERM, self->mnt));
	copier = spawn_copy(self->file, dst);
	/* The first check, before the write access: allowed at once. */
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(FAN_ACCESS_PERM, ev.mask);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_ALLOW));
	if (!kernel_before(6, 8)) {
		EXPECT_FALSE(readable(g, 500));
		EXPECT_EQ(0, reap_within(copier, NULL, WAIT_MS));
		close(g);
		return;
	}
	/* The second, under the destination's write access. */
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(FAN_ACCESS_PERM, ev.mask);
	freeze_during(_metadata, self->mnt, &ev, copier, &t0);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.answered);
	EXPECT_EQ(1, st.timedout);
	close(g);
}

TEST_HARNESS_MAIN
