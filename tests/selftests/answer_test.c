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
 * Two workers forked from one parent have equal file tables, so the fds
 * their reads give have the same number. Each answers its own event; the
 * second's deny must not land on the first's event.
 */
TEST_F(answer, forked_workers_answer_their_own_events)
{
	int g, report[2], go1[2], go2[2], fd1, fd2;
	pid_t good, bad, w1, w2;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(go1));
	ASSERT_EQ(0, pipe(go2));

	good = spawn_open(self->good, O_RDONLY, 0);
	ASSERT_TRUE(readable(g, WAIT_MS));
	w1 = worker(g, report[1], go1[0]);
	ASSERT_EQ(sizeof(fd1), read(report[0], &fd1, sizeof(fd1)));
	ASSERT_LE(0, fd1);

	bad = spawn_open(self->bad, O_RDONLY, 0);
	ASSERT_TRUE(readable(g, WAIT_MS));
	w2 = worker(g, report[1], go2[0]);
	ASSERT_EQ(sizeof(fd2), read(report[0], &fd2, sizeof(fd2)));
	ASSERT_LE(0, fd2);
	TH_LOG("worker fds: %d and %d", fd1, fd2);

	/* The second worker answers first. */
	ASSERT_EQ(1, write(go2[1], "x", 1));
	EXPECT_EQ(0, reap(w2));
	ASSERT_EQ(1, write(go1[1], "x", 1));
	EXPECT_EQ(0, reap(w1));

	EXPECT_EQ(0, reap(good));
	EXPECT_EQ(EPERM, reap(bad));
	close(g);
}

/*
 * A worker of a pool, answering whatever it reads until the write end of
 * the @stop pipe is closed everywhere.
 */
static pid_t pool_worker(int g, const int stop[2])
{
	struct fanotify_event_metadata ev;
	struct pollfd p[2] = {
		{ .fd = g, .events = POLLIN },
		{ .fd = stop[0], .events = POLLIN },
	};
	pid_t pid = fork();
	ssize_t n;

	if (pid)
		return pid;
	close(stop[1]);
	for (;;) {
		if (poll(p, 2, WAIT_MS * 4) <= 0 || p[1].revents)
			_exit(0);
		n = read(g, &ev, sizeof(ev));
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n != sizeof(ev))
			_exit(1);
		if (answer(g, ev.fd, verdict_for(ev.fd)) !=
		    sizeof(struct fanotify_response))
			_exit(2);
	}
}

#define POOL 4
#define ACCESSES 64

/* A forked pool answering at once: every access gets its own verdict. */
TEST_F_TIMEOUT(answer, forked_pool_answers_concurrently, 300)
{
	pid_t workers[POOL], openers[ACCESSES];
	int g, stop[2], i, wrong = 0;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, pipe(stop));
	for (i = 0; i < POOL; i++)
		workers[i] = pool_worker(g, stop);
	for (i = 0; i < ACCESSES; i++)
		openers[i] = spawn_open(i % 2 ? self->bad : self->good,
					O_RDONLY, 0);
	for (i = 0; i < ACCESSES; i++)
		if (reap(openers[i]) != (i % 2 ? EPERM : 0))
			wrong++;
	EXPECT_EQ(0, wrong);
	close(stop[1]);
	for (i = 0; i < POOL; i++)
		EXPECT_EQ(0, reap(workers[i]));
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

/* An event with its records, as a group with FSGATE_REPORT_PERM reads it. */
struct event_buf {
	struct fanotify_event_metadata meta;
	unsigned char info[256];
} __attribute__((aligned(8)));

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
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V1,
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
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V1, la);
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V1, lb);
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
	int g, report[2], go1[2], go2[2], fd1, fd2;
	pid_t good, bad, w1, w2;

	g = answer_group(0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(go1));
	ASSERT_EQ(0, pipe(go2));
	good = spawn_open(self->good, O_RDONLY, 0);
	ASSERT_TRUE(readable(g, WAIT_MS));
	w1 = worker(g, report[1], go1[0]);
	ASSERT_EQ(sizeof(fd1), read(report[0], &fd1, sizeof(fd1)));
	bad = spawn_open(self->bad, O_RDONLY, 0);
	ASSERT_TRUE(readable(g, WAIT_MS));
	w2 = worker(g, report[1], go2[0]);
	ASSERT_EQ(sizeof(fd2), read(report[0], &fd2, sizeof(fd2)));
	ASSERT_EQ(fd1, fd2);

	EXPECT_EQ(-1, fsgate_respond(g, fd1, FSGATE_ALLOW));
	EXPECT_EQ(ENOTUNIQ, errno);

	ASSERT_EQ(1, write(go1[1], "x", 1));
	EXPECT_EQ(0, reap(w1));
	ASSERT_EQ(1, write(go2[1], "x", 1));
	EXPECT_EQ(0, reap(w2));
	EXPECT_EQ(0, reap(good));
	EXPECT_EQ(EPERM, reap(bad));
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
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V1, n);
	EXPECT_EQ(-1, read(g, &a, FAN_EVENT_METADATA_LEN));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(g, &a, FAN_EVENT_METADATA_LEN +
			   FSGATE_INFO_PERM_LEN_V1 - 8));
	EXPECT_EQ(EINVAL, errno);
	len = read(g, &a, sizeof(a));
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V1, len);
	EXPECT_EQ(0, fsgate_respond_id(g, event_id(_metadata, &a, len),
				       FSGATE_ALLOW));
	EXPECT_EQ(0, reap(good));
	close(a.meta.fd);
	close(g);
}

/* A worker of a pool answering by id each event of each read. */
static pid_t pool_worker_by_id(int g, const int stop[2])
{
	struct pollfd p[2] = {
		{ .fd = g, .events = POLLIN },
		{ .fd = stop[0], .events = POLLIN },
	};
	const struct fanotify_event_metadata *ev;
	const struct fsgate_info_perm *perm;
	struct fsgate_events it;
	struct event_buf b;
	pid_t pid = fork();
	uint32_t verdict;
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
		while ((ev = fsgate_event_next(&it))) {
			perm = fsgate_info_perm(ev);
			if (!perm)
				_exit(1);
			verdict = verdict_for(ev->fd);
			close(ev->fd);
			if (fsgate_respond_id(g, perm->id, verdict))
				_exit(2);
		}
		if (it.error || n <= 0)
			_exit(3);
	}
}

TEST_F_TIMEOUT(answer, forked_pool_answers_by_id, 300)
{
	pid_t workers[POOL], openers[ACCESSES];
	int g, stop[2], i, wrong = 0;

	g = answer_group(FSGATE_REPORT_PERM);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, pipe(stop));
	for (i = 0; i < POOL; i++)
		workers[i] = pool_worker_by_id(g, stop);
	for (i = 0; i < ACCESSES; i++)
		openers[i] = spawn_open(i % 2 ? self->bad : self->good,
					O_RDONLY, 0);
	for (i = 0; i < ACCESSES; i++)
		if (reap(openers[i]) != (i % 2 ? EPERM : 0))
			wrong++;
	EXPECT_EQ(0, wrong);
	close(stop[1]);
	for (i = 0; i < POOL; i++)
		EXPECT_EQ(0, reap(workers[i]));
	close(g);
}

TEST_HARNESS_MAIN
