// SPDX-License-Identifier: GPL-2.0
/*
 * The listener groups of a case live in a child process, as they would
 * in a real scanner or monitor: the benchmarked loop pays for waking it,
 * for its reads and for its answers, and nothing else. With
 * watch_group.threads, several threads of it read and answer, as a
 * multi-threaded daemon's workers. The child tells
 * its parent on a pipe when every mark is in place ("ok" or "na" with a
 * reason, or "err"), serves its groups until SIGTERM, then writes what it
 * read.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fsgate.h>

#include "bench.h"

/* Written by SIGTERM's handler: every serving thread polls its read end. */
static int stop_pipe[2] = { -1, -1 };

static void on_term(int sig)
{
	char c = 0;
	int saved = errno;

	(void)sig;
	if (write(stop_pipe[1], &c, 1) < 0)
		_exit(3);
	errno = saved;
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

/*
 * The filter of @filter_tenth: A = ino_lo mod 10 (classic BPF has no
 * BPF_MOD: ino - ino / 10 * 10), ask for 0, allow the rest.
 */
static int set_filter_tenth(int fd)
{
	static struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct fsgate_filter_data, ino_lo)),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 10),
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 10),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ALLOW),
	};
	struct fsgate_filter f = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.insns = (uintptr_t)insns,
	};

	return ioctl(fd, FSGATE_IOC_SET_FILTER, &f);
}

/* What the kernel decides before the group is asked: mutes, filter. */
static int gate_group(int fd, const struct watch_group *g)
{
	struct fsgate_mute_entry mute = {
		.type = FSGATE_MUTE_PROCESS, .id = (uint64_t)g->mute_pid,
	};

	if (g->mute_pid && fsgate_mute_add(fd, &mute) < 0)
		return -1;
	if (g->filter_tenth && set_filter_tenth(fd) < 0)
		return -1;
	return 0;
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

/**
 * struct server - what the serving threads of a watcher share
 * @fds: the group fds, non-blocking: threads race for their events
 * @groups: the groups
 * @n: how many
 * @events: events one thread read, filled when it ends
 * @overflows: the overflow records among them
 */
struct server {
	const int *fds;
	const struct watch_group *groups;
	int n;
	long events;
	long overflows;
};

/* One serving thread: read and answer until SIGTERM. */
static void *serve(void *arg)
{
	/*
	 * A read opens an fd per event: 4 KiB holds 170 records, well
	 * under the fd limit, past which fanotify drops the event it
	 * could not open an fd for.
	 */
	char buf[4096] __attribute__((aligned(8)));
	struct server *s = arg;
	struct pollfd pfd[WATCH_MAX_GROUPS + 1];
	ssize_t len;
	int i, n = s->n;

	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = s->fds[i], .events = POLLIN };
	pfd[n] = (struct pollfd){ .fd = stop_pipe[0], .events = POLLIN };
	while (!(pfd[n].revents & POLLIN)) {
		if (poll(pfd, n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(3);
		}
		for (i = 0; i < n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			/* Another thread may have taken them: EAGAIN. */
			len = read(s->fds[i], buf, sizeof(buf));
			if (len <= 0)
				continue;
			if (s->groups[i].api == API_INOTIFY)
				count_inotify(buf, len, &s->events,
					      &s->overflows);
			else
				serve_events(s->fds[i], &s->groups[i], buf, len,
					     &s->events, &s->overflows);
		}
	}
	return NULL;
}

/*
 * Serve with the groups' threads (the first group's count: the groups
 * of one process are one daemon), then write the counters to @status.
 */
static void serve_all(const int *fds, const struct watch_group *groups,
		      int n, int status)
{
	struct server s[WATCH_MAX_THREADS];
	pthread_t tid[WATCH_MAX_THREADS];
	int nthreads = groups[0].threads > 1 ? groups[0].threads : 1, i;
	long events = 0, overflows = 0;

	for (i = 0; i < n; i++)
		if (fcntl(fds[i], F_SETFL, O_NONBLOCK) < 0)
			_exit(3);
	for (i = 0; i < nthreads; i++) {
		s[i] = (struct server){ .fds = fds, .groups = groups, .n = n };
		if (i && pthread_create(&tid[i], NULL, serve, &s[i]))
			_exit(3);
	}
	serve(&s[0]);
	for (i = 0; i < nthreads; i++) {
		if (i)
			pthread_join(tid[i], NULL);
		events += s[i].events;
		overflows += s[i].overflows;
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
	char top[128];
	long bytes;

	/* A stop that comes before the serving starts is kept in the pipe. */
	if (pipe2(stop_pipe, O_CLOEXEC) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		_exit(1);
	slab_snapshot(&before);
	for (i = 0; i < n; i++) {
		fds[i] = make_group(&groups[i]);
		if (fds[i] < 0 || gate_group(fds[i], &groups[i]) < 0 ||
		    mark_group(fds[i], &groups[i]) < 0) {
			/*
			 * An unknown event bit or flag (EINVAL), mark type
			 * (EOPNOTSUPP) or ioctl (ENOTTY) says the module
			 * does not do it yet.
			 */
			if (errno == EINVAL || errno == EOPNOTSUPP ||
			    errno == ENOTTY)
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
	serve_all(fds, groups, n, status);
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

/* Start one child serving @n groups; its pid and pipe go to slot @i. */
static int start_child(struct watch *w, int i, const struct watch_group *groups,
		       int n, char *line, size_t len)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	w->pid[i] = fork();
	if (w->pid[i] < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!w->pid[i]) {
		close(p[0]);
		child(groups, n, p[1]);
	}
	close(p[1]);
	w->status[i] = p[0];
	w->nproc = i + 1;
	if (read_line(w->status[i], line, len) < 0)
		snprintf(line, len, "err watcher died");
	return 0;
}

int watch_start(struct watch *w, const struct watch_group *groups, int n,
		bool per_group, char *why, size_t len)
{
	long bytes;
	char line[256], top[128];
	int i, nproc = per_group ? n : 1;

	memset(w, 0, sizeof(*w));
	if (!n)
		return 0;
	for (i = 0; i < nproc; i++) {
		if (start_child(w, i, per_group ? &groups[i] : groups,
				per_group ? 1 : n, line, sizeof(line)) < 0) {
			snprintf(why, len, "%s", strerror(errno));
			watch_stop(w);
			return -1;
		}
		if (strncmp(line, "ok ", 3))
			break;
		top[0] = '\0';
		bytes = 0;
		sscanf(line + 3, "%ld %127[^\n]", &bytes, top);
		w->mark_bytes += bytes;
		if (!i)
			snprintf(w->mark_top, sizeof(w->mark_top), "%s", top);
	}
	if (i == nproc)
		return 0;
	snprintf(why, len, "%s", line + 3);
	watch_stop(w);
	return strncmp(line, "na ", 3) ? -1 : 1;
}

int watch_stop(struct watch *w)
{
	char line[64];
	long events, overflows;
	int i, st, ret = 0;

	for (i = 0; i < w->nproc; i++)
		kill(w->pid[i], SIGTERM);
	for (i = 0; i < w->nproc; i++) {
		if (read_line(w->status[i], line, sizeof(line)) == 0) {
			if (sscanf(line, "%ld %ld", &events, &overflows) == 2) {
				w->events += events;
				w->overflows += overflows;
			} else {
				ret = -1;
			}
		}
		waitpid(w->pid[i], &st, 0);
		close(w->status[i]);
	}
	w->nproc = 0;
	return ret;
}
