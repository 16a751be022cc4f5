// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-fuzz: the operations, one small function each, and their table
 * (fz_ops, at the end, with weights). An operation picks its arguments
 * from the thread's random stream, mostly valid and sometimes not, makes
 * its call and checks the result with fz_check(): success, or one of the
 * errnos the ABI documents for what it did. A new ioctl or flag is one
 * more function and one more line in the table.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fsgate.h>

#include "fuzz.h"

/* The scratch tree: what marks and accesses name, relative to the root. */
static const char *const fz_names[] = {
	"", "f0", "f1", "f2", "f3", "d0", "d0/f0", "d0/f1", "d0/sub",
	"d0/sub/f0", "d1", "d1/f0", "l0", "l1", "l2", "p0", "n0", "n1", "exe",
	"m0", "m0/f0", "m0/d0", "b0", "b0/f0", "t0", "new0", "new1",
	/* root's 0600: no unprivileged reader may get an fd of it */
	"s0",
	/* the oracle's (oracle.c), and the overlay over them */
	"v", "v/deny-0", "v/deny-1", "v/allow-0", "v/allow-1", "v/f0", "ov",
	"ov/deny-0", "ov/deny-1", "ov/allow-0", "ov/f0",
	/* files of uid 65534 that lease holders lease, and FUSE mounts */
	"u/lease0", "u/lease1", "u/lease2", "fu0", "fu0/file", "fu1/file",
	"fu2/file",
};
/* Objects elsewhere in the guest: other filesystems, procfs, devices. */
static const char *const fz_elsewhere[] = {
	"/proc", "/proc/self/status", "/dev/null", "/tmp", "/sys/module/fsgate",
	"/dev/fsgate", "/",
};

static void fz_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			perror(path);
		close(fd);
	}
}

static void fz_copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

void fz_tree_make(const char *root)
{
	char p[256];
	unsigned int i;

	if (chdir(root))
		return;
	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "f%u", i);
		fz_write_file(p, "fsgate fuzz\n");
	}
	mkdir("d0", 0755);
	mkdir("d0/sub", 0755);
	mkdir("d1", 0755);
	mkdir("m0", 0755);
	mkdir("b0", 0755);
	fz_write_file("d0/f0", "d0 f0\n");
	fz_write_file("d0/f1", "d0 f1\n");
	fz_write_file("d0/sub/f0", "sub f0\n");
	fz_write_file("d1/f0", "d1 f0\n");
	fz_write_file("t0", "to truncate\n");
	if (symlink("f0", "l0") || symlink("d0", "l1") || symlink("gone", "l2"))
		perror("symlink");
	if (mkfifo("p0", 0644))
		perror("mkfifo");
	if (mknod("n0", S_IFCHR | 0666, makedev(1, 3)) ||
	    mknod("n1", S_IFCHR | 0666, makedev(1, 5)))
		perror("mknod");
	fz_copy("/bin/busybox", "exe");
	fz_write_file("s0", "root only\n");
	if (chmod("s0", 0600))
		perror("chmod");
	mkdir("v", 0755);
	fz_write_file("v/deny-0", "denied\n");
	fz_write_file("v/deny-1", "denied\n");
	fz_write_file("v/allow-0", "allowed\n");
	fz_write_file("v/allow-1", "allowed\n");
	fz_write_file("v/f0", "v f0\n");
	mkdir("u", 0755);
	for (i = 0; i < FZ_PROCS_MAX; i++) {
		snprintf(p, sizeof(p), FZ_LEASE_FILE, i);
		fz_write_file(p, "leased\n");
		if (chown(p, 65534, 65534))
			perror("chown");
		snprintf(p, sizeof(p), FZ_FUSE_DIR, i);
		mkdir(p, 0755);
	}
	mkdir("ov", 0755);
	mkdir("ou", 0755);
}

/*
 * The overlay over v/ (the oracle's files) on ov/, its upper layer on a
 * tmpfs of its own (ou/): accesses through it, writes in its layers
 * beneath it. 0, or -1 with errno set.
 */
int fz_overlay_mount(const char *root)
{
	char opts[256];

	if (chdir(root) || mount("fuzzovl", "ou", "tmpfs", 0, "size=8m") ||
	    mkdir("ou/upper", 0755) || mkdir("ou/work", 0755))
		return -1;
	snprintf(opts, sizeof(opts),
		 "lowerdir=%s/v,upperdir=%s/ou/upper,workdir=%s/ou/work",
		 root, root, root);
	return mount("overlay", "ov", "overlay", 0, opts);
}

const char *fz_object(struct fz *fz, char *buf, size_t len)
{
	if (fz_chance(fz, 8))
		snprintf(buf, len, "%s", FZ_PICK(fz, fz_elsewhere));
	else
		snprintf(buf, len, "%s/%s", fz->sh->root, FZ_PICK(fz, fz_names));
	return buf;
}

/* --- groups --- */

/* Put group @g, made with @flags, in a random slot; close what it held. */
static void fz_slot_store(struct fz *fz, int g, unsigned int flags)
{
	unsigned int i, n;
	int old;

	pthread_rwlock_wrlock(&fz->proc->slots_lock);
	i = fz_below(fz, FZ_SLOTS);
	/* Not a persistent group's home (struct fz_proc). */
	for (n = 0; n < FZ_SLOTS && fz->proc->home[i][0]; n++)
		i = (i + 1) % FZ_SLOTS;
	if (n == FZ_SLOTS) {
		pthread_rwlock_unlock(&fz->proc->slots_lock);
		close(g);
		return;
	}
	old = fz->proc->slots[i];
	fz->proc->slots[i] = g;
	fz->proc->slot_flags[i] = flags;
	fz->proc->persisted[i] = false;
	fz->proc->tag[i] = ++fz->proc->next_tag;
	pthread_rwlock_unlock(&fz->proc->slots_lock);
	if (old >= 0)
		close(old);
}

/* fanotify_init(2)'s valid FID reporting modes. */
static unsigned int fz_fid_flags(struct fz *fz)
{
	static const unsigned int modes[] = {
		FSGATE_REPORT_FID, FSGATE_REPORT_DIR_FID,
		FSGATE_REPORT_FID | FSGATE_REPORT_DIR_FID,
		FSGATE_REPORT_DFID_NAME,
		FSGATE_REPORT_FID | FSGATE_REPORT_DFID_NAME,
		FSGATE_REPORT_FID | FSGATE_REPORT_DFID_NAME |
			FSGATE_REPORT_TARGET_FID,
	};

	return FZ_PICK(fz, modes);
}

/* Audit flags: asked for where the module offers them, else refused. */
static unsigned int fz_audit_flag(struct fz *fz, unsigned int percent)
{
	if (!(fz->sh->features & FSGATE_FEATURE_AUDIT))
		return 0;
	return fz_chance(fz, percent) ? FSGATE_ENABLE_AUDIT : 0;
}

/* Make a group of @init, store it; mark the scratch tree with @mask. */
static int fz_group_make(struct fz *fz, struct fsgate_init *init,
			 uint64_t mask)
{
	int g = ioctl(fz->proc->dev, FSGATE_IOC_INIT, init);

	fz_check(fz, "FSGATE_IOC_INIT", g, FZ_ERRNOS(EMFILE, ENFILE, ENOMEM));
	if (g < 0)
		return -1;
	if (mask)
		fz_check(fz, "FSGATE_IOC_MARK of the scratch tree",
			 fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				     mask, AT_FDCWD, fz->sh->root),
			 FZ_ERRNOS(ENOSPC, ENOMEM));
	fz_slot_store(fz, g, init->flags);
	return 0;
}

static void op_group_init(struct fz *fz)
{
	static const unsigned int classes[] = {
		FSGATE_CLASS_NOTIF, FSGATE_CLASS_CONTENT,
		FSGATE_CLASS_PRE_CONTENT,
	};
	static const unsigned int prios[] = {
		FSGATE_PRIORITY_DEFAULT, 0, 1, 1000, 2000, 2000, 3000, 65535,
	};
	static const unsigned int timeouts[] = {
		FSGATE_TIMEOUT_DEFAULT, 1, 50, 300, FZ_TIMEOUT_MAX_MS,
	};
	static const unsigned int ev_flags[] = {
		O_RDONLY, O_RDONLY | O_LARGEFILE, O_RDONLY | O_CLOEXEC,
		O_RDWR, O_WRONLY, O_RDONLY | O_NONBLOCK | O_NOATIME,
	};
	struct fsgate_init init = {
		.flags = FZ_PICK(fz, classes) |
			 (fz_chance(fz, 30) ? FSGATE_CLOEXEC : 0) |
			 (fz_chance(fz, 50) ? FSGATE_NONBLOCK : 0) |
			 (fz_chance(fz, 10) ? FSGATE_UNLIMITED_QUEUE : 0) |
			 (fz_chance(fz, 10) ? FSGATE_UNLIMITED_MARKS : 0) |
			 (fz_chance(fz, 20) ? FSGATE_REPORT_TID : 0) |
			 (fz_chance(fz, 20) ? FSGATE_EXCLUDE_SELF : 0) |
			 (fz_chance(fz, 20) ? FSGATE_REPORT_PERM : 0) |
			 (fz_chance(fz, 20) ? FSGATE_REPORT_PROC : 0) |
			 fz_audit_flag(fz, 10),
		.event_f_flags = FZ_PICK(fz, ev_flags),
		.priority = FZ_PICK(fz, prios),
		.timeout_ms = FZ_PICK(fz, timeouts),
		.timeout_verdict = fz_below(fz, 3),
		.orphan_verdict = fz_below(fz, 3),
		.max_wait_ms = fz_chance(fz, 70) ? 0 : FZ_TIMEOUT_MAX_MS,
	};

	if ((init.flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_NOTIF &&
	    fz_chance(fz, 30))
		init.flags |= fz_fid_flags(fz);
	/* Ids for events that live long enough to be answered by them. */
	if (init.timeout_ms && init.timeout_ms < 300)
		init.flags &= ~FSGATE_REPORT_PERM;
	if (!fz_group_make(fz, &init, 0))
		fz_ok(fz);
}

/*
 * A FID group (FSGATE_REPORT_FID_BITS: handles and names, no fds) that
 * hears of the scratch tree's directory entries too.
 */
static void op_group_fid(struct fz *fz)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK | fz_fid_flags(fz) |
			 (fz_chance(fz, 30) ? FSGATE_REPORT_PROC : 0) |
			 (fz_chance(fz, 20) ? FSGATE_REPORT_TID : 0),
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	uint64_t mask = FAN_OPEN | FAN_CLOSE_WRITE | FAN_MODIFY | FAN_ONDIR |
			0x00000004 /* FAN_ATTRIB */ | 0x00000300 /* CREATE, DELETE */ |
			0x000000c0 /* MOVED_FROM, MOVED_TO */;

	if (init.flags & FSGATE_REPORT_NAME)
		mask |= 0x10000000;	/* FAN_RENAME */
	if (!fz_group_make(fz, &init, mask))
		fz_ok(fz);
}

/*
 * A permission group with info records (an id and deadline for each
 * permission event, the process of every event), audited at times,
 * asked about every open in the scratch tree.
 */
static void op_group_info(struct fz *fz)
{
	struct fsgate_init init = {
		.flags = (fz_chance(fz, 50) ? FSGATE_CLASS_CONTENT :
			  FSGATE_CLASS_PRE_CONTENT) | FSGATE_NONBLOCK |
			 FSGATE_REPORT_PERM |
			 (fz_chance(fz, 50) ? FSGATE_REPORT_PROC : 0) |
			 fz_audit_flag(fz, 50),
		.priority = fz_below(fz, 4) * 1000,
		.timeout_ms = 1000 + fz_below(fz, FZ_TIMEOUT_MAX_MS - 1000),
		.timeout_verdict = fz_below(fz, 3),
		.orphan_verdict = fz_below(fz, 3),
		.max_wait_ms = FZ_TIMEOUT_MAX_MS,
	};

	if (!fz_group_make(fz, &init, FAN_OPEN_PERM | FAN_ACCESS_PERM |
				      FAN_CLOSE_WRITE))
		fz_ok(fz);
}

/* One field wrong at a time: EINVAL, and no group. */
static void op_group_init_bad(struct fz *fz)
{
	struct fsgate_init init = { .flags = FSGATE_CLASS_CONTENT };
	unsigned int i;
	int g;

	switch (fz_below(fz, 8)) {
	case 0: init.flags = FSGATE_CLASS_MASK; break;
	case 1:
		/* FAN_REPORT_PIDFD, which fsgate lacks; FAN_REPORT_FID, not for content groups. */
		init.flags |= 1U << (fz_chance(fz, 50) ? 7 : 9);
		break;
	case 2: init.event_f_flags = O_ACCMODE; break;
	case 3: init.event_f_flags = O_CREAT; break;
	case 4: init.priority = FSGATE_PRIORITY_MAX + 1 + fz_below(fz, 1000); break;
	case 5: init.timeout_verdict = 3 + fz_below(fz, 100); break;
	case 6: init.orphan_verdict = 3 + fz_below(fz, 100); break;
	default:
		/* The reserved words, reserved32 counted as one more. */
		i = fz_below(fz, sizeof(init.reserved) / sizeof(init.reserved[0]) + 1);
		if (i < sizeof(init.reserved) / sizeof(init.reserved[0]))
			init.reserved[i] = fz_rand(fz) | 1;
		else
			init.reserved32 = fz_rand(fz) | 1;
		break;
	}
	g = ioctl(fz->proc->dev, FSGATE_IOC_INIT,
		  fz_chance(fz, 10) ? (void *)8 : (void *)&init);
	if (g >= 0) {
		fz_fail(fz, "a bad struct fsgate_init made a group");
		close(g);
		return;
	}
	fz_check(fz, "FSGATE_IOC_INIT (bad)", g, FZ_ERRNOS(EINVAL, EFAULT));
	fz_ok(fz);
}

static void op_group_close(struct fz *fz)
{
	unsigned int i = fz_below(fz, FZ_SLOTS);
	int g;

	pthread_rwlock_wrlock(&fz->proc->slots_lock);
	g = fz->proc->slots[i];
	fz->proc->slots[i] = -1;
	pthread_rwlock_unlock(&fz->proc->slots_lock);
	if (g >= 0 && close(g))
		fz_fail(fz, "close of a group fd: %s", strerror(errno));
	else if (g >= 0)
		fz_ok(fz);
}

/* A dup takes another slot: the group lives until its last fd closes. */
static void op_group_dup(struct fz *fz)
{
	unsigned int i = fz_below(fz, FZ_SLOTS), j = fz_below(fz, FZ_SLOTS);
	int d = -1, old = -1;

	pthread_rwlock_wrlock(&fz->proc->slots_lock);
	if (fz->proc->slots[i] >= 0 && i != j && !fz->proc->home[j][0]) {
		d = fz_chance(fz, 50) ? dup(fz->proc->slots[i]) :
			fcntl(fz->proc->slots[i], F_DUPFD_CLOEXEC, 0);
		if (d >= 0) {
			fz_ok(fz);
			old = fz->proc->slots[j];
			fz->proc->slots[j] = d;
			fz->proc->slot_flags[j] = fz->proc->slot_flags[i];
			fz->proc->persisted[j] = fz->proc->persisted[i];
			fz->proc->tag[j] = fz->proc->tag[i];
		}
	}
	pthread_rwlock_unlock(&fz->proc->slots_lock);
	if (old >= 0)
		close(old);
}

/* --- marks --- */

/*
 * A mask for a group made with @gflags: permission events only for the
 * classes that decide (at times for others too, refused), directory
 * entry events for FID groups.
 */
static uint64_t fz_mask(struct fz *fz, unsigned int gflags)
{
	static const uint64_t bits[] = {
		FAN_ACCESS, FAN_MODIFY, FAN_CLOSE_WRITE, FAN_CLOSE_NOWRITE,
		FAN_OPEN, FAN_OPEN_EXEC, FAN_OPEN_PERM, FAN_ACCESS_PERM,
		FAN_OPEN_EXEC_PERM, FAN_ONDIR, FAN_EVENT_ON_CHILD,
		FSGATE_DIRENT_EVENTS,
	};
	uint64_t m = 0;
	unsigned int n = 1 + fz_below(fz, 4);

	while (n--)
		m |= FZ_PICK(fz, bits);
	if ((gflags & FSGATE_CLASS_MASK) == FSGATE_CLASS_NOTIF &&
	    !fz_chance(fz, 5))
		m &= ~(uint64_t)FSGATE_PERM_EVENTS;
	if (!(gflags & FSGATE_REPORT_FID_BITS) && !fz_chance(fz, 5))
		m &= ~(uint64_t)FSGATE_DIRENT_EVENTS;
	if (!(gflags & FSGATE_REPORT_NAME) && !fz_chance(fz, 5))
		m &= ~(uint64_t)0x10000000;	/* FAN_RENAME */
	return m;
}

/*
 * What a mark request may fail with: an FSGATE_MARK_IGNORE mask that
 * modification would clear on a directory is EISDIR, and ignore or
 * evictable flags an existing mark refuses are EEXIST.
 */
/*
 * ... an object a FID group cannot name is ENODEV, EXDEV or EOPNOTSUPP;
 * a FUSE mount whose server is gone fails lookups with ENOTCONN.
 */
static const int *fz_mark_errnos(unsigned int flags)
{
#define FZ_MARK_ERRNOS EINVAL, ENOENT, ENOTDIR, EBADF, ENOSPC, ENOMEM, \
		       EACCES, ELOOP, ENODEV, EXDEV, EOPNOTSUPP, ENOTCONN, \
		       ECONNABORTED
	static const int plain[] = { FZ_MARK_ERRNOS, 0 };
	static const int refused[] = { FZ_MARK_ERRNOS, EEXIST, 0 };
	static const int ignore[] = { FZ_MARK_ERRNOS, EEXIST, EISDIR, 0 };
#undef FZ_MARK_ERRNOS

	if (!(flags & FSGATE_MARK_ADD))
		return plain;
	if (flags & FSGATE_MARK_IGNORE)
		return ignore;
	if (flags & (FSGATE_MARK_IGNORED_MASK | FSGATE_MARK_EVICTABLE))
		return refused;
	return plain;
}

/*
 * A mark request on a slot's group: @action with random flags, or with
 * @how's (ignore or evictable flags, and an inode mark for the latter)
 * when @how is not 0.
 */
static void fz_mark(struct fz *fz, unsigned int action, unsigned int how)
{
	static const unsigned int types[] = {
		FSGATE_MARK_INODE, FSGATE_MARK_INODE, FSGATE_MARK_MOUNT,
		FSGATE_MARK_FILESYSTEM,
	};
	unsigned int flags = action | FZ_PICK(fz, types), slot;
	char path[256];
	const char *name = NULL;
	int g, dirfd = AT_FDCWD, objfd = -1;
	uint64_t mask;
	long ret;

	g = fz_slot_get(fz, &slot);
	if (g < 0)
		return;
	mask = fz_mask(fz, fz->proc->slot_flags[slot]);
	if (fz_chance(fz, 10))
		flags |= FSGATE_MARK_DONT_FOLLOW;
	if (fz_chance(fz, 10))
		flags |= FSGATE_MARK_ONLYDIR;
	if (how) {
		if (how & FSGATE_MARK_EVICTABLE)
			flags = (flags & ~FSGATE_MARK_TYPES) | FSGATE_MARK_INODE;
		flags |= how;
	} else if (fz_chance(fz, 10)) {
		flags |= FSGATE_MARK_EVICTABLE;
	}
	if (!how && fz_chance(fz, 15)) {
		/* Legacy or Linux 6.0 ignore masks, and at times both. */
		flags |= fz_chance(fz, 50) ? FSGATE_MARK_IGNORED_MASK :
					     FSGATE_MARK_IGNORE;
		if (fz_chance(fz, 5))
			flags |= FSGATE_MARK_IGNORED_MASK;
		if (fz_chance(fz, 50))
			flags |= FSGATE_MARK_IGNORED_SURV_MODIFY;
	}
	fz_object(fz, path, sizeof(path));
	switch (fz_below(fz, 10)) {
	case 0:
		/* The object of an fd, as fanotify_mark(2) with no pathname. */
		objfd = open(path, O_PATH);
		dirfd = objfd;
		break;
	case 1:
		/* Relative to the scratch tree, the cwd. */
		name = strrchr(path, '/') + 1;
		if (!*name)
			name = ".";
		break;
	case 2:
		break;	/* AT_FDCWD alone: the current directory */
	default:
		name = path;
	}
	ret = fsgate_mark(g, flags, mask, dirfd, name);
	fz_check(fz, "FSGATE_IOC_MARK", ret, fz_mark_errnos(flags));
	if (!ret)
		fz_ok(fz);
	fz_slot_put(fz);
	if (objfd >= 0)
		close(objfd);
}

static void op_mark_add(struct fz *fz)
{
	fz_mark(fz, FSGATE_MARK_ADD, 0);
}

static void op_mark_remove(struct fz *fz)
{
	fz_mark(fz, FSGATE_MARK_REMOVE, 0);
}

/* Ignore masks: Linux 6.0's (which directories and mounts need to survive modification) or the legacy one. */
static void op_mark_ignore(struct fz *fz)
{
	fz_mark(fz, FSGATE_MARK_ADD,
		fz_chance(fz, 60) ?
		FSGATE_MARK_IGNORE | FSGATE_MARK_IGNORE_SURV :
		FSGATE_MARK_IGNORED_MASK |
		(fz_chance(fz, 50) ? FSGATE_MARK_IGNORED_SURV_MODIFY : 0));
}

/*
 * Evictable inode marks, and at times the kernel's caches dropped under
 * them (procfs and sysfs inodes go; the scratch tmpfs's stay).
 */
static void op_mark_evictable(struct fz *fz)
{
	int fd;

	fz_mark(fz, FSGATE_MARK_ADD, FSGATE_MARK_EVICTABLE);
	if (!fz_chance(fz, 10))
		return;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, "2", 1) < 0 && !fz_errno_is_verdict(errno))
		fz_fail(fz, "drop_caches: %s", strerror(errno));
	close(fd);
}

static void op_mark_flush(struct fz *fz)
{
	static const unsigned int types[] = {
		FSGATE_MARK_INODE, FSGATE_MARK_MOUNT, FSGATE_MARK_FILESYSTEM,
	};
	int g = fz_slot_get(fz, NULL);

	if (g < 0)
		return;
	if (fsgate_mark(g, FSGATE_MARK_FLUSH | FZ_PICK(fz, types), 0, 0, NULL))
		fz_check(fz, "FSGATE_IOC_MARK flush", -1, FZ_ERRNOS(ENOMEM));
	else
		fz_ok(fz);
	fz_slot_put(fz);
}

/* Requests the ABI refuses: EINVAL (or EFAULT), and nothing changes. */
static void op_mark_bad(struct fz *fz)
{
	struct fsgate_mark m = {
		.flags = FSGATE_MARK_ADD | FSGATE_MARK_INODE,
		.dirfd = AT_FDCWD,
		.mask = FAN_OPEN,
		.pathname = (uintptr_t)fz->sh->root,
	};
	void *arg = &m;
	int g = fz_slot_get(fz, NULL);
	long ret;

	if (g < 0)
		return;
	switch (fz_below(fz, 9)) {
	case 0: m.flags |= FSGATE_MARK_REMOVE; break;
	case 1: m.flags |= FSGATE_MARK_MOUNT | FSGATE_MARK_FILESYSTEM; break;
	case 2: m.mask = 0; break;
	case 3: m.mask = 1ULL << (32 + fz_below(fz, 32)); break;
	case 4: m.flags |= FSGATE_MARK_IGNORED_SURV_MODIFY; break;
	case 5: m.reserved[fz_below(fz, 4)] = 1; break;
	case 6: m.flags = 0x80000000U | FSGATE_MARK_ADD; break;
	case 7: m.pathname = 8; break;
	default: arg = (void *)8; break;
	}
	ret = ioctl(g, FSGATE_IOC_MARK, arg);
	if (ret == 0)
		fz_fail(fz, "a bad struct fsgate_mark was taken (flags 0x%x mask 0x%llx)",
			m.flags, (unsigned long long)m.mask);
	fz_check(fz, "FSGATE_IOC_MARK (bad)", ret, FZ_ERRNOS(EINVAL, EFAULT));
	if (ret)
		fz_ok(fz);
	fz_slot_put(fz);
}

/* --- reading and answering --- */

/*
 * A read fails with what opening the event's fd failed with, as
 * fanotify's does. EIO: an open in the overlay, whose layers
 * op_overlay_write changes beneath it (overlayfs leaves such changes
 * undefined; op_overlay_write's own opens of ov/f0 take EIO too).
 */
const int fz_read_errnos[] = {
	EAGAIN, EINVAL, EINTR, EMFILE, ENFILE, ETXTBSY, EISDIR, EACCES, EPERM,
	ENXIO, EROFS, ENOENT, EWOULDBLOCK, EIO, 0,
};

static void fz_stash(struct fz *fz, int g, int fd, uint64_t id)
{
	unsigned int i = fz_below(fz, FZ_STASH);

	if (fz->stash_fd[i] >= 0)
		close(fz->stash_fd[i]);
	fz->stash_fd[i] = fd;
	fz->stash_group[i] = g;
	fz->stash_id[i] = id;
}

long fz_answer(struct fz *fz, int g, unsigned int gflags, int fd, uint64_t id,
	       unsigned int how)
{
	struct fsgate_response_audit_rule rule = {
		.type = FSGATE_RESPONSE_INFO_AUDIT_RULE,
		.len = sizeof(rule),
		.rule_number = fz_below(fz, 1000),
		.subj_trust = fz_below(fz, 3),
		.obj_trust = fz_below(fz, 3),
	};
	unsigned int form = how & FZ_FORM;
	bool audit = gflags & FSGATE_ENABLE_AUDIT, refused, by_id;
	uint32_t response = fz_response(fz);
	const char *what = "fsgate_respond";
	long ret;

	if (form == FZ_AUDITED || fz_chance(fz, audit ? 30 : 2))
		response |= FSGATE_AUDIT;
	/* Audit on a group made without it: EINVAL, nothing answered. */
	refused = (response & FSGATE_AUDIT) && !audit;
	if (id && (form == FZ_EXTEND || fz_chance(fz, 10))) {
		ret = fsgate_extend(g, id, 1 + fz_below(fz, FZ_TIMEOUT_MAX_MS));
		fz_check(fz, "fsgate_extend", ret, FZ_ERRNOS(ENOENT));
		if (!ret && form == FZ_EXTEND)
			fz_ok(fz);
		/* Left to its timeout, at the later deadline. */
		if (form == FZ_EXTEND && fz_chance(fz, 50))
			return ret;
	}
	by_id = id && ((how & FZ_SHARED) || form == FZ_BY_ID ||
		       fz_chance(fz, 50));
	if (by_id) {
		what = "fsgate_respond_id";
		ret = fsgate_respond_id(g, id, response);
	} else if ((response & FSGATE_AUDIT) && fz_chance(fz, 40) &&
		   (fz->sh->features & FSGATE_FEATURE_AUDIT_RULE)) {
		what = "fsgate_respond_rule";
		ret = fsgate_respond_rule(g, fd, response, &rule);
	} else {
		ret = fsgate_respond(g, fd, response);
	}
	if (!ret && refused)
		fz_fail(fz, "%s: an audited answer (0x%x) was taken by a group without FSGATE_ENABLE_AUDIT",
			what, response);
	if (!ret)
		fz_answered(fz->proc, id);
	/*
	 * A late answer's group fd number may name another group by now,
	 * a notification group (EINVAL) among them.
	 */
	fz_check(fz, what, ret, refused || (how & FZ_LATE) ?
		 FZ_ERRNOS(ENOENT, EINVAL) : FZ_ERRNOS(ENOENT));
	if (!ret && ((form == FZ_BY_ID && by_id) ||
		     (form == FZ_AUDITED && (response & FSGATE_AUDIT))))
		fz_ok(fz);
	else if (ret && refused && form == FZ_AUDITED && errno == EINVAL)
		fz_ok(fz);	/* refused, as it must be */
	return ret;
}

struct fz_records_arg {
	int g;
	unsigned int gflags, how;
};

/* Answer (as @how says), keep or drop one event of a worker's read. */
static void fz_record(struct fz *fz, const struct fz_event *ev, void *arg)
{
	const struct fz_records_arg *a = arg;
	int fd = ev->meta->fd;

	if (!(ev->meta->mask & FSGATE_PERM_EVENTS) || fz_chance(fz, 10)) {
		close(fd);
	} else if (a->how == FZ_ANY && fz_chance(fz, 30)) {
		fz_stash(fz, a->g, fd, ev->id);
	} else {
		fz_answer(fz, a->g, a->gflags, fd, ev->id, a->how);
		close(fd);
	}
}

static void fz_records(struct fz *fz, int g, unsigned int gflags,
		       const char *buf, ssize_t len, size_t count,
		       unsigned int how)
{
	struct fz_records_arg a = { .g = g, .gflags = gflags, .how = how };

	if ((size_t)len > count)
		fz_fail(fz, "read returned %zd for %zu bytes", len, count);
	else
		fz_events(fz, gflags, buf, len, fz_record, &a);
}

static size_t fz_read_size(struct fz *fz)
{
	static const size_t sizes[] = {
		0, 1, FAN_EVENT_METADATA_LEN - 1, FAN_EVENT_METADATA_LEN,
		FAN_EVENT_METADATA_LEN + 1, 2 * FAN_EVENT_METADATA_LEN, 1000,
		4096,
	};

	return FZ_PICK(fz, sizes);
}

static void fz_read_and_check(struct fz *fz, int g, unsigned int gflags,
			      unsigned int how)
{
	char buf[4096] __attribute__((aligned(8)));
	size_t count = fz_read_size(fz);
	ssize_t len;

	len = fz_read_timed(fz, g, buf, count);
	fz_check(fz, "read", len, fz_read_errnos);
	if (len < 0) {
		/* EINVAL only for a buffer too small for the event. */
		if (errno == EINVAL && count >= fz_event_max(gflags))
			fz_fail(fz, "read of %zu bytes: EINVAL", count);
		return;
	}
	if (len > 0 && how == FZ_ANY)
		fz_ok(fz);
	how &= ~FZ_KEEP;
	fz_records(fz, g, gflags, buf, len, count, how);
}

/* Read what is there; on a blocking group only after poll says so. */
static void op_read_nonblock(struct fz *fz)
{
	struct pollfd pfd;
	unsigned int slot;
	int g = fz_slot_get(fz, &slot);

	if (g < 0)
		return;
	pfd = (struct pollfd){ .fd = g, .events = POLLIN };
	if (poll(&pfd, 1, fz_below(fz, 30)) > 0 || fz_chance(fz, 5)) {
		if (fcntl(g, F_GETFL) & O_NONBLOCK)
			fz_read_and_check(fz, g, fz->proc->slot_flags[slot],
					  FZ_ANY);
		else if (fz_chance(fz, 50)) {
			/* A blocking read, which a timer interrupts. */
			timer_t t;
			struct sigevent sev = {
				.sigev_notify = SIGEV_THREAD_ID,
				.sigev_signo = SIGUSR1,
			};
			struct itimerspec its = {
				.it_value.tv_nsec = 50000000,
				/* again, should the read start late */
				.it_interval.tv_nsec = 50000000,
			};

			sev._sigev_un._tid = gettid();
			if (timer_create(CLOCK_MONOTONIC, &sev, &t) == 0) {
				timer_settime(t, 0, &its, NULL);
				fz_read_and_check(fz, g,
						  fz->proc->slot_flags[slot],
						  FZ_ANY);
				timer_delete(t);
			}
		}
	}
	fz_slot_put(fz);
}

/*
 * Read a nonblocking group made with @flags, if this process has one,
 * and answer its permission events in form @how.
 */
static void fz_read_form(struct fz *fz, unsigned int flags, unsigned int how)
{
	struct pollfd pfd;
	unsigned int slot;
	bool ready;
	int g = fz_slot_get_with(fz, &slot, flags);

	if (g < 0)
		return;
	pfd = (struct pollfd){ .fd = g, .events = POLLIN };
	ready = poll(&pfd, 1, fz_below(fz, 30)) > 0;
	/*
	 * Nothing waiting in a group that decides: an access of its own,
	 * waited for a little, so that the form is tried on an event in
	 * every run and not only when another thread's access came first.
	 */
	if (!ready && (fz->proc->slot_flags[slot] & FSGATE_CLASS_MASK) !=
		      FSGATE_CLASS_NOTIF) {
		fz_access_spawn(fz);
		ready = poll(&pfd, 1, 200) > 0;
	}
	if (ready && (fcntl(g, F_GETFL) & O_NONBLOCK))
		fz_read_and_check(fz, g, fz->proc->slot_flags[slot], how);
	fz_slot_put(fz);
}

static void op_answer_id(struct fz *fz)
{
	fz_read_form(fz, FSGATE_REPORT_PERM, FZ_BY_ID);
}

/* Audited answers: taken by groups that asked for audit, else refused. */
static void op_answer_audit(struct fz *fz)
{
	fz_read_form(fz, fz->sh->features & FSGATE_FEATURE_AUDIT ?
		     FSGATE_ENABLE_AUDIT : 0, FZ_AUDITED);
}

static void op_read_epoll(struct fz *fz)
{
	struct epoll_event ev[4];
	unsigned int slot;
	int g, n, i;

	if (fz->epfd < 0)
		fz->epfd = epoll_create1(EPOLL_CLOEXEC);
	g = fz_slot_get(fz, &slot);
	if (g < 0)
		return;
	ev[0] = (struct epoll_event){ .events = EPOLLIN, .data.fd = g };
	if (epoll_ctl(fz->epfd, EPOLL_CTL_ADD, g, &ev[0]) && errno != EEXIST)
		fz_fail(fz, "epoll_ctl of a group fd: %s", strerror(errno));
	n = epoll_wait(fz->epfd, ev, 4, fz_below(fz, 20));
	for (i = 0; i < n; i++)
		if (ev[i].data.fd == g && (fcntl(g, F_GETFL) & O_NONBLOCK))
			fz_read_and_check(fz, g, fz->proc->slot_flags[slot],
					  FZ_ANY);
	if (fz_chance(fz, 20))
		epoll_ctl(fz->epfd, EPOLL_CTL_DEL, g, NULL);
	fz_slot_put(fz);
}

/* A kept event: answer it now (maybe late, maybe twice). */
static void op_answer_stash(struct fz *fz)
{
	unsigned int i = fz_below(fz, FZ_STASH), s;
	struct fanotify_response r[2];
	int g = -1, err;
	long ret;

	for (s = 0; s < FZ_STASH && fz->stash_fd[i] < 0; s++)
		i = (i + 1) % FZ_STASH;
	/* None kept: read some (30% of the permission events are kept). */
	if (fz->stash_fd[i] < 0) {
		fz_read_form(fz, 0, FZ_ANY | FZ_KEEP);
		return;
	}
	/* The group it came from, if this process still has its fd. */
	pthread_rwlock_rdlock(&fz->proc->slots_lock);
	for (s = 0; s < FZ_SLOTS; s++)
		if (fz->proc->slots[s] == fz->stash_group[i])
			break;
	if (s < FZ_SLOTS)
		g = fz->stash_group[i];
	if (g >= 0 && fz->stash_id[i]) {
		ret = fz_answer(fz, g, fz->proc->slot_flags[s], fz->stash_fd[i],
				fz->stash_id[i], FZ_ANY | FZ_LATE);
		if (!ret || errno == ENOENT)
			fz_ok(fz);
	} else if (g >= 0) {
		r[0].fd = r[1].fd = fz->stash_fd[i];
		r[0].response = r[1].response = fz_response(fz);
		/* Two answers to one event in one write: ENOENT, none taken. */
		ret = write(g, r, fz_chance(fz, 20) ? sizeof(r) : sizeof(r[0]));
		err = ret < 0 ? errno : 0;
		fz_check(fz, "write of answers", ret, FZ_ERRNOS(ENOENT, EINVAL));
		/* Worked: taken, or found late (what this is for). */
		if (ret >= 0 || err == ENOENT)
			fz_ok(fz);
		/*
		 * Once more finds no event, unless the answer itself was
		 * refused (EINVAL: the fd number now names a notification
		 * group, say), as it is again.
		 */
		if (err != EINVAL && fz_chance(fz, 20))
			fz_check(fz, "write of a stale answer",
				 write(g, r, sizeof(r[0])), FZ_ERRNOS(ENOENT));
	}
	fz_slot_put(fz);
	close(fz->stash_fd[i]);
	fz->stash_fd[i] = -1;
	fz->stash_id[i] = 0;
}

/* More time for events (by id), then an answer or their timeout. */
static void op_extend(struct fz *fz)
{
	fz_read_form(fz, FSGATE_REPORT_PERM, FZ_EXTEND);
}

/* Responses the ABI refuses: each whole write is EINVAL, ENOENT or EFAULT. */
static void op_write_garbage(struct fz *fz)
{
	struct fanotify_response r[4];
	size_t len = sizeof(r[0]);
	unsigned int i;
	int g = fz_slot_get(fz, NULL);
	long ret;

	if (g < 0)
		return;
	for (i = 0; i < 4; i++) {
		r[i].fd = fz_chance(fz, 50) ? (int)fz_below(fz, 64) :
			  (int)fz_rand(fz);
		r[i].response = fz_chance(fz, 50) ? (uint32_t)fz_rand(fz) :
				fz_response(fz);
	}
	switch (fz_below(fz, 5)) {
	case 0: len = 0; break;
	case 1: len = 1 + fz_below(fz, sizeof(r) - 1); break;
	case 2: len = sizeof(r); break;
	case 3: len = (FSGATE_RESPONSE_MAX + 1) * sizeof(r[0]); break;
	default: break;
	}
	if (len > sizeof(r)) {
		/* Too many responses: EINVAL, whatever they hold. */
		void *many = calloc(1, len);

		ret = many ? write(g, many, len) : 0;
		free(many);
	} else
		ret = write(g, fz_chance(fz, 10) ? (void *)8 : (void *)r, len);
	fz_check(fz, "write of garbage", ret,
		 FZ_ERRNOS(EINVAL, ENOENT, EFAULT));
	if (ret < 0)
		fz_ok(fz);
	fz_slot_put(fz);
}

/* --- ioctls and files --- */

static void op_stats(struct fz *fz)
{
	struct fsgate_stats st;
	unsigned int slot, gflags;
	int g = fz_slot_get(fz, &slot), n;

	if (g < 0)
		return;
	gflags = fz->proc->slot_flags[slot];
	if (fsgate_stats(g, &st))
		fz_fail(fz, "FSGATE_IOC_STATS: %s", strerror(errno));
	else if (st.denied > st.answered)
		fz_fail(fz, "stats: denied %llu > answered %llu",
			(unsigned long long)st.denied,
			(unsigned long long)st.answered);
	else
		fz_ok(fz);
	/* Whole events: of 24 bytes each, or 4-byte aligned with records. */
	if (ioctl(g, FIONREAD, &n) || n < 0 ||
	    n % (gflags & (FSGATE_REPORT_FID_BITS | FSGATE_REPORT_INFO) ?
		 4 : FAN_EVENT_METADATA_LEN))
		fz_fail(fz, "FIONREAD: %d (%s)", n, strerror(errno));
	fz_slot_put(fz);
}

static void op_ioctl_bad(struct fz *fz)
{
	static const unsigned long cmds[] = {
		FSGATE_IOC_STATS, FSGATE_IOC_MARK, FSGATE_IOC_INIT, FIONREAD,
		_IOR(0xF5, 0x7f, int), _IO('T', 0x01),
	};
	unsigned long cmd = FZ_PICK(fz, cmds);
	int g = fz_slot_get(fz, NULL);
	long ret;

	if (g < 0)
		return;
	ret = ioctl(g, cmd, fz_chance(fz, 50) ? (void *)8 : NULL);
	if (ret == 0)
		fz_fail(fz, "ioctl 0x%lx with a bad pointer worked", cmd);
	fz_check(fz, "a bad ioctl", ret, FZ_ERRNOS(EFAULT, ENOTTY, EINVAL));
	if (ret < 0)
		fz_ok(fz);
	fz_slot_put(fz);
}

static void fz_slurp(struct fz *fz, const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fz_fail(fz, "open %s: %s", path, strerror(errno));
		return;
	}
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	fz_ok(fz);
}

static void op_fdinfo(struct fz *fz)
{
	char path[64];
	int g = fz_slot_get(fz, NULL);

	if (g < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	fz_slurp(fz, path);
	fz_slot_put(fz);
}

static void op_proc_groups(struct fz *fz)
{
	fz_slurp(fz, "/proc/fsgate/groups");
}

/*
 * A persistent group's time left never exceeds its bound, and it has a
 * bound running only with nobody attached; any other group has none.
 */
static void fz_groups_check_bounds(struct fz *fz,
				   const struct fsgate_group_entry *e)
{
	bool absent_runs = e->absent_left_ms != FSGATE_GROUP_NO_DEADLINE;
	bool linger_runs = e->linger_left_ms != FSGATE_GROUP_NO_DEADLINE;

	if (!e->name[0] || e->attached) {
		if (absent_runs || linger_runs)
			fz_fail(fz, "FSGATE_IOC_GROUPS: group %llu (\"%.*s\", %u attached) has a bound running: %u, %u ms left",
				(unsigned long long)e->id,
				(int)sizeof(e->name) - 1, e->name, e->attached,
				e->absent_left_ms, e->linger_left_ms);
		return;
	}
	if ((absent_runs && e->absent_left_ms > e->absent_ms) ||
	    (linger_runs && e->linger_left_ms > e->linger_ms) ||
	    linger_runs == !!(e->persist_flags & FSGATE_PERSIST_UNTIL_REMOVED))
		fz_fail(fz, "FSGATE_IOC_GROUPS: \"%.*s\": %u of %u ms absent, %u of %u ms linger left (flags %#x)",
			(int)sizeof(e->name) - 1, e->name, e->absent_left_ms,
			e->absent_ms, e->linger_left_ms, e->linger_ms,
			e->persist_flags);
}

/*
 * FSGATE_IOC_GROUPS with a record size that is short, the module's own,
 * longer or past a page, room for a few groups or none, and sometimes
 * memory that cannot be written; what it copies is in asking order.
 */
static void op_groups(struct fz *fz)
{
	static const unsigned int sizes[] = {
		0, FSGATE_GROUP_ENTRY_SIZE_VER0 - 8, FSGATE_GROUP_ENTRY_SIZE_VER0,
		FSGATE_GROUP_ENTRY_SIZE_VER1, FSGATE_GROUP_ENTRY_SIZE_VER1,
		FSGATE_GROUP_ENTRY_SIZE_VER1 + 24, 4096, 4097,
	};
	static _Thread_local unsigned char buf[8 * 4096];
	struct fsgate_groups req = { .size = FZ_PICK(fz, sizes) };
	const struct fsgate_group_entry *prev = NULL, *e;
	unsigned int i;
	int n;

	req.count = fz_below(fz, 9);
	if (req.size && req.count > sizeof(buf) / req.size)
		req.count = sizeof(buf) / req.size;
	req.entries = fz_chance(fz, 10) ? 8 : (uintptr_t)buf;
	/*
	 * On the process's /dev/fsgate, opened before any group: an open now
	 * could be denied by the groups' verdicts (they may mark the device).
	 */
	n = ioctl(fz->proc->dev, FSGATE_IOC_GROUPS, &req);
	fz_check(fz, "FSGATE_IOC_GROUPS", n, FZ_ERRNOS(EINVAL, EFAULT, ENOMEM));
	if (n < 0 || req.entries != (uintptr_t)buf)
		return;
	fz_ok(fz);
	for (i = 0; i < req.count && i < (unsigned int)n; i++, prev = e) {
		e = (const void *)(buf + (size_t)i * req.size);
		if (prev && prev->priority < e->priority)
			fz_fail(fz, "FSGATE_IOC_GROUPS: priority %u before %u",
				prev->priority, e->priority);
		if (req.size >= FSGATE_GROUP_ENTRY_SIZE_VER1)
			fz_groups_check_bounds(fz, e);
	}
}

/* --- processes --- */

static void op_access(struct fz *fz)
{
	fz_access_spawn(fz);
}

static void op_kill_access(struct fz *fz)
{
	if (fz_kid_pick(fz, FZ_KID_ACCESS)) {
		atomic_fetch_add(&fz->sh->access_killed, 1);
		fz_ok(fz);
	}
}

static void op_daemon(struct fz *fz)
{
	fz_daemon_spawn(fz);
}

static void op_kill_daemon(struct fz *fz)
{
	if (fz_kid_pick(fz, fz_chance(fz, 50) ? FZ_KID_DAEMON : FZ_KID_READER))
		fz_ok(fz);
}

static void op_lease(struct fz *fz)
{
	fz_lease_spawn(fz);
}

/* Start the worker's FUSE server, or kill it: that ends the opens it holds. */
static void op_fuse(struct fz *fz)
{
	if (!fz_chance(fz, 30) || !fz_kid_pick(fz, FZ_KID_FUSE))
		fz_fuse_spawn(fz);
	else
		fz_ok(fz);
}

static void op_nobody(struct fz *fz)
{
	fz_nobody_spawn(fz);
}

/* A forked child shares a group fd, answers through it, exits. */
static void op_fork_reader(struct fz *fz)
{
	unsigned int slot;
	int g;

	if (fz_kids_count(fz->proc, FZ_KID_READER) >= 2)
		return;
	g = fz_slot_get(fz, &slot);
	if (g < 0)
		return;
	fz_reader_spawn(fz, g, fz->proc->slot_flags[slot]);
	fz_slot_put(fz);
}

static void op_reap(struct fz *fz)
{
	fz_kids_reap(fz->proc, false);
	fz_ok(fz);
}

/* --- the module's parameters --- */

static void op_param(struct fz *fz)
{
	static const struct {
		const char *name;
		unsigned long long values[4];
	} params[] = {
		/* 1..FZ_TIMEOUT_MAX_MS: the run's bound assumes no more */
		{ "default_timeout_ms", { 10, 200, 1000, FZ_TIMEOUT_MAX_MS } },
		{ "max_chain_ms", { 50, 500, 5000, 30000 } },
		/* for the daemons' FSGATE_TIMEOUT_NONE groups, mostly on */
		{ "allow_unbounded_waits", { 0, 1, 1, 1 } },
		{ "max_pending_events", { 1, 2, 64, 16384 } },
		{ "max_queued_events", { 1, 4, 128, 16384 } },
		{ "max_groups", { 2, 8, 128, 1024 } },
		{ "max_marks", { 1, 4, 64, 65536 } },
		{ "max_cached_verdicts", { 1, 2, 64, 4096 } },
		{ "max_mutes", { 1, 2, 16, 1024 } },
		/* low enough at times for FSGATE_IOC_PERSIST's ENOSPC */
		{ "max_persistent_groups", { 2, 6, 32, 32 } },
	};
	unsigned int i = fz_below(fz, sizeof(params) / sizeof(params[0]));

	/*
	 * The parameter files are in /sys/module/fsgate, which the groups may
	 * mark (fz_elsewhere): an open their verdict denies is not a failure.
	 */
	if (!fsgate_param_set(params[i].name, params[i].values[fz_below(fz, 4)]))
		fz_ok(fz);
	else if (!fz_errno_is_verdict(errno))
		fz_fail(fz, "setting %s: %s", params[i].name, strerror(errno));
}

/* --- the verdict cache and muting (FSGATE_IOC_FLUSH_CACHE, _MUTE) --- */

static void op_flush_cache(struct fz *fz)
{
	struct fsgate_cache_flush req = { 0 };
	char path[256];
	int g = fz_slot_get(fz, NULL), fd = -1;
	long ret;

	if (g < 0)
		return;
	switch (fz_below(fz, 6)) {
	case 0:
	case 1:
		break;	/* every verdict of the group */
	case 2:
	case 3:
		fd = open(fz_object(fz, path, sizeof(path)), O_PATH);
		req.flags = FSGATE_FLUSH_FILE;
		req.fd = fd;
		break;
	case 4:
		req.flags = 1U << (1 + fz_below(fz, 31));	/* unknown */
		break;
	default:
		req.reserved[fz_below(fz, 3)] = 1;
	}
	ret = ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req);
	fz_check(fz, "FSGATE_IOC_FLUSH_CACHE", ret, FZ_ERRNOS(EINVAL, EBADF));
	if (ret >= 0)
		fz_ok(fz);
	if (ret >= 0 && (req.flags & ~FSGATE_FLUSH_FLAGS || req.reserved[0] ||
			 req.reserved[1] || req.reserved[2]))
		fz_fail(fz, "a bad struct fsgate_cache_flush was taken");
	fz_slot_put(fz);
	if (fd >= 0)
		close(fd);
}

/*
 * A mute entry, mostly valid: a process, a program (as any uid, or as
 * one), a uid or a cgroup.
 * Return: whether it was made wrong on purpose.
 */
static bool fz_mute_entry(struct fz *fz, struct fsgate_mute_entry *e)
{
	char exe[128];
	struct stat st;
	pid_t pid;

	memset(e, 0, sizeof(*e));
	e->type = 1 + fz_below(fz, 5);
	switch (e->type) {
	case FSGATE_MUTE_PROCESS:
		pid = fz_chance(fz, 50) ? fz_kid_peek(fz) : 0;
		e->id = pid > 0 ? pid : getpid();
		if (fz_chance(fz, 40))
			e->flags = FSGATE_MUTE_DESCENDANTS;
		break;
	case FSGATE_MUTE_EXE:
	case FSGATE_MUTE_EXE_UID:
		if (e->type == FSGATE_MUTE_EXE_UID)
			e->uid = fz_chance(fz, 50) ? 0 : 65534;
		snprintf(exe, sizeof(exe), "%s/%s", fz->sh->root,
			 fz_chance(fz, 70) ? "exe" : "/../../bin/busybox");
		if (stat(exe, &st) == 0) {
			e->id = st.st_ino;
			e->dev = st.st_dev;
		}
		break;
	case FSGATE_MUTE_UID:
		e->id = fz_chance(fz, 50) ? 0 : 65534;
		break;
	default:
		e->id = fz_below(fz, 64);	/* a cgroup id, or none */
	}
	/* Sometimes wrong: a flag, a type, a device, a uid, a reserved field. */
	switch (fz_below(fz, 13)) {
	case 0:
		e->flags |= 1U << (1 + fz_below(fz, 31));
		return true;
	case 1:
		e->type = fz_chance(fz, 50) ? 0 :
			  FSGATE_MUTE_EXE_UID + 1 + fz_below(fz, 100);
		return true;
	case 2:
		e->reserved = 1;
		return true;
	case 3:
		if (e->type == FSGATE_MUTE_EXE || e->type == FSGATE_MUTE_EXE_UID)
			return false;
		e->dev = 1;
		return true;
	case 4:
		if (e->type == FSGATE_MUTE_EXE_UID)
			return false;
		e->uid = 1;
		return true;
	default:
		return false;
	}
}

static void op_mute(struct fz *fz)
{
	static const unsigned int ops[] = {
		FSGATE_MUTE_ADD, FSGATE_MUTE_ADD, FSGATE_MUTE_ADD,
		FSGATE_MUTE_REMOVE, FSGATE_MUTE_CLEAR, FSGATE_MUTE_SET_MODE,
		FSGATE_MUTE_LIST,
	};
	struct fsgate_mute_entry list[4];
	struct {
		struct fsgate_mute m;
		char tail[16];	/* a longer struct, zero or not */
	} req;
	int g = fz_slot_get(fz, NULL);
	bool bad = false;
	long ret;

	if (g < 0)
		return;
	memset(&req, 0, sizeof(req));
	req.m.size = sizeof(req.m);
	req.m.op = FZ_PICK(fz, ops);
	switch (req.m.op) {
	case FSGATE_MUTE_ADD:
	case FSGATE_MUTE_REMOVE:
		bad = fz_mute_entry(fz, &req.m.entry);
		break;
	case FSGATE_MUTE_SET_MODE:
		req.m.mode = fz_chance(fz, 90) ? fz_below(fz, 2) : 2;
		break;
	case FSGATE_MUTE_LIST:
		req.m.count = fz_below(fz, 5);
		req.m.entries = fz_chance(fz, 90) ? (uintptr_t)list : 8;
		break;
	}
	/* Sometimes the struct itself is wrong. */
	switch (fz_below(fz, 16)) {
	case 0:
		req.m.size = fz_below(fz, FSGATE_MUTE_SIZE_VER0);
		bad = true;
		break;
	case 1:
		req.m.size = sizeof(req);
		req.tail[fz_below(fz, 16)] = 1;
		bad = true;
		break;
	case 2:
		req.m.size = sizeof(req);	/* longer, and zero: fine */
		break;
	case 3:
		req.m.op = fz_chance(fz, 50) ? 0 : 6 + fz_below(fz, 10);
		bad = true;
		break;
	case 4:
		req.m.reserved[fz_below(fz, 3)] = 1;
		bad = true;
		break;
	default:
		break;
	}
	ret = ioctl(g, FSGATE_IOC_MUTE, &req);
	fz_check(fz, "FSGATE_IOC_MUTE", ret,
		 FZ_ERRNOS(EINVAL, E2BIG, EFAULT, ESRCH, ENOENT, EOPNOTSUPP,
			   EEXIST, ENOSPC, ENOMEM));
	if (ret == 0 && bad)
		fz_fail(fz, "a bad struct fsgate_mute was taken (op %u type %u)",
			req.m.op, req.m.entry.type);
	else if (ret == 0)
		fz_ok(fz);
	if (ret == 0 && req.m.op == FSGATE_MUTE_LIST &&
	    req.m.mode > FSGATE_MUTE_MODE_ONLY)
		fz_fail(fz, "FSGATE_MUTE_LIST: mode %u", req.m.mode);
	fz_slot_put(fz);
}

/* --- the files themselves --- */

static void op_fs_churn(struct fz *fz)
{
	static const char *const files[] = {
		"f0", "f1", "f2", "f3", "d0/f0", "d0/f1", "d1/f0", "new0",
		"new1", "t0", "m0/f0", "b0/f0", "d0/sub/f0",
	};
	const char *a = FZ_PICK(fz, files), *b = FZ_PICK(fz, files);
	int fd, ret;

	switch (fz_below(fz, 7)) {
	case 0:
		fd = ret = open(a, O_WRONLY | O_CREAT | O_NONBLOCK, 0644);
		if (fd >= 0) {
			ret = write(fd, "new\n", 4);
			close(fd);
		}
		break;
	case 1: ret = unlink(a); break;
	case 2: ret = rename(a, b); break;
	case 3: ret = mkdir("d0/sub", 0755) & mkdir("m0/d0", 0755); break;
	case 4: ret = rmdir(fz_chance(fz, 50) ? "d0/sub" : "m0/d0"); break;
	case 5:
		unlink("l0");
		ret = symlink(fz_chance(fz, 50) ? "f0" : "d1", "l0");
		break;
	default:
		ret = truncate(a, fz_below(fz, 100));
	}
	if (ret >= 0)
		fz_ok(fz);
}

/* A tmpfs mounted on m0 and unmounted under marks and accesses. */
static void op_mount(struct fz *fz)
{
	int ret;

	switch (fz_below(fz, 4)) {
	case 0:
		ret = mount("fuzzsub", "m0", "tmpfs", 0, "size=4m");
		if (ret == 0) {
			fz_write_file("m0/f0", "on the sub-tmpfs\n");
			mkdir("m0/d0", 0755);
		}
		break;
	case 1:
		ret = umount2("m0", MNT_DETACH);
		break;
	case 2:
		ret = mount("d0", "b0", NULL, MS_BIND, NULL);
		break;
	default:
		ret = umount2("b0", MNT_DETACH);
	}
	if (!ret)
		fz_ok(fz);
}

/*
 * Writes in the overlay's layers beneath it (its lower directory v/, its
 * upper ou/upper/), which change neither the overlay inode's ctime, size
 * nor writers, and writes through it (a copy-up); accessors then open
 * the files through ov/. Never the oracle's deny-* and allow-* files.
 */
static void op_overlay_write(struct fz *fz)
{
	static const char *const files[] = {
		"v/f0", "ou/upper/f0", "ov/f0", "ou/upper/allow-0",
	};
	const char *f = FZ_PICK(fz, files);
	int fd = open(f, O_WRONLY | O_NONBLOCK | (fz_chance(fz, 50) ? O_TRUNC :
						   O_APPEND));

	if (fd < 0) {
		/* The upper file is there once ov/f0 was copied up. */
		fz_check(fz, f, fd, FZ_ERRNOS(ENOENT, EPERM, EACCES, EIO, EBUSY,
					      ETXTBSY, EAGAIN, ENOSPC, EDQUOT));
		return;
	}
	if (write(fd, "changed beneath\n", 16) == 16)
		fz_ok(fz);
	close(fd);
}

/* --- filter programs (FSGATE_IOC_SET_FILTER) --- */

#define FZ_LD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
				 offsetof(struct fsgate_filter_data, field))
#define FZ_RET(k)	BPF_STMT(BPF_RET | BPF_K, (k))
#define FZ_JEQ(k)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, 1)

/*
 * A filter that returns @act when the word @load loads, masked with
 * @and unless that is 0, is @value; else asks.
 */
static void fz_filter_if(struct sock_filter *prog, uint32_t *len,
			 struct sock_filter load, uint32_t and, uint32_t value,
			 uint32_t act)
{
	prog[(*len)++] = load;
	if (and)
		prog[(*len)++] = (struct sock_filter)
			BPF_STMT(BPF_ALU | BPF_AND | BPF_K, and);
	prog[(*len)++] = (struct sock_filter)FZ_JEQ(value);
	prog[(*len)++] = (struct sock_filter)FZ_RET(act);
	prog[(*len)++] = (struct sock_filter)FZ_RET(FSGATE_FILTER_ASK);
}

/*
 * A filter, mostly valid (deciding by event, uid, file type or program,
 * with every action, a length returned as an action, no filter), or
 * refused: a load past the struct or not on a word, no return at the
 * end, a jump out of the program, too long, unknown flags.
 */
static void op_filter(struct fz *fz)
{
	static const uint32_t actions[] = {
		FSGATE_FILTER_ASK, FSGATE_FILTER_SKIP, FSGATE_FILTER_ALLOW,
		FSGATE_FILTER_DENY, FSGATE_FILTER_DENY | EACCES,
		FSGATE_FILTER_DENY | EIO, 0x00050000, FSGATE_FILTER_DENY | 999,
	};
	uint32_t act = FZ_PICK(fz, actions);
	struct sock_filter prog[8];
	struct fsgate_filter req = { .insns = (uintptr_t)prog };
	bool bad = false;
	int g = fz_slot_get(fz, NULL);
	long ret;

	if (g < 0)
		return;
	switch (fz_below(fz, 12)) {
	case 0:
		req.insns = 0;	/* none: the group's filter goes */
		break;
	case 1:
		prog[req.len++] = (struct sock_filter)FZ_RET(act);
		break;
	case 2:
		fz_filter_if(prog, &req.len, (struct sock_filter)FZ_LD(mask),
			     0, FAN_OPEN_PERM, act);
		break;
	case 3:
		fz_filter_if(prog, &req.len, (struct sock_filter)FZ_LD(uid),
			     0, 65534, act);
		break;
	case 4:
		fz_filter_if(prog, &req.len, (struct sock_filter)FZ_LD(mode),
			     S_IFMT, S_IFDIR, act);
		break;
	case 5:
		/* The program and cgroup fields, where the module has them. */
		prog[req.len++] = (struct sock_filter)FZ_LD(flags);
		prog[req.len++] = (struct sock_filter)FZ_LD(exe_ino_lo);
		prog[req.len++] = (struct sock_filter)FZ_LD(cgroup_id_lo);
		prog[req.len++] = (struct sock_filter)FZ_RET(act);
		bad = !(fz->sh->features & FSGATE_FEATURE_FILTER_PROC);
		break;
	case 6:
		/* The struct's size as the verdict: an unknown one, asks. */
		prog[req.len++] = (struct sock_filter)
			BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0);
		prog[req.len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
		break;
	case 7:
		prog[req.len++] = (struct sock_filter)
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 sizeof(struct fsgate_filter_data) +
				 4 * fz_below(fz, 8));
		prog[req.len++] = (struct sock_filter)FZ_RET(act);
		bad = true;
		break;
	case 8:
		prog[req.len++] = (struct sock_filter)
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 1 + fz_below(fz, 3));
		prog[req.len++] = (struct sock_filter)FZ_RET(act);
		bad = true;
		break;
	case 9:
		prog[req.len++] = (struct sock_filter)FZ_LD(mask);
		bad = true;
		break;
	case 10:
		prog[req.len++] = (struct sock_filter)
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 6);
		prog[req.len++] = (struct sock_filter)FZ_RET(act);
		bad = true;
		break;
	default:
		prog[req.len++] = (struct sock_filter)FZ_RET(act);
		if (fz_chance(fz, 50))
			req.len = FSGATE_FILTER_MAX + 1;
		else
			req.flags = 1U << fz_below(fz, 32);
		bad = true;
	}
	ret = ioctl(g, FSGATE_IOC_SET_FILTER, &req);
	if (!ret && bad)
		fz_fail(fz, "a bad filter was taken (len %u flags 0x%x)",
			req.len, req.flags);
	fz_check(fz, "FSGATE_IOC_SET_FILTER", ret,
		 bad ? FZ_ERRNOS(EINVAL, EFAULT) : FZ_ERRNOS(ENOMEM));
	if (!ret || bad)
		fz_ok(fz);
	fz_slot_put(fz);
}

/* --- persistent groups (FSGATE_IOC_PERSIST, _ATTACH, _REMOVE) --- */

/* The absent verdict's errnos: 0 for EPERM, all fz_errno_is_verdict()'s. */
static const int fz_absent_errs[] = { 0, EACCES, EIO, EAGAIN };

void fz_persist_req(struct fz *fz, struct fsgate_persist *req,
		    const char *name, bool deny)
{
	static const unsigned int absent[] = { 0, 0, 50, 300, 1000 };
	static const unsigned int linger[] = { 200, 1000, 5000 };

	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	snprintf(req->name, sizeof(req->name), "%s", name);
	req->owner = fz_chance(fz, 70) ? FSGATE_PERSIST_OWNER_SELF : 0;
	req->absent_ms = FZ_PICK(fz, absent);
	req->absent_verdict = deny || fz_chance(fz, 60) ?
			      FSGATE_VERDICT_DENY : FSGATE_VERDICT_ALLOW;
	if (req->absent_verdict == FSGATE_VERDICT_DENY)
		req->absent_errno = FZ_PICK(fz, fz_absent_errs);
	if (fz_chance(fz, 60))
		req->flags = FSGATE_PERSIST_UNTIL_REMOVED;
	else
		req->linger_ms = FZ_PICK(fz, linger);
}

/* One field of a valid request made wrong: EINVAL. */
static void fz_persist_bad(struct fz *fz, struct fsgate_persist *req)
{
	static const char *const names[] = {
		"", "has space", "a/b", "semi;colon", "tab\t", "\xc3\xa9",
	};

	switch (fz_below(fz, 9)) {
	case 0:
		memset(req->name, 0, sizeof(req->name));
		snprintf(req->name, sizeof(req->name), "%s", FZ_PICK(fz, names));
		break;
	case 1:
		memset(req->name, 'n', sizeof(req->name));	/* no NUL */
		break;
	case 2:
		req->name[sizeof(req->name) - 1] = 'x';	/* not NUL-padded */
		break;
	case 3:
		/* FSGATE_VERDICT_DEFAULT is none: allow or deny, said. */
		req->absent_verdict = fz_chance(fz, 30) ? FSGATE_VERDICT_DEFAULT :
				      FSGATE_VERDICT_DENY + 1 + fz_below(fz, 100);
		break;
	case 4:
		/* allow with an errno, or deny with one no verdict gives */
		if (req->absent_verdict == FSGATE_VERDICT_ALLOW)
			req->absent_errno = EACCES;
		else
			req->absent_errno = 4096 + fz_below(fz, 1000);
		break;
	case 5:
		/* a linger bound and until-removed, or neither */
		if (req->flags & FSGATE_PERSIST_UNTIL_REMOVED)
			req->linger_ms = 1 + fz_below(fz, 1000);
		else
			req->linger_ms = 0;
		break;
	case 6:
		req->flags |= 1U << (1 + fz_below(fz, 31));
		break;
	case 7:
		req->reserved = 1;
		break;
	default:
		req->size = fz_below(fz, FSGATE_PERSIST_SIZE_VER0);
		break;
	}
}

/* A home slot (struct fz_proc) with a group fd in it, or not: -1 if none. */
static int fz_home_pick(struct fz *fz, bool with_fd)
{
	struct fz_proc *p = fz->proc;
	unsigned int i = fz_below(fz, FZ_SLOTS), n;

	for (n = 0; n < FZ_SLOTS; n++, i = (i + 1) % FZ_SLOTS)
		if (p->home[i][0] && !p->home_busy[i] &&
		    (!with_fd || p->slots[i] >= 0))
			return i;
	return -1;
}

/* FSGATE_IOC_ATTACH to @name with @flags: the fd, or -1 with errno set. */
static int fz_attach(struct fz *fz, const char *name, unsigned int flags)
{
	struct fsgate_attach req = { .flags = flags };

	snprintf(req.name, sizeof(req.name), "%s", name);
	return ioctl(fz->proc->dev, FSGATE_IOC_ATTACH, &req);
}

static int fz_remove(struct fz *fz, const char *name)
{
	struct fsgate_attach req = { 0 };

	snprintf(req.name, sizeof(req.name), "%s", name);
	return ioctl(fz->proc->dev, FSGATE_IOC_REMOVE, &req);
}

/*
 * max_persistent_groups set to 1 for one call, by one worker at a time;
 * false if another has it, or the parameter's file is denied.
 */
static bool fz_persist_limit(struct fz *fz, unsigned long long *saved)
{
	if (atomic_exchange(&fz->sh->limit_busy, 1))
		return false;
	if (!fsgate_param_get("max_persistent_groups", saved) &&
	    !fsgate_param_set("max_persistent_groups", 1))
		return true;
	atomic_store(&fz->sh->limit_busy, 0);
	return false;
}

static void fz_persist_unlimit(struct fz *fz, unsigned long long saved)
{
	if (fsgate_param_set("max_persistent_groups", saved) &&
	    !fz_errno_is_verdict(errno))
		fz_fail(fz, "restoring max_persistent_groups: %s",
			strerror(errno));
	atomic_store(&fz->sh->limit_busy, 0);
}

/*
 * Make a slot's group persistent: valid (a new name "fz<worker>-<n>";
 * EBUSY if its group is persistent already, and asked twice), a name
 * another group has (EEXIST) or a request the ABI refuses (EINVAL).
 */
static void op_persist(struct fz *fz)
{
	struct fz_proc *p = fz->proc;
	struct fsgate_persist req;
	unsigned int i = fz_below(fz, FZ_SLOTS), kind = fz_below(fz, 10), j;
	char name[FZ_PNAME_LEN];
	unsigned long long saved = 0, now;
	bool limited = false;
	int g, taken = -1;
	long ret;

	pthread_rwlock_wrlock(&p->slots_lock);
	g = p->slots[i];
	if (g < 0 || p->home_busy[i])
		goto out;
	snprintf(name, sizeof(name), "fz%d-%u", fz->worker, p->persist_seq);
	fz_persist_req(fz, &req, name, false);
	if (kind < 3) {
		fz_persist_bad(fz, &req);
		ret = ioctl(g, FSGATE_IOC_PERSIST, &req);
		if (!ret) {
			fz_fail(fz, "a bad struct fsgate_persist was taken (size %u flags 0x%x verdict %u errno %u linger %u reserved %u)",
				req.size, req.flags, req.absent_verdict,
				req.absent_errno, req.linger_ms, req.reserved);
			/* Not to outlive the run, whatever its name. */
			req.name[sizeof(req.name) - 1] = 0;
			fz_remove(fz, req.name);
			goto out;
		}
		fz_check(fz, "FSGATE_IOC_PERSIST (bad)", ret, FZ_ERRNOS(EINVAL));
		if (errno == EINVAL)
			fz_ok(fz);
		goto out;
	}
	if (kind == 3) {
		/* A name this worker's group has until removed: EEXIST. */
		for (j = 0; j < FZ_SLOTS; j++)
			if (j != i && p->home[j][0] && p->home_until_removed[j])
				taken = j;
		if (taken >= 0)
			snprintf(req.name, sizeof(req.name), "%s", p->home[taken]);
	}
	/*
	 * With a group of its own kept until removed (so there, since only
	 * this worker removes it and it holds slots_lock), a limit of 1:
	 * ENOSPC.
	 */
	for (j = 0; kind == 4 && !p->persisted[i] && j < FZ_SLOTS; j++)
		if (p->home[j][0] && p->home_until_removed[j])
			break;
	if (kind == 4 && !p->persisted[i] && j < FZ_SLOTS)
		limited = fz_persist_limit(fz, &saved);
	ret = ioctl(g, FSGATE_IOC_PERSIST, &req);
	if (ret && p->persisted[i]) {
		/* Made persistent once: EBUSY before anything else. */
		if (errno != EBUSY)
			fz_fail(fz, "FSGATE_IOC_PERSIST of a persistent group: %s, not EBUSY",
				strerror(errno));
		else
			fz_ok(fz);
		atomic_fetch_add(&fz->sh->errors[fz->op], 1);
		goto out;
	}
	if (!ret && (p->persisted[i] || taken >= 0)) {
		fz_fail(fz, "FSGATE_IOC_PERSIST of %s group as \"%s\" worked",
			p->persisted[i] ? "a persistent" : "another", req.name);
		goto out;
	}
	if (limited) {
		fz_persist_unlimit(fz, saved);
		/* Taken only if another worker's op_param raised the limit. */
		if (!ret && !fsgate_param_get("max_persistent_groups", &now) &&
		    now == 1)
			fz_fail(fz, "FSGATE_IOC_PERSIST past max_persistent_groups 1 worked");
		if (!ret)
			goto made;
		fz_check(fz, "FSGATE_IOC_PERSIST past the limit", ret,
			 FZ_ERRNOS(ENOSPC));
		if (errno == ENOSPC) {
			atomic_fetch_add(&fz->sh->persist_enospc, 1);
			fz_ok(fz);
		}
		goto out;
	}
	if (taken >= 0) {
		fz_check(fz, "FSGATE_IOC_PERSIST with a name taken", ret,
			 FZ_ERRNOS(EEXIST));
		if (errno == EEXIST)
			fz_ok(fz);
		goto out;
	}
	fz_check(fz, "FSGATE_IOC_PERSIST", ret, FZ_ERRNOS(ENOSPC, ENOMEM));
	if (ret) {
		if (errno == ENOSPC)
			atomic_fetch_add(&fz->sh->persist_enospc, 1);
		goto out;
	}
made:
	fz_ok(fz);
	atomic_fetch_add(&fz->sh->persist_made, 1);
	p->persist_seq++;
	for (j = 0; j < FZ_SLOTS; j++)
		if (p->slots[j] >= 0 && p->tag[j] == p->tag[i])
			p->persisted[j] = true;
	p->home_tag[i] = p->tag[i];
	snprintf(p->home[i], sizeof(p->home[i]), "%s", name);
	p->home_flags[i] = p->slot_flags[i];
	p->home_until_removed[i] = req.flags & FSGATE_PERSIST_UNTIL_REMOVED;
	if (fz_chance(fz, 30)) {
		/* Twice: EBUSY, whatever the second name. */
		snprintf(req.name, sizeof(req.name), "fz%d-%u", fz->worker,
			 p->persist_seq);
		ret = ioctl(g, FSGATE_IOC_PERSIST, &req);
		if (!ret || errno != EBUSY)
			fz_fail(fz, "FSGATE_IOC_PERSIST twice: %ld (%s), not EBUSY",
				ret, strerror(errno));
	}
out:
	pthread_rwlock_unlock(&p->slots_lock);
}

/*
 * Attach to one of the worker's persistent groups: into its home slot if
 * that is empty, else into a free one (a second fd); or to a name no
 * group has (ENOENT), or with flags the ABI refuses (EINVAL).
 */
static void op_attach(struct fz *fz)
{
	struct fz_proc *p = fz->proc;
	unsigned int flags = (fz_chance(fz, 80) ? FSGATE_NONBLOCK : 0) |
			     (fz_chance(fz, 30) ? FSGATE_CLOEXEC : 0);
	char name[FZ_PNAME_LEN];
	int i, j, to = -1, g;
	bool bad = fz_chance(fz, 30);

	if (fz_chance(fz, 10)) {
		/* No such group: ENOENT; flags besides the two: EINVAL first. */
		snprintf(name, sizeof(name), "fz%d-none-%u", fz->worker,
			 fz_below(fz, 1000));
		g = fz_attach(fz, name, bad ? 1U << (2 + fz_below(fz, 20)) :
				  flags);
		if (g >= 0) {
			fz_fail(fz, "FSGATE_IOC_ATTACH to \"%s\", which no group has, worked",
				name);
			close(g);
			return;
		}
		fz_check(fz, "FSGATE_IOC_ATTACH (no such group)", g,
			 bad ? FZ_ERRNOS(EINVAL) : FZ_ERRNOS(ENOENT));
		fz_ok(fz);
		return;
	}
	pthread_rwlock_wrlock(&p->slots_lock);
	i = fz_home_pick(fz, false);
	if (i < 0)
		goto out;
	if (p->slots[i] < 0)
		to = i;
	for (j = 0; j < FZ_SLOTS && to < 0; j++)
		if (p->slots[j] < 0 && !p->home[j][0])
			to = j;
	if (to < 0)
		goto out;
	g = fz_attach(fz, p->home[i], flags);
	/* Kept until removed, and only this worker removes it: there. */
	fz_check(fz, "FSGATE_IOC_ATTACH", g, p->home_until_removed[i] ?
		 FZ_ERRNOS(EMFILE, ENFILE, ENOMEM) :
		 FZ_ERRNOS(ENOENT, EMFILE, ENFILE, ENOMEM));
	if (g < 0)
		goto out;
	p->slots[to] = g;
	p->slot_flags[to] = (p->home_flags[i] &
			     ~(FSGATE_NONBLOCK | FSGATE_CLOEXEC)) | flags;
	p->persisted[to] = true;
	p->tag[to] = p->home_tag[i];
	fz_ok(fz);
out:
	pthread_rwlock_unlock(&p->slots_lock);
}

#define FZ_KEPT	8	/* events a detach or handover leaves unanswered */

struct fz_kept {
	int fd[FZ_KEPT];
	uint64_t id[FZ_KEPT];
	bool seen[FZ_KEPT];
	unsigned int n;
};

/* Keep a permission event with an id unanswered; close the rest. */
static void fz_keep_event(struct fz *fz, const struct fz_event *ev, void *arg)
{
	struct fz_kept *k = arg;

	(void)fz;
	if ((ev->meta->mask & FSGATE_PERM_EVENTS) && ev->id && k->n < FZ_KEPT) {
		k->fd[k->n] = ev->meta->fd;
		k->id[k->n] = ev->id;
		k->seen[k->n++] = false;
	} else {
		close(ev->meta->fd);
	}
}

struct fz_reread {
	struct fz_kept *k;
	int g;
	unsigned int gflags;
};

/* An event through the new fd: one of the kept ones again, by its id? */
static void fz_reread_event(struct fz *fz, const struct fz_event *ev,
			    void *arg)
{
	struct fz_reread *r = arg;
	unsigned int i;

	for (i = 0; ev->id && i < r->k->n; i++) {
		if (r->k->id[i] == ev->id && !r->k->seen[i]) {
			r->k->seen[i] = true;
			atomic_fetch_add(&fz->sh->rereport_seen, 1);
		}
	}
	if (ev->meta->mask & FSGATE_PERM_EVENTS)
		fz_answer(fz, r->g, r->gflags, ev->meta->fd, ev->id, FZ_ANY);
	close(ev->meta->fd);
}

/*
 * Take a home slot's fd out (its slot kept busy), read some events
 * through it and keep them unanswered; with @handover attach a second fd
 * first, through which answering them must fail (ENOENT). Close the fd:
 * what it kept is re-reported, with the same ids, through the second fd
 * (or one attached now, at times), which goes back home.
 */
static void fz_persist_move(struct fz *fz, bool handover)
{
	struct fz_proc *p = fz->proc;
	char buf[4096] __attribute__((aligned(8)));
	char name[FZ_PNAME_LEN];
	struct fz_kept k = { .n = 0 };
	struct fz_reread r = { .k = &k };
	unsigned int gflags, nflags = FSGATE_NONBLOCK, i;
	bool until_removed;
	struct pollfd pfd;
	int slot, g, b = -1, tries;
	ssize_t len;
	long ret;

	pthread_rwlock_wrlock(&p->slots_lock);
	slot = fz_home_pick(fz, true);
	if (slot >= 0) {
		g = p->slots[slot];
		p->slots[slot] = -1;
		p->home_busy[slot] = true;
		gflags = p->slot_flags[slot];
		until_removed = p->home_until_removed[slot];
		snprintf(name, sizeof(name), "%s", p->home[slot]);
	}
	pthread_rwlock_unlock(&p->slots_lock);
	if (slot < 0)
		return;
	if (handover) {
		b = fz_attach(fz, name, nflags);
		fz_check(fz, "FSGATE_IOC_ATTACH for a handover", b,
			 until_removed ? FZ_ERRNOS(EMFILE, ENFILE, ENOMEM) :
			 FZ_ERRNOS(ENOENT, EMFILE, ENFILE, ENOMEM));
	}
	/* Read through the old fd, if it does not block, and answer nothing. */
	pfd = (struct pollfd){ .fd = g, .events = POLLIN };
	if ((fcntl(g, F_GETFL) & O_NONBLOCK) &&
	    poll(&pfd, 1, fz_below(fz, 50)) > 0) {
		len = fz_read_timed(fz, g, buf, sizeof(buf));
		fz_check(fz, "read", len, fz_read_errnos);
		fz_events(fz, gflags, buf, len, fz_keep_event, &k);
	}
	/* Through another fd of the group: ENOENT, by id and by fd number. */
	for (i = 0; b >= 0 && i < k.n && i < 2; i++) {
		ret = fz_chance(fz, 50) ?
		      fsgate_respond_id(b, k.id[i], FSGATE_ALLOW) :
		      fsgate_respond(b, k.fd[i], FSGATE_ALLOW);
		if (!ret)
			fz_fail(fz, "event %llu, read through fd %d of \"%s\", was answered through its fd %d",
				(unsigned long long)k.id[i], g, name, b);
		else if (errno != ENOENT)
			fz_fail(fz, "an answer through another fd of \"%s\": %s, not ENOENT",
				name, strerror(errno));
		else
			atomic_fetch_add(&fz->sh->cross_fd_refused, 1);
	}
	if (close(g))
		fz_fail(fz, "close of a persistent group's fd: %s",
			strerror(errno));
	else if (!handover || b >= 0)
		fz_ok(fz);
	for (i = 0; i < k.n; i++)
		close(k.fd[i]);
	atomic_fetch_add(&fz->sh->rereport_kept, k.n);
	if (!handover && k.n && fz_chance(fz, 70)) {
		b = fz_attach(fz, name, nflags);
		fz_check(fz, "FSGATE_IOC_ATTACH after a detach", b,
			 until_removed ? FZ_ERRNOS(EMFILE, ENFILE, ENOMEM) :
			 FZ_ERRNOS(ENOENT, EMFILE, ENFILE, ENOMEM));
	}
	/*
	 * Look for them through the new fd; others may read the group
	 * (a second fd in a slot, a reader) and events time out, so
	 * this counts what it sees and needs none.
	 */
	r.g = b;
	r.gflags = (gflags & ~(FSGATE_NONBLOCK | FSGATE_CLOEXEC)) | nflags;
	for (tries = 0; b >= 0 && k.n && tries < 4; tries++) {
		pfd = (struct pollfd){ .fd = b, .events = POLLIN };
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		len = fz_read_timed(fz, b, buf, sizeof(buf));
		fz_check(fz, "read", len, fz_read_errnos);
		fz_events(fz, r.gflags, buf, len, fz_reread_event, &r);
	}
	pthread_rwlock_wrlock(&p->slots_lock);
	p->home_busy[slot] = false;
	if (b >= 0) {
		p->slots[slot] = b;
		p->slot_flags[slot] = r.gflags;
		p->persisted[slot] = true;
		p->tag[slot] = p->home_tag[slot];
	}
	pthread_rwlock_unlock(&p->slots_lock);
}

/* Close a persistent group's fd, at times with events read unanswered. */
static void op_detach(struct fz *fz)
{
	fz_persist_move(fz, false);
}

/* Attach a second fd, then close the first with events pending. */
static void op_handover(struct fz *fz)
{
	fz_persist_move(fz, true);
}

/* FSGATE_IOC_REMOVE of a name no group has (ENOENT), or with flags (EINVAL). */
static void fz_remove_none(struct fz *fz)
{
	struct fsgate_attach req = { 0 };
	long ret;

	snprintf(req.name, sizeof(req.name), "fz%d-none", fz->worker);
	if (fz_chance(fz, 30))
		req.flags = 1;
	else if (fz_chance(fz, 30))
		req.reserved32 = 1;
	ret = ioctl(fz->proc->dev, FSGATE_IOC_REMOVE, &req);
	if (!ret)
		fz_fail(fz, "FSGATE_IOC_REMOVE of \"%s\" (flags 0x%x) worked",
			req.name, req.flags);
	fz_check(fz, "FSGATE_IOC_REMOVE (bad)", ret,
		 req.flags || req.reserved32 ? FZ_ERRNOS(EINVAL) :
		 FZ_ERRNOS(ENOENT));
	fz_ok(fz);
}

/*
 * FSGATE_IOC_REMOVE one of the worker's persistent groups: its name is
 * free at once (attaching to it is ENOENT, persisting another group as
 * it works); its fds stay, an ordinary group's. Or a name no group has
 * (ENOENT), or flags (EINVAL).
 */
static void op_remove(struct fz *fz)
{
	struct fz_proc *p = fz->proc;
	struct fsgate_init init = { .flags = FSGATE_CLASS_NOTIF };
	struct fsgate_persist preq;
	int i, g;
	long ret;

	pthread_rwlock_wrlock(&p->slots_lock);
	i = fz_home_pick(fz, false);
	if (i < 0 || fz_chance(fz, 10)) {
		pthread_rwlock_unlock(&p->slots_lock);
		fz_remove_none(fz);
		return;
	}
	ret = fz_remove(fz, p->home[i]);
	fz_check(fz, "FSGATE_IOC_REMOVE", ret, p->home_until_removed[i] ?
		 FZ_ERRNOS(ENOMEM) : FZ_ERRNOS(ENOENT));
	if (!ret) {
		atomic_fetch_add(&fz->sh->persist_removed, 1);
		fz_ok(fz);
		g = fz_attach(fz, p->home[i], FSGATE_NONBLOCK);
		if (g >= 0) {
			fz_fail(fz, "FSGATE_IOC_ATTACH to \"%s\" worked once it was removed",
				p->home[i]);
			close(g);
		} else if (errno != ENOENT) {
			fz_fail(fz, "FSGATE_IOC_ATTACH to \"%s\", removed: %s, not ENOENT",
				p->home[i], strerror(errno));
		}
	}
	if (!ret && fz_chance(fz, 30)) {
		/* The name is free at once: another group takes it. */
		g = ioctl(p->dev, FSGATE_IOC_INIT, &init);
		fz_check(fz, "FSGATE_IOC_INIT", g, FZ_ERRNOS(EMFILE, ENFILE, ENOMEM));
		if (g >= 0) {
			fz_persist_req(fz, &preq, p->home[i], false);
			ret = ioctl(g, FSGATE_IOC_PERSIST, &preq);
			fz_check(fz, "FSGATE_IOC_PERSIST of a removed group's name",
				 ret, FZ_ERRNOS(ENOSPC, ENOMEM));
			if (!ret && fz_remove(fz, p->home[i]))
				fz_fail(fz, "FSGATE_IOC_REMOVE of \"%s\" again: %s",
					p->home[i], strerror(errno));
			close(g);
		}
	}
	p->home[i][0] = 0;
	pthread_rwlock_unlock(&p->slots_lock);
}

/*
 * A forked reader attaches to one of the worker's persistent groups
 * itself and reads it, leaving most events unanswered, and is killed
 * while it reads: what it held is re-reported to the group's next
 * reader.
 */
static void op_kill_attached(struct fz *fz)
{
	struct fz_proc *p = fz->proc;
	char name[FZ_PNAME_LEN];
	unsigned int gflags = 0, k;
	pid_t pid;
	int i;

	if (fz_kids_count(p, FZ_KID_ATTACHED) >= 2)
		return;
	pthread_rwlock_rdlock(&p->slots_lock);
	i = fz_home_pick(fz, false);
	if (i >= 0) {
		snprintf(name, sizeof(name), "%s", p->home[i]);
		gflags = p->home_flags[i];
	}
	pthread_rwlock_unlock(&p->slots_lock);
	if (i < 0)
		return;
	pid = fz_attached_spawn(fz, name, gflags);
	if (pid <= 0)
		return;
	usleep(20000 + 1000 * fz_below(fz, 200));
	/* Killed under kids_lock: the pid is not reaped and reused meanwhile. */
	pthread_mutex_lock(&p->kids_lock);
	for (k = 0; k < FZ_KIDS; k++) {
		if (p->kids[k] == pid) {
			kill(pid, SIGKILL);
			atomic_fetch_add(&fz->sh->attached_killed, 1);
			break;
		}
	}
	pthread_mutex_unlock(&p->kids_lock);
}

void fz_persist_cleanup(struct fz *fz)
{
	struct fz_proc *p = fz->proc;
	unsigned int i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (!p->home[i][0])
			continue;
		/* One with a linger bound may have gone by itself. */
		if (fz_remove(fz, p->home[i]) &&
		    (errno != ENOENT || p->home_until_removed[i]))
			fz_fail(fz, "FSGATE_IOC_REMOVE of \"%s\" at a pause: %s",
				p->home[i], strerror(errno));
		else
			atomic_fetch_add(&fz->sh->persist_removed, 1);
		p->home[i][0] = 0;
		p->home_busy[i] = false;
	}
}

const struct fz_op fz_ops[] = {
	{ "group_init",		6, op_group_init },
	{ "group_init_bad",	2, op_group_init_bad },
	{ "group_close",	2, op_group_close },
	{ "group_dup",		1, op_group_dup },
	{ "mark_add",		14, op_mark_add },
	{ "mark_remove",	5, op_mark_remove },
	{ "mark_flush",		1, op_mark_flush },
	{ "mark_bad",		2, op_mark_bad },
	{ "read",		16, op_read_nonblock },
	{ "read_epoll",		16, op_read_epoll },
	{ "answer_stash",	16, op_answer_stash },
	{ "write_garbage",	3, op_write_garbage },
	{ "stats",		3, op_stats },
	{ "ioctl_bad",		1, op_ioctl_bad },
	{ "fdinfo",		2, op_fdinfo },
	{ "proc_groups",	1, op_proc_groups },
	{ "groups",		1, op_groups },
	{ "access",		14, op_access },
	{ "kill_access",	3, op_kill_access },
	{ "daemon",		2, op_daemon },
	{ "kill_daemon",	1, op_kill_daemon },
	{ "fork_reader",	1, op_fork_reader },
	{ "reap",		6, op_reap },
	{ "param",		1, op_param },
	{ "flush_cache",	2, op_flush_cache },
	{ "mute",		3, op_mute },
	{ "fs_churn",		6, op_fs_churn },
	{ "mount",		2, op_mount },
	{ "group_fid",		3, op_group_fid },
	{ "group_info",		3, op_group_info },
	{ "answer_id",		6, op_answer_id },
	{ "answer_audit",	10, op_answer_audit },
	{ "extend",		8, op_extend },
	{ "filter",		2, op_filter },
	{ "mark_ignore",	3, op_mark_ignore },
	{ "mark_evictable",	3, op_mark_evictable },
	{ "lease",		2, op_lease },
	{ "fuse",		2, op_fuse },
	{ "nobody",		2, op_nobody },
	{ "overlay_write",	2, op_overlay_write },
	{ "persist",		3, op_persist },
	{ "attach",		3, op_attach },
	{ "detach",		2, op_detach },
	{ "handover",		2, op_handover },
	{ "remove",		2, op_remove },
	{ "kill_attached",	2, op_kill_attached },
};
const unsigned int fz_nops = sizeof(fz_ops) / sizeof(fz_ops[0]);
