// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-scan's workers. The main thread reads events and queues them;
 * each worker takes one, decides it (exclusions, size limit, YARA),
 * answers the group it came from and closes the event's fd. Several
 * opens are thus scanned at once, and a slow file holds up one worker,
 * not every open.
 *
 * Saturation must never become the timeout verdict, which fail = open
 * makes an allow: an access the scanner holds, queued or being
 * scanned, is decided by the scanner. The queue has a bound (queue =):
 * an access past it gets the overload verdict at once. The main thread
 * keeps the deadlines of the accesses held (pool_tick()): one whose
 * deadline is near gets more time (FSGATE_EXTEND), up to the longest
 * the kernel grants, which the event's struct fsgate_info_perm says
 * (@latest_ns: the group's max wait, or the access's max_chain_ms
 * ceiling where that comes first, as only the kernel knows it: the
 * groups asked before may have spent part of it); one that can have no
 * more gets the overload verdict, by id, before the kernel's verdict
 * could apply. A worker that finishes one of those afterwards does not
 * answer it again. Both are counted and logged.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "scan.h"

/* Overload lines logged one by one each second; the rest are summed. */
#define OVERLOAD_LINES 5

struct job {
	struct job *next;		/* in the queue, till a worker takes it */
	struct job *held_prev, *held_next;	/* held: queued or scanned */
	struct group *group;
	int fd;
	pid_t pid;
	uint64_t read_ns;		/* when the scanner read it */
	struct hold hold;		/* its id and deadlines */
	int answered;			/* by the overload verdict, in time */
};

struct pool {
	const struct settings *s;
	struct rules **rules;
	pthread_rwlock_t *lock;
	struct counters *count;
	struct waits waits;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	struct job *head, **tail;
	unsigned int queued;		/* jobs in the queue */
	struct job held;		/* list head of the jobs held */
	unsigned int nheld;
	time_t log_second;		/* overload lines: this second's */
	unsigned int log_lines;
	unsigned long long log_more;	/* and how many were not logged */
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

static uint32_t overload_verdict(const struct settings *s)
{
	return s->overload_allow ? FSGATE_ALLOW : deny(s);
}

/* Once the second is over, how many of its overloads were not logged. */
static void overload_log_more(struct pool *p, time_t sec)
{
	if (sec == p->log_second)
		return;
	if (p->log_more)
		log_send(LOG_WARNING, NULL,
			 "overload: %llu more accesses %s unscanned (not logged one by one)",
			 p->log_more, p->s->overload_allow ? "allowed" : "denied");
	p->log_second = sec;
	p->log_lines = 0;
	p->log_more = 0;
}

/*
 * Log one access decided by the overload verdict: the first
 * OVERLOAD_LINES of each second one by one, the others summed in the
 * next line. Called from the main thread only.
 */
static void overload_log(struct pool *p, int fd, pid_t pid, const char *why)
{
	const struct settings *s = p->s;
	char f_path[PATH_MAX + 16], f_pid[32], f_comm[48];
	const char *fields[] = { f_path, f_pid, f_comm, NULL };
	struct subject x = { .pid = pid };
	time_t sec = time(NULL);

	overload_log_more(p, sec);
	if (p->log_lines == OVERLOAD_LINES) {
		p->log_more++;
		return;
	}
	p->log_lines++;
	if (fd < 0 || fsgate_fd_path(fd, x.path, sizeof(x.path)) < 0)
		snprintf(x.path, sizeof(x.path), "?");
	if (fsgate_pid_comm(pid, x.comm, sizeof(x.comm)) < 0)
		snprintf(x.comm, sizeof(x.comm), "?");
	snprintf(f_path, sizeof(f_path), "FSGATE_PATH=%s", x.path);
	snprintf(f_pid, sizeof(f_pid), "FSGATE_PID=%d", x.pid);
	snprintf(f_comm, sizeof(f_comm), "FSGATE_COMM=%s", x.comm);
	log_send(LOG_WARNING, fields, "overload: %s for %s (pid %d): %s unscanned (%s)",
		 x.path, x.comm, x.pid, s->overload_allow ? "allow" : "deny",
		 why);
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

/* Take @j off the held list; whether the overload verdict decided it. */
static int release(struct pool *p, struct job *j)
{
	int answered;

	pthread_mutex_lock(&p->mutex);
	j->held_prev->held_next = j->held_next;
	j->held_next->held_prev = j->held_prev;
	p->nheld--;
	answered = j->answered;
	pthread_mutex_unlock(&p->mutex);
	return answered;
}

static void answer(struct pool *p, struct job *j, uint32_t response)
{
	int r;

	if (!release(p, j)) {
		/* ENOENT: decided already, by the timeout verdict. */
		r = j->hold.id ? fsgate_respond_id(j->group->fd, j->hold.id,
						   response) :
			    fsgate_respond(j->group->fd, j->fd, response);
		if (r < 0)
			log_warn("answer not taken: %s",
				 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
	}
	close(j->fd);
	free(j);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	size_t cap = 0;
	char *buf = NULL;
	struct job *j;
	int answered = 0;

	for (;;) {
		pthread_mutex_lock(&p->mutex);
		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->cond, &p->mutex);
		j = p->head;
		if (j) {
			p->head = j->next;
			if (!p->head)
				p->tail = &p->head;
			p->queued--;
			/* Decided while queued: by overload, in time. */
			answered = j->answered;
		}
		pthread_mutex_unlock(&p->mutex);
		if (!j)
			break;
		answer(p, j, answered ? 0 : decide(p, j, &buf, &cap));
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
			pthread_rwlock_t *lock, struct counters *counters,
			const struct waits *w)
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
	p->waits = *w;
	p->tail = &p->head;
	p->held.held_prev = p->held.held_next = &p->held;
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

/* Answer an event the queue has no room for, and close its fd. */
static void refuse(struct pool *p, struct group *g,
		   const struct fanotify_event_metadata *ev, const char *why)
{
	atomic_fetch_add(&p->count->overloaded, 1);
	overload_log(p, ev->fd, ev->pid, why);
	if (fsgate_respond(g->fd, ev->fd, overload_verdict(p->s)) < 0)
		log_warn("answer not taken: %s",
			 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
	close(ev->fd);
}

void pool_submit(struct pool *p, struct group *g,
		 const struct fanotify_event_metadata *ev)
{
	const struct fsgate_info_perm *perm = fsgate_info_perm(ev);
	char why[64];
	struct job *j;

	pthread_mutex_lock(&p->mutex);
	if (p->queued >= p->s->queue) {
		pthread_mutex_unlock(&p->mutex);
		snprintf(why, sizeof(why), "queue full: %u waiting, %u workers busy",
			 p->s->queue, p->nthreads);
		refuse(p, g, ev, why);
		return;
	}
	pthread_mutex_unlock(&p->mutex);
	j = malloc(sizeof(*j));
	if (!j) {
		refuse(p, g, ev, "no memory to queue it");
		return;
	}
	*j = (struct job){
		.group = g, .fd = ev->fd, .pid = ev->pid,
		.read_ns = hold_now_ns(),
	};
	hold_init(&j->hold, perm, &p->waits);
	pthread_mutex_lock(&p->mutex);
	*p->tail = j;
	p->tail = &j->next;
	p->queued++;
	j->held_next = &p->held;
	j->held_prev = p->held.held_prev;
	p->held.held_prev->held_next = j;
	p->held.held_prev = j;
	p->nheld++;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->mutex);
}

/*
 * A held job whose deadline is near: more time, or, when it can have no
 * more, the overload verdict. Called with the pool's mutex held.
 */
static void keep(struct pool *p, struct job *j, uint64_t now)
{
	char why[80];

	if (hold_extend(j->group->fd, &j->hold, &p->waits, now) == 0)
		return;
	if (errno == ENOENT) {
		/* Decided already (the kernel's timeout verdict). */
		j->answered = 1;
		return;
	}
	if (errno != ETIME)
		log_warn("no more time for an access: %s",
			 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
	j->answered = 1;
	atomic_fetch_add(&p->count->overloaded, 1);
	snprintf(why, sizeof(why), "not decided within %llu ms",
		 (unsigned long long)((now - j->read_ns) / 1000000));
	overload_log(p, j->fd, j->pid, why);
	if (fsgate_respond_id(j->group->fd, j->hold.id,
			      overload_verdict(p->s)) < 0)
		log_warn("answer not taken: %s",
			 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
}

int pool_tick(struct pool *p)
{
	uint64_t margin = hold_margin_ns(&p->waits);
	uint64_t now = hold_now_ns(), next = UINT64_MAX;
	struct job *j;
	int ms;

	pthread_mutex_lock(&p->mutex);
	for (j = p->held.held_next; j != &p->held; j = j->held_next) {
		if (j->answered || !j->hold.deadline_ns)
			continue;
		if (j->hold.deadline_ns <= now + margin)
			keep(p, j, now);
		if (!j->answered && j->hold.deadline_ns - margin < next)
			next = j->hold.deadline_ns - margin;
	}
	overload_log_more(p, time(NULL));
	if (!p->nheld)
		ms = p->log_more ? 1000 : -1;
	else
		ms = hold_wait_ms(next, now);
	pthread_mutex_unlock(&p->mutex);
	return ms;
}

/* The workers finish the queued jobs, then end. */
void pool_stop(struct pool *p)
{
	unsigned int i;

	struct timespec pause;
	int ms;

	pthread_mutex_lock(&p->mutex);
	p->stopping = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->mutex);
	/* Their deadlines are kept meanwhile, as while serving. */
	while ((ms = pool_tick(p)) >= 0) {
		if (ms > 50)
			ms = 50;
		pause = (struct timespec){ .tv_nsec = ms * 1000000L };
		nanosleep(&pause, NULL);
	}
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->mutex);
	pthread_cond_destroy(&p->cond);
	free(p);
}
