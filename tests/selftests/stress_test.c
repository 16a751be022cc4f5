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

static void *churn_marks(void *arg)
{
	int g = *(int *)arg, i = 0;
	char path[128];

	while (!atomic_load(&stop)) {
		file_name(path, sizeof(path), i % WORKERS, i);
		fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD, path);
		if (i % 3 == 0)
			fsgate_mark(g, FSGATE_MARK_REMOVE, FAN_OPEN, AT_FDCWD,
				    path);
		if (i % 97 == 0)
			fsgate_mark(g, FSGATE_MARK_FLUSH, 0, AT_FDCWD, NULL);
		i++;
	}
	return NULL;
}

/* Count close-write records; close every event fd. */
static int count_events(int g, long *closes, long *overflows)
{
	char buf[8192] __attribute__((aligned(8)));
	const struct fanotify_event_metadata *ev;
	ssize_t len = read(g, buf, sizeof(buf));

	if (len < 0)
		return errno == EAGAIN ? 0 : -1;
	for (ev = (void *)buf; FAN_EVENT_OK(ev, len);
	     ev = FAN_EVENT_NEXT(ev, len)) {
		if (ev->mask & FAN_Q_OVERFLOW)
			(*overflows)++;
		if (ev->mask & FAN_CLOSE_WRITE)
			(*closes)++;
		if (ev->fd >= 0)
			close(ev->fd);
	}
	return 1;
}

FIXTURE(tmp) {
	int unused;
};

FIXTURE_SETUP(tmp)
{
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	snprintf(dir, sizeof(dir), "/tmp/stress.%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, mount("tmpfs", dir, "tmpfs", 0, NULL));
}

FIXTURE_TEARDOWN(tmp)
{
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

/* The debug kernel under TCG is slow: allow minutes, not seconds. */
TEST_F_TIMEOUT(tmp, every_close_is_reported_while_marks_churn, 600)
{
	int g, marks, status, w, running = WORKERS;
	long closes = 0, overflows = 0;
	struct pollfd p;
	pthread_t churn;
	pid_t pids[WORKERS];

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			FSGATE_UNLIMITED_QUEUE, O_RDONLY | O_CLOEXEC,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_CLOSE_WRITE, AT_FDCWD, dir));
	marks = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			    FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, marks);
	ASSERT_EQ(0, pthread_create(&churn, NULL, churn_marks, &marks));

	for (w = 0; w < WORKERS; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (pids[w] == 0)
			worker(w);
	}
	p = (struct pollfd){ .fd = g, .events = POLLIN };
	while (running) {
		poll(&p, 1, 100);
		ASSERT_LE(0, count_events(g, &closes, &overflows));
		while (waitpid(-1, &status, WNOHANG) > 0) {
			EXPECT_EQ(0, WEXITSTATUS(status));
			running--;
		}
	}
	while (count_events(g, &closes, &overflows) > 0)
		;
	atomic_store(&stop, true);
	pthread_join(churn, NULL);
	EXPECT_EQ(0, overflows);
	EXPECT_EQ(OPS, closes);
	/* Drain what the churned marks reported, then close with marks. */
	while (count_events(marks, &closes, &overflows) > 0)
		;
	EXPECT_EQ(0, close(marks));
	EXPECT_EQ(0, close(g));
}

TEST_HARNESS_MAIN
