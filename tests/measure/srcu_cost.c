// SPDX-License-Identifier: GPL-2.0
/*
 * srcu_cost: how long closing an unrelated inotify fd takes while an
 * fsgate decision pends. A permission wait runs inside fsnotify() and
 * holds fsnotify_mark_srcu, and freeing any fsnotify mark waits for that
 * SRCU's readers, so the close waits for the decision; the group's
 * timeout and the module's max_chain_ms bound it. Prints one line; run
 * in a guest:
 *
 *   tests/vm -f build/measure/srcu_cost -- srcu_cost [TIMEOUT_MS|none]
 *
 * TIMEOUT_MS is the group's timeout (2000 by default); "none" asks for
 * FSGATE_TIMEOUT_NONE. A close still waiting after LIMIT_MS is reported
 * as such, and the group's fd is then closed, which ends the decision
 * (orphan verdict) and so the close.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fsgate.h>

#define LIMIT_MS 60000

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

/*
 * Time the close in a child, which reports through a pipe; wait for it
 * up to LIMIT_MS, then close @g to end the decision. Return the close's
 * time; *@stuck: whether it outlasted LIMIT_MS.
 */
static double close_inotify_bounded_ms(int g, int *stuck)
{
	struct pollfd p = { .events = POLLIN };
	double ms = -1;
	int pipefd[2];
	pid_t pid;

	if (pipe(pipefd)) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (!pid) {
		close(g);
		ms = close_inotify_ms();
		_exit(write(pipefd[1], &ms, sizeof(ms)) != sizeof(ms));
	}
	close(pipefd[1]);
	p.fd = pipefd[0];
	*stuck = poll(&p, 1, LIMIT_MS) != 1;
	if (*stuck)
		close(g);
	if (read(pipefd[0], &ms, sizeof(ms)) != sizeof(ms))
		ms = -1;
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	return ms;
}

int main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : "2000";
	unsigned int timeout = strcmp(arg, "none") ?
			       strtoul(arg, NULL, 10) : FSGATE_TIMEOUT_NONE;
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = timeout,
	};
	const char *dir = "/tmp/srcu-cost", *file = "/tmp/srcu-cost/f";
	unsigned long long chain = 0;
	double idle, pending;
	int g, fd, stuck;
	pid_t pid;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(dir, 0755) && errno != EEXIST) ||
	    mount("tmpfs", dir, "tmpfs", 0, NULL)) {
		perror("setup");
		return 1;
	}
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	close(fd);
	fsgate_param_get("max_chain_ms", &chain);
	g = fsgate_init_ext(&init);
	if (g < 0) {
		printf("group with timeout %s: refused: %s\n", arg,
		       fsgate_strerror(FSGATE_CALL_INIT, errno));
		return 0;
	}
	if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
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
	pending = close_inotify_bounded_ms(g, &stuck);
	waitpid(pid, NULL, 0);
	printf("close(inotify fd): %.1f ms idle, %.1f ms while a decision pends%s (group timeout %s ms, max_chain_ms %llu)\n",
	       idle, pending, stuck ? ", still waiting after 60 s until the group closed" : "",
	       arg, chain);
	return 0;
}
