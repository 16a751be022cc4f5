// SPDX-License-Identifier: GPL-2.0
/*
 * pending_cost: what N accesses waiting at once on one group cost its
 * responder, for in-tree fanotify and for fsgate in the same boot. N
 * children each open their own file on a tmpfs that a content group marks
 * with FAN_OPEN_PERM; the responder reads all N events, then answers them
 * one write each, last read first (the answer a scan of the pending list
 * from its head finds last). Prints, per group type, the read time and
 * the answer time per event and the time until every child has its
 * answer. Run in a guest, with one vCPU under -icount for figures that
 * count work rather than the host's load:
 *
 *   tests/vm -c 1 --qemu -icount --qemu shift=4,sleep=off \
 *	-f $PWD/build/measure/pending_cost=/fsgate/pending_cost \
 *	-- /fsgate/pending_cost [N]
 *
 * N is 1000 by default. fsgate's group has a 30 s timeout (fanotify's
 * has none on 6.1): a run where any access timed out says so and fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fsgate.h>

#define DIR_PATH "/tmp/pending_cost"

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void __attribute__((noreturn)) die(const char *what)
{
	perror(what);
	exit(1);
}

static void make_files(unsigned int n)
{
	char path[64];
	unsigned int i;
	int fd;

	if (mkdir(DIR_PATH, 0755) && errno != EEXIST)
		die("mkdir");
	if (mount("pending_cost", DIR_PATH, "tmpfs", 0, NULL))
		die("mount tmpfs");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), DIR_PATH "/f%u", i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			die("create");
		close(fd);
	}
}

static int fanotify_group(void)
{
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);

	if (g < 0)
		die("fanotify_init");
	if (fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM,
			  AT_FDCWD, DIR_PATH))
		die("fanotify_mark");
	return g;
}

static int fsgate_group(void)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_CONTENT,
		.timeout_ms = 30000,
	};
	int g = fsgate_init_ext(&init);

	if (g < 0)
		die("fsgate_init");
	if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_MOUNT, FAN_OPEN_PERM,
			AT_FDCWD, DIR_PATH))
		die("fsgate_mark");
	return g;
}

/* Children that each open file i of the directory once. */
static void start_openers(unsigned int n)
{
	char path[64];
	unsigned int i;
	int fd;

	for (i = 0; i < n; i++) {
		switch (fork()) {
		case -1:
			die("fork");
		case 0:
			snprintf(path, sizeof(path), DIR_PATH "/f%u", i);
			fd = open(path, O_RDONLY);
			_exit(fd < 0 ? 1 : 0);
		}
	}
}

/* Read until @n permission events are in @fds; return how many reads. */
static unsigned int read_events(int g, int *fds, unsigned int n)
{
	char buf[4096] __attribute__((aligned(8)));
	struct fanotify_event_metadata *m;
	unsigned int got = 0, reads = 0;
	ssize_t len;

	while (got < n) {
		len = read(g, buf, sizeof(buf));
		if (len < 0)
			die("read");
		reads++;
		for (m = (void *)buf; FAN_EVENT_OK(m, len);
		     m = FAN_EVENT_NEXT(m, len)) {
			if (!(m->mask & FAN_OPEN_PERM) || got == n) {
				fprintf(stderr, "unexpected event %#llx\n",
					(unsigned long long)m->mask);
				exit(1);
			}
			fds[got++] = m->fd;
		}
	}
	return reads;
}

static void answer_backwards(int g, const int *fds, unsigned int n)
{
	struct fanotify_response r = { .response = FAN_ALLOW };

	while (n--) {
		r.fd = fds[n];
		if (write(g, &r, sizeof(r)) != sizeof(r))
			die("write response");
	}
}

/* Reap the openers; return how many failed. */
static unsigned int reap(unsigned int n)
{
	unsigned int failed = 0;
	int status;

	while (n--) {
		if (wait(&status) < 0)
			die("wait");
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	return failed;
}

static int measure(const char *name, int g, unsigned int n)
{
	int *fds = calloc(n, sizeof(*fds));
	double t0, t1, t2, t3;
	unsigned int failed, i;

	if (!fds)
		die("calloc");
	start_openers(n);
	t0 = now_us();
	read_events(g, fds, n);
	t1 = now_us();
	answer_backwards(g, fds, n);
	t2 = now_us();
	failed = reap(n);
	t3 = now_us();
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	printf("%-8s %5u waiting: read %8.1f us/event, answer %8.1f us/event, "
	       "all answered in %10.0f us, %u failed\n", name, n,
	       (t1 - t0) / n, (t2 - t1) / n, t3 - t1, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	struct fsgate_stats stats;
	int g, ret = 0;

	if (!n) {
		fprintf(stderr, "usage: pending_cost [N > 0]\n");
		return 2;
	}
	/* The responder holds all N event fds at once. */
	if (setrlimit(RLIMIT_NOFILE, &(struct rlimit){ n + 64, n + 64 }))
		die("setrlimit");
	make_files(n);
	g = fanotify_group();
	ret |= measure("fanotify", g, n);
	close(g);
	g = fsgate_group();
	ret |= measure("fsgate", g, n);
	if (fsgate_stats(g, &stats))
		die("fsgate_stats");
	if (stats.timedout) {
		printf("fsgate: %llu accesses timed out: no figure\n",
		       (unsigned long long)stats.timedout);
		ret = 1;
	}
	close(g);
	return ret;
}
