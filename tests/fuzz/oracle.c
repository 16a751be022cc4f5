// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-fuzz: the verdict oracle. One scripted group, in a process of
 * its own made before any worker, is asked about every open of the files
 * in v/ and of the overlay ov/ over them, and answers what their names
 * say: deny-* denied, everything else allowed. Its timeout and orphan
 * verdicts deny too, so whatever happens to it (answers too late or
 * never, the group replaced and closed with events pending, a helper
 * that reads its events killed, its cache flushed, verdicts cached) an
 * open of a deny-* file must fail: other groups may deny any file, but
 * none can make fsgate allow what one group denies. An accessor whose
 * open of a deny-* file works fails the run, naming the file and seed.
 * (The other direction, allow-* never denied, cannot be checked: any
 * fuzzed group may deny them.)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fsgate.h>

#include "fuzz.h"

/* The directories whose children it decides (inode marks, on children). */
static const char *const fz_oracle_dirs[] = { "v", "ov" };
#define FZ_ORACLE_LATE	8	/* events it answers late, or never */
#define FZ_ORACLE_GONE	16	/* ids left on a closed fd, to see again */

struct fz_oracle {
	struct fz fz;
	int g;			/* its group */
	bool shared;		/* a helper read it: answer by id only */
	pid_t helper;
	int late_fd[FZ_ORACLE_LATE];
	uint64_t late_id[FZ_ORACLE_LATE];
	uint32_t late_verdict[FZ_ORACLE_LATE];
	long late_at[FZ_ORACLE_LATE];
	/* Its group's name if it is persistent, else "". */
	char name[FZ_PNAME_LEN];
	unsigned int seq;
	uint64_t gone[FZ_ORACLE_GONE];
	unsigned int gone_next;
};

static bool fz_oracle_denies(const char *path)
{
	const char *base = strrchr(path, '/');

	return base && !strncmp(base + 1, "deny-", 5);
}

void fz_oracle_check(struct fz *fz, const char *path, int flags)
{
	if (!(flags & O_PATH) && fz_oracle_denies(path))
		fz_fail_shared(fz->sh, "oracle: open of %s (flags 0%o) worked; the scripted group denies it",
			       path, flags);
}

void fz_oracle_refused(struct fz *fz, const char *path, int err)
{
	if (fz_oracle_denies(path) && fz_errno_is_verdict(err))
		atomic_fetch_add(&fz->sh->oracle_refused, 1);
}

/* What it answers for the file of event fd @fd: its name says. */
static uint32_t fz_oracle_verdict(struct fz *fz, int fd)
{
	static const int errs[] = { 0, 0, EACCES, EIO, EAGAIN };
	char link[64], path[256];
	ssize_t n;
	uint32_t r;
	int err;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = 0;
	/* A file it cannot name, it denies: it fails closed. */
	if (n <= 0 || fz_oracle_denies(path)) {
		err = FZ_PICK(fz, errs);
		r = err ? FSGATE_DENY_ERRNO(err) : FSGATE_DENY;
	} else {
		r = FSGATE_ALLOW;
	}
	return r | (fz_chance(fz, 30) ? FSGATE_CACHE : 0);
}

/* Answer, by id where another process reads the group too. */
static void fz_oracle_answer(struct fz_oracle *o, int fd, uint64_t id,
			     uint32_t verdict, bool shared)
{
	struct fz *fz = &o->fz;
	long ret;

	if (fz_chance(fz, 10)) {
		ret = fsgate_extend(o->g, id, 1 + fz_below(fz, 500));
		fz_check(fz, "the oracle's fsgate_extend", ret, FZ_ERRNOS(ENOENT));
	}
	if (shared || fz_chance(fz, 50))
		ret = fsgate_respond_id(o->g, id, verdict);
	else
		ret = fsgate_respond(o->g, fd, verdict);
	fz_check(fz, "the oracle's answer", ret, FZ_ERRNOS(ENOENT));
	if (!ret)
		fz_answered(fz->proc, id);
	atomic_fetch_add(&fz->sh->oracle_asked, 1);
	if (!ret && (verdict & FSGATE_DENY))
		atomic_fetch_add(&fz->sh->oracle_denied, 1);
}

static void fz_oracle_late_drop(struct fz_oracle *o, unsigned int i)
{
	if (o->late_fd[i] >= 0)
		close(o->late_fd[i]);
	o->late_fd[i] = -1;
}

/* Answer one event now, or keep it to answer late (past its timeout) or never. */
static void fz_oracle_event(struct fz *fz, const struct fz_event *ev, void *arg)
{
	struct fz_oracle *o = arg;
	unsigned int i = fz_below(fz, FZ_ORACLE_LATE), j;
	int fd = ev->meta->fd;

	/* One it left unanswered on a closed fd, again, by its id. */
	for (j = 0; ev->id && j < FZ_ORACLE_GONE; j++) {
		if (o->gone[j] == ev->id) {
			o->gone[j] = 0;
			atomic_fetch_add(&fz->sh->oracle_rereported, 1);
		}
	}

	if (!o->shared && fz_chance(fz, 15)) {
		fz_oracle_late_drop(o, i);
		o->late_fd[i] = fd;
		o->late_id[i] = ev->id;
		o->late_verdict[i] = fz_oracle_verdict(fz, fd);
		o->late_at[i] = fz_now_ms() + fz_below(fz, 1500);
		return;
	}
	fz_oracle_answer(o, fd, ev->id, fz_oracle_verdict(fz, fd), o->shared);
	close(fd);
}

/* Read once; answer the kept events whose time came. */
static void fz_oracle_serve(struct fz_oracle *o, unsigned int gflags)
{
	char buf[4096] __attribute__((aligned(8)));
	struct fz *fz = &o->fz;
	unsigned int i;
	ssize_t len;

	len = fz_read_timed(fz, o->g, buf, sizeof(buf));
	fz_check(fz, "the oracle's read", len, FZ_ERRNOS(EAGAIN, EMFILE));
	fz_events(fz, gflags, buf, len, fz_oracle_event, o);
	for (i = 0; i < FZ_ORACLE_LATE; i++) {
		if (o->late_fd[i] < 0 || fz_now_ms() < o->late_at[i])
			continue;
		/* A few are never answered: their timeout verdict denies. */
		if (fz_chance(fz, 70))
			fz_oracle_answer(o, o->late_fd[i], o->late_id[i],
					 o->late_verdict[i], o->shared);
		fz_oracle_late_drop(o, i);
	}
}

/*
 * Make group @g persistent as "fzo-<n>", in @name, at times: its absent
 * verdict denies, its absent bound is short and its linger bound far
 * longer than the oracle ever stays away, so that it is never torn down
 * but by the oracle (a group torn down asks nothing: deny-* would open).
 */
static void fz_oracle_persist(struct fz_oracle *o, int g, char *name)
{
	struct fz *fz = &o->fz;
	struct fsgate_persist req;
	char n[FZ_PNAME_LEN];
	long ret;

	name[0] = 0;
	if (!(fz->sh->features & FSGATE_FEATURE_PERSIST) || fz_chance(fz, 40))
		return;
	snprintf(n, sizeof(n), "fzo-%u", o->seq++);
	fz_persist_req(fz, &req, n, true);
	if (req.absent_ms > 300)
		req.absent_ms = 300;
	if (!(req.flags & FSGATE_PERSIST_UNTIL_REMOVED))
		req.linger_ms = 30000;
	ret = ioctl(g, FSGATE_IOC_PERSIST, &req);
	/* max_persistent_groups, fuzzed, may be reached. */
	fz_check(fz, "the oracle's FSGATE_IOC_PERSIST", ret,
		 FZ_ERRNOS(ENOSPC, ENOMEM));
	if (ret)
		return;
	snprintf(name, FZ_PNAME_LEN, "%s", n);
	atomic_fetch_add(&fz->sh->oracle_persisted, 1);
}

/* Remove the oracle's persistent group @name: attached, it is there. */
static void fz_oracle_remove(struct fz_oracle *o, const char *name)
{
	struct fsgate_attach req = { 0 };

	if (!name[0])
		return;
	snprintf(req.name, sizeof(req.name), "%s", name);
	if (ioctl(o->fz.proc->dev, FSGATE_IOC_REMOVE, &req))
		fz_fail(&o->fz, "FSGATE_IOC_REMOVE of its group \"%s\": %s",
			name, strerror(errno));
}

static int fz_oracle_attach(struct fz_oracle *o)
{
	struct fsgate_attach req = {
		.flags = FSGATE_NONBLOCK | FSGATE_CLOEXEC,
	};

	snprintf(req.name, sizeof(req.name), "%s", o->name);
	return ioctl(o->fz.proc->dev, FSGATE_IOC_ATTACH, &req);
}

/*
 * Its group: asked about opens and execs of v/'s and ov/'s children,
 * denying on timeout and orphaning, with ids to answer by, persistent at
 * times (its name in @name); -1 if the fuzzed parameters (max_groups)
 * refuse one now.
 */
static int fz_oracle_group(struct fz_oracle *o, unsigned int *gflags,
			   char *name)
{
	static const unsigned int timeouts[] = { 50, 300, 1000 };
	struct fz *fz = &o->fz;
	struct fsgate_init init = {
		.flags = (fz_chance(fz, 50) ? FSGATE_CLASS_CONTENT :
			  FSGATE_CLASS_PRE_CONTENT) | FSGATE_NONBLOCK |
			 FSGATE_CLOEXEC | FSGATE_REPORT_PERM |
			 FSGATE_UNLIMITED_QUEUE | FSGATE_UNLIMITED_MARKS |
			 (fz_chance(fz, 30) ? FSGATE_REPORT_PROC : 0),
		.event_f_flags = O_RDONLY,
		.priority = fz_below(fz, 4) * 1000,
		.timeout_ms = FZ_PICK(fz, timeouts),
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};
	char path[128];
	unsigned int i;
	int g = ioctl(fz->proc->dev, FSGATE_IOC_INIT, &init);

	if (g < 0)
		return -1;
	for (i = 0; i < sizeof(fz_oracle_dirs) / sizeof(fz_oracle_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fz->sh->root,
			 fz_oracle_dirs[i]);
		if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_INODE,
				FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM |
				FAN_EVENT_ON_CHILD | FAN_ONDIR, AT_FDCWD,
				path)) {
			close(g);
			return -1;
		}
	}
	*gflags = init.flags;
	fz_oracle_persist(o, g, name);
	return g;
}

/* A helper that reads the group for a while, perhaps killed meanwhile. */
static void fz_oracle_helper(struct fz_oracle *o, unsigned int gflags)
{
	long end;

	o->shared = true;
	o->helper = fork();
	if (o->helper)
		return;
	prctl(PR_SET_NAME, "fz-oracle-help");
	o->fz.rng ^= fz_rand(&o->fz) ^ getpid();
	end = fz_now_ms() + 100 + fz_below(&o->fz, 1000);
	while (fz_now_ms() < end) {
		struct pollfd pfd = { .fd = o->g, .events = POLLIN };

		if (poll(&pfd, 1, 20) > 0)
			fz_oracle_serve(o, gflags);
	}
	_exit(0);
}

static void fz_oracle_helper_end(struct fz_oracle *o, bool kill_it)
{
	if (o->helper <= 0)
		return;
	if (kill_it)
		kill(o->helper, SIGKILL);
	if (waitpid(o->helper, NULL, kill_it ? 0 : WNOHANG) == o->helper)
		o->helper = 0;
}

/*
 * Its persistent group's fd is about to close: the events it keeps to
 * answer late are left unanswered, to be re-reported with their ids.
 */
static void fz_oracle_leave(struct fz_oracle *o)
{
	unsigned int i;

	for (i = 0; i < FZ_ORACLE_LATE; i++) {
		if (o->late_fd[i] >= 0 && o->late_id[i])
			o->gone[o->gone_next++ % FZ_ORACLE_GONE] = o->late_id[i];
		fz_oracle_late_drop(o, i);
	}
}

/*
 * Away: its persistent group's only fd closed for up to 0.8 s, so that
 * accesses wait up to its absent bound and then get its absent verdict,
 * deny; then attached again by name. Or a handover: a second fd
 * attached first, through which an answer to an event the first read
 * must fail (ENOENT), then the first closed.
 */
static void fz_oracle_move(struct fz_oracle *o, bool handover)
{
	struct fz *fz = &o->fz;
	unsigned int i, tried = 0;
	int ng = -1;
	long ret;

	if (!o->name[0])
		return;
	fz_oracle_helper_end(o, true);
	if (handover) {
		ng = fz_oracle_attach(o);
		fz_check(fz, "the oracle's FSGATE_IOC_ATTACH", ng,
			 FZ_ERRNOS(EMFILE, ENFILE, ENOMEM));
		if (ng < 0)
			return;
		for (i = 0; i < FZ_ORACLE_LATE && tried < 2; i++) {
			if (o->late_fd[i] < 0 || !o->late_id[i])
				continue;
			tried++;
			ret = fz_chance(fz, 50) ?
			      fsgate_respond_id(ng, o->late_id[i],
						o->late_verdict[i]) :
			      fsgate_respond(ng, o->late_fd[i],
					     o->late_verdict[i]);
			if (!ret)
				fz_fail(fz, "event %llu, read through one fd of \"%s\", was answered through another",
					(unsigned long long)o->late_id[i],
					o->name);
			else if (errno != ENOENT)
				fz_fail(fz, "an answer through another fd of \"%s\": %s, not ENOENT",
					o->name, strerror(errno));
			else
				atomic_fetch_add(&fz->sh->cross_fd_refused, 1);
		}
	}
	fz_oracle_leave(o);
	close(o->g);
	o->g = ng;
	o->shared = false;
	if (handover) {
		atomic_fetch_add(&fz->sh->oracle_handovers, 1);
		return;
	}
	usleep(1000 * fz_below(fz, 800));
	o->g = fz_oracle_attach(o);
	if (o->g < 0) {
		/* Its linger bound is far: nothing may have removed it. */
		fz_fail(fz, "the oracle's FSGATE_IOC_ATTACH to \"%s\" after 0.8 s away: %s",
			o->name, strerror(errno));
		_exit(1);
	}
	atomic_fetch_add(&fz->sh->oracle_away, 1);
}

void fz_oracle_main(struct fz_shared *sh)
{
	static struct fz_proc proc;
	struct fz_oracle o = {
		.fz = { .sh = sh, .proc = &proc, .worker = -1, .thread = -1,
			.rng = (sh->seed * 0x9E3779B97F4A7C15ULL) | 1 },
	};
	struct pollfd pfd;
	unsigned int gflags, nflags, i;
	char nname[FZ_PNAME_LEN];
	bool before;
	int ng;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "fz-oracle");
	for (i = 0; i < FZ_ORACLE_LATE; i++)
		o.late_fd[i] = -1;
	proc.dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC);
	o.g = proc.dev < 0 ? -1 : fz_oracle_group(&o, &gflags, o.name);
	if (o.g < 0) {
		fz_fail_shared(sh, "the oracle's group: %s", strerror(errno));
		atomic_store(&sh->oracle_ready, -1);
		exit(1);
	}
	atomic_store(&sh->oracle_ready, 1);
	while (!atomic_load(&sh->oracle_stop)) {
		pfd = (struct pollfd){ .fd = o.g, .events = POLLIN };
		if (poll(&pfd, 1, 20) > 0)
			fz_oracle_serve(&o, gflags);
		fz_oracle_helper_end(&o, false);
		switch (fz_below(&o.fz, 200)) {
		case 0:
		case 1:
			/* A new group first, then the old one closed. */
			ng = fz_oracle_group(&o, &nflags, nname);
			if (ng < 0)
				break;
			fz_oracle_helper_end(&o, true);
			for (i = 0; i < FZ_ORACLE_LATE; i++)
				fz_oracle_late_drop(&o, i);
			/* A persistent one goes by its removal, before or after. */
			before = fz_chance(&o.fz, 50);
			if (before)
				fz_oracle_remove(&o, o.name);
			close(o.g);
			if (!before)
				fz_oracle_remove(&o, o.name);
			snprintf(o.name, sizeof(o.name), "%s", nname);
			o.g = ng;
			gflags = nflags;
			o.shared = false;
			break;
		case 2:
		case 3:
			fz_check(&o.fz, "the oracle's cache flush",
				 fsgate_cache_flush(o.g, -1), FZ_ERRNOS(ENOMEM));
			break;
		case 4:
			if (o.helper <= 0)
				fz_oracle_helper(&o, gflags);
			break;
		case 5:
			fz_oracle_helper_end(&o, true);
			break;
		case 6:
			fz_oracle_move(&o, false);
			break;
		case 7:
			fz_oracle_move(&o, true);
			break;
		}
	}
	fz_oracle_helper_end(&o, true);
	/* The module unloads after the run: no persistent group is left. */
	fz_oracle_remove(&o, o.name);
	exit(0);
}
