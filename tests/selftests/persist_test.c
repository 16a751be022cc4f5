// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent groups: a group that outlives its daemon holds the accesses
 * it must decide, re-reports what a closed fd read and did not answer
 * (same id, new fd, answered once), decides by its absent verdict once
 * nobody attached within its bound, goes after its linger bound, and
 * only its owner or CAP_SYS_ADMIN may attach to or remove it.
 *
 * Accesses are made by forked processes, which exit with their errno.
 * Every test removes the groups it made persistent: a persistent group
 * left behind would keep the module from being unloaded at the end of
 * the boot, which tests/vm reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NAME "persist-test"

FIXTURE(persist) {
	char dir[64];
	char file[96];
};

FIXTURE_SETUP(persist)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("persist", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/data", self->dir);
	write_file(self->file, "content\n");
}

FIXTURE_TEARDOWN(persist)
{
	/* A test that failed half-way leaves no persistent group behind. */
	fsgate_remove(NAME);
	fsgate_remove(NAME "-2");
	fsgate_test_tmpfs_done(self->dir);
}

/* A content group with event ids, its open permission marked on @dir. */
static int id_group(const char *dir, unsigned int timeout_ms)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_REPORT_PERM,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = 2000,
		.timeout_ms = timeout_ms,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};
	int g = fsgate_init_ext(&init);

	if (g >= 0 && perm_mark(g, FAN_OPEN_PERM, dir)) {
		close(g);
		return -1;
	}
	return g;
}

static struct fsgate_persist persist_req(const char *name, unsigned int absent_ms,
					 unsigned int verdict, unsigned int err,
					 unsigned int linger_ms)
{
	struct fsgate_persist req = {
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.absent_ms = absent_ms,
		.absent_verdict = verdict,
		.absent_errno = err,
		.linger_ms = linger_ms,
		.flags = linger_ms ? 0 : FSGATE_PERSIST_UNTIL_REMOVED,
	};

	snprintf(req.name, sizeof(req.name), "%s", name);
	return req;
}

/* Make @g persistent as @name; 0 or -1 with errno. */
static int make_persistent(int g, const char *name, unsigned int absent_ms,
			   unsigned int verdict, unsigned int err,
			   unsigned int linger_ms)
{
	struct fsgate_persist req = persist_req(name, absent_ms, verdict, err,
						linger_ms);

	return fsgate_persist(g, &req);
}

/*
 * One permission event on @g within WAIT_MS: its fd and id. The buffer
 * holds one event with its id record and no more, so that a read takes
 * one event of many waiting.
 */
static int next_id(int g, int *fd, uint64_t *id)
{
	char buf[FAN_EVENT_METADATA_LEN + sizeof(struct fsgate_info_perm)]
		__attribute__((aligned(8)));
	const struct fanotify_event_metadata *ev;
	const struct fsgate_info_perm *perm;
	struct fsgate_events it;
	ssize_t n;

	if (!readable(g, WAIT_MS))
		return -1;
	n = read(g, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	fsgate_events_init(&it, buf, n);
	ev = fsgate_event_next(&it);
	if (!ev || ev->fd < 0)
		return -1;
	perm = fsgate_info_perm(ev);
	if (!perm)
		return -1;
	*fd = ev->fd;
	*id = perm->id;
	/* One event per read: a second would have to be answered too. */
	return fsgate_event_next(&it) ? -1 : 0;
}

/* The group's counters through a fresh fd, or zeros if it is gone. */
static struct fsgate_stats stats_of(const char *name)
{
	struct fsgate_stats st = { 0 };
	int g = fsgate_attach(name, FSGATE_CLOEXEC);

	if (g >= 0) {
		fsgate_stats(g, &st);
		close(g);
	}
	return st;
}

/*
 * The row of the group named @name in /proc/fsgate/groups (@proc) or in
 * FSGATE_IOC_GROUPS's records (!@proc), as libfsgate reads them; false
 * if none has the name.
 */
static bool listed(const char *name, bool proc, struct fsgate_group_info *row)
{
	struct fsgate_group_info *rows = NULL;
	bool found = false;
	ssize_t n, i;

	n = fsgate_groups_read(proc ? FSGATE_GROUPS_FILE : NULL, &rows);
	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name)) {
			if (row)
				*row = rows[i];
			found = true;
		}
	free(rows);
	return found;
}

static bool listed_by_name(const char *name)
{
	return listed(name, true, NULL);
}

/* Whether @pid is still running (waiting for its open) after @ms. */
static bool still_waiting(pid_t pid, int ms)
{
	usleep(ms * 1000);
	return waitpid(pid, NULL, WNOHANG) == 0;
}

/*
 * The daemon goes away: an open made while nobody is attached waits, and
 * the next daemon to attach is asked and decides it.
 */
TEST_F(persist, an_access_waits_for_the_next_daemon)
{
	uint64_t id;
	pid_t pid;
	int g, fd;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 60000, FSGATE_VERDICT_DENY, EIO, 0));
	close(g);

	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, pid);
	EXPECT_TRUE(still_waiting(pid, 300));

	g = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, next_id(g, &fd, &id));
	close(fd);
	EXPECT_EQ(0, fsgate_respond_id(g, id, FAN_DENY));
	EXPECT_EQ(EPERM, reap(pid));
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
	/* Removed with no fd attached: gone at once. */
	EXPECT_EQ(-1, fsgate_attach(NAME, FSGATE_CLOEXEC));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
}

/*
 * A daemon killed between its read and its answer: the event is
 * reported again to the next one, with the same id and a new fd, and
 * answered once.
 */
TEST_F(persist, what_a_killed_daemon_read_is_reported_again)
{
	uint64_t id, again;
	int g, fd, p[2];
	pid_t pid, daemon;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 60000, FSGATE_VERDICT_DENY, 0, 0));
	close(g);
	ASSERT_EQ(0, pipe(p));

	daemon = fork();
	ASSERT_LE(0, daemon);
	if (daemon == 0) {
		int d = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);

		if (d < 0 || next_id(d, &fd, &id) || write(p[1], &id, sizeof(id)) != sizeof(id))
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, pid);
	ASSERT_EQ(sizeof(id), read(p[0], &id, sizeof(id)));
	close(p[0]);
	kill(daemon, SIGKILL);
	EXPECT_EQ(-1, reap(daemon));
	EXPECT_TRUE(still_waiting(pid, 200));

	g = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, next_id(g, &fd, &again));
	EXPECT_EQ(id, again);
	close(fd);
	EXPECT_EQ(0, fsgate_respond_id(g, again, FAN_ALLOW));
	EXPECT_EQ(0, reap(pid));
	/* Answered once: a second answer finds nothing. */
	EXPECT_EQ(-1, fsgate_respond_id(g, again, FAN_ALLOW));
	EXPECT_EQ(ENOENT, errno);
	{
		struct fsgate_stats st;

		ASSERT_EQ(0, fsgate_stats(g, &st));
		EXPECT_EQ(1, st.rereported);
		EXPECT_EQ(1, st.answered);
		EXPECT_EQ(0, st.orphaned);
	}
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/*
 * Two fds attached (a daemon and its successor): an event is answered
 * only through the fd it was read through, and when the old one closes,
 * what it left unanswered moves to the new one.
 */
TEST_F(persist, a_successor_takes_over_what_the_old_daemon_left)
{
	uint64_t id, again;
	int old, new, fd;
	pid_t pid;

	old = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, old);
	ASSERT_EQ(0, make_persistent(old, NAME, 60000, FSGATE_VERDICT_DENY, 0, 0));
	new = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	ASSERT_LE(0, new);

	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, next_id(old, &fd, &id));
	close(fd);
	/* Not the successor's to answer while the old daemon holds it. */
	EXPECT_EQ(-1, fsgate_respond_id(new, id, FAN_DENY));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_FALSE(readable(new, 100));

	close(old);
	ASSERT_EQ(0, next_id(new, &fd, &again));
	EXPECT_EQ(id, again);
	close(fd);
	EXPECT_EQ(0, fsgate_respond_id(new, again, FAN_DENY));
	EXPECT_EQ(EPERM, reap(pid));
	close(new);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/*
 * A handover under load: 40 opens; the old daemon reads 30 and answers
 * 15 (allow), a successor attaches, the old one closes; the successor
 * gets the 15 read and unanswered and the 10 never read, and denies
 * them. Every open is answered exactly once: 15 allowed, 25 denied.
 */
TEST_F(persist, a_handover_under_load_answers_each_access_once)
{
	enum { OPENS = 40, READ = 30, ALLOWED = 15 };
	int old, new, i, allowed = 0, denied = 0, err;
	struct fsgate_stats st;
	pid_t pids[OPENS];

	old = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, old);
	ASSERT_EQ(0, make_persistent(old, NAME, 60000, FSGATE_VERDICT_DENY, 0, 0));
	for (i = 0; i < OPENS; i++) {
		pids[i] = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_LT(0, pids[i]);
	}
	for (i = 0; i < READ; i++) {
		uint64_t id;
		int fd;

		ASSERT_EQ(0, next_id(old, &fd, &id));
		close(fd);
		if (i < ALLOWED)
			ASSERT_EQ(0, fsgate_respond_id(old, id, FAN_ALLOW));
	}
	new = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	ASSERT_LE(0, new);
	close(old);
	for (i = 0; i < OPENS - ALLOWED; i++) {
		uint64_t id;
		int fd;

		ASSERT_EQ(0, next_id(new, &fd, &id));
		close(fd);
		ASSERT_EQ(0, fsgate_respond_id(new, id, FAN_DENY));
	}
	EXPECT_FALSE(readable(new, 200));
	for (i = 0; i < OPENS; i++) {
		err = reap(pids[i]);
		allowed += err == 0;
		denied += err == EPERM;
	}
	EXPECT_EQ(ALLOWED, allowed);
	EXPECT_EQ(OPENS - ALLOWED, denied);
	ASSERT_EQ(0, fsgate_stats(new, &st));
	EXPECT_EQ(OPENS, st.asked);
	EXPECT_EQ(OPENS, st.answered);
	EXPECT_EQ(READ - ALLOWED, st.rereported);
	EXPECT_EQ(0, st.pending);
	close(new);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/*
 * Nobody attached within the absent bound: the waiting access gets the
 * absent errno when the bound passes, later ones at once, and a daemon
 * that attaches is asked again.
 */
TEST_F(persist, the_absent_verdict_decides_past_the_bound)
{
	struct timespec t0;
	struct fsgate_stats st;
	uint64_t id;
	int g, fd;
	long ms;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 500, FSGATE_VERDICT_DENY, EIO, 0));
	close(g);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(EIO, reap(spawn_open(self->file, O_RDONLY, 0)));
	ms = ms_since(&t0);
	/* Held until the bound, not decided at once, nor at the timeout. */
	EXPECT_LE(500 - JIFFY_MS, ms);
	EXPECT_GT(500 + late_ms(), ms);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(EIO, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_GT(late_ms(), ms_since(&t0));

	g = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	ASSERT_LE(0, g);
	{
		pid_t pid = spawn_open(self->file, O_RDONLY, 0);

		ASSERT_EQ(0, next_id(g, &fd, &id));
		close(fd);
		EXPECT_EQ(0, fsgate_respond_id(g, id, FAN_ALLOW));
		EXPECT_EQ(0, reap(pid));
	}
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.absent);
	EXPECT_EQ(st.asked, st.answered + st.absent);
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/* An absent bound of 0: decided at once, by allow too. */
TEST_F(persist, an_absent_bound_of_zero_decides_at_once)
{
	struct timespec t0;
	int g;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 0, FSGATE_VERDICT_ALLOW, 0, 0));
	close(g);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_GT(late_ms(), ms_since(&t0));
	EXPECT_EQ(1, stats_of(NAME).absent);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/*
 * Past the linger bound with nobody attached, the group goes: its
 * waiting access gets the orphan verdict, its marks are gone.
 */
TEST_F(persist, the_linger_bound_removes_the_group)
{
	struct timespec t0;
	pid_t pid;
	int g;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 60000, FSGATE_VERDICT_ALLOW, 0, 400));
	close(g);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, pid);
	/* The orphan verdict (deny), not the absent one (allow). */
	EXPECT_EQ(EPERM, reap(pid));
	EXPECT_LE(400 - JIFFY_MS, ms_since(&t0));
	EXPECT_EQ(-1, fsgate_attach(NAME, FSGATE_CLOEXEC));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_EQ(-1, fsgate_remove(NAME));
	EXPECT_EQ(ENOENT, errno);
}

/* A group that is removed while attached goes with its last fd. */
TEST_F(persist, a_removed_group_goes_with_its_last_fd)
{
	pid_t pid;
	int g;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 60000, FSGATE_VERDICT_DENY, 0, 0));
	EXPECT_EQ(0, fsgate_remove(NAME));
	/* Its name is free at once, though the group lives on. */
	EXPECT_EQ(-1, fsgate_attach(NAME, FSGATE_CLOEXEC));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_FALSE(listed_by_name(NAME));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LT(0, pid);
	EXPECT_TRUE(readable(g, WAIT_MS));
	close(g);
	/* The orphan verdict: the group went. */
	EXPECT_EQ(EPERM, reap(pid));
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
}

/*
 * FSGATE_EXCLUDE_SELF leaves out the daemon that attached last, as it
 * did the process that made the group (here one that exits at once, as
 * fsgatectl does): the daemon's own open is not asked, another's is.
 */
TEST_F(persist, an_attached_daemon_is_left_out_by_exclude_self)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_EXCLUDE_SELF,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = 2000,
		.timeout_ms = PERM_LONG_MS,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};
	struct fanotify_event_metadata ev;
	int g, fd, status, cue;
	pid_t maker, other;

	maker = fork();
	ASSERT_LE(0, maker);
	if (maker == 0) {
		g = fsgate_init_ext(&init);
		if (g < 0 || perm_mark(g, FAN_OPEN_PERM, self->dir) ||
		    make_persistent(g, NAME, 60000, FSGATE_VERDICT_DENY, 0, 0))
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(maker, waitpid(maker, &status, 0));
	ASSERT_EQ(0, status);
	/* Forked before the attach: not the daemon's own, so asked. */
	other = spawn_open_on_cue(self->file, &cue);
	ASSERT_LE(0, other);

	g = fsgate_attach(NAME, FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	ASSERT_LE(0, g);
	/* Its own open: not asked, so not held (else SIGALRM ends the test). */
	alarm(10);
	fd = open(self->file, O_RDONLY);
	alarm(0);
	EXPECT_LE(0, fd);
	close(fd);
	EXPECT_FALSE(readable(g, 100));
	/* Another process's open: asked. */
	ASSERT_EQ(0, give_cue(cue));
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(other, ev.pid);
	EXPECT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FAN_DENY));
	EXPECT_EQ(EPERM, reap(other));
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/* Requests the module refuses, each with its errno, changing nothing. */
TEST_F(persist, bad_requests_are_refused)
{
	struct fsgate_persist req;
	int g, other;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	other = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, other);

	req = persist_req("", 0, FSGATE_VERDICT_DENY, 0, 0);
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req = persist_req("a b", 0, FSGATE_VERDICT_DENY, 0, 0);
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req = persist_req(NAME, 0, FSGATE_VERDICT_DEFAULT, 0, 0);
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req = persist_req(NAME, 0, FSGATE_VERDICT_ALLOW, EIO, 0);
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req = persist_req(NAME, 0, FSGATE_VERDICT_DENY, ENOENT, 0);
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req = persist_req(NAME, 0, FSGATE_VERDICT_DENY, 0, 0);
	req.linger_ms = 10;	/* with FSGATE_PERSIST_UNTIL_REMOVED */
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req.flags = 0x80;
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	req = persist_req(NAME, 0, FSGATE_VERDICT_DENY, 0, 0);
	req.reserved = 1;
	EXPECT_EQ(-1, fsgate_persist(g, &req));
	EXPECT_EQ(EINVAL, errno);
	/* None of those made it persistent. */
	EXPECT_EQ(-1, fsgate_attach(NAME, FSGATE_CLOEXEC));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, make_persistent(g, NAME, 0, FSGATE_VERDICT_DENY, 0, 0));
	EXPECT_EQ(-1, make_persistent(g, NAME "-2", 0, FSGATE_VERDICT_DENY, 0, 0));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, make_persistent(other, NAME, 0, FSGATE_VERDICT_DENY, 0, 0));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, fsgate_attach(NAME, 0x100));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, fsgate_attach("no-such-group", FSGATE_CLOEXEC));
	EXPECT_EQ(ENOENT, errno);
	close(other);
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/*
 * A process without CAP_SYS_ADMIN (a daemon that dropped to uid 65534,
 * keeping its /dev/fsgate fd) may attach to and remove a group only if
 * it is the group's owner, and may make none persistent. Another's
 * group is ENOENT to it, as a name no group has.
 */
TEST_F(persist, only_the_owner_attaches)
{
	struct fsgate_persist req;
	int g, other, status;
	pid_t pid;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 0, FSGATE_VERDICT_DENY, 0, 0));
	other = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, other);
	req = persist_req(NAME "-2", 0, FSGATE_VERDICT_DENY, 0, 0);
	req.owner = 65534;
	ASSERT_EQ(0, fsgate_persist(other, &req));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct fsgate_attach a = { .flags = FSGATE_CLOEXEC };
		int dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC), fd;
		struct fsgate_persist mine = persist_req("mine", 0,
							 FSGATE_VERDICT_DENY, 0, 0);

		if (dev < 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		/* Another's group is as none: its name cannot be probed. */
		snprintf(a.name, sizeof(a.name), "%s", NAME);
		if (ioctl(dev, FSGATE_IOC_ATTACH, &a) != -1 || errno != ENOENT)
			_exit(11);
		if (ioctl(dev, FSGATE_IOC_REMOVE, &(struct fsgate_attach){ .name = NAME }) != -1 ||
		    errno != ENOENT)
			_exit(12);
		snprintf(a.name, sizeof(a.name), "%s", NAME "-none");
		if (ioctl(dev, FSGATE_IOC_ATTACH, &a) != -1 || errno != ENOENT)
			_exit(15);
		snprintf(a.name, sizeof(a.name), "%s", NAME "-2");
		fd = ioctl(dev, FSGATE_IOC_ATTACH, &a);
		if (fd < 0)
			_exit(13);
		mine.size = sizeof(mine);
		if (ioctl(fd, FSGATE_IOC_PERSIST, &mine) != -1 || errno != EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(other);
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
	EXPECT_EQ(0, fsgate_remove(NAME "-2"));
}

/* max_persistent_groups bounds them: ENOSPC past it. */
TEST_F(persist, persistent_groups_are_bounded)
{
	unsigned long long old;
	int g, other;

	ASSERT_EQ(0, fsgate_param_get("max_persistent_groups", &old));
	ASSERT_EQ(0, fsgate_param_set("max_persistent_groups", 1));
	g = id_group(self->dir, PERM_LONG_MS);
	other = id_group(self->dir, PERM_LONG_MS);
	EXPECT_EQ(0, make_persistent(g, NAME, 0, FSGATE_VERDICT_DENY, 0, 0));
	EXPECT_EQ(-1, make_persistent(other, NAME "-2", 0, FSGATE_VERDICT_DENY, 0, 0));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(0, fsgate_param_set("max_persistent_groups", old));
	close(other);
	close(g);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/* /proc/fsgate/groups and fdinfo name the group and count its fds. */
TEST_F(persist, the_group_is_listed_with_its_name)
{
	struct fsgate_group_info row;
	char line[1024], path[64];
	bool found = false;
	FILE *f;
	int g;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 60000, FSGATE_VERDICT_DENY, EIO, 0));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		found |= !strcmp(line, "fsgate-persist name:" NAME " owner:0 absent-ms:60000 absent-verdict:deny absent-errno:5 linger-ms:0 attached:1 removed:0\n");
	fclose(f);
	EXPECT_TRUE(found);
	close(g);

	/* No fd attached, then the name. */
	ASSERT_TRUE(listed_by_name(NAME));
	ASSERT_TRUE(listed(NAME, true, &row));
	EXPECT_EQ(0, row.attached);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

/* The time left to a group's bounds, in ms, from the ioctl then the file. */
struct left {
	unsigned int ioc_absent, ioc_linger, proc_absent, proc_linger;
};

static struct left left_of(const char *name)
{
	struct fsgate_group_info row;
	struct left l = { 0, 0, 0, 0 };

	if (listed(name, false, &row)) {
		l.ioc_absent = row.absent_left_ms;
		l.ioc_linger = row.linger_left_ms;
	}
	if (listed(name, true, &row)) {
		l.proc_absent = row.absent_left_ms;
		l.proc_linger = row.linger_left_ms;
	}
	return l;
}

/*
 * FSGATE_IOC_GROUPS and /proc/fsgate/groups describe a persistent group:
 * its name, owner and bounds, how many fds are attached, the attaches
 * and handovers, and with nobody attached the time left to each bound,
 * which runs down; a group attached, or made to persist until removed,
 * has no bound running; one decided by its absent verdict has 0 left; a
 * removed group has no name.
 */
TEST_F(persist, the_list_shows_the_bounds_and_the_time_left)
{
	struct fsgate_group_info row;
	struct left l1, l2;
	int g, a, b;

	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 60000, FSGATE_VERDICT_DENY, EIO,
				     120000));
	ASSERT_TRUE(listed(NAME, false, &row));
	EXPECT_EQ(1, row.attached);
	EXPECT_EQ(getuid(), row.owner);
	EXPECT_EQ(0, row.persist_flags);
	EXPECT_EQ(60000, row.absent_ms);
	EXPECT_EQ(FSGATE_VERDICT_DENY, row.absent_verdict);
	EXPECT_EQ(EIO, row.absent_errno);
	EXPECT_EQ(120000, row.linger_ms);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.absent_left_ms);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.linger_left_ms);
	EXPECT_EQ(0, row.attaches);
	EXPECT_EQ(0, row.handovers);

	/* A second fd while the first is open: a handover. */
	a = fsgate_attach(NAME, FSGATE_CLOEXEC);
	ASSERT_LE(0, a);
	ASSERT_TRUE(listed(NAME, true, &row));
	EXPECT_EQ(2, row.attached);
	EXPECT_EQ(1, row.attaches);
	EXPECT_EQ(1, row.handovers);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.absent_left_ms);
	close(a);
	close(g);

	/* Nobody attached: both bounds run, and run down. */
	l1 = left_of(NAME);
	EXPECT_LT(0, l1.ioc_absent);
	EXPECT_GE(60000, l1.ioc_absent);
	EXPECT_LT(l1.ioc_absent, l1.ioc_linger);
	EXPECT_GE(120000, l1.ioc_linger);
	EXPECT_GE(l1.ioc_absent, l1.proc_absent);
	EXPECT_GE(l1.ioc_linger, l1.proc_linger);
	usleep(300 * 1000);
	l2 = left_of(NAME);
	EXPECT_GT(l1.proc_absent, l2.ioc_absent);
	EXPECT_GT(l1.proc_linger, l2.ioc_linger);

	/* Attached again: no bound runs; not a handover. */
	b = fsgate_attach(NAME, FSGATE_CLOEXEC);
	ASSERT_LE(0, b);
	ASSERT_TRUE(listed(NAME, false, &row));
	EXPECT_EQ(1, row.attached);
	EXPECT_EQ(2, row.attaches);
	EXPECT_EQ(1, row.handovers);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.absent_left_ms);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.linger_left_ms);
	EXPECT_EQ(0, fsgate_remove(NAME));
	/* Removed: listed without a name, as an ordinary group. */
	EXPECT_FALSE(listed(NAME, false, NULL));
	EXPECT_FALSE(listed(NAME, true, NULL));
	close(b);

	/* Absent at once, kept until removed: 0 left, no linger bound. */
	g = id_group(self->dir, PERM_LONG_MS);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, make_persistent(g, NAME, 0, FSGATE_VERDICT_ALLOW, 0, 0));
	close(g);
	ASSERT_TRUE(listed(NAME, false, &row));
	EXPECT_EQ(FSGATE_PERSIST_UNTIL_REMOVED, row.persist_flags);
	EXPECT_EQ(FSGATE_VERDICT_ALLOW, row.absent_verdict);
	EXPECT_EQ(0, row.absent_errno);
	EXPECT_EQ(0, row.absent_left_ms);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.linger_left_ms);
	ASSERT_TRUE(listed(NAME, true, &row));
	EXPECT_EQ(0, row.absent_left_ms);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE, row.linger_left_ms);
	EXPECT_EQ(0, fsgate_remove(NAME));
}

TEST_HARNESS_MAIN
