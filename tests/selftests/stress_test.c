// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: four processes open, write and close 10,000 files in all while
 * one group reads their events and another thread adds and removes
 * inode marks on the same files. Every write's close is reported once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"

#define WORKERS 4
#define FILES_PER_WORKER 50
#define OPS 10000

static char dir[64];
static atomic_bool stop;

static void file_name(char *buf, size_t len, int worker, int i)
{
	snprintf(buf, len, "%s/w%d-%d", dir, worker,
		 i % FILES_PER_WORKER);
}

/* Each worker goes round its own files, so no two of its events merge. */
static void worker(int w)
{
	char path[128];
	int i, fd;

	for (i = 0; i < OPS / WORKERS; i++) {
		file_name(path, sizeof(path), w, i);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1)
			_exit(1);
		close(fd);
	}
	_exit(0);
}

/*
 * What the churn thread did: every operation must either work or, for
 * an add of a file a worker has not made yet, fail with ENOENT.
 */
struct churn {
	int g;
	long adds, removes, flushes, absent, bad;
};

static void *churn_marks(void *arg)
{
	struct churn *c = arg;
	char path[128];
	int i = 0;

	while (!atomic_load(&stop)) {
		file_name(path, sizeof(path), i % WORKERS, i);
		if (!fsgate_mark(c->g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 path)) {
			c->adds++;
			if (i % 3 == 0 &&
			    fsgate_mark(c->g, FSGATE_MARK_REMOVE, FAN_OPEN,
					AT_FDCWD, path) == 0)
				c->removes++;
			else if (i % 3 == 0)
				c->bad++;
		} else if (errno == ENOENT) {
			c->absent++;
		} else {
			c->bad++;
		}
		if (i % 97 == 0) {
			if (fsgate_mark(c->g, FSGATE_MARK_FLUSH, 0, AT_FDCWD,
					NULL))
				c->bad++;
			else
				c->flushes++;
		}
		i++;
	}
	return NULL;
}

FIXTURE(tmp) {
	int unused;
};

FIXTURE_SETUP(tmp)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("stress", dir, sizeof(dir)));
}

FIXTURE_TEARDOWN(tmp)
{
	fsgate_test_tmpfs_done(dir);
}

/* The debug kernel under TCG is slow: allow minutes, not seconds. */
TEST_F_TIMEOUT(tmp, every_close_is_reported_while_marks_churn, 600)
{
	struct fsgate_test_tally t = { 0 }, churned = { 0 };
	int g, status, w, running = WORKERS;
	struct churn c = { 0 };
	struct pollfd p;
	pthread_t churn;
	pid_t pids[WORKERS];

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			FSGATE_UNLIMITED_QUEUE, O_RDONLY | O_CLOEXEC,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_CLOSE_WRITE, AT_FDCWD, dir));
	c.g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			  FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, c.g);
	ASSERT_EQ(0, pthread_create(&churn, NULL, churn_marks, &c));

	for (w = 0; w < WORKERS; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (pids[w] == 0)
			worker(w);
	}
	p = (struct pollfd){ .fd = g, .events = POLLIN };
	while (running) {
		poll(&p, 1, 100);
		ASSERT_LE(0, fsgate_test_drain(g, &t));
		while (waitpid(-1, &status, WNOHANG) > 0) {
			EXPECT_EQ(0, WEXITSTATUS(status));
			running--;
		}
	}
	ASSERT_LE(0, fsgate_test_drain(g, &t));
	atomic_store(&stop, true);
	pthread_join(churn, NULL);
	EXPECT_EQ(0, t.overflows);
	EXPECT_EQ(OPS, t.close_writes);
	/* The churn happened: marks were added, removed and flushed. */
	EXPECT_EQ(0, c.bad);
	EXPECT_LT(0, c.adds);
	EXPECT_LT(0, c.removes);
	EXPECT_LT(0, c.flushes);
	TH_LOG("churn: %ld adds, %ld removes, %ld flushes, %ld not there yet",
	       c.adds, c.removes, c.flushes, c.absent);
	/* Drain what the churned marks reported, then close with marks. */
	EXPECT_LE(0, fsgate_test_drain(c.g, &churned));
	EXPECT_EQ(0, close(c.g));
	EXPECT_EQ(0, close(g));
}

TEST_HARNESS_MAIN
