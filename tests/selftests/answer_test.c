// SPDX-License-Identifier: GPL-2.0
/*
 * Answers that cannot be confused: each answer reaches the event it was
 * meant for, whether it names the event by its fd number (as fanotify
 * programs do) or by the event's id (FSGATE_RESPONSE_ID).
 *
 * Guards against issue 13, item 7: two processes reading one group fd (a
 * forked worker pool), or a daemon that closed one event fd and got the
 * same number for the next, answered the wrong event, so a deny meant for
 * one file landed on another and that file's allow on the first.
 *
 * The accesses are made by forked processes, which exit with their
 * errno: 0 for a file that must be allowed ("good"), EPERM for one that
 * must be denied ("bad").
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */

FIXTURE(answer) {
	char dir[64];
	char good[80];
	char bad[80];
};

/* Each test gets a tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(answer)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("answer", self->dir, sizeof(self->dir)));
	snprintf(self->good, sizeof(self->good), "%s/good", self->dir);
	snprintf(self->bad, sizeof(self->bad), "%s/bad", self->dir);
	write_file(self->good, "#!/bin/sh\nexit 0\n");
	write_file(self->bad, "bad\n");
}

FIXTURE_TEARDOWN(answer)
{
	fsgate_test_tmpfs_done(self->dir);
}

/* An event with its records, as a group with FSGATE_REPORT_PERM reads it. */
struct event_buf {
	struct fanotify_event_metadata meta;
	unsigned char info[256];
} __attribute__((aligned(8)));

/* A content group that denies what it does not answer within 10 s. */
static int answer_group(unsigned int flags)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | flags,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = 10000,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};

	return fsgate_init_ext(&init);
}

/* The verdict an event on @fd should get: deny for "bad", else allow. */
static uint32_t verdict_for(int fd)
{
	char path[256];
	size_t len;

	if (fsgate_fd_path(fd, path, sizeof(path)))
		return FSGATE_DENY;
	len = strlen(path);
	return len >= 4 && !strcmp(path + len - 4, "/bad") ? FSGATE_DENY :
							      FSGATE_ALLOW;
}

/* Wait for one event on @g; its fd, or -1. */
static int read_one(int g, struct fanotify_event_metadata *ev)
{
	return next_event(g, WAIT_MS, ev) ? -1 : ev->fd;
}

/*
 * A worker of a pool: read one event, tell the parent its fd number on
 * @report, wait for a byte on @go, answer it as verdict_for() says and
 * exit with 0 if the write took the answer.
 */
static pid_t worker(int g, int report, int go)
{
	struct fanotify_event_metadata ev;
	pid_t pid = fork();
	char c;
	int fd;

	if (pid)
		return pid;
	fd = read_one(g, &ev);
	if (write(report, &fd, sizeof(fd)) != sizeof(fd) || fd < 0)
		_exit(1);
	if (read(go, &c, 1) != 1)
		_exit(2);
	_exit(answer(g, fd, verdict_for(fd)) == sizeof(struct fanotify_response) ?
	      0 : 3);
}

/*
 * Two workers forked from one parent, each holding one event: one on
 * "good", read first, and one on "bad". Their file tables are equal, so
 * the fds their reads give have the same number.
 */
struct pair {
	int go1[2], go2[2];	/* a byte on go*[1] lets a worker answer */
	int fd1, fd2;		/* the fd number each worker got */
	pid_t good, bad;	/* the accesses */
	pid_t w1, w2;		/* the workers */
};

/* Make @p's accesses and workers for the group @g; 0, or -1. */
static int pair_start(int g, const char *good, const char *bad,
		      struct pair *p)
{
	int report[2];

	if (pipe(report) || pipe(p->go1) || pipe(p->go2))
		return -1;
	p->good = spawn_open(good, O_RDONLY, 0);
	if (!readable(g, WAIT_MS))
		return -1;
	p->w1 = worker(g, report[1], p->go1[0]);
	if (read(report[0], &p->fd1, sizeof(p->fd1)) != sizeof(p->fd1))
		return -1;
	p->bad = spawn_open(bad, O_RDONLY, 0);
	if (!readable(g, WAIT_MS))
		return -1;
	p->w2 = worker(g, report[1], p->go2[0]);
	if (read(report[0], &p->fd2, sizeof(p->fd2)) != sizeof(p->fd2))
		return -1;
	close(report[0]);
	close(report[1]);
	return p->fd1 < 0 || p->fd2 < 0 ? -1 : 0;
}

/* Let @w answer through @go; its exit status. */
static int pair_answer(int go[2], pid_t w)
{
	if (write(go[1], "x", 1) != 1)
		return -1;
	return reap(w);
}

/*
 * Each of two forked workers whose fds have the same number answers its
 * own event; the second's deny must not land on the first's event.
 */
TEST_F(answer, forked_workers_answer_their_own_events)
{
	struct pair p;
	int g;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, pair_start(g, self->good, self->bad, &p));
	TH_LOG("worker fds: %d and %d", p.fd1, p.fd2);

	/* The second worker answers first. */
	EXPECT_EQ(0, pair_answer(p.go2, p.w2));
	EXPECT_EQ(0, pair_answer(p.go1, p.w1));
	EXPECT_EQ(0, reap(p.good));
	EXPECT_EQ(EPERM, reap(p.bad));
	close(g);
}

/* Answer one event as verdict_for() says, by id or by fd; 0 if taken. */
static int pool_answer(int g, const struct fanotify_event_metadata *ev,
		       bool by_id)
{
	const struct fsgate_info_perm *perm = fsgate_info_perm(ev);
	uint32_t verdict = verdict_for(ev->fd);

	if (!by_id)
		return answer(g, ev->fd, verdict) ==
		       sizeof(struct fanotify_response) ? 0 : -1;
	close(ev->fd);
	return perm ? fsgate_respond_id(g, perm->id, verdict) : -1;
}

/*
 * A worker of a pool, answering each event of each read (by id, or by
 * fd number) until the write end of the @stop pipe is closed everywhere.
 */
static pid_t pool_worker(int g, const int stop[2], bool by_id)
{
	struct pollfd p[2] = {
		{ .fd = g, .events = POLLIN },
		{ .fd = stop[0], .events = POLLIN },
	};
	const struct fanotify_event_metadata *ev;
	struct fsgate_events it;
	struct event_buf b;
	pid_t pid = fork();
	ssize_t n;

	if (pid)
		return pid;
	close(stop[1]);
	for (;;) {
		if (poll(p, 2, WAIT_MS * 4) <= 0 || p[1].revents)
			_exit(0);
		n = read(g, &b, sizeof(b));
		if (n < 0 && errno == EAGAIN)
			continue;
		fsgate_events_init(&it, &b, n);
		while ((ev = fsgate_event_next(&it)))
			if (pool_answer(g, ev, by_id))
				_exit(1);
		if (it.error || n <= 0)
			_exit(2);
	}
}

#define POOL 4
#define ACCESSES 64

/*
 * Run a pool of POOL workers (pool_worker()) on the group @g while ACCESSES
 * forked processes open @good and @bad in turn. Return: how many
 * accesses got the wrong verdict, plus how many workers failed.
 */
static int run_pool(int g, const char *good, const char *bad, bool by_id)
{
	pid_t workers[POOL], openers[ACCESSES];
	int stop[2], i, wrong = 0;

	if (pipe(stop))
		return -1;
	for (i = 0; i < POOL; i++)
		workers[i] = pool_worker(g, stop, by_id);
	for (i = 0; i < ACCESSES; i++)
		openers[i] = spawn_open(i % 2 ? bad : good, O_RDONLY, 0);
	for (i = 0; i < ACCESSES; i++)
		if (reap(openers[i]) != (i % 2 ? EPERM : 0))
			wrong++;
	close(stop[1]);
	for (i = 0; i < POOL; i++)
		if (reap(workers[i]))
			wrong++;
	close(stop[0]);
	return wrong;
}

/* A forked pool answering at once: every access gets its own verdict. */
TEST_F_TIMEOUT(answer, forked_pool_answers_concurrently, 300)
{
	int g;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(0, run_pool(g, self->good, self->bad, false));
	close(g);
}

/*
 * An HSM closes its writable event fd before it allows an exec (the exec
 * fails with ETXTBSY otherwise), then answers by the number it had.
 */
TEST_F(answer, close_then_answer_by_number)
{
	struct fanotify_event_metadata ev;
	pid_t pid;
	int g, fd;

	g = hsm_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_EXEC_PERM, self->dir));
	pid = spawn_exec(self->good);
	fd = read_one(g, &ev);
	ASSERT_LE(0, fd);
	EXPECT_TRUE(ev.mask & FAN_OPEN_EXEC_PERM);
	close(fd);
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/*
 * A daemon closed one event's fd and read the next: the two pending
 * events never share a number, so each answer reaches its own event,
 * whichever comes first.
 */
TEST_F(answer, pending_events_never_share_a_number)
{
	struct fanotify_event_metadata a, b;
	pid_t good, bad;
	int g;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	good = spawn_open(self->good, O_RDONLY, 0);
	ASSERT_LE(0, read_one(g, &a));
	close(a.fd);
	bad = spawn_open(self->bad, O_RDONLY, 0);
	ASSERT_LE(0, read_one(g, &b));
	EXPECT_NE(a.fd, b.fd);

	/* The later event is answered first, by its own number. */
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, b.fd, verdict_for(b.fd)));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, a.fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(good));
	EXPECT_EQ(EPERM, reap(bad));
	close(g);
}

/* Wait for one event on @g and read it with its records; its length. */
static ssize_t read_with_info(int g, struct event_buf *b)
{
	if (!readable(g, WAIT_MS))
		return -1;
	return read(g, b, sizeof(*b));
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* The id of the one event in @b, checked; 0 if it has none. */
static uint64_t event_id(struct __test_metadata *_metadata,
			 const struct event_buf *b, ssize_t len)
{
	const struct fanotify_event_metadata *ev;
	const struct fsgate_info_perm *perm;
	struct fsgate_events it;

	fsgate_events_init(&it, b, len);
	ev = fsgate_event_next(&it);
	EXPECT_NE(NULL, ev);
	if (!ev)
		return 0;
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2,
		  ev->event_len);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, ev->metadata_len);
	perm = fsgate_info_perm(ev);
	EXPECT_NE(NULL, perm);
	if (!perm)
		return 0;
	EXPECT_EQ(FSGATE_INFO_PERM, perm->hdr.info_type);
	EXPECT_EQ(0, perm->flags);
	EXPECT_NE(0, perm->id);
	return perm->id;
}

/*
 * Answers by id reach their events, whichever order they come in, and
 * each event reports the deadline its group's timeout gives it.
 */
TEST_F(answer, answer_by_id_reaches_its_event)
{
	const struct fsgate_info_perm *perm;
	struct event_buf a, b;
	uint64_t t0, t1, ida, idb;
	ssize_t la, lb;
	pid_t good, bad;
	int g;

	g = answer_group(FSGATE_REPORT_PERM);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	t0 = monotonic_ns();
	good = spawn_open(self->good, O_RDONLY, 0);
	la = read_with_info(g, &a);
	t1 = monotonic_ns();
	bad = spawn_open(self->bad, O_RDONLY, 0);
	lb = read_with_info(g, &b);
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2, la);
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2, lb);
	ida = event_id(_metadata, &a, la);
	idb = event_id(_metadata, &b, lb);
	EXPECT_NE(ida, idb);

	/* The group's 10 s timeout, counted from the access. */
	perm = (const void *)a.info;
	EXPECT_LE(t0 + 10000000000ULL, perm->deadline_ns);
	EXPECT_GE(t1 + 10000000000ULL, perm->deadline_ns);

	close(a.meta.fd);
	close(b.meta.fd);
	EXPECT_EQ(0, fsgate_respond_id(g, idb, FSGATE_DENY));
	EXPECT_EQ(0, fsgate_respond_id(g, ida, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(good));
	EXPECT_EQ(EPERM, reap(bad));
	close(g);
}

/*
 * A write naming an id no pending event has is refused with ENOENT as a
 * whole: its other answers are not applied either.
 */
TEST_F(answer, unknown_or_stale_id_changes_nothing)
{
	struct {
		struct fsgate_response known;
		struct fsgate_response unknown;
	} w;
	struct event_buf a;
	uint64_t id;
	ssize_t len;
	pid_t good;
	int g;

	g = answer_group(FSGATE_REPORT_PERM);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	good = spawn_open(self->good, O_RDONLY, 0);
	len = read_with_info(g, &a);
	ASSERT_LT(0, len);
	id = event_id(_metadata, &a, len);
	close(a.meta.fd);

	w.known = (struct fsgate_response){
		.fd = FAN_NOFD, .id = id,
		.response = FSGATE_RESPONSE_ID | FSGATE_ALLOW,
	};
	w.unknown = w.known;
	w.unknown.id = id + 1000000;
	EXPECT_EQ(-1, write(g, &w, sizeof(w)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, fsgate_respond_id(g, id + 1000000, FSGATE_ALLOW));
	EXPECT_EQ(ENOENT, errno);

	/* Still pending: the allow above was not applied. */
	EXPECT_EQ(0, fsgate_respond_id(g, id, FSGATE_DENY));
	EXPECT_EQ(EPERM, reap(good));
	/* Answered now: its id is stale. */
	EXPECT_EQ(-1, fsgate_respond_id(g, id, FSGATE_ALLOW));
	EXPECT_EQ(ENOENT, errno);
	close(g);
}

/*
 * A response by id is refused (EINVAL) when it is malformed: id 0, an
 * fd that is not FAN_NOFD, reserved bits, cut short.
 */
TEST_F(answer, malformed_id_response_is_refused)
{
	struct fsgate_response r = {
		.fd = FAN_NOFD, .id = 1,
		.response = FSGATE_RESPONSE_ID | FSGATE_ALLOW,
	};
	int g;

	g = answer_group(FSGATE_REPORT_PERM);
	ASSERT_LE(0, g);
	EXPECT_EQ(-1, write(g, &r, 16));
	EXPECT_EQ(EINVAL, errno);
	r.id = 0;
	EXPECT_EQ(-1, write(g, &r, sizeof(r)));
	EXPECT_EQ(EINVAL, errno);
	r.id = 1;
	r.fd = 0;
	EXPECT_EQ(-1, write(g, &r, sizeof(r)));
	EXPECT_EQ(EINVAL, errno);
	r.fd = FAN_NOFD;
	r.reserved = 1;
	EXPECT_EQ(-1, write(g, &r, sizeof(r)));
	EXPECT_EQ(EINVAL, errno);
	close(g);
}

/*
 * An fd number that names no event the writer read, and events that
 * two forked workers read with that number, is refused with ENOTUNIQ
 * and changes nothing; each worker's own answer then reaches its event.
 */
TEST_F(answer, number_shared_by_other_readers_is_not_unique)
{
	struct pair p;
	int g;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, pair_start(g, self->good, self->bad, &p));
	ASSERT_EQ(p.fd1, p.fd2);

	EXPECT_EQ(-1, fsgate_respond(g, p.fd1, FSGATE_ALLOW));
	EXPECT_EQ(ENOTUNIQ, errno);

	EXPECT_EQ(0, pair_answer(p.go1, p.w1));
	EXPECT_EQ(0, pair_answer(p.go2, p.w2));
	EXPECT_EQ(0, reap(p.good));
	EXPECT_EQ(EPERM, reap(p.bad));
	close(g);
}

/*
 * An event read by one process and answered by its fd number from
 * another (a worker forked after the read) still works when that
 * number names one event only, as with fanotify.
 */
TEST_F(answer, unique_number_read_elsewhere_is_answered)
{
	struct fanotify_event_metadata ev;
	pid_t good, child;
	int g;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	good = spawn_open(self->good, O_RDONLY, 0);
	ASSERT_LE(0, read_one(g, &ev));
	child = fork();
	if (!child)
		_exit(fsgate_respond(g, ev.fd, FSGATE_ALLOW) ? errno : 0);
	EXPECT_EQ(0, reap(child));
	EXPECT_EQ(0, reap(good));
	close(ev.fd);
	close(g);
}

/*
 * With records, a read never splits an event: a buffer an event does not
 * fit is refused (EINVAL) and the event stays queued; FIONREAD counts
 * the records.
 */
TEST_F(answer, short_buffer_never_splits_an_event)
{
	struct event_buf a;
	ssize_t len;
	pid_t good;
	int g, n;

	g = answer_group(FSGATE_REPORT_PERM);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	good = spawn_open(self->good, O_RDONLY, 0);
	ASSERT_TRUE(readable(g, WAIT_MS));
	ASSERT_EQ(0, ioctl(g, FIONREAD, &n));
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2, n);
	EXPECT_EQ(-1, read(g, &a, FAN_EVENT_METADATA_LEN));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(g, &a, FAN_EVENT_METADATA_LEN +
			   FSGATE_INFO_PERM_LEN_V2 - 8));
	EXPECT_EQ(EINVAL, errno);
	len = read(g, &a, sizeof(a));
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2, len);
	EXPECT_EQ(0, fsgate_respond_id(g, event_id(_metadata, &a, len),
				       FSGATE_ALLOW));
	EXPECT_EQ(0, reap(good));
	close(a.meta.fd);
	close(g);
}

TEST_F_TIMEOUT(answer, forked_pool_answers_by_id, 300)
{
	int g;

	g = answer_group(FSGATE_REPORT_PERM);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	EXPECT_EQ(0, run_pool(g, self->good, self->bad, true));
	close(g);
}

TEST_HARNESS_MAIN
