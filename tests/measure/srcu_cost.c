// SPDX-License-Identifier: GPL-2.0
/*
 * srcu_cost: how long closing an unrelated inotify fd takes while an
 * fsgate decision pends. A permission wait runs inside fsnotify() and
 * holds fsnotify_mark_srcu, and freeing any fsnotify mark waits for that
 * SRCU's readers, so the close waits for the decision; the group's
 * timeout bounds it. Prints one line per case; run in a guest:
 *
 *   tests/vm -f build/measure/srcu_cost -- srcu_cost [TIMEOUT_MS]
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fsgate.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Close an inotify fd with one watch; return how long the close took. */
static double close_inotify_ms(void)
{
	int fd = inotify_init1(IN_CLOEXEC);
	double t0;

	if (fd < 0 || inotify_add_watch(fd, "/", IN_OPEN) < 0) {
		perror("inotify");
		exit(1);
	}
	t0 = now_ms();
	close(fd);
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	unsigned int timeout = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = timeout,
	};
	const char *dir = "/tmp/srcu-cost", *file = "/tmp/srcu-cost/f";
	double idle, pending;
	int g, fd;
	pid_t pid;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(dir, 0755) && errno != EEXIST) ||
	    mount("tmpfs", dir, "tmpfs", 0, NULL)) {
		perror("setup");
		return 1;
	}
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	close(fd);
	g = fsgate_init_ext(&init);
	if (g < 0 || fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, dir)) {
		perror("fsgate");
		return 1;
	}
	idle = close_inotify_ms();
	pid = fork();
	if (!pid) {
		close(g);
		fd = open(file, O_RDONLY);	/* waits: nobody answers */
		_exit(fd < 0);
	}
	usleep(200000);
	pending = close_inotify_ms();
	waitpid(pid, NULL, 0);
	printf("close(inotify fd): %.1f ms idle, %.1f ms while a decision pends (group timeout %u ms)\n",
	       idle, pending, timeout);
	return 0;
}
