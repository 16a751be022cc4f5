// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-hsm's daemon: a pre-content group (priority 3000, asked before
 * any scanner) marks the watched filesystems for opens and execs. A stub
 * is restored through the event's fd, which fsgate opens read-write for
 * it, its checksum verified on the way, before the access is allowed;
 * groups asked after it (a scanner at 2000) read the restored content.
 *
 * One slow restore must not stall the filesystem. The main thread reads
 * the events: an open of a file that is not a stub is allowed at once;
 * a stub's open joins the restore of that stub (by device and inode)
 * if one is under way, else starts one, queued for a pool of workers
 * (threads =). Each stub is thus restored once, by one worker, through
 * the fd of the event that started it, and every open waiting for it
 * is answered when it ends. Past the bound (threads + queue restores
 * under way or waiting), an open of another stub is denied at once with
 * error_errno, and said so: reading on stays possible, and a restore is
 * never left to the timeout verdict. While a restore runs, the main
 * thread keeps its accesses alive (FSGATE_EXTEND, tools/common/hold.c)
 * up to the longest wait the kernel grants (the module's
 * default_max_wait_ms, within max_chain_ms); an access that can have no
 * more is denied with error_errno, logged; the restore goes on, and an
 * open after it finds the file restored.
 *
 * A worker finds a stub restored already (an event read just after
 * another restore of it ended) and does not restore it twice; it
 * removes the attribute before it takes the restore out of the table,
 * so an open read meanwhile either joins it or finds a plain file. The
 * writable event fds are closed before the answers, which name the
 * events by id (FSGATE_REPORT_PERM): an exec of the file fails with
 * ETXTBSY while any writable fd of it is open. A crash mid-restore
 * leaves the file a stub (its attribute goes last): a persistent group
 * asks the next daemon, which restores it from the start. A persistent
 * group made without FSGATE_REPORT_PERM (no ids) is served as before
 * the pool: one event at a time, by the main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/group.h"
#include "common/hold.h"
#include "common/log.h"
#include "common/watchdog.h"
#include "hsm.h"

#define PERM_MASK (FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM)

/* One access waiting for a restore. */
struct access {
	struct access *next;
	struct hold hold;
	int answered;		/* denied already: no more time to give */
};

/* One stub being restored, or waiting for a worker. */
struct restore {
	struct restore *next;		/* in the queue, then in the table */
	struct restore *prev_all, *next_all;	/* the table */
	dev_t dev;
	ino_t ino;
	int fd;				/* the first event's, read-write */
	uint32_t mask;			/* of the first event */
	pid_t pid;			/* of the first event */
	char comm[32];
	struct stub stub;
	struct access *waiting;		/* every access waiting for it */
	unsigned int naccess;
	int started;			/* a worker took it */
};

struct daemon {
	const struct hsm_settings *s;
	struct store *store;
	struct waits waits;
	int group, attached;
	atomic_ullong restored, failed, bytes, busy, outlasted;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	struct restore *head, **tail;	/* the queue */
	struct restore all;		/* the table: queued and running */
	unsigned int nrestores;
	int stopping;
	unsigned int nthreads;
	pthread_t *threads;
};

/* The group the daemon asks fsgate for. */
static struct fsgate_init group_init(const struct hsm_settings *s)
{
	return (struct fsgate_init){
		/* Its own reads of the store never wait for itself. */
		/* Each event's id and deadline, to hold it. */
		.flags = FSGATE_CLASS_PRE_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_EXCLUDE_SELF |
			 FSGATE_REPORT_PERM,
		/* Event fds it can write the content through. */
		.event_f_flags = O_RDWR | O_CLOEXEC | O_LARGEFILE,
		.priority = s->priority,
		.timeout_ms = s->timeout_ms,
		/* A stub must never pass for its content. */
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};
}

/* The group's fd, or GROUP_FAILED or GROUP_DIFFERS having said why. */
static int group_open(const struct hsm_settings *s, int *attached)
{
	const struct fsgate_init init = group_init(s);

	return group_attach_or_watch(&init, PERM_MASK, s->watch, s->nwatch,
				     &s->persist, attached);
}

int hsm_create_group(const struct hsm_settings *s)
{
	const struct fsgate_init init = group_init(s);
	int g, attached, r;

	if (!s->nwatch) {
		log_err("nothing to watch: give a PATH or watch = in the configuration");
		return 2;
	}
	r = group_create_wanted(&init, &s->persist);
	if (r <= 0)
		return r == 0 ? 0 : r == GROUP_DIFFERS ? 2 : 1;
	/* The daemon's own: made, marked and persisted as it makes it. */
	g = group_open(s, &attached);
	if (g < 0)
		return g == GROUP_DIFFERS ? 2 : 1;
	group_create_done(&s->persist, "fsgate-hsm");
	close(g);
	return 0;
}


static uint32_t deny(const struct daemon *d)
{
	return FSGATE_DENY_ERRNO(d->s->error_errno);
}

static void respond_id(struct daemon *d, uint64_t id, uint32_t response)
{
	/* ENOENT: decided already (the process was killed). */
	if (fsgate_respond_id(d->group, id, response) < 0 && errno != ENOENT)
		log_warn("answer not taken: %s",
			 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
}

static void fields_of(int fd, const char *key, char *f_path, size_t plen,
		      char *f_key, size_t klen, char *path, size_t len)
{
	if (fsgate_fd_path(fd, path, len) < 0)
		snprintf(path, len, "?");
	snprintf(f_path, plen, "FSGATE_PATH=%s", path);
	snprintf(f_key, klen, "FSGATE_KEY=%s%s", key ? "sha256:" : "",
		 key ? key : "");
}

/*
 * Restore the stub @fd is an open of, whose attribute is @stub, for
 * @comm (pid @pid); the answer for the accesses waiting for it. With
 * @waited, how many did. Called by a worker, or by the main thread for
 * a group without ids.
 */
static uint32_t restore(struct daemon *d, int fd, const struct stub *stub,
			const char *comm, pid_t pid, uint32_t mask,
			unsigned int waited)
{
	char path[PATH_MAX], f_path[PATH_MAX + 16], f_key[96], more[48] = "";
	const char *fields[] = { f_path, f_key, NULL };
	uint64_t t0 = hold_now_ns();
	struct stub now;

	/* Restored since it was read (by the restore before this one). */
	if (stub_of_fd(fd, &now) == 0)
		return FSGATE_ALLOW;
	fields_of(fd, stub->key, f_path, sizeof(f_path), f_key, sizeof(f_key),
		  path, sizeof(path));
	if (hsm_restore_fd(d->store, fd, stub) < 0) {
		log_send(LOG_ERR, fields, "cannot restore %s (sha256:%.16s) for %s (pid %d): %s: deny (%s)",
			 path, stub->key, comm, pid, store_strerror(errno),
			 fsgate_deny_errno_name(d->s->error_errno));
		atomic_fetch_add(&d->failed, 1);
		return deny(d);
	}
	atomic_fetch_add(&d->restored, 1);
	atomic_fetch_add(&d->bytes, stub->size);
	if (waited > 1)
		snprintf(more, sizeof(more), ", %u opens waited", waited);
	log_send(LOG_INFO, fields, "restored %s (%" PRIu64 " bytes) for %s (pid %d)%s in %llu ms%s",
		 path, stub->size, comm, pid,
		 mask & FAN_OPEN_EXEC_PERM ? ", an exec" : "",
		 (unsigned long long)((hold_now_ns() - t0) / 1000000), more);
	/*
	 * Restored files need the daemon no more: an ignore mask lasts until
	 * the file is written to.
	 */
	if (fsgate_mark(d->group, FSGATE_MARK_ADD | FSGATE_MARK_INODE |
			FSGATE_MARK_IGNORED_MASK, PERM_MASK, fd, NULL) < 0)
		log_warn("cannot ignore the restored %s: %s", path,
			 fsgate_strerror(FSGATE_CALL_MARK, errno));
	return FSGATE_ALLOW;
}

/* A stub whose attribute cannot be read or parsed: deny, said why. */
static uint32_t bad_stub(struct daemon *d, int fd, pid_t pid)
{
	char path[PATH_MAX], comm[32], f_path[PATH_MAX + 16], f_key[96];
	const char *fields[] = { f_path, f_key, NULL };

	fields_of(fd, NULL, f_path, sizeof(f_path), f_key, sizeof(f_key),
		  path, sizeof(path));
	if (fsgate_pid_comm(pid, comm, sizeof(comm)) < 0)
		snprintf(comm, sizeof(comm), "?");
	log_send(LOG_ERR, fields, "cannot restore %s for %s (pid %d): bad %s attribute: deny (%s)",
		 path, comm, pid, HSM_XATTR,
		 fsgate_deny_errno_name(d->s->error_errno));
	atomic_fetch_add(&d->failed, 1);
	return deny(d);
}

static void *worker(void *arg)
{
	struct daemon *d = arg;
	struct access *a, *next;
	struct restore *r;
	uint32_t response;

	for (;;) {
		pthread_mutex_lock(&d->mutex);
		while (!d->head && !d->stopping)
			pthread_cond_wait(&d->cond, &d->mutex);
		r = d->stopping ? NULL : d->head;
		if (r) {
			d->head = r->next;
			if (!d->head)
				d->tail = &d->head;
			r->started = 1;
		}
		pthread_mutex_unlock(&d->mutex);
		if (!r)
			return NULL;
		response = restore(d, r->fd, &r->stub, r->comm, r->pid, r->mask,
				   r->naccess);
		/* Opens read from now on find the attribute gone. */
		pthread_mutex_lock(&d->mutex);
		r->prev_all->next_all = r->next_all;
		r->next_all->prev_all = r->prev_all;
		d->nrestores--;
		pthread_mutex_unlock(&d->mutex);
		/* Closed first: an exec fails with ETXTBSY while it is open. */
		close(r->fd);
		for (a = r->waiting; a; a = next) {
			next = a->next;
			if (!a->answered)
				respond_id(d, a->hold.id, response);
			free(a);
		}
		free(r);
	}
}

/*
 * The event of a stub, @fd, @perm: joins the restore of that stub or
 * starts one; 0 when it is held, -1 when it must be answered now (past
 * the bound, or no memory).
 */
static int hold_stub(struct daemon *d, const struct fanotify_event_metadata *ev,
		     const struct fsgate_info_perm *perm,
		     const struct stub *stub)
{
	struct access *a = calloc(1, sizeof(*a));
	struct restore *r;
	struct stat st;

	if (!a || fstat(ev->fd, &st) < 0) {
		free(a);
		return -1;
	}
	hold_init(&a->hold, perm, &d->waits);
	pthread_mutex_lock(&d->mutex);
	for (r = d->all.next_all; r != &d->all; r = r->next_all)
		if (r->dev == st.st_dev && r->ino == st.st_ino)
			break;
	if (r != &d->all) {
		/* Under way: wait for that one. */
		a->next = r->waiting;
		r->waiting = a;
		r->naccess++;
		pthread_mutex_unlock(&d->mutex);
		close(ev->fd);
		return 0;
	}
	if (d->nrestores >= d->s->threads + d->s->queue) {
		pthread_mutex_unlock(&d->mutex);
		free(a);
		errno = EBUSY;
		return -1;
	}
	pthread_mutex_unlock(&d->mutex);
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(a);
		return -1;
	}
	*r = (struct restore){ .dev = st.st_dev, .ino = st.st_ino,
			       .fd = ev->fd, .mask = ev->mask, .pid = ev->pid,
			       .stub = *stub, .waiting = a, .naccess = 1 };
	if (fsgate_pid_comm(ev->pid, r->comm, sizeof(r->comm)) < 0)
		snprintf(r->comm, sizeof(r->comm), "?");
	/* Only this thread adds: the bound still holds. */
	pthread_mutex_lock(&d->mutex);
	r->next_all = &d->all;
	r->prev_all = d->all.prev_all;
	d->all.prev_all->next_all = r;
	d->all.prev_all = r;
	d->nrestores++;
	*d->tail = r;
	d->tail = &r->next;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->mutex);
	return 0;
}

/* Past the bound: denied at once, said so (never the timeout verdict). */
static uint32_t refuse(struct daemon *d, int fd, pid_t pid, int err)
{
	char path[PATH_MAX], comm[32], f_path[PATH_MAX + 16], f_key[96];
	const char *fields[] = { f_path, f_key, NULL };

	atomic_fetch_add(&d->busy, 1);
	fields_of(fd, NULL, f_path, sizeof(f_path), f_key, sizeof(f_key),
		  path, sizeof(path));
	if (fsgate_pid_comm(pid, comm, sizeof(comm)) < 0)
		snprintf(comm, sizeof(comm), "?");
	log_send(LOG_WARNING, fields, "cannot restore %s for %s (pid %d): %s: deny (%s)",
		 path, comm, pid, err == EBUSY ?
		 "too many restores under way (threads + queue)" : strerror(err),
		 fsgate_deny_errno_name(d->s->error_errno));
	return deny(d);
}

static int handle(const struct fanotify_event_metadata *ev, void *arg)
{
	const struct fsgate_info_perm *perm = fsgate_info_perm(ev);
	struct daemon *d = arg;
	uint32_t response;
	struct stub stub;
	char comm[32];
	int r;

	if (ev->fd < 0)
		return 0;
	if (!(ev->mask & PERM_MASK)) {
		close(ev->fd);
		return 0;
	}
	r = stub_of_fd(ev->fd, &stub);
	/*
	 * Not a stub: nothing to do until the file changes (releasing it
	 * makes a new file).
	 */
	if (r == 0)
		response = FSGATE_ALLOW | FSGATE_CACHE;
	else if (r < 0)
		response = bad_stub(d, ev->fd, ev->pid);
	else if (perm && hold_stub(d, ev, perm, &stub) == 0)
		return 0;
	else if (perm)
		response = refuse(d, ev->fd, ev->pid, errno);
	else {
		/* No id (an older group): restored here, the others wait. */
		if (fsgate_pid_comm(ev->pid, comm, sizeof(comm)) < 0)
			snprintf(comm, sizeof(comm), "?");
		response = restore(d, ev->fd, &stub, comm, ev->pid, ev->mask, 1);
	}
	/* Closed first: an exec fails with ETXTBSY while it is open. */
	close(ev->fd);
	if (perm)
		respond_id(d, perm->id, response);
	else if (fsgate_respond(d->group, ev->fd, response) < 0)
		log_warn("answer not taken: %s",
			 fsgate_strerror(FSGATE_CALL_RESPOND, errno));
	return 0;
}

static int drain(struct daemon *d)
{
	static char buf[65536] __attribute__((aligned(8)));

	if (fsgate_events_drain(d->group, buf, sizeof(buf), handle, d) < 0) {
		log_err("read: %s", fsgate_strerror(FSGATE_CALL_READ, errno));
		return -1;
	}
	return 0;
}

/*
 * An access waiting for a restore, its deadline near: more time, or,
 * when it can have no more, denied. Called with the mutex held.
 */
static void keep(struct daemon *d, struct restore *r, struct access *a,
		 uint64_t now)
{
	char path[PATH_MAX], f_path[PATH_MAX + 16], f_key[96];
	const char *fields[] = { f_path, f_key, NULL };

	if (hold_extend(d->group, &a->hold, &d->waits, now) == 0)
		return;
	a->answered = 1;
	if (errno == ENOENT)
		return;
	atomic_fetch_add(&d->outlasted, 1);
	fields_of(r->fd, r->stub.key, f_path, sizeof(f_path), f_key,
		  sizeof(f_key), path, sizeof(path));
	log_send(LOG_WARNING, fields, "restore of %s (%" PRIu64 " bytes) outlasts the longest an open may wait (%u ms): deny (%s); the restore goes on",
		 path, r->stub.size, d->waits.hold_ms,
		 fsgate_deny_errno_name(d->s->error_errno));
	respond_id(d, a->hold.id, deny(d));
}

/*
 * Keep the deadlines of the accesses waiting for restores; milliseconds
 * until it should run again, -1 with none waiting.
 */
static int tick(struct daemon *d)
{
	uint64_t margin = hold_margin_ns(&d->waits);
	uint64_t now = hold_now_ns(), next = UINT64_MAX;
	struct restore *r;
	struct access *a;
	int ms;

	pthread_mutex_lock(&d->mutex);
	for (r = d->all.next_all; r != &d->all; r = r->next_all) {
		for (a = r->waiting; a; a = a->next) {
			if (a->answered || !a->hold.deadline_ns)
				continue;
			if (a->hold.deadline_ns <= now + margin)
				keep(d, r, a, now);
			if (!a->answered && a->hold.deadline_ns - margin < next)
				next = a->hold.deadline_ns - margin;
		}
	}
	ms = d->all.next_all == &d->all ? -1 : hold_wait_ms(next, now);
	pthread_mutex_unlock(&d->mutex);
	return ms;
}

/* 0, or -1 having said why. */
static int pool_start(struct daemon *d)
{
	unsigned int i;
	int err;

	d->tail = &d->head;
	d->all.prev_all = d->all.next_all = &d->all;
	pthread_mutex_init(&d->mutex, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->threads = calloc(d->s->threads, sizeof(*d->threads));
	if (!d->threads) {
		log_err("no memory for %u workers", d->s->threads);
		return -1;
	}
	for (i = 0; i < d->s->threads; i++) {
		err = pthread_create(&d->threads[i], NULL, worker, d);
		if (err) {
			log_err("cannot start a worker: %s", strerror(err));
			return -1;
		}
		d->nthreads++;
	}
	return 0;
}

/*
 * The restores under way end (their deadlines kept meanwhile); those
 * not started are left unanswered: the orphan verdict, or, in a
 * persistent group, the next daemon, decides them.
 */
static void pool_stop(struct daemon *d)
{
	struct timespec pause;
	struct restore *r;
	unsigned int i;
	int busy, ms;

	pthread_mutex_lock(&d->mutex);
	d->stopping = 1;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->mutex);
	for (;;) {
		busy = 0;
		pthread_mutex_lock(&d->mutex);
		for (r = d->all.next_all; r != &d->all; r = r->next_all)
			busy |= r->started;
		pthread_mutex_unlock(&d->mutex);
		if (!busy)
			break;
		ms = tick(d);
		if (ms < 0 || ms > 50)
			ms = 50;
		pause = (struct timespec){ .tv_nsec = ms * 1000000L };
		nanosleep(&pause, NULL);
	}
	for (i = 0; i < d->nthreads; i++)
		pthread_join(d->threads[i], NULL);
	free(d->threads);
}

int hsm_daemon(const struct hsm_settings *s, struct store *st)
{
	static struct daemon d;
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	int sfd, wait_ms = -1;
	sigset_t sigs;
	size_t i;

	if (!s->nwatch) {
		log_err("nothing to watch: give a PATH or watch = in the configuration");
		return 2;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGUSR1);
	/* Blocked before the workers start, so that they inherit it. */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		log_err("signalfd: %s", strerror(errno));
		return 1;
	}
	d.s = s;
	d.store = st;
	d.waits = waits_of(s->timeout_ms);
	if (pool_start(&d) < 0)
		return 1;
	d.group = group_open(s, &d.attached);
	if (d.group < 0)
		return d.group == GROUP_DIFFERS ? 2 : 1;
	log_info("ready: restoring from %s at priority %u on %zu filesystem%s, %u workers, queue %u, an open held up to %u ms",
		 st->path, s->priority, s->nwatch, s->nwatch > 1 ? "s" : "",
		 s->threads, s->queue, d.waits.hold_ms);
	for (i = 0; i < s->nwatch; i++)
		log_info("watching %s", s->watch[i]);
	log_notify("READY=1");
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = d.group, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(pfd, 2, watchdog_poll_ms(wait_ms)) < 0 && errno != EINTR) {
			log_err("poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[0].revents && drain(&d) < 0)
			return 1;
		/* The deadlines of the opens waiting for restores. */
		wait_ms = tick(&d);
		if (!(pfd[1].revents & POLLIN) ||
		    read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR1) {
			log_info("stats: restored %llu (%llu bytes), failed %llu, busy %llu, outlasted %llu",
				 (unsigned long long)d.restored,
				 (unsigned long long)d.bytes,
				 (unsigned long long)d.failed,
				 (unsigned long long)d.busy,
				 (unsigned long long)d.outlasted);
			continue;
		}
		log_info("stopping on signal %u", si.ssi_signo);
		log_notify("STOPPING=1");
		pool_stop(&d);
		/*
		 * Events still unread get the orphan verdict, deny; or, in a
		 * persistent group, wait for the next daemon.
		 */
		close(d.group);
		return 0;
	}
}
