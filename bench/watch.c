// SPDX-License-Identifier: GPL-2.0
/*
 * The listener groups of a case live in a child process, as they would
 * in a real scanner or monitor: the benchmarked loop pays for waking it,
 * for its reads and for its answers, and nothing else. The child tells
 * its parent on a pipe when every mark is in place ("ok" or "na" with a
 * reason, or "err"), serves its groups until SIGTERM, then writes what it
 * read.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fsgate.h>

#include "bench.h"

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Mark @path, or the first g->inode_marks files in it, for group @fd. */
static int mark_group(int fd, const struct watch_group *g)
{
	unsigned int flags = FAN_MARK_ADD | g->mark_type;
	char name[BENCH_NAME_LEN];
	int dirfd, ret = 0;
	long i;

	if (g->api == API_INOTIFY)
		return inotify_add_watch(fd, g->path, (uint32_t)g->mask) < 0 ? -1 : 0;
	if (!g->inode_marks) {
		if (g->api == API_FANOTIFY)
			return fanotify_mark(fd, flags, g->mask, AT_FDCWD, g->path);
		return fsgate_mark(fd, flags, g->mask, AT_FDCWD, g->path);
	}
	dirfd = open(g->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	for (i = 0; i < g->inode_marks && !ret; i++) {
		bench_name(name, i);
		if (g->api == API_FANOTIFY)
			ret = fanotify_mark(fd, flags, g->mask, dirfd, name);
		else
			ret = fsgate_mark(fd, flags, g->mask, dirfd, name);
	}
	close(dirfd);
	return ret;
}

static int make_group(const struct watch_group *g)
{
	switch (g->api) {
	case API_INOTIFY:
		return inotify_init1(IN_CLOEXEC);
	case API_FANOTIFY:
		return fanotify_init(g->flags | FAN_CLOEXEC,
				     O_RDONLY | O_LARGEFILE);
	case API_FSGATE:
		return fsgate_init(g->flags | FSGATE_CLOEXEC, O_RDONLY,
				   g->priority);
	}
	errno = EINVAL;
	return -1;
}

/*
 * Answer and release the events of one read. Permission events are
 * answered one write each, as fanotify takes them.
 */
static void serve_events(int fd, const struct watch_group *g, char *buf,
			 ssize_t len, long *events, long *overflows)
{
	const struct fanotify_event_metadata *ev = (void *)buf;
	struct fanotify_response res;

	for (; FAN_EVENT_OK(ev, len); ev = FAN_EVENT_NEXT(ev, len)) {
		(*events)++;
		if (ev->mask & FAN_Q_OVERFLOW)
			(*overflows)++;
		if (ev->fd < 0)
			continue;
		if (ev->mask & FSGATE_PERM_EVENTS) {
			if (g->ignore_after_first)
				fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
					      FAN_MARK_IGNORED_SURV_MODIFY,
					      FAN_OPEN_PERM, ev->fd, NULL);
			res.fd = ev->fd;
			res.response = g->response;
			if (write(fd, &res, sizeof(res)) != sizeof(res))
				_exit(3);
		}
		close(ev->fd);
	}
}

static void count_inotify(char *buf, ssize_t len, long *events, long *overflows)
{
	const struct inotify_event *ev;
	ssize_t off;

	for (off = 0; off < len; off += sizeof(*ev) + ev->len) {
		ev = (const void *)(buf + off);
		(*events)++;
		if (ev->mask & IN_Q_OVERFLOW)
			(*overflows)++;
	}
}

/*
 * SIGTERM is blocked except inside ppoll(), so that a stop that comes
 * between the test of @stopping and the wait cannot be lost.
 */
static void serve(const int *fds, const struct watch_group *groups, int n,
		  int status, const sigset_t *unblocked)
{
	/*
	 * A read opens an fd per event: 4 KiB holds 170 records, well
	 * under the fd limit, past which fanotify drops the event it
	 * could not open an fd for.
	 */
	static char buf[4096] __attribute__((aligned(8)));
	struct pollfd pfd[WATCH_MAX_GROUPS];
	long events = 0, overflows = 0;
	ssize_t len;
	int i;

	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (!stopping) {
		if (ppoll(pfd, n, NULL, unblocked) < 0) {
			if (errno == EINTR)
				continue;
			_exit(3);
		}
		for (i = 0; i < n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			len = read(fds[i], buf, sizeof(buf));
			if (len <= 0)
				continue;
			if (groups[i].api == API_INOTIFY)
				count_inotify(buf, len, &events, &overflows);
			else
				serve_events(fds[i], &groups[i], buf, len,
					     &events, &overflows);
		}
	}
	dprintf(status, "%ld %ld\n", events, overflows);
	_exit(0);
}

/* Make and mark every group, report on @status, serve them. */
static void child(const struct watch_group *groups, int n, int status)
{
	static struct slab_snap before, after;
	struct sigaction sa = { .sa_handler = on_term };
	int fds[WATCH_MAX_GROUPS], i;
	sigset_t term, unblocked;
	char top[128];
	long bytes;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &unblocked);
	sigaction(SIGTERM, &sa, NULL);
	slab_snapshot(&before);
	for (i = 0; i < n; i++) {
		fds[i] = make_group(&groups[i]);
		if (fds[i] < 0 || mark_group(fds[i], &groups[i]) < 0) {
			/*
			 * An unknown event bit (EINVAL) or mark type
			 * (EOPNOTSUPP) says the module does not do it yet.
			 */
			if (errno == EINVAL || errno == EOPNOTSUPP)
				dprintf(status, "na %s\n", strerror(errno));
			else
				dprintf(status, "err group %d: %s\n", i,
					strerror(errno));
			_exit(1);
		}
	}
	slab_snapshot(&after);
	bytes = slab_delta(&before, &after, top, sizeof(top));
	dprintf(status, "ok %ld %s\n", bytes, top);
	serve(fds, groups, n, status, &unblocked);
}

/* Read one line from @fd, byte by byte so nothing past it is consumed. */
static int read_line(int fd, char *buf, size_t len)
{
	size_t i = 0;

	while (i + 1 < len && read(fd, buf + i, 1) == 1 && buf[i] != '\n')
		i++;
	buf[i] = '\0';
	return i ? 0 : -1;
}

int watch_start(struct watch *w, const struct watch_group *groups, int n,
		char *why, size_t len)
{
	char line[256];
	int p[2];

	memset(w, 0, sizeof(*w));
	if (!n)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (!w->pid) {
		close(p[0]);
		child(groups, n, p[1]);
	}
	close(p[1]);
	w->status = p[0];
	if (read_line(w->status, line, sizeof(line)) < 0)
		snprintf(line, sizeof(line), "err watcher died");
	if (!strncmp(line, "ok ", 3)) {
		sscanf(line + 3, "%ld %127[^\n]", &w->mark_bytes, w->mark_top);
		return 0;
	}
	snprintf(why, len, "%s", line + 3);
	watch_stop(w);
	return strncmp(line, "na ", 3) ? -1 : 1;
}

int watch_stop(struct watch *w)
{
	char line[64];
	int st, ret = 0;

	if (!w->pid)
		return 0;
	kill(w->pid, SIGTERM);
	if (read_line(w->status, line, sizeof(line)) == 0 &&
	    sscanf(line, "%ld %ld", &w->events, &w->overflows) != 2)
		ret = -1;
	waitpid(w->pid, &st, 0);
	close(w->status);
	w->pid = 0;
	return ret;
}
