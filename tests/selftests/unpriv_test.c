// SPDX-License-Identifier: GPL-2.0
/*
 * Unprivileged groups (FSGATE_FEATURE_UNPRIV): /dev/fsgate is open to
 * every user, who gets what fanotify gives a user without CAP_SYS_ADMIN
 * since Linux 5.13 and nothing more. Each case drops to uid and gid 65534
 * (no capabilities) having opened nothing privileged, and checks fsgate
 * side by side with in-tree fanotify on the same kernel wherever
 * fanotify has the same request: the same success, the same errno.
 * fsgate's own requests (priorities, timeouts, muting, filters, the
 * verdict cache, persistence, the group list) are refused with EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NOBODY 65534

FIXTURE(unpriv) {
	char dir[64];
	char file[80];
	char secret[80];
	char subdir[80];
};

/*
 * Each test gets a tmpfs of its own, in a mount namespace of its own,
 * with a file every user may read and one only root may.
 */
FIXTURE_SETUP(unpriv)
{
	int fd;

	ASSERT_EQ(0, fsgate_test_tmpfs("unpriv", self->dir, sizeof(self->dir)));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->secret, sizeof(self->secret), "%s/secret", self->dir);
	fd = open(self->file, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8, write(fd, "content\n", 8));
	close(fd);
	fd = open(self->secret, O_CREAT | O_WRONLY, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(self->subdir, sizeof(self->subdir), "%s/sub",
		 self->dir);
	ASSERT_EQ(0, mkdir(self->subdir, 0755));
}

FIXTURE_TEARDOWN(unpriv)
{
	fsgate_test_tmpfs_done(self->dir);
}

/* Become uid 65534; with @keep root can be taken back (become_root()). */
static int become_nobody(int keep)
{
	return fsgate_test_nobody(keep);
}

/* Take root back after become_nobody(1); 0, or -1. */
static int become_root(void)
{
	return setresuid(-1, 0, -1);
}

/* errno of a call that returned @r (0 for success, a new fd closed). */
static int err_of(int r)
{
	if (r < 0)
		return errno;
	if (r > 0)
		close(r);
	return 0;
}

/* errno of a call that returned @r, a count or 0 on success. */
static int err_no(int r)
{
	return r < 0 ? errno : 0;
}

static int fsgate_init_err(unsigned int flags)
{
	return err_of(fsgate_init(flags, O_RDONLY, FSGATE_PRIORITY_DEFAULT));
}

static int fanotify_init_err(unsigned int flags)
{
	return err_of(fanotify_init(flags, O_RDONLY));
}

TEST_F(unpriv, device_is_open_to_every_user)
{
	struct fsgate_version v;
	int dev;

	ASSERT_EQ(0, become_nobody(0));
	dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev) TH_LOG("open /dev/fsgate as a user: %s",
				 strerror(errno));
	ASSERT_EQ(0, ioctl(dev, FSGATE_IOC_VERSION, &v));
	EXPECT_TRUE(v.features & FSGATE_FEATURE_UNPRIV);
	close(dev);
}

/*
 * fanotify_init(2)'s rules for a user: a notification group reporting
 * file handles, nothing beyond (EPERM); errors of its own (EINVAL) as
 * for root. fsgate gives the errno fanotify gives, flag by flag.
 */
TEST_F(unpriv, init_as_fanotify_decides)
{
	static const unsigned int flags[] = {
		FAN_CLASS_NOTIF,			/* no FID: EPERM */
		FAN_CLASS_NOTIF | FAN_REPORT_FID,	/* allowed */
		FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,	/* allowed */
		FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK,
		FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID,
		FAN_CLASS_CONTENT | FAN_REPORT_FID,
		FAN_CLASS_PRE_CONTENT | FAN_REPORT_FID,
		FAN_CLASS_CONTENT,
		FAN_REPORT_FID | FAN_UNLIMITED_QUEUE,
		FAN_REPORT_FID | FAN_UNLIMITED_MARKS,
		FAN_REPORT_FID | FAN_REPORT_TID,
		FAN_REPORT_FID | FAN_ENABLE_AUDIT,	/* CAP_AUDIT_WRITE */
		FAN_REPORT_NAME,			/* EINVAL: no DIR_FID */
	};
	int fan[ARRAY_SIZE(flags)], i;

	ASSERT_EQ(0, become_nobody(0));
	for (i = 0; i < (int)ARRAY_SIZE(flags); i++)
		fan[i] = fanotify_init_err(flags[i]);
	/* What fanotify allows a user, and refuses; the table checks itself. */
	EXPECT_EQ(EPERM, fan[0]);
	EXPECT_EQ(0, fan[1]);
	EXPECT_EQ(EPERM, fan[5]);
	for (i = 0; i < (int)ARRAY_SIZE(flags); i++) {
		EXPECT_EQ(fan[i], fsgate_init_err(flags[i]))
			TH_LOG("flags 0x%x: fanotify %s", flags[i],
			       strerror(fan[i]));
	}
}

/*
 * fsgate's own settings of a group reach beyond the user's files: an
 * explicit priority, timeouts and verdicts, the flags fanotify has no
 * unprivileged counterpart of. All are EPERM for a user.
 */
TEST_F(unpriv, init_fsgate_settings_need_privilege)
{
	static const unsigned int flags[] = {
		FSGATE_EXCLUDE_SELF, FSGATE_REPORT_PERM, FSGATE_REPORT_PROC,
		FSGATE_REPORT_FD_ERROR,
	};
	struct fsgate_init base = {
		.flags = FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_DEFAULT,
	}, init;
	int i;

	ASSERT_EQ(0, become_nobody(0));
	EXPECT_EQ(0, err_of(fsgate_init_ext(&base)));
	for (i = 0; i < (int)ARRAY_SIZE(flags); i++) {
		init = base;
		init.flags |= flags[i];
		EXPECT_EQ(EPERM, err_of(fsgate_init_ext(&init)))
			TH_LOG("flag 0x%x", flags[i]);
	}
	init = base;
	init.priority = FSGATE_PRIORITY_NOTIF;
	EXPECT_EQ(EPERM, err_of(fsgate_init_ext(&init)));
	init = base;
	init.timeout_ms = 1000;
	EXPECT_EQ(EPERM, err_of(fsgate_init_ext(&init)));
	init = base;
	init.max_wait_ms = 1000;
	EXPECT_EQ(EPERM, err_of(fsgate_init_ext(&init)));
	init = base;
	init.timeout_verdict = FSGATE_VERDICT_DENY;
	EXPECT_EQ(EPERM, err_of(fsgate_init_ext(&init)));
	init = base;
	init.orphan_verdict = FSGATE_VERDICT_DENY;
	EXPECT_EQ(EPERM, err_of(fsgate_init_ext(&init)));
}

/* The mark requests a user tries on its own FID group. */
enum { M_FILE, M_SECRET, M_MOUNT, M_FS, M_FLUSH_FS, M_FLUSH_INODE, M_PERM,
       M_DIR_CHILD, M_COUNT };

static void user_marks(int g, int fsgate, const char *dir, const char *file,
		       const char *secret, int *res)
{
	const struct {
		unsigned int flags;
		uint64_t mask;
		const char *path;
	} req[M_COUNT] = {
		{ FAN_MARK_ADD | FAN_MARK_INODE, FAN_OPEN, file },
		{ FAN_MARK_ADD | FAN_MARK_INODE, FAN_OPEN, secret },
		{ FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, dir },
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, dir },
		{ FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM, 0, NULL },
		{ FAN_MARK_FLUSH | FAN_MARK_INODE, 0, NULL },
		{ FAN_MARK_ADD | FAN_MARK_INODE, FAN_OPEN_PERM, file },
		{ FAN_MARK_ADD | FAN_MARK_INODE, FAN_CREATE | FAN_ONDIR, dir },
	};
	int i, r;

	for (i = 0; i < M_COUNT; i++) {
		if (fsgate)
			r = fsgate_mark(g, req[i].flags, req[i].mask,
					AT_FDCWD, req[i].path);
		else
			r = fanotify_mark(g, req[i].flags, req[i].mask,
					  AT_FDCWD, req[i].path);
		res[i] = r ? errno : 0;
	}
}

/*
 * A user's group marks inodes it may read (EACCES for others, as
 * fanotify's inode_permission(MAY_READ)), never a mount or a filesystem
 * (EPERM, flush included), and has no permission events (EINVAL).
 */
TEST_F(unpriv, marks_as_fanotify_decides)
{
	const int want[M_COUNT] = { 0, EACCES, EPERM, EPERM, EPERM, 0, EINVAL,
				    0 };
	int fan[M_COUNT], res[M_COUNT], f, g, i;

	ASSERT_EQ(0, become_nobody(0));
	f = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, O_RDONLY);
	ASSERT_LE(0, f);
	user_marks(f, 0, self->dir, self->file, self->secret, fan);
	close(f);
	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_DFID_NAME, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	user_marks(g, 1, self->dir, self->file, self->secret, res);
	close(g);
	for (i = 0; i < M_COUNT; i++) {
		EXPECT_EQ(want[i], fan[i]) TH_LOG("fanotify request %d", i);
		EXPECT_EQ(fan[i], res[i]) TH_LOG("fsgate request %d", i);
	}
}

/* One event from @g within WAIT_MS into @buf (@len bytes); its length. */
static ssize_t one_event(int g, char *buf, size_t len)
{
	if (!readable(g, WAIT_MS))
		return -1;
	return read(g, buf, len);
}

/*
 * The events of a user's group on @file: its own open reports its own
 * pid, another process's open pid 0; no event has an fd, and each has
 * its file handle. @what is 0 for pid, 1 for the other's, 2 for fd.
 */
static void user_events(struct __test_metadata *_metadata, int g,
			const char *file, const char *who)
{
	char buf[4096] __attribute__((aligned(8)));
	const struct fanotify_event_metadata *ev = (void *)buf;
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY);
	ASSERT_LE(0, fd);
	close(fd);
	n = one_event(g, buf, sizeof(buf));
	ASSERT_LT(FAN_EVENT_METADATA_LEN, n) TH_LOG("%s: own open", who);
	EXPECT_TRUE(ev->mask & FAN_OPEN);
	EXPECT_EQ(getpid(), ev->pid) TH_LOG("%s: own pid", who);
	EXPECT_EQ(FAN_NOFD, ev->fd);
	EXPECT_LT(FAN_EVENT_METADATA_LEN, ev->event_len) TH_LOG("%s: FID", who);

	ASSERT_EQ(0, reap(spawn_open(file, O_RDONLY, 0)));
	n = one_event(g, buf, sizeof(buf));
	ASSERT_LT(FAN_EVENT_METADATA_LEN, n) TH_LOG("%s: other open", who);
	EXPECT_TRUE(ev->mask & FAN_OPEN);
	EXPECT_EQ(0, ev->pid) TH_LOG("%s: another process's pid", who);
	EXPECT_EQ(FAN_NOFD, ev->fd);
}

/* A user's FID group gets its events, as fanotify's, with pids hidden. */
TEST_F(unpriv, events_as_fanotify_reports)
{
	int f, g;

	ASSERT_EQ(0, become_nobody(0));
	f = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK,
			  O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD,
				   self->file));
	user_events(_metadata, f, self->file, "fanotify");
	close(f);
	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID | FSGATE_NONBLOCK,
			O_RDONLY, FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 self->file));
	user_events(_metadata, g, self->file, "fsgate");
	close(g);
}

/* The ioctls of fsgate's own that a user's group is refused (EPERM). */
static void own_ioctls_refused(struct __test_metadata *_metadata, int g,
			       const char *who)
{
	struct sock_filter accept[] = {
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
	};
	struct fsgate_mute_entry entry = {
		.type = FSGATE_MUTE_PROCESS, .id = getpid(),
	};
	struct fsgate_persist req = {
		.size = sizeof(req),
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.flags = FSGATE_PERSIST_UNTIL_REMOVED,
		.absent_verdict = FSGATE_VERDICT_ALLOW,
		.name = "unpriv-test",
	};

	EXPECT_EQ(EPERM, err_no(fsgate_mute_add(g, &entry))) TH_LOG("%s", who);
	EXPECT_EQ(EPERM, err_no(fsgate_mute_clear(g))) TH_LOG("%s", who);
	EXPECT_EQ(EPERM, err_no(fsgate_set_filter(g, accept, 1)))
		TH_LOG("%s", who);
	EXPECT_EQ(EPERM, err_no(fsgate_cache_flush(g, -1))) TH_LOG("%s", who);
	EXPECT_EQ(EPERM, err_no(fsgate_persist(g, &req))) TH_LOG("%s", who);
}

/*
 * A user's group has fanotify's interface and its own counters, none of
 * fsgate's ioctls that reach beyond its events.
 */
TEST_F(unpriv, group_ioctls_beyond_fanotify_are_refused)
{
	struct fsgate_stats st;
	int g, n = -1;

	ASSERT_EQ(0, become_nobody(0));
	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	EXPECT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, ioctl(g, FIONREAD, &n));
	EXPECT_EQ(0, n);
	own_ioctls_refused(_metadata, g, "user");
	close(g);
}

/*
 * As fanotify's FANOTIFY_UNPRIV: a group a user made stays a user's
 * group when root holds its fd. Root's mount and filesystem marks are
 * refused on it, as fanotify refuses them, and so are fsgate's own
 * ioctls; root's group is not a user's.
 */
TEST_F(unpriv, user_group_stays_unprivileged_for_root)
{
	int f, g, own;

	ASSERT_EQ(0, become_nobody(1));
	f = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
	ASSERT_LE(0, f);
	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, become_root());

	EXPECT_EQ(EPERM, err_no(fanotify_mark(f, FAN_MARK_ADD | FAN_MARK_MOUNT,
					      FAN_OPEN, AT_FDCWD, self->dir)));
	EXPECT_EQ(EPERM, err_no(fsgate_mark(g, FAN_MARK_ADD | FAN_MARK_MOUNT,
					    FAN_OPEN, AT_FDCWD, self->dir)));
	EXPECT_EQ(EPERM, err_no(fanotify_mark(f, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
					      FAN_OPEN, AT_FDCWD, self->dir)));
	EXPECT_EQ(EPERM, err_no(fsgate_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
					    FAN_OPEN, AT_FDCWD, self->dir)));
	/* Root's inode mark is an inode mark: allowed on both. */
	EXPECT_EQ(0, err_no(fanotify_mark(f, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD,
					  self->secret)));
	EXPECT_EQ(0, err_no(fsgate_mark(g, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD,
					self->secret)));
	own_ioctls_refused(_metadata, g, "root on a user's group");
	close(f);
	close(g);

	own = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID, O_RDONLY,
			  FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, own);
	EXPECT_EQ(0, err_no(fsgate_mark(own, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
					FAN_OPEN, AT_FDCWD, self->dir)));
	EXPECT_EQ(0, err_no(fsgate_cache_flush(own, -1)));
	close(own);
}

/* In a child that became nobody: the errnos of /dev/fsgate's ioctls. */
enum { D_GROUPS, D_ATTACH, D_REMOVE, D_ATTACH_NONE, D_COUNT };

static void device_ioctls(const void *arg, void *out)
{
	struct fsgate_group_entry entry;
	struct fsgate_groups req = {
		.size = sizeof(entry),
		.count = 1,
		.entries = (uintptr_t)&entry,
	};
	const char *name = arg;
	int *res = out, dev;

	dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		_exit(2);
	res[D_GROUPS] = err_no(ioctl(dev, FSGATE_IOC_GROUPS, &req));
	res[D_ATTACH] = err_of(fsgate_attach(name, 0));
	res[D_REMOVE] = err_no(fsgate_remove(name));
	res[D_ATTACH_NONE] = err_of(fsgate_attach("unpriv-none", 0));
	close(dev);
}

/*
 * The group list (every daemon that gates files) needs CAP_SYS_ADMIN;
 * root's persistent group is root's to attach to and remove, and stays:
 * to the user it is ENOENT, as a name no group has, so that the user
 * cannot probe which groups exist.
 */
TEST_F(unpriv, device_ioctls_need_privilege)
{
	const int want[D_COUNT] = { EPERM, ENOENT, ENOENT, ENOENT };
	struct fsgate_persist req = {
		.size = sizeof(req),
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.flags = FSGATE_PERSIST_UNTIL_REMOVED,
		.absent_verdict = FSGATE_VERDICT_ALLOW,
		.name = "unpriv-root",
	};
	int res[D_COUNT], g, a, i;

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_persist(g, &req));
	close(g);
	ASSERT_EQ(0, fsgate_test_as_nobody(device_ioctls, req.name, res,
					   sizeof(res)));
	for (i = 0; i < D_COUNT; i++) {
		EXPECT_EQ(want[i], res[i]) TH_LOG("request %d", i);
	}
	a = fsgate_attach(req.name, FSGATE_CLOEXEC);
	EXPECT_LE(0, a) TH_LOG("root's group is gone");
	EXPECT_EQ(0, fsgate_remove(req.name));
	if (a >= 0)
		close(a);
}

/* Write @value to @path; its old value to @old. 0, or -1. */
static int sysctl_swap(const char *path, const char *value, char *old,
		       size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(old, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	old[strcspn(old, "\n")] = 0;
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(value, f) >= 0;
	return fclose(f) || !ok ? -1 : 0;
}

/* Groups a user can make before the next fails; its errno to @err. */
static int groups_until_refused(int fsgate, int *err)
{
	int fds[16], n = 0, i, fd = 0;

	while (n < (int)ARRAY_SIZE(fds)) {
		fd = fsgate ? fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID,
					  O_RDONLY, FSGATE_PRIORITY_DEFAULT) :
			      fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID,
					    O_RDONLY);
		if (fd < 0)
			break;
		fds[n++] = fd;
	}
	*err = fd < 0 ? errno : 0;
	for (i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

/* How many groups fanotify, then fsgate, give a user; their errnos. */
static void groups_of_nobody(const void *arg, void *out)
{
	int *res = out;

	(void)arg;
	res[0] = groups_until_refused(0, &res[1]);
	res[2] = groups_until_refused(1, &res[3]);
}

/*
 * The per-user cap on groups: fanotify's max_user_groups, fsgate's
 * max_groups, both EMFILE past it.
 */
TEST_F(unpriv, groups_per_user_are_capped)
{
	const char *sysctl = "/proc/sys/fs/fanotify/max_user_groups";
	char old_fan[32], old_fsgate[32], now[32];
	int res[4] = { -1, -1, -1, -1 };

	ASSERT_EQ(0, sysctl_swap(sysctl, "3", old_fan, sizeof(old_fan)));
	ASSERT_EQ(0, fsgate_test_param("max_groups", "3", old_fsgate,
				       sizeof(old_fsgate)));
	EXPECT_EQ(0, fsgate_test_as_nobody(groups_of_nobody, NULL, res,
					   sizeof(res)));
	EXPECT_EQ(0, sysctl_swap(sysctl, old_fan, now, sizeof(now)));
	EXPECT_EQ(0, fsgate_test_param("max_groups", old_fsgate, NULL, 0));
	EXPECT_EQ(3, res[0]);
	EXPECT_EQ(EMFILE, res[1]);
	EXPECT_EQ(res[0], res[2]);
	EXPECT_EQ(res[1], res[3]);
}

/* Add an inode mark for @mask on @path with fsgate or fanotify; errno. */
static int add_mark(int fsgate, int g, uint64_t mask, const char *path)
{
	if (fsgate)
		return err_no(fsgate_mark(g, FAN_MARK_ADD, mask, AT_FDCWD, path));
	return err_no(fanotify_mark(g, FAN_MARK_ADD, mask, AT_FDCWD, path));
}

/* A user's FID group on fanotify or fsgate; its fd. */
static int fid_group(int fsgate)
{
	if (fsgate)
		return fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID,
				   O_RDONLY, FSGATE_PRIORITY_DEFAULT);
	return fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
}

/* The errnos of a user's marks across two groups; @arg is the fixture. */
static void marks_of_nobody(const void *arg, void *out)
{
	const FIXTURE_DATA(unpriv) *self = arg;
	int *res = out, a, b, fsgate;

	for (fsgate = 0; fsgate < 2; fsgate++, res += 3) {
		a = fid_group(fsgate);
		b = fid_group(fsgate);
		if (a < 0 || b < 0)
			_exit(3);
		res[0] = add_mark(fsgate, a, FAN_OPEN, self->file);
		res[1] = add_mark(fsgate, b, FAN_OPEN, self->dir);
		/* A third object's mark, in the first group: past the cap. */
		res[2] = add_mark(fsgate, a, FAN_OPEN, self->subdir);
		close(a);
		close(b);
	}
}

/*
 * The per-user cap on marks, across a user's groups: fanotify's
 * max_user_marks, fsgate's max_user_marks, both ENOSPC past it.
 */
TEST_F(unpriv, marks_per_user_are_capped)
{
	const char *sysctl = "/proc/sys/fs/fanotify/max_user_marks";
	char old_fan[32], old_fsgate[32], now[32];
	int res[6] = { -1, -1, -1, -1, -1, -1 };

	ASSERT_EQ(0, sysctl_swap(sysctl, "2", old_fan, sizeof(old_fan)));
	ASSERT_EQ(0, fsgate_test_param("max_user_marks", "2", old_fsgate,
				       sizeof(old_fsgate)));
	EXPECT_EQ(0, fsgate_test_as_nobody(marks_of_nobody, self, res,
					   sizeof(res)));
	EXPECT_EQ(0, sysctl_swap(sysctl, old_fan, now, sizeof(now)));
	EXPECT_EQ(0, fsgate_test_param("max_user_marks", old_fsgate, NULL, 0));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(ENOSPC, res[2]);
	EXPECT_EQ(res[0], res[3]);
	EXPECT_EQ(res[1], res[4]);
	EXPECT_EQ(res[2], res[5]);
}

TEST_HARNESS_MAIN
