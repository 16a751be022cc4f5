// SPDX-License-Identifier: GPL-2.0
/*
 * Permission events beyond filesystem marks: inode, directory and mount
 * marks; ignore masks; FSGATE_EXCLUDE_SELF; FSGATE_UNLIMITED_QUEUE and
 * the pending limit; default_timeout_ms; the bound of a chain of tiers
 * that never answer; FSGATE_RESPONSE_MAX; and 6.12's open-time rule for
 * FAN_ACCESS_PERM.
 *
 * The access is made by a forked process, which exits with its errno;
 * the test itself answers for its groups.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NONE_MS 300	/* for events that must not */

FIXTURE(perm) {
	char dir[64];
	char file[80];
	char other[80];
};

FIXTURE_SETUP(perm)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("pmark", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/other", self->dir);
	write_file(self->file, "content\n");
	write_file(self->other, "other\n");
}

FIXTURE_TEARDOWN(perm)
{
	fsgate_test_tmpfs_done(self->dir);
}

/*
 * An open of @path by another process: whether @g is asked (it is then
 * answered with @response). Return: the opener's exit status when @g
 * was asked, 100 + it when @g was not, -1 on error.
 */
static int open_asks(int g, const char *path, uint32_t response)
{
	struct fanotify_event_metadata ev;
	pid_t pid = spawn_open(path, O_RDONLY, 0);

	if (next_event(g, NONE_MS * 3, &ev))
		return 100 + reap(pid);
	if (answer(g, ev.fd, response) != sizeof(struct fanotify_response)) {
		reap(pid);
		return -1;
	}
	return reap(pid);
}

static int mark(int g, unsigned int flags, uint64_t mask, const char *path)
{
	return fsgate_mark(g, FSGATE_MARK_ADD | flags, mask, AT_FDCWD, path);
}

TEST_F(perm, an_inode_mark_asks_about_its_file_only)
{
	int g = content_group(2000);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mark(g, 0, FAN_OPEN_PERM, self->file));
	EXPECT_EQ(EPERM, open_asks(g, self->file, FSGATE_DENY));
	EXPECT_EQ(100, open_asks(g, self->other, FSGATE_DENY));
	close(g);
}

TEST_F(perm, a_directory_mark_asks_about_children_with_event_on_child)
{
	int g = content_group(2000), h = content_group(2000);

	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, mark(g, 0, FAN_OPEN_PERM | FAN_EVENT_ON_CHILD, self->dir));
	ASSERT_EQ(0, mark(h, 0, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(EPERM, open_asks(g, self->file, FSGATE_DENY));
	EXPECT_EQ(0, open_asks(g, self->other, FSGATE_ALLOW));
	/* Without FAN_EVENT_ON_CHILD the children are not the mark's. */
	close(g);
	EXPECT_EQ(100, open_asks(h, self->file, FSGATE_DENY));
	close(h);
}

TEST_F(perm, a_mount_mark_asks_about_its_own_mount_only)
{
	char bind[64], bfile[96];
	int g = content_group(2000);

	ASSERT_LE(0, g);
	snprintf(bind, sizeof(bind), "/tmp/pbind.%d", getpid());
	ASSERT_EQ(0, mkdir(bind, 0755));
	ASSERT_EQ(0, mount(self->dir, bind, NULL, MS_BIND, NULL));
	snprintf(bfile, sizeof(bfile), "%s/file", bind);
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT, FAN_OPEN_PERM, bind));
	EXPECT_EQ(EPERM, open_asks(g, bfile, FSGATE_DENY));
	EXPECT_EQ(100, open_asks(g, self->file, FSGATE_DENY));
	close(g);
	umount2(bind, MNT_DETACH);
	rmdir(bind);
}

TEST_F(perm, an_ignore_mask_spares_a_file_until_it_is_modified)
{
	int g = content_group(2000), fd;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_IGNORED_MASK, FAN_OPEN_PERM,
			  self->file));
	EXPECT_EQ(100, open_asks(g, self->file, FSGATE_DENY));
	EXPECT_EQ(EPERM, open_asks(g, self->other, FSGATE_DENY));
	/* The test's own write open is spared too; the write clears it. */
	fd = open(self->file, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "+", 1));
	close(fd);
	EXPECT_EQ(EPERM, open_asks(g, self->file, FSGATE_DENY));
	close(g);
}

TEST_F(perm, an_ignore_mask_that_survives_modify_stays)
{
	int g = content_group(2000), fd;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_IGNORED_MASK |
			  FSGATE_MARK_IGNORED_SURV_MODIFY, FAN_OPEN_PERM,
			  self->file));
	fd = open(self->file, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "+", 1));
	close(fd);
	EXPECT_EQ(100, open_asks(g, self->file, FSGATE_DENY));
	close(g);
}

/*
 * Neither the group's own process nor what it forks afterwards (its
 * workers) is asked; a process forked before the group was made is.
 */
TEST_F(perm, exclude_self_does_not_ask_about_the_groups_own_process)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	struct timespec t0;
	int g, fd, cue;
	pid_t other;

	other = spawn_open_on_cue(self->file, &cue);
	ASSERT_LE(0, other);
	/* Bounded, so that a failure cannot hang the test on itself. */
	g = perm_group(FSGATE_CLASS_CONTENT | FSGATE_EXCLUDE_SELF, 2000, 2000,
		       FSGATE_VERDICT_DENY, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = open(self->file, O_RDONLY);
	EXPECT_LE(0, fd);
	close(fd);
	EXPECT_GT(late_ms(), ms_since(&t0));
	/* Its worker, bounded by the group's timeout whose verdict denies. */
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.asked);
	EXPECT_EQ(0, st.timedout);
	/* Another process is asked. */
	ASSERT_EQ(0, give_cue(cue));
	ASSERT_EQ(0, next_event(g, NONE_MS * 3, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FSGATE_DENY));
	EXPECT_EQ(EPERM, reap(other));
	close(g);
}

TEST_F(perm, unlimited_queue_lifts_the_pending_limit)
{
	struct fanotify_event_metadata ev[2];
	struct fsgate_stats st;
	char old[32], cur[32];
	pid_t pid[2];
	int g, i;

	g = perm_group(FSGATE_CLASS_CONTENT | FSGATE_UNLIMITED_QUEUE, 2000,
		       PERM_LONG_MS, FSGATE_VERDICT_DENY,
		       FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, fsgate_test_param("max_pending_events", "1", old,
				       sizeof(old)));
	pid[0] = spawn_open(self->file, O_RDONLY, 0);
	pid[1] = spawn_open(self->other, O_RDONLY, 0);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, next_event(g, WAIT_MS, &ev[i]));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.pending);
	EXPECT_EQ(0, st.perm_overflows);
	/* Events come in any order: answer both, then reap. */
	for (i = 0; i < 2; i++)
		EXPECT_EQ(sizeof(struct fanotify_response),
			  answer(g, ev[i].fd, FSGATE_ALLOW));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, reap(pid[i]));
	ASSERT_EQ(0, fsgate_test_param("max_pending_events", old, cur,
				       sizeof(cur)));
	EXPECT_STREQ("1", cur);
	close(g);
}

TEST_F(perm, default_timeout_ms_bounds_a_group_that_takes_the_default)
{
	struct fsgate_stats st;
	struct timespec t0;
	char old[32], cur[32];
	int g;

	ASSERT_EQ(0, fsgate_test_param("default_timeout_ms", "300", old,
				       sizeof(old)));
	g = perm_group(FSGATE_CLASS_CONTENT, 2000, FSGATE_TIMEOUT_DEFAULT,
		       FSGATE_VERDICT_DENY, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(EPERM, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_LE(300 - JIFFY_MS, ms_since(&t0));
	EXPECT_GT(300 + late_ms(), ms_since(&t0));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.timedout);
	close(g);
	ASSERT_EQ(0, fsgate_test_param("default_timeout_ms", old, cur,
				       sizeof(cur)));
	EXPECT_STREQ("300", cur);
}

/*
 * Nobody answers: each tier waits for its longest timeout, starting when
 * it is asked, so the access waits for their sum (README, "Limitations").
 */
TEST_F(perm, a_chain_of_silent_tiers_waits_for_the_sum_of_their_timeouts)
{
	static const struct { unsigned int prio, ms; } groups[] = {
		{ 3000, 300 }, { 2000, 200 }, { 2000, 400 },
	};
	struct fsgate_stats st;
	struct timespec t0;
	int g[3], i;
	long ms;

	for (i = 0; i < 3; i++) {
		g[i] = perm_group(FSGATE_CLASS_CONTENT, groups[i].prio,
				  groups[i].ms, FSGATE_VERDICT_ALLOW,
				  FSGATE_VERDICT_DEFAULT);
		ASSERT_LE(0, g[i]);
		ASSERT_EQ(0, perm_mark(g[i], FAN_OPEN_PERM, self->dir));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	ms = ms_since(&t0);
	EXPECT_LE(300 + 400 - JIFFY_MS, ms);
	EXPECT_GT(300 + 400 + late_ms(), ms);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, fsgate_stats(g[i], &st));
		EXPECT_EQ(1, st.timedout) TH_LOG("group %d", i);
		close(g[i]);
	}
}

TEST_F(perm, a_write_of_more_than_response_max_answers_is_refused)
{
	struct fanotify_event_metadata ev;
	struct fanotify_response *r;
	struct fsgate_stats st;
	int g = content_group(2000), i;
	pid_t pid;

	ASSERT_LE(0, g);
	r = calloc(FSGATE_RESPONSE_MAX + 1, sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	for (i = 0; i <= FSGATE_RESPONSE_MAX; i++)
		r[i] = (struct fanotify_response){ .fd = ev.fd,
						   .response = FSGATE_DENY };
	EXPECT_EQ(-1, write(g, r, (FSGATE_RESPONSE_MAX + 1) * sizeof(*r)));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was answered: the access still waits. */
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.pending);
	EXPECT_EQ(0, waitpid(pid, NULL, WNOHANG));
	/* FSGATE_RESPONSE_MAX is still one write. */
	r[FSGATE_RESPONSE_MAX - 1].response = FSGATE_ALLOW;
	EXPECT_EQ(-1, write(g, r, FSGATE_RESPONSE_MAX * sizeof(*r)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(sizeof(*r), write(g, &r[FSGATE_RESPONSE_MAX - 1], sizeof(*r)));
	EXPECT_EQ(0, reap(pid));
	close(ev.fd);
	free(r);
	close(g);
}

static int is_6_12(void)
{
	struct utsname u;

	return !uname(&u) && !strncmp(u.release, "6.12.", 5);
}

/*
 * 6.12 decides when a file is opened whether it can raise permission
 * events; a file opened before the mark raises no FAN_ACCESS_PERM there
 * (README, "Limitations"). 6.1 asks.
 */
TEST_F(perm, a_file_opened_before_the_mark_and_access_perm)
{
	struct fanotify_event_metadata ev;
	int g = content_group(2000), go[2], ready[2], asked;
	pid_t pid;
	char c;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = open(self->file, O_RDONLY);

		if (fd < 0 || write(ready[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(99);
		_exit(read(fd, &c, 1) == 1 ? 0 : errno);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, perm_mark(g, FAN_ACCESS_PERM, self->dir));
	ASSERT_EQ(1, write(go[1], "g", 1));
	asked = !next_event(g, is_6_12() ? NONE_MS * 3 : WAIT_MS, &ev);
	if (asked) {
		EXPECT_EQ(FAN_ACCESS_PERM, ev.mask);
		answer(g, ev.fd, FSGATE_ALLOW);
	}
	EXPECT_EQ(0, reap(pid));
	EXPECT_EQ(!is_6_12(), asked);
	close(g);
}

TEST_HARNESS_MAIN
