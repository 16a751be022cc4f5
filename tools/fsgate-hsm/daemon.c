// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-hsm's daemon: a pre-content group (priority 3000, asked before
 * any scanner) marks the watched filesystems for opens and execs. A stub
 * is restored through the event's fd, which fsgate opens read-write for
 * it, its checksum verified on the way, before the access is allowed;
 * groups asked after it (a scanner at 2000) read the restored content.
 *
 * Events are handled one at a time, in the order they come: when twenty
 * processes open one stub at once, the first event restores it and
 * drops its attribute, and the nineteen after find a plain file. The
 * writable event fd is closed before the answer: an exec of the file
 * fails with ETXTBSY while any writable fd of it is open (fsgate matches
 * an answer to its event by the fd's number, which stays free meanwhile
 * since this thread opens nothing in between).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/group.h"
#include "common/log.h"
#include "common/watchdog.h"
#include "hsm.h"

#define PERM_MASK (FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM)

struct daemon {
	const struct hsm_settings *s;
	struct store *store;
	int group, attached;
	unsigned long long restored, failed, bytes;
};

/* The group the daemon asks fsgate for. */
static struct fsgate_init group_init(const struct hsm_settings *s)
{
	return (struct fsgate_init){
		/* Its own reads of the store never wait for itself. */
		.flags = FSGATE_CLASS_PRE_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_EXCLUDE_SELF,
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

/* Restore if a stub; the answer. */
static uint32_t decide(struct daemon *d, const struct fanotify_event_metadata *ev)
{
	char path[PATH_MAX], comm[32], f_path[PATH_MAX + 16], f_key[96];
	const char *fields[] = { f_path, f_key, NULL };
	struct stub stub;
	int r;

	r = stub_of_fd(ev->fd, &stub);
	/*
	 * Not a stub: nothing to do until the file changes (releasing it
	 * makes a new file).
	 */
	if (r == 0)
		return FSGATE_ALLOW | FSGATE_CACHE;
	if (fsgate_fd_path(ev->fd, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "?");
	if (fsgate_pid_comm(ev->pid, comm, sizeof(comm)) < 0)
		snprintf(comm, sizeof(comm), "?");
	snprintf(f_path, sizeof(f_path), "FSGATE_PATH=%s", path);
	if (r < 0) {
		snprintf(f_key, sizeof(f_key), "FSGATE_KEY=");
		log_send(LOG_ERR, fields, "cannot restore %s for %s (pid %d): bad %s attribute: deny (%s)",
			 path, comm, ev->pid, HSM_XATTR,
			 fsgate_deny_errno_name(d->s->error_errno));
		d->failed++;
		return FSGATE_DENY_ERRNO(d->s->error_errno);
	}
	snprintf(f_key, sizeof(f_key), "FSGATE_KEY=sha256:%s", stub.key);
	if (hsm_restore_fd(d->store, ev->fd, &stub) < 0) {
		log_send(LOG_ERR, fields, "cannot restore %s (sha256:%.16s) for %s (pid %d): %s: deny (%s)",
			 path, stub.key, comm, ev->pid, store_strerror(errno),
			 fsgate_deny_errno_name(d->s->error_errno));
		d->failed++;
		return FSGATE_DENY_ERRNO(d->s->error_errno);
	}
	d->restored++;
	d->bytes += stub.size;
	log_send(LOG_INFO, fields, "restored %s (%" PRIu64 " bytes) for %s (pid %d)%s",
		 path, stub.size, comm, ev->pid,
		 ev->mask & FAN_OPEN_EXEC_PERM ? ", an exec" : "");
	/*
	 * Restored files need the daemon no more: an ignore mask lasts until
	 * the file is written to.
	 */
	if (fsgate_mark(d->group, FSGATE_MARK_ADD | FSGATE_MARK_INODE |
			FSGATE_MARK_IGNORED_MASK, PERM_MASK, ev->fd, NULL) < 0)
		log_warn("cannot ignore the restored %s: %s", path,
			 fsgate_strerror(FSGATE_CALL_MARK, errno));
	return FSGATE_ALLOW;
}

static int handle(const struct fanotify_event_metadata *ev, void *arg)
{
	struct daemon *d = arg;
	uint32_t response;

	if (ev->fd < 0)
		return 0;
	if (!(ev->mask & PERM_MASK)) {
		close(ev->fd);
		return 0;
	}
	response = decide(d, ev);
	/* Closed first: an exec fails with ETXTBSY while it is open. */
	close(ev->fd);
	if (fsgate_respond(d->group, ev->fd, response) < 0)
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

int hsm_daemon(const struct hsm_settings *s, struct store *st)
{
	struct daemon d = { .s = s, .store = st };
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	sigset_t sigs;
	int sfd;
	size_t i;

	if (!s->nwatch) {
		log_err("nothing to watch: give a PATH or watch = in the configuration");
		return 2;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		log_err("signalfd: %s", strerror(errno));
		return 1;
	}
	d.group = group_open(s, &d.attached);
	if (d.group < 0)
		return d.group == GROUP_DIFFERS ? 2 : 1;
	log_info("ready: restoring from %s at priority %u on %zu filesystem%s",
		 st->path, s->priority, s->nwatch, s->nwatch > 1 ? "s" : "");
	for (i = 0; i < s->nwatch; i++)
		log_info("watching %s", s->watch[i]);
	log_notify("READY=1");
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = d.group, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(pfd, 2, watchdog_poll_ms(-1)) < 0 && errno != EINTR) {
			log_err("poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[0].revents && drain(&d) < 0)
			return 1;
		if (!(pfd[1].revents & POLLIN) ||
		    read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR1) {
			log_info("stats: restored %llu (%llu bytes), failed %llu",
				 d.restored, d.bytes, d.failed);
			continue;
		}
		log_info("stopping on signal %u", si.ssi_signo);
		log_notify("STOPPING=1");
		/*
		 * Events still unread get the orphan verdict, deny; or, in a
		 * persistent group, wait for the next daemon.
		 */
		close(d.group);
		return 0;
	}
}
