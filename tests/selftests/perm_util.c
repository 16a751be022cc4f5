// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fsgate.h>

#include "perm_util.h"

#define QUIET_MS 300	/* for events that must not come */

int perm_group(unsigned int class, unsigned int priority, unsigned int timeout_ms,
	       unsigned int timeout_verdict, unsigned int orphan_verdict)
{
	struct fsgate_init init = {
		.flags = class | FSGATE_CLOEXEC | FSGATE_NONBLOCK,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = priority,
		.timeout_ms = timeout_ms,
		.timeout_verdict = timeout_verdict,
		.orphan_verdict = orphan_verdict,
	};

	return fsgate_init_ext(&init);
}

/*
 * The child must not hold the test's group fds: a group closed by the
 * test would live on in the child that waits for it.
 */
static void close_inherited(void)
{
	close_range(3, ~0U, 0);
}

pid_t spawn_open(const char *path, int flags, int do_read)
{
	pid_t pid = fork();
	char c;
	int fd;

	if (pid)
		return pid;
	close_inherited();
	fd = open(path, flags);
	if (fd < 0)
		_exit(errno);
	if (do_read && read(fd, &c, 1) < 0)
		_exit(errno);
	_exit(0);
}

pid_t spawn_open_on_cue(const char *path, int *cue)
{
	int go[2];
	pid_t pid;
	char c;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid) {
		close(go[0]);
		if (pid < 0)
			close(go[1]);
		else
			*cue = go[1];
		return pid;
	}
	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		_exit(100);
	close_inherited();
	if (open(path, O_RDONLY) < 0)
		_exit(errno);
	_exit(0);
}

int give_cue(int cue)
{
	int ret = write(cue, "x", 1) == 1 ? 0 : -1;

	close(cue);
	return ret;
}

pid_t spawn_exec(const char *path)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	close_inherited();
	execl(path, path, (char *)NULL);
	_exit(errno);
}

int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int readable(int g, int timeout_ms)
{
	struct pollfd p = { .fd = g, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1;
}

int decided_quietly(int g, const char *path)
{
	return reap(spawn_open(path, O_RDONLY, 0)) == 0 &&
	       !readable(g, QUIET_MS);
}

int quiet_opens(int g, const char *path, int n)
{
	while (n--)
		if (!decided_quietly(g, path))
			return 0;
	return 1;
}

int next_event(int g, int timeout_ms, struct fanotify_event_metadata *ev)
{
	if (!readable(g, timeout_ms))
		return -1;
	return read(g, ev, sizeof(*ev)) == sizeof(*ev) ? 0 : -1;
}

int deadline_group(unsigned int timeout_ms, unsigned int max_wait_ms)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_REPORT_PERM,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = timeout_ms,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.max_wait_ms = max_wait_ms,
	};

	return fsgate_init_ext(&init);
}

int next_perm_record(int g, int timeout_ms, struct fsgate_info_perm *rec)
{
	union {
		struct fanotify_event_metadata ev;
		char buf[4096];
	} b;
	const struct fsgate_info_perm *perm;
	ssize_t len;

	if (!readable(g, timeout_ms))
		return -1;
	len = read(g, &b, sizeof(b));
	if (len < (ssize_t)FAN_EVENT_METADATA_LEN)
		return -1;
	if (b.ev.fd >= 0)
		close(b.ev.fd);
	perm = fsgate_info_perm(&b.ev);
	if (!perm || perm->hdr.len < FSGATE_INFO_PERM_LEN_V2)
		return -1;
	memcpy(rec, perm, sizeof(*rec));
	return 0;
}

int answer(int g, int fd, uint32_t response)
{
	struct fanotify_response r = { .fd = fd, .response = response };
	int ret = write(g, &r, sizeof(r));

	close(fd);
	return ret;
}

int open_answered(int g, const char *path, uint32_t response)
{
	struct fanotify_event_metadata ev;
	pid_t pid = spawn_open(path, O_RDONLY, 0);

	if (pid < 0)
		return -1;
	if (next_event(g, 5000, &ev) || ev.fd < 0 ||
	    answer(g, ev.fd, response) != sizeof(struct fanotify_response)) {
		kill(pid, SIGKILL);
		reap(pid);
		return -1;
	}
	return reap(pid);
}

int content_group(unsigned int priority)
{
	return perm_group(FSGATE_CLASS_CONTENT, priority, PERM_LONG_MS,
			  FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DEFAULT);
}

int perm_mark(int g, uint64_t mask, const char *path)
{
	return fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM, mask,
			   AT_FDCWD, path);
}

void write_file(const char *path, const char *s)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0755);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		perror(path);
	close(fd);
}

long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int fanotify_order(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/fsgate/parameters/fanotify_order", "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

const char *fanotify_order_wanted(void)
{
	const char *want = getenv("FSGATE_FANOTIFY_ORDER");

	return want ? want : "content";
}

long late_ms(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "fsgate-debug") ? 3000 : 1000;
}

int hsm_group(unsigned int priority)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_PRE_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK,
		.event_f_flags = O_RDWR | O_CLOEXEC,
		.priority = priority,
		.timeout_ms = PERM_LONG_MS,
	};

	return fsgate_init_ext(&init);
}

int lower_nofile(struct rlimit *rl)
{
	struct rlimit low;
	int free_fd;

	if (getrlimit(RLIMIT_NOFILE, rl))
		return -1;
	free_fd = dup(0);	/* the lowest free number */
	if (free_fd < 0)
		return -1;
	close(free_fd);
	low = (struct rlimit){ .rlim_cur = free_fd, .rlim_max = rl->rlim_max };
	return setrlimit(RLIMIT_NOFILE, &low);
}

