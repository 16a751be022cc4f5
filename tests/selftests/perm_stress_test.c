// SPDX-License-Identifier: GPL-2.0
/*
 * Stress of the decision chain: eight processes open files at random
 * while three permission groups decide, one of them answering from four
 * threads in batches and out of order, one with a 50 ms timeout that it
 * sometimes misses (its timeout verdict is allow). Every access must be
 * accounted for at every tier, and get its file's verdict: the daemons
 * deny files by number, so an answer that reached another access shows.
 * Then the daemons are killed at once while accesses wait: none is left
 * waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WORKERS 8
#define OPENS 100	/* per worker */
#define FILES 32
#define BATCH 4

static char dir[64];

/* What the workers saw, shared with the test. */
struct tally {
	atomic_int allowed;
	atomic_int denied;
	atomic_int other;
	atomic_int wrong;	/* a verdict its file cannot get */
	atomic_bool stop;
};

static void file_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "%s/f%02d", dir, i % FILES);
}

/*
 * The verdicts file @n can get while every daemon runs: the two top
 * tiers, never late, deny multiples of 7 and of 5; the 50 ms tier denies
 * multiples of 3 when it answers in time and lets the access through
 * when it does not; the rest are allowed. 1: allow, -1: deny, 0: either.
 */
static int verdict_of(int n)
{
	if (n % 7 == 0 || n % 5 == 0)
		return -1;
	return n % 3 == 0 ? 0 : 1;
}

/* The file number an event fd names. */
static int file_of(int fd)
{
	char link[64], path[128];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 2)
		return -1;
	return atoi(path + n - 2);
}

static void worker(struct tally *t, unsigned int seed, int count)
{
	char path[128];
	int i, n, fd;

	for (i = 0; count < 0 ? !atomic_load(&t->stop) : i < count; i++) {
		n = rand_r(&seed) % FILES;
		file_name(path, sizeof(path), n);
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			atomic_fetch_add(&t->allowed, 1);
		else if (errno == EPERM)
			atomic_fetch_add(&t->denied, 1);
		else
			atomic_fetch_add(&t->other, 1);
		if ((fd >= 0 && verdict_of(n) < 0) ||
		    (fd < 0 && errno == EPERM && verdict_of(n) > 0))
			atomic_fetch_add(&t->wrong, 1);
		if (fd >= 0)
			close(fd);
	}
	_exit(0);
}

/* @count opens each, or until @t->stop with a negative @count. */
static void spawn_workers(struct tally *t, int count, pid_t *pids)
{
	int w;

	for (w = 0; w < WORKERS; w++) {
		pids[w] = fork();
		if (!pids[w])
			worker(t, w + 1, count);
	}
}

/* Answer one event at a time: deny files divisible by @deny_mod. */
static void serve_simple(int g, int deny_mod, int sometimes_late)
{
	struct fanotify_event_metadata ev;
	unsigned int seed = getpid();
	uint32_t r;

	for (;;) {
		if (read(g, &ev, sizeof(ev)) != sizeof(ev))
			continue;
		r = file_of(ev.fd) % deny_mod ? FSGATE_ALLOW : FSGATE_DENY;
		/* Every fourth answer comes at a random 0..80 ms, often late. */
		if (sometimes_late && rand_r(&seed) % 4 == 0)
			usleep(rand_r(&seed) % 80000);
		answer(g, ev.fd, r);
	}
}

/* Read up to BATCH events, answer them last first in one write. */
static void *serve_batches(void *arg)
{
	struct fanotify_event_metadata ev[BATCH];
	struct fanotify_response r[BATCH];
	int g = *(int *)arg, i, n;
	ssize_t len;

	for (;;) {
		len = read(g, ev, sizeof(ev));
		if (len <= 0)
			continue;
		n = len / sizeof(ev[0]);
		for (i = 0; i < n; i++) {
			r[n - 1 - i].fd = ev[i].fd;
			r[n - 1 - i].response = file_of(ev[i].fd) % 5 ?
						FSGATE_ALLOW : FSGATE_DENY;
		}
		if (write(g, r, n * sizeof(r[0])) != (ssize_t)(n * sizeof(r[0])))
			perror("batch answer");
		for (i = 0; i < n; i++)
			close(ev[i].fd);
	}
	return NULL;
}

/* A daemon owning one group; it tells @ready once its marks are set. */
static pid_t spawn_daemon(int kind, int ready)
{
	static const unsigned int prio[] = { 3000, 2000, 1000 };
	static const unsigned int class[] = {
		FSGATE_CLASS_PRE_CONTENT, FSGATE_CLASS_CONTENT,
		FSGATE_CLASS_CONTENT,
	};
	struct fsgate_init init = {
		.flags = class[kind] | FSGATE_CLOEXEC,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = prio[kind],
		.timeout_ms = kind == 2 ? 50 : PERM_LONG_MS,
		.timeout_verdict = kind == 2 ? FSGATE_VERDICT_ALLOW :
			FSGATE_VERDICT_DEFAULT,
	};
	pthread_t th[BATCH];
	pid_t pid = fork();
	int g, i;

	if (pid)
		return pid;
	g = fsgate_init_ext(&init);
	if (g < 0 || fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, dir))
		_exit(1);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	if (kind == 1) {
		for (i = 0; i < BATCH; i++)
			pthread_create(&th[i], NULL, serve_batches, &g);
		pause();
	}
	serve_simple(g, kind == 0 ? 7 : 3, kind == 2);
	_exit(0);
}

/* One group's counters, by column name, from /proc/fsgate/groups. */
struct row {
	long asked, answered, denied, timedout, orphaned, cancelled,
	     perm_overflows, pending;
};

static int proc_row(pid_t pid, struct row *r)
{
	static const char *const names[] = {
		"asked", "answered", "denied", "timedout", "orphaned",
		"cancelled", "perm_overflows", "pending",
	};
	long *fields[] = {
		&r->asked, &r->answered, &r->denied, &r->timedout,
		&r->orphaned, &r->cancelled, &r->perm_overflows, &r->pending,
	};
	char head[512], line[512], *save, *tok;
	int col[8], c, i, found = -1;
	FILE *f = fopen("/proc/fsgate/groups", "re");

	if (!f || !fgets(head, sizeof(head), f))
		return -1;
	for (c = 0, tok = strtok_r(head, " \n", &save); tok;
	     c++, tok = strtok_r(NULL, " \n", &save))
		for (i = 0; i < 8; i++)
			if (!strcmp(tok, names[i]))
				col[i] = c;
	while (found && fgets(line, sizeof(line), f)) {
		long v[32] = { 0 };

		for (c = 0, tok = strtok_r(line, " \n", &save); tok && c < 32;
		     c++, tok = strtok_r(NULL, " \n", &save))
			v[c] = atol(tok);
		if (v[1] != pid)
			continue;
		for (i = 0; i < 8; i++)
			*fields[i] = v[col[i]];
		found = 0;
	}
	fclose(f);
	return found;
}

FIXTURE(chain) {
	struct tally *t;
	pid_t daemon[3];
};

FIXTURE_SETUP(chain)
{
	char path[128], c;
	int ready[2], i;

	ASSERT_EQ(0, fsgate_test_tmpfs("pstress", dir, sizeof(dir)));
	for (i = 0; i < FILES; i++) {
		file_name(path, sizeof(path), i);
		ASSERT_LE(0, close(open(path, O_CREAT | O_WRONLY, 0644)));
	}
	self->t = mmap(NULL, sizeof(*self->t), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->t);
	ASSERT_EQ(0, pipe(ready));
	for (i = 0; i < 3; i++) {
		self->daemon[i] = spawn_daemon(i, ready[1]);
		ASSERT_EQ(1, read(ready[0], &c, 1));
	}
	close(ready[0]);
	close(ready[1]);
}

FIXTURE_TEARDOWN(chain)
{
	int i;

	for (i = 0; i < 3; i++)
		if (self->daemon[i] > 0)
			kill(self->daemon[i], SIGKILL);
	fsgate_test_tmpfs_done(dir);
}

TEST_F_TIMEOUT(chain, every_access_is_accounted_for_at_every_tier, 600)
{
	struct row r[3];
	pid_t w[WORKERS];
	int i, total = WORKERS * OPENS;

	spawn_workers(self->t, OPENS, w);
	for (i = 0; i < WORKERS; i++)
		EXPECT_EQ(0, reap(w[i]));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, proc_row(self->daemon[i], &r[i]));
		EXPECT_EQ(0, r[i].pending);
		EXPECT_EQ(r[i].asked, r[i].answered + r[i].timedout +
			  r[i].orphaned + r[i].cancelled + r[i].perm_overflows)
			TH_LOG("group %d", i);
	}
	EXPECT_EQ(0, atomic_load(&self->t->other));
	EXPECT_EQ(0, atomic_load(&self->t->wrong));
	EXPECT_EQ(total, atomic_load(&self->t->allowed) +
			 atomic_load(&self->t->denied));
	/* The top tier hears of every access, each lower one of what passed. */
	EXPECT_EQ(total, r[0].asked);
	EXPECT_EQ(r[0].answered - r[0].denied, r[1].asked);
	EXPECT_EQ(r[1].answered - r[1].denied, r[2].asked);
	EXPECT_EQ(r[2].asked - r[2].denied, atomic_load(&self->t->allowed));
	EXPECT_LT(0, r[2].timedout) TH_LOG("the 50 ms group never missed");
	TH_LOG("asked %ld/%ld/%ld, denied %ld/%ld/%ld, timed out %ld",
	       r[0].asked, r[1].asked, r[2].asked, r[0].denied, r[1].denied,
	       r[2].denied, r[2].timedout);
}

TEST_F_TIMEOUT(chain, killing_every_daemon_leaves_no_access_waiting, 600)
{
	struct timespec t0, t;
	pid_t w[WORKERS];
	int i;

	spawn_workers(self->t, -1, w);
	usleep(500000);
	for (i = 0; i < 3; i++)
		kill(self->daemon[i], SIGKILL);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(self->daemon[i], waitpid(self->daemon[i], NULL, 0));
		self->daemon[i] = 0;
	}
	atomic_store(&self->t->stop, true);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < WORKERS; i++)
		EXPECT_EQ(0, reap(w[i]));
	clock_gettime(CLOCK_MONOTONIC, &t);
	EXPECT_GT(10, t.tv_sec - t0.tv_sec);
	EXPECT_EQ(0, atomic_load(&self->t->other));
	EXPECT_LT(0, atomic_load(&self->t->allowed));
}

TEST_HARNESS_MAIN
