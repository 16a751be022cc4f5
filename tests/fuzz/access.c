// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-fuzz: the forked processes. Accessors open, read, write,
 * truncate, mmap-write, list and exec files of the scratch tree, each
 * access timed against the run's bound (no access may wait longer than
 * every group it could meet at its longest timeout); daemons own a
 * permission group for a few seconds and answer it well, badly or not at
 * all; readers answer a group fd they inherited. And the processes of
 * a local user's ways to stall or read through a group: an unprivileged
 * lease holder, a FUSE server that never answers an open (stallfs), a
 * group fd's holder that dropped its privileges.
 */
#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
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
	if (strstr(path, "/ov/"))
		atomic_fetch_add(&fz->sh->overlay_accesses, 1);
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
	if (fd < 0) {
		fz_oracle_refused(fz, path, errno);
		return;
	}
	fz_oracle_check(fz, path, flags);
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
	if (fd < 0) {
		fz_oracle_refused(fz, path, errno);
		return;
	}
	fz_oracle_check(fz, path, O_RDWR);
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
	static const char *const names[] = {
		[FZ_KID_ACCESS] = "fz-access", [FZ_KID_DAEMON] = "fz-daemon",
		[FZ_KID_READER] = "fz-reader", [FZ_KID_LEASE] = "fz-lease",
		[FZ_KID_FUSE] = "fz-fuse", [FZ_KID_NOBODY] = "fz-nobody",
		[FZ_KID_ATTACHED] = "fz-attached",
	};
	uint64_t r = fz_rand(fz);
	pid_t pid;

	pthread_mutex_lock(&fz->proc->kids_lock);
	pid = fork();
	if (pid == 0) {
		fz->rng ^= r;
		/* Named by kind, so that a dump of a stuck run says which. */
		prctl(PR_SET_NAME, names[kind]);
		return 0;
	}
	if (pid > 0) {
		fz_kid_add_locked(fz->proc, pid, kind);
		fz_ok(fz);
	}
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
 * answer names its event by fd number, as fanotify's does, or by id, so
 * a second answer to one event must find nothing only where no other
 * pending event can have that number: in a daemon (FZ_SERVE_OWN), whose
 * group is its own and which keeps the fd of each event it leaves
 * unanswered open. Others answer by id where the event has one.
 */
struct fz_serve_arg {
	int g;
	unsigned int gflags, serve;
	int percent;
};

static void fz_serve_one(struct fz *fz, const struct fz_event *ev, void *arg)
{
	const struct fz_serve_arg *a = arg;
	bool own = a->serve & FZ_SERVE_OWN;
	int fd = ev->meta->fd;

	if (!(ev->meta->mask & FSGATE_PERM_EVENTS)) {
		close(fd);
	} else if (fz_chance(fz, a->percent)) {
		if (!fz_answer(fz, a->g, a->gflags, fd, ev->id,
			       own ? FZ_ANY : FZ_SHARED) &&
		    own && fz_chance(fz, 5) &&
		    fsgate_respond(a->g, fd, FSGATE_ALLOW) >= 0)
			fz_fail(fz, "a second answer to one event was taken");
		close(fd);
	} else if (!own) {
		close(fd);
	}
}

void fz_serve(struct fz *fz, int g, unsigned int gflags, int percent,
	      unsigned int serve)
{
	char buf[4096] __attribute__((aligned(8)));
	struct fz_serve_arg a = {
		.g = g, .gflags = gflags, .serve = serve, .percent = percent,
	};
	struct pollfd pfd = { .fd = g, .events = POLLIN };
	ssize_t len;

	if (poll(&pfd, 1, 50) <= 0)
		return;
	len = fz_read_timed(fz, g, buf, sizeof(buf));
	fz_check(fz, "read", len, fz_read_errnos);
	fz_events(fz, gflags, buf, len, fz_serve_one, &a);
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
		fz_serve(fz, g, init.flags, answer, FZ_SERVE_OWN);
}

void fz_reader_spawn(struct fz *fz, int g, unsigned int gflags)
{
	long end;

	if (fz_fork(fz, FZ_KID_READER))
		return;
	alarm(2);
	end = fz_now_ms() + 100 + fz_below(fz, 900);
	while (fz_now_ms() < end)
		fz_serve(fz, g, gflags, 90, 0);
	if (fz_chance(fz, 50))
		close(g);
	_exit(0);
}

pid_t fz_attached_spawn(struct fz *fz, const char *name, unsigned int gflags)
{
	struct fsgate_attach req = {
		.flags = fz_chance(fz, 50) ? FSGATE_NONBLOCK : 0,
	};
	pid_t pid = fz_fork(fz, FZ_KID_ATTACHED);
	int g;

	if (pid)
		return pid;
	alarm(3);
	snprintf(req.name, sizeof(req.name), "%s", name);
	g = ioctl(fz->proc->dev, FSGATE_IOC_ATTACH, &req);
	/* Removed meanwhile, or gone by its linger bound. */
	fz_check(fz, "FSGATE_IOC_ATTACH in a reader", g,
		 FZ_ERRNOS(ENOENT, EMFILE, ENFILE, ENOMEM));
	if (g < 0)
		_exit(0);
	gflags = (gflags & ~(FSGATE_NONBLOCK | FSGATE_CLOEXEC)) | req.flags;
	/* A blocking read waits after poll when others took the event. */
	for (;;)
		fz_serve(fz, g, gflags, 30, 0);
}

int fz_drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

/* In a new child: drop to uid 65534 (no capabilities) or fail and end. */
static void fz_become_nobody(struct fz *fz)
{
	if (fz_drop_to_nobody()) {
		fz_fail(fz, "dropping to uid 65534: %s", strerror(errno));
		_exit(1);
	}
	/* So that /proc/self/fd stays its own (fz_event_fd_check()). */
	prctl(PR_SET_DUMPABLE, 1);
}

/*
 * A local user's lease on its own file (u/leaseN, of uid 65534), held
 * until the next pause while the SIGIO of every break is ignored: no
 * group's read() may wait for it (fz_read_timed()), and the accessors
 * that open the file meet it.
 */
void fz_lease_spawn(struct fz *fz)
{
	char path[128];
	int fd, type = fz_chance(fz, 50) ? F_WRLCK : F_RDLCK;

	if (fz_kids_count(fz->proc, FZ_KID_LEASE) || fz_fork(fz, FZ_KID_LEASE))
		return;
	alarm(FZ_HOLDER_LIFE_S);
	signal(SIGIO, SIG_IGN);
	syscall(SYS_close_range, 3, ~0U, 0);
	fz_become_nobody(fz);
	snprintf(path, sizeof(path), "%s/" FZ_LEASE_FILE, fz->sh->root,
		 fz->worker);
	fd = open(path, O_RDONLY);
	/* Its own open may be denied; a lease, refused while others have it open. */
	if (fd < 0 || fcntl(fd, F_SETLEASE, type)) {
		fz_check(fz, "a lease", -1,
			 FZ_ERRNOS(EAGAIN, EBUSY, EPERM, EACCES, EIO, ETXTBSY,
				   ENOSPC, EDQUOT));
		_exit(0);
	}
	pause();
	_exit(0);
}

/*
 * One of the worker's groups marks the new FUSE filesystem and an
 * accessor opens its file, which waits until the server dies: the group
 * must get its event at once, with an O_PATH fd.
 */
static void fz_fuse_watch(struct fz *fz, const char *mnt)
{
	char path[160];
	unsigned int slot;
	int g = fz_slot_get(fz, &slot);

	if (g >= 0) {
		fz_check(fz, "a mark of the FUSE mount",
			 fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				     (fz->proc->slot_flags[slot] &
				      FSGATE_CLASS_MASK) ? FAN_OPEN_PERM :
				     FAN_OPEN | FAN_OPEN_EXEC,
				     AT_FDCWD, mnt),
			 FZ_ERRNOS(ENODEV, ENOSPC, ENOMEM, EEXIST, ENOTCONN,
				   ECONNABORTED));
		fz_slot_put(fz);
	}
	snprintf(path, sizeof(path), "%s/file", mnt);
	if (fz_fork(fz, FZ_KID_ACCESS))
		return;
	syscall(SYS_close_range, 3, ~0U, 0);
	fz_do_open(fz, path, O_RDONLY);
	_exit(0);
}

/*
 * stallfs on the worker's fu<N>: a FUSE server that answers lookups and
 * never an open, until it is killed (op_fuse, a pause, its alarm, which
 * the exec keeps); killing it ends the opens it held. Events on its file
 * must come with O_PATH fds (fz_event_fd_check()) and no read may wait.
 */
void fz_fuse_spawn(struct fz *fz)
{
	char mnt[128], line[8] = "";
	struct pollfd pfd;
	int p[2];
	pid_t pid;

	if (fz_kids_count(fz->proc, FZ_KID_FUSE) ||
	    atomic_exchange(&fz->proc->fuse_busy, 1))
		return;
	snprintf(mnt, sizeof(mnt), "%s/" FZ_FUSE_DIR, fz->sh->root, fz->worker);
	/* The last server's mount, dead: ENOTCONN for all. */
	umount2(mnt, MNT_DETACH);
	if (pipe2(p, O_CLOEXEC))
		goto out;
	pid = fz_fork(fz, FZ_KID_FUSE);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		syscall(SYS_close_range, 3, ~0U, 0);
		alarm(FZ_HOLDER_LIFE_S);
		execl(FZ_STALLFS, FZ_STALLFS, mnt, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	/* Its exec or /dev/fuse's open may be denied by a fuzzed group. */
	if (pid > 0 && (poll(&pfd, 1, 10000) <= 0 ||
			read(p[0], line, sizeof(line)) != 6 ||
			memcmp(line, "ready\n", 6))) {
		atomic_fetch_add(&fz->sh->errors[fz->op], 1);
		atomic_fetch_sub(&fz->sh->oks[fz->op], 1);
		kill(pid, SIGKILL);
	} else if (pid > 0) {
		fz_fuse_watch(fz, mnt);
	}
	close(p[0]);
out:
	atomic_store(&fz->proc->fuse_busy, 0);
}

/*
 * Uid 65534, without CAP_SYS_ADMIN and owning none of the worker's
 * persistent groups, may make no group persistent, attach to none and
 * remove none: EPERM (ENOENT for a name gone since the fork).
 */
static void fz_nobody_persist(struct fz *fz, int g)
{
	struct fsgate_persist req;
	struct fsgate_attach a = { .flags = FSGATE_NONBLOCK };
	char name[FZ_PNAME_LEN];
	unsigned int i;
	long ret;

	snprintf(name, sizeof(name), "fz%d-nobody", fz->worker);
	fz_persist_req(fz, &req, name, false);
	ret = ioctl(g, FSGATE_IOC_PERSIST, &req);
	if (ret >= 0 || errno != EPERM)
		fz_fail(fz, "uid 65534's FSGATE_IOC_PERSIST: %ld (%s), not EPERM",
			ret, strerror(errno));
	else
		atomic_fetch_add(&fz->sh->persist_eperm, 1);
	/* The copy of the worker's names it forked with. */
	for (i = 0; i < FZ_SLOTS && !fz->proc->home[i][0]; i++)
		;
	if (i == FZ_SLOTS)
		return;
	snprintf(a.name, sizeof(a.name), "%s", fz->proc->home[i]);
	ret = ioctl(fz->proc->dev, FSGATE_IOC_ATTACH, &a);
	if (ret >= 0 || errno != ENOENT)
		fz_fail(fz, "uid 65534's FSGATE_IOC_ATTACH to \"%s\": %ld (%s), not ENOENT",
			a.name, ret, strerror(errno));
	a.flags = 0;
	ret = ioctl(fz->proc->dev, FSGATE_IOC_REMOVE, &a);
	if (ret >= 0 || errno != ENOENT)
		fz_fail(fz, "uid 65534's FSGATE_IOC_REMOVE of \"%s\": %ld (%s), not ENOENT",
			a.name, ret, strerror(errno));
}

/*
 * A group fd inherited by a child that drops to uid 65534, as a daemon
 * that drops its privileges after set-up: it may make no group, no mount
 * or filesystem mark, and with a group whose events carry fds no mark at
 * all (EPERM); it reads and answers, and every fd it gets is one open(2)
 * would give it (fz_event_fd_check()).
 */
void fz_nobody_spawn(struct fz *fz)
{
	static const unsigned int types[] = {
		FSGATE_MARK_INODE, FSGATE_MARK_MOUNT, FSGATE_MARK_FILESYSTEM,
	};
	struct fsgate_init init = { .flags = FSGATE_CLASS_NOTIF };
	unsigned int slot, gflags, type = FZ_PICK(fz, types), action;
	bool fid, may;
	char path[256];
	long end, ret;
	int g;

	if (fz_kids_count(fz->proc, FZ_KID_NOBODY))
		return;
	g = fz_slot_get(fz, &slot);
	if (g < 0)
		return;
	gflags = fz->proc->slot_flags[slot];
	if (fz_fork(fz, FZ_KID_NOBODY)) {
		fz_slot_put(fz);
		return;
	}
	alarm(3);
	fz_become_nobody(fz);
	ret = ioctl(fz->proc->dev, FSGATE_IOC_INIT, &init);
	if (ret >= 0 || errno != EPERM)
		fz_fail(fz, "uid 65534 made a group: %ld (%s)", ret,
			strerror(errno));
	fid = gflags & FSGATE_REPORT_FID_BITS;
	action = FZ_PICK(fz, ((const unsigned int[]){ FSGATE_MARK_ADD,
		FSGATE_MARK_ADD, FSGATE_MARK_REMOVE, FSGATE_MARK_FLUSH }));
	ret = fsgate_mark(g, action | type,
			  action == FSGATE_MARK_FLUSH ? 0 : FAN_OPEN | FAN_ONDIR,
			  AT_FDCWD, action == FSGATE_MARK_FLUSH ? NULL :
			  fz_object(fz, path, sizeof(path)));
	/* Inode marks: removed as anyone's, added to FID groups only. */
	may = type == FSGATE_MARK_INODE &&
	      (action != FSGATE_MARK_ADD || fid);
	if (!may && (ret >= 0 || errno != EPERM))
		fz_fail(fz, "uid 65534's mark (flags 0x%x) on a group of flags 0x%x: %ld (%s), not EPERM",
			action | type, gflags, ret, strerror(errno));
	else if (may)
		fz_check(fz, "uid 65534's inode mark", ret,
			 FZ_ERRNOS(EINVAL, ENOENT, ENOTDIR, EACCES, ENOSPC,
				   ENOMEM, ENODEV, EXDEV, EOPNOTSUPP, ENOTCONN,
				   ECONNABORTED));
	if (fz->sh->features & FSGATE_FEATURE_PERSIST)
		fz_nobody_persist(fz, g);
	end = fz_now_ms() + 100 + fz_below(fz, 700);
	while (fz_now_ms() < end)
		fz_serve(fz, g, gflags, 90, FZ_SERVE_NOBODY);
	_exit(0);
}
