// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-fuzz: the forked processes. Accessors open, read, write,
 * truncate, mmap-write, list and exec files of the scratch tree, each
 * access timed against the run's bound (no access may wait longer than
 * every group it could meet at its longest timeout); daemons own a
 * permission group for a few seconds and answer it well, badly or not at
 * all; readers answer a group fd they inherited.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fsgate.h>

#include "fuzz.h"

/* The errnos fz_response() denies with; fsgate's own deny is EPERM. */
static const int fz_deny_errs[] = { EPERM, EACCES, EIO, EBUSY, ETXTBSY,
				    EAGAIN, ENOSPC, EDQUOT };

bool fz_errno_is_verdict(int err)
{
	unsigned int i;

	for (i = 0; i < sizeof(fz_deny_errs) / sizeof(fz_deny_errs[0]); i++)
		if (err == fz_deny_errs[i])
			return true;
	return false;
}

static void fz_timed(struct fz *fz, const char *what, const char *path,
		     long t0, int ret)
{
	long ms = fz_now_ms() - t0;
	unsigned long prev = atomic_load(&fz->sh->long_wait_ms);
	int err = errno;

	atomic_fetch_add(&fz->sh->accesses, 1);
	if (ret < 0 && fz_errno_is_verdict(err))
		atomic_fetch_add(&fz->sh->access_denied, 1);
	while (ms > (long)prev &&
	       !atomic_compare_exchange_weak(&fz->sh->long_wait_ms, &prev, ms))
		;
	if (ms > fz->sh->bound_ms)
		fz_fail_shared(fz->sh, "%s %s waited %ld ms, past the bound of %ld ms",
			       what, path, ms, fz->sh->bound_ms);
}

static void fz_do_open(struct fz *fz, const char *path, int flags)
{
	char buf[64];
	long t0 = fz_now_ms();
	int fd = open(path, flags | O_NONBLOCK | O_NOCTTY);

	fz_timed(fz, "open", path, t0, fd);
	if (fd < 0)
		return;
	t0 = fz_now_ms();
	if ((flags & O_ACCMODE) == O_WRONLY)
		fz_timed(fz, "write", path, t0, write(fd, "fuzz\n", 5));
	else
		fz_timed(fz, "read", path, t0, read(fd, buf, sizeof(buf)));
	close(fd);
}

static void fz_do_exec(struct fz *fz, const char *path)
{
	long t0 = fz_now_ms();
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(path, "true", (char *)NULL);
		_exit(errno);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	fz_timed(fz, "exec", path, t0, 0);
}

static void fz_do_mmap_write(struct fz *fz, const char *path)
{
	long t0 = fz_now_ms();
	int fd = open(path, O_RDWR | O_NONBLOCK);
	struct stat st;
	char *p;

	fz_timed(fz, "open for mmap", path, t0, fd);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if (st.st_size < 4096 && ftruncate(fd, 4096))
			goto out;
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			p[fz_below(fz, 4096)] = 'x';
			msync(p, 4096, MS_SYNC);
			munmap(p, 4096);
		}
	}
out:
	close(fd);
}

static void fz_do_list(struct fz *fz, const char *path)
{
	long t0 = fz_now_ms();
	DIR *d = opendir(path);

	fz_timed(fz, "opendir", path, t0, d ? 0 : -1);
	if (!d)
		return;
	while (readdir(d))
		;
	closedir(d);
}

static void fz_access_one(struct fz *fz)
{
	char path[256], exe[128];
	long t0;

	fz_object(fz, path, sizeof(path));
	switch (fz_below(fz, 9)) {
	case 0:
	case 1:
		fz_do_open(fz, path, O_RDONLY);
		break;
	case 2:
		fz_do_open(fz, path, O_WRONLY | (fz_chance(fz, 30) ? O_TRUNC : 0) |
			   (fz_chance(fz, 30) ? O_APPEND : 0));
		break;
	case 3:
		snprintf(exe, sizeof(exe), "%s/%s", fz->sh->root,
			 fz_chance(fz, 80) ? "exe" : "f0");
		fz_do_exec(fz, exe);
		break;
	case 4:
		t0 = fz_now_ms();
		fz_timed(fz, "truncate", path, t0,
			 truncate(path, fz_below(fz, 8192)));
		break;
	case 5:
		fz_do_mmap_write(fz, path);
		break;
	case 6:
		fz_do_list(fz, path);
		break;
	case 7:
		fz_do_open(fz, path, O_RDWR | (fz_chance(fz, 20) ? O_CREAT : 0));
		break;
	default:
		t0 = fz_now_ms();
		fz_timed(fz, "open O_PATH", path, t0,
			 open(path, O_PATH | (fz_chance(fz, 50) ? O_NOFOLLOW : 0)));
		break;
	}
}

/*
 * Fork a child of @kind, remembered by the worker: 0 in the child, which
 * goes on with a random stream of its own; its pid, or -1, in the parent.
 * kids_lock is held across, so that no thread reaps the child before it
 * is in the table (the child never takes the lock).
 */
static pid_t fz_fork(struct fz *fz, enum fz_kid_kind kind)
{
	uint64_t r = fz_rand(fz);
	pid_t pid;

	pthread_mutex_lock(&fz->proc->kids_lock);
	pid = fork();
	if (pid == 0) {
		fz->rng ^= r;
		return 0;
	}
	if (pid > 0)
		fz_kid_add_locked(fz->proc, pid, kind);
	pthread_mutex_unlock(&fz->proc->kids_lock);
	return pid;
}

void fz_access_spawn(struct fz *fz)
{
	unsigned int i, n = 1 + fz_below(fz, 4);

	if (fz_kids_count(fz->proc, FZ_KID_ACCESS) >= FZ_KIDS / 2)
		return;
	if (fz_fork(fz, FZ_KID_ACCESS))
		return;
	/* Mostly without the worker's group fds, so closing them orphans. */
	if (fz_chance(fz, 80))
		syscall(SYS_close_range, 3, ~0U, 0);
	for (i = 0; i < n; i++)
		fz_access_one(fz);
	_exit(0);
}

uint32_t fz_response(struct fz *fz)
{
	uint32_t r;

	if (fz_chance(fz, 60))
		r = FSGATE_ALLOW;
	else if (fz_chance(fz, 50))
		r = FSGATE_DENY;
	else
		r = FSGATE_DENY_ERRNO(FZ_PICK(fz, fz_deny_errs));
	if (fz_chance(fz, 15))
		r |= FSGATE_CACHE;
	return r;
}

/*
 * Answer (or not) every event of one read; for daemons and readers. An
 * answer names its event by fd number, as fanotify's does, so a second
 * answer to one event must find nothing only where no other pending
 * event can have that number: in a daemon (@own), whose group is its
 * own and which keeps the fd of each event it leaves unanswered open.
 */
static void fz_serve(struct fz *fz, int g, int answer_percent, bool own)
{
	struct fanotify_event_metadata ev[16];
	struct fanotify_response resp;
	struct pollfd pfd = { .fd = g, .events = POLLIN };
	ssize_t len, off;

	if (poll(&pfd, 1, 50) <= 0)
		return;
	len = read(g, ev, sizeof(ev));
	for (off = 0; len > 0 && off + (ssize_t)sizeof(*ev) <= len;
	     off += sizeof(*ev)) {
		const struct fanotify_event_metadata *e = &ev[off / sizeof(*ev)];

		if (e->fd < 0)
			continue;
		if (!(e->mask & FSGATE_PERM_EVENTS)) {
			close(e->fd);
		} else if (fz_chance(fz, answer_percent)) {
			resp.fd = e->fd;
			resp.response = fz_response(fz);
			if (write(g, &resp, sizeof(resp)) < 0 && errno != ENOENT)
				fz_fail_shared(fz->sh, "a daemon's answer: %s",
					       strerror(errno));
			if (own && fz_chance(fz, 5) &&
			    write(g, &resp, sizeof(resp)) >= 0)
				fz_fail_shared(fz->sh, "a second answer to one event was taken");
			close(e->fd);
		} else if (!own) {
			close(e->fd);
		}
	}
}

void fz_daemon_spawn(struct fz *fz)
{
	static const unsigned int timeouts[] = {
		FSGATE_TIMEOUT_NONE, FSGATE_TIMEOUT_DEFAULT, 100, 1000,
		FZ_TIMEOUT_MAX_MS,
	};
	static const unsigned int prios[] = {
		FSGATE_PRIORITY_DEFAULT, 0, 1000, 2000, 2500, 3000, 65535,
	};
	struct fsgate_init init = { 0 };
	char path[256];
	int g, answer;

	if (fz_kids_count(fz->proc, FZ_KID_DAEMON) >= FZ_DAEMONS)
		return;
	if (fz_fork(fz, FZ_KID_DAEMON))
		return;
	/* SIGALRM's default action ends it: its group goes, orphaned. */
	alarm(1 + fz_below(fz, FZ_DAEMON_LIFE_S));
	init.flags = (fz_chance(fz, 50) ? FSGATE_CLASS_CONTENT :
		      FSGATE_CLASS_PRE_CONTENT) | FSGATE_NONBLOCK |
		     (fz_chance(fz, 30) ? FSGATE_EXCLUDE_SELF : 0);
	init.event_f_flags = fz_chance(fz, 80) ? O_RDONLY : O_RDWR;
	init.priority = FZ_PICK(fz, prios);
	init.timeout_ms = FZ_PICK(fz, timeouts);
	init.timeout_verdict = fz_below(fz, 3);
	init.orphan_verdict = fz_below(fz, 3);
	/* The worker's /dev/fsgate: an open now could be denied. */
	g = ioctl(fz->proc->dev, FSGATE_IOC_INIT, &init);
	if (g < 0)
		_exit(0);
	/* Only its own group fd: its death orphans its events. */
	syscall(SYS_close_range, 3, g - 1, 0);
	syscall(SYS_close_range, g + 1, ~0U, 0);
	if (fz_chance(fz, 50))
		fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
			    FSGATE_PERM_EVENTS | FAN_CLOSE_WRITE, AT_FDCWD,
			    fz->sh->root);
	else
		fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_INODE,
			    FSGATE_PERM_EVENTS | FAN_EVENT_ON_CHILD | FAN_ONDIR,
			    AT_FDCWD, fz_object(fz, path, sizeof(path)));
	/* Some answer everything, some a part, some nothing at all. */
	answer = FZ_PICK(fz, ((const int[]){ 100, 100, 90, 50, 0 }));
	for (;;)
		fz_serve(fz, g, answer, true);
}

void fz_reader_spawn(struct fz *fz, int g)
{
	long end;

	if (fz_fork(fz, FZ_KID_READER))
		return;
	alarm(2);
	end = fz_now_ms() + 100 + fz_below(fz, 900);
	while (fz_now_ms() < end)
		fz_serve(fz, g, 90, false);
	if (fz_chance(fz, 50))
		close(g);
	_exit(0);
}
