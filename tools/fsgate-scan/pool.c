// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-scan's workers. The main thread reads events and queues them;
 * each worker takes one, decides it (exclusions, size limit, YARA),
 * answers the group it came from and closes the event's fd. Several
 * opens are thus scanned at once, and a slow file holds up one worker,
 * not every open. The kernel bounds the queue: at most
 * max_pending_events permission events per group are ever pending.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "scan.h"

struct job {
	struct job *next;
	struct group *group;
	int fd;
	pid_t pid;
};

struct pool {
	const struct settings *s;
	struct rules **rules;
	pthread_rwlock_t *lock;
	struct counters *count;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	struct job *head, **tail;
	int stopping;
	unsigned int nthreads;
	pthread_t threads[];
};

/* What a worker knows of the event it decides, for its log lines. */
struct subject {
	char path[PATH_MAX];
	char comm[32];
	pid_t pid;
};

static int excluded(const struct settings *s, const struct subject *x)
{
	size_t i, len;

	for (i = 0; i < s->nexclude_path; i++) {
		len = strlen(s->exclude_path[i]);
		while (len > 1 && s->exclude_path[i][len - 1] == '/')
			len--;
		if (!strncmp(x->path, s->exclude_path[i], len) &&
		    (x->path[len] == '/' || x->path[len] == '\0' || len == 1))
			return 1;
	}
	return 0;
}

static uint32_t deny(const struct settings *s)
{
	return FSGATE_DENY_ERRNO(s->deny_errno);
}

static uint32_t on_error(struct pool *p, const struct subject *x,
			 const char *what)
{
	const struct settings *s = p->s;
	char f_path[PATH_MAX + 16], f_pid[32], f_comm[48];
	const char *fields[] = { f_path, f_pid, f_comm, NULL };

	atomic_fetch_add(&p->count->errors, 1);
	snprintf(f_path, sizeof(f_path), "FSGATE_PATH=%s", x->path);
	snprintf(f_pid, sizeof(f_pid), "FSGATE_PID=%d", x->pid);
	snprintf(f_comm, sizeof(f_comm), "FSGATE_COMM=%s", x->comm);
	log_send(LOG_ERR, fields, "error: %s: %s, for %s (pid %d): %s", x->path,
		 what, x->comm, x->pid, s->fail_closed ? "deny" : "allow");
	return s->fail_closed ? deny(s) : FSGATE_ALLOW;
}

/* Read the whole file into *@buf (grown as needed); bytes, or -1. */
static ssize_t read_all(int fd, size_t size, char **buf, size_t *cap)
{
	size_t have = 0;
	ssize_t n;
	char *more;

	if (size + 1 > *cap) {
		more = realloc(*buf, size + 1);
		if (!more)
			return -1;
		*buf = more;
		*cap = size + 1;
	}
	/* One byte more than fstat said tells a file that grew. */
	while (have < size + 1) {
		n = pread(fd, *buf + have, size + 1 - have, have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		have += n;
	}
	return have;
}

static uint32_t decide(struct pool *p, const struct job *j, char **buf,
		       size_t *cap)
{
	const struct settings *s = p->s;
	char match[128], what[160];
	char f_rule[160], f_path[PATH_MAX + 16], f_pid[32], f_comm[48];
	const char *fields[] = { f_rule, f_path, f_pid, f_comm, NULL };
	struct subject x = { .pid = j->pid };
	struct stat st;
	ssize_t len;
	int found;

	if (fstat(j->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return FSGATE_ALLOW;
	if (fsgate_fd_path(j->fd, x.path, sizeof(x.path)) < 0)
		snprintf(x.path, sizeof(x.path), "?");
	if (fsgate_pid_comm(j->pid, x.comm, sizeof(x.comm)) < 0)
		snprintf(x.comm, sizeof(x.comm), "?");
	if (excluded(s, &x)) {
		atomic_fetch_add(&p->count->excluded, 1);
		return FSGATE_ALLOW;
	}
	if ((uint64_t)st.st_size > s->max_size) {
		atomic_fetch_add(&p->count->large, 1);
		if (s->large_allow)
			return FSGATE_ALLOW;
		log_send(LOG_NOTICE, NULL,
			 "too large: %s (%lld bytes, max_size %llu) for %s (pid %d): deny",
			 x.path, (long long)st.st_size,
			 (unsigned long long)s->max_size, x.comm, x.pid);
		return deny(s);
	}
	len = read_all(j->fd, st.st_size, buf, cap);
	if (len < 0) {
		snprintf(what, sizeof(what), "cannot read: %s", strerror(errno));
		return on_error(p, &x, what);
	}
	if ((uint64_t)len > s->max_size) {
		atomic_fetch_add(&p->count->large, 1);
		return s->large_allow ? FSGATE_ALLOW : deny(s);
	}
	pthread_rwlock_rdlock(p->lock);
	found = rules_scan(*p->rules, *buf, len, match, sizeof(match));
	pthread_rwlock_unlock(p->lock);
	atomic_fetch_add(&p->count->scanned, 1);
	if (found < 0)
		return on_error(p, &x, match);
	if (!found) {
		atomic_fetch_add(&p->count->clean, 1);
		return FSGATE_ALLOW | (s->cache ? FSGATE_CACHE : 0);
	}
	atomic_fetch_add(&p->count->detected, 1);
	snprintf(f_rule, sizeof(f_rule), "FSGATE_RULE=%s", match);
	snprintf(f_path, sizeof(f_path), "FSGATE_PATH=%s", x.path);
	snprintf(f_pid, sizeof(f_pid), "FSGATE_PID=%d", x.pid);
	snprintf(f_comm, sizeof(f_comm), "FSGATE_COMM=%s", x.comm);
	log_send(LOG_WARNING, fields, "detected %s in %s, for %s (pid %d): deny (%s)",
		 match, x.path, x.comm, x.pid,
		 fsgate_deny_errno_name(s->deny_errno));
	return deny(s);
}

static void answer(struct pool *p, struct job *j, uint32_t response)
{
	(void)p;
	/* ENOENT: decided already, by the timeout verdict. */
	if (fsgate_respond(j->group->fd, j->fd, response) < 0)
		log_warn("answer not taken: %s",
			 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
	close(j->fd);
	free(j);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	size_t cap = 0;
	char *buf = NULL;
	struct job *j;

	for (;;) {
		pthread_mutex_lock(&p->mutex);
		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->cond, &p->mutex);
		j = p->head;
		if (j) {
			p->head = j->next;
			if (!p->head)
				p->tail = &p->head;
		}
		pthread_mutex_unlock(&p->mutex);
		if (!j)
			break;
		answer(p, j, decide(p, j, &buf, &cap));
		/* A big file's buffer is not kept for the small ones. */
		if (cap > (1 << 20)) {
			free(buf);
			buf = NULL;
			cap = 0;
		}
	}
	free(buf);
	return NULL;
}

struct pool *pool_start(const struct settings *s, struct rules **rules,
			pthread_rwlock_t *lock, struct counters *counters)
{
	struct pool *p;
	unsigned int i;
	int err;

	p = calloc(1, sizeof(*p) + s->threads * sizeof(pthread_t));
	if (!p)
		return NULL;
	p->s = s;
	p->rules = rules;
	p->lock = lock;
	p->count = counters;
	p->tail = &p->head;
	pthread_mutex_init(&p->mutex, NULL);
	pthread_cond_init(&p->cond, NULL);
	for (i = 0; i < s->threads; i++) {
		err = pthread_create(&p->threads[i], NULL, worker, p);
		if (err) {
			log_err("cannot start a worker: %s", strerror(err));
			p->nthreads = i;
			pool_stop(p);
			return NULL;
		}
	}
	p->nthreads = s->threads;
	return p;
}

void pool_submit(struct pool *p, struct group *g,
		 const struct fanotify_event_metadata *ev)
{
	struct job *j = malloc(sizeof(*j));

	if (!j) {
		/* No memory for a job: answer at once, as an error would be. */
		fsgate_respond(g->fd, ev->fd, p->s->fail_closed ?
			       deny(p->s) : FSGATE_ALLOW);
		close(ev->fd);
		return;
	}
	*j = (struct job){ .group = g, .fd = ev->fd, .pid = ev->pid };
	pthread_mutex_lock(&p->mutex);
	*p->tail = j;
	p->tail = &j->next;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->mutex);
}

/* The workers finish the queued jobs, then end. */
void pool_stop(struct pool *p)
{
	unsigned int i;

	pthread_mutex_lock(&p->mutex);
	p->stopping = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->mutex);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->mutex);
	pthread_cond_destroy(&p->cond);
	free(p);
}
