// SPDX-License-Identifier: GPL-2.0
/*
 * Mount marks against inode and filesystem marks: a bind mount and its
 * original are told apart, two mounts of one ext4 filesystem on loop are
 * one filesystem, and removing subscriptions narrows what the kernel
 * reports. On that ext4, whose inodes can leave memory: cached verdicts
 * and evictable marks do not keep them there, other marks do.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

static void open_close(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0)
		close(fd);
}

static int notif_group(void)
{
	return fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK,
			   O_RDONLY | O_CLOEXEC, FSGATE_PRIORITY_DEFAULT);
}

static int mark(int g, unsigned int flags, const char *path)
{
	return fsgate_mark(g, FSGATE_MARK_ADD | flags, FAN_OPEN, AT_FDCWD,
			   path);
}

FIXTURE(bind) {
	char orig[64], bind[64], file[80], bfile[80];
};

/* A tmpfs, and a bind mount of it, in a mount namespace of the test's own. */
FIXTURE_SETUP(bind)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("orig", self->orig, sizeof(self->orig)));
	snprintf(self->bind, sizeof(self->bind), "/tmp/bind.%d", getpid());
	ASSERT_EQ(0, mkdir(self->bind, 0755));
	ASSERT_EQ(0, mount(self->orig, self->bind, NULL, MS_BIND, NULL));
	snprintf(self->file, sizeof(self->file), "%s/f", self->orig);
	snprintf(self->bfile, sizeof(self->bfile), "%s/f", self->bind);
	ASSERT_LE(0, close(open(self->file, O_CREAT | O_WRONLY, 0644)));
}

FIXTURE_TEARDOWN(bind)
{
	umount2(self->bind, MNT_DETACH);
	rmdir(self->bind);
	fsgate_test_tmpfs_done(self->orig);
}

TEST_F(bind, mount_mark_sees_only_its_own_mount)
{
	int g = notif_group();

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT, self->bind));
	open_close(self->file);
	EXPECT_EQ(0, fsgate_test_drain(g, NULL));
	open_close(self->bfile);
	EXPECT_EQ(1, fsgate_test_drain(g, NULL));
	close(g);
}

TEST_F(bind, filesystem_and_inode_marks_see_every_mount)
{
	int fs = notif_group(), ino = notif_group();

	ASSERT_LE(0, fs);
	ASSERT_LE(0, ino);
	ASSERT_EQ(0, mark(fs, FSGATE_MARK_FILESYSTEM, self->bind));
	ASSERT_EQ(0, mark(ino, FSGATE_MARK_INODE, self->bfile));
	open_close(self->file);
	open_close(self->bfile);
	EXPECT_EQ(2, fsgate_test_drain(fs, NULL));
	EXPECT_EQ(2, fsgate_test_drain(ino, NULL));
	close(fs);
	close(ino);
}

TEST_F(bind, mount_and_filesystem_marks_of_one_group_are_apart)
{
	int g = notif_group();
	char buf[32];

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT, self->bind));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_FILESYSTEM, self->orig));
	ASSERT_EQ(0, fsgate_test_fdinfo(g, "fsgate-mark mount sdev", buf,
					sizeof(buf)));
	/* Flushing mount marks leaves the filesystem mark. */
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_FLUSH | FSGATE_MARK_MOUNT, 0,
				 AT_FDCWD, NULL));
	EXPECT_NE(0, fsgate_test_fdinfo(g, "fsgate-mark mount sdev", buf,
					sizeof(buf)));
	EXPECT_EQ(0, fsgate_test_fdinfo(g, "fsgate-mark sb sdev", buf,
					sizeof(buf)));
	errno = 0;
	EXPECT_EQ(-1, fsgate_mark(g, FSGATE_MARK_REMOVE | FSGATE_MARK_MOUNT,
				  FAN_OPEN, AT_FDCWD, self->bind));
	EXPECT_EQ(ENOENT, errno);
	open_close(self->bfile);
	EXPECT_EQ(1, fsgate_test_drain(g, NULL));
	close(g);
}

static void append_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write(fd, "+", 1) != 1)
		perror(path);
	close(fd);
}

TEST_F(bind, a_mount_marks_ignore_mask_goes_with_writes_through_it)
{
	int g = notif_group();

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT, self->bind));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT | FSGATE_MARK_IGNORED_MASK,
			  self->bind));
	/* Written through the other mount: the ignore mask stays. */
	append_to(self->file);
	open_close(self->bfile);
	EXPECT_EQ(0, fsgate_test_drain(g, NULL));
	/* Written through this one: it goes. */
	append_to(self->bfile);
	fsgate_test_drain(g, NULL);
	open_close(self->bfile);
	EXPECT_EQ(1, fsgate_test_drain(g, NULL));
	close(g);
}

/*
 * An access that every group's cache allowed is allowed quietly next time
 * only through the same mount: a group marking the other mount is asked
 * there, although its mark is older than the cached verdict.
 */
TEST_F(bind, a_consensus_of_cached_verdicts_holds_through_one_mount_only)
{
	struct fanotify_event_metadata ev;
	int g = content_group(2000), h = content_group(1000);
	pid_t pid;

	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, fsgate_mark(h, FSGATE_MARK_ADD | FSGATE_MARK_MOUNT,
				 FAN_OPEN_PERM, AT_FDCWD, self->bind));
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->orig));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW | FSGATE_CACHE));
	/* The second open makes the consensus, the third uses it. */
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, 300));
	EXPECT_FALSE(readable(h, 300));
	pid = spawn_open(self->bfile, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(h, 5000, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(h, ev.fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	EXPECT_FALSE(readable(g, 300));
	close(h);
	close(g);
}

TEST_F(bind, removed_mount_mark_stops_its_events)
{
	int g = notif_group();

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT, self->bind));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_REMOVE | FSGATE_MARK_MOUNT,
				 FAN_OPEN, AT_FDCWD, self->bind));
	open_close(self->bfile);
	EXPECT_EQ(0, fsgate_test_drain(g, NULL));
	close(g);
}

TEST_F(bind, union_mask_narrows_when_a_group_leaves)
{
	int a = notif_group(), b = notif_group();
	char mask[16];

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, fsgate_mark(a, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 self->file));
	ASSERT_EQ(0, fsgate_mark(b, FSGATE_MARK_ADD, FAN_CLOSE_WRITE,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_test_fdinfo(b, "fsnotify_mask", mask,
					sizeof(mask)));
	EXPECT_EQ(FAN_OPEN | FAN_CLOSE_WRITE, strtoul(mask, NULL, 16));
	close(a);
	ASSERT_EQ(0, fsgate_test_fdinfo(b, "fsnotify_mask", mask,
					sizeof(mask)));
	EXPECT_EQ(FAN_CLOSE_WRITE, strtoul(mask, NULL, 16));
	ASSERT_EQ(0, fsgate_mark(b, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 self->file));
	ASSERT_EQ(0, fsgate_mark(b, FSGATE_MARK_REMOVE, FAN_CLOSE_WRITE,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_test_fdinfo(b, "fsnotify_mask", mask,
					sizeof(mask)));
	EXPECT_EQ(FAN_OPEN, strtoul(mask, NULL, 16));
	close(b);
}

FIXTURE(ext4) {
	char img[64], m1[64], m2[64], f1[80], f2[80];
	char dev[32];
};

/* Attach @img to a free loop device; its path goes to @dev. */
/* One ext4 image on loop, mounted twice: one superblock, two vfsmounts. */
FIXTURE_SETUP(ext4)
{
	ASSERT_EQ(0, fsgate_test_own_mounts());
	snprintf(self->img, sizeof(self->img), "/tmp/ext4.%d.img", getpid());
	snprintf(self->m1, sizeof(self->m1), "/tmp/ext4a.%d", getpid());
	snprintf(self->m2, sizeof(self->m2), "/tmp/ext4b.%d", getpid());
	ASSERT_EQ(0, fsgate_test_ext4(self->img, self->dev, sizeof(self->dev)));
	ASSERT_EQ(0, mkdir(self->m1, 0755));
	ASSERT_EQ(0, mkdir(self->m2, 0755));
	ASSERT_EQ(0, mount(self->dev, self->m1, "ext4", 0, NULL));
	ASSERT_EQ(0, mount(self->dev, self->m2, "ext4", 0, NULL));
	snprintf(self->f1, sizeof(self->f1), "%s/f", self->m1);
	snprintf(self->f2, sizeof(self->f2), "%s/f", self->m2);
	ASSERT_LE(0, close(open(self->f1, O_CREAT | O_WRONLY, 0644)));
}

FIXTURE_TEARDOWN(ext4)
{
	umount2(self->m2, MNT_DETACH);
	umount2(self->m1, MNT_DETACH);
	fsgate_test_loop_detach(self->dev);
	unlink(self->img);
	rmdir(self->m1);
	rmdir(self->m2);
}

TEST_F(ext4, two_mounts_are_one_filesystem_and_two_mounts)
{
	int mnt = notif_group(), fs = notif_group(), ino = notif_group();

	ASSERT_LE(0, mnt);
	ASSERT_LE(0, fs);
	ASSERT_LE(0, ino);
	ASSERT_EQ(0, mark(mnt, FSGATE_MARK_MOUNT, self->m1));
	ASSERT_EQ(0, mark(fs, FSGATE_MARK_FILESYSTEM, self->m2));
	ASSERT_EQ(0, mark(ino, FSGATE_MARK_INODE, self->f2));
	open_close(self->f1);
	open_close(self->f2);
	EXPECT_EQ(1, fsgate_test_drain(mnt, NULL));
	EXPECT_EQ(2, fsgate_test_drain(fs, NULL));
	EXPECT_EQ(2, fsgate_test_drain(ino, NULL));
	close(mnt);
	close(fs);
	close(ino);
}

TEST_F(ext4, unmounting_a_watched_filesystem_frees_its_marks)
{
	struct fsgate_stats st;
	int g = notif_group();

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mark(g, FSGATE_MARK_MOUNT, self->m1));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_FILESYSTEM, self->m1));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_INODE, self->f1));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(3, st.marks);
	ASSERT_EQ(0, umount(self->m2));
	ASSERT_EQ(0, umount(self->m1));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.marks);
	close(g);
}

static void drop_inode_cache(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	if (fd < 0 || write(fd, "2", 1) != 1)
		perror("drop_caches");
	close(fd);
}

TEST_F(ext4, cached_verdicts_let_inodes_go_marks_do_not)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	char other[96];
	pid_t pid;
	int g;

	snprintf(other, sizeof(other), "%s/other", self->m1);
	ASSERT_LE(0, close(open(other, O_CREAT | O_WRONLY, 0644)));
	g = perm_group(FSGATE_CLASS_CONTENT, 2000, PERM_LONG_MS, 0, 0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, self->m1));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_CLOSE_WRITE, AT_FDCWD,
				 other));
	pid = spawn_open(self->f1, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, 5000, &ev));
	/* Close the event fd first: it would keep the inode in memory. */
	close(ev.fd);
	ASSERT_EQ(0, fsgate_respond(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, reap(pid));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.marks);	/* filesystem, other */
	EXPECT_EQ(1, st.cache_entries);	/* f1's cached verdict, not a mark */
	EXPECT_EQ(0, reap(spawn_open(self->f1, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, 300));
	drop_inode_cache();
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.marks);	/* other stays */
	EXPECT_EQ(0, st.cache_entries);	/* f1 left memory with its cache */
	/* Read back from disk, f1 is a new inode: asked again. */
	pid = spawn_open(self->f1, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, 5000, &ev));
	answer(g, ev.fd, FSGATE_ALLOW);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/*
 * Whether @fd (in-tree fanotify's if @fan) has a mark on @path: removing
 * an event it does not ask for leaves a mark as it is and fails with
 * ENOENT without one. Return: 1, 0, or -1 for another error.
 */
static int has_mark(int fd, int fan, const char *path)
{
	int ret;

	errno = 0;
	if (fan)
		ret = fanotify_mark(fd, FAN_MARK_REMOVE, FAN_ACCESS, AT_FDCWD,
				    path);
	else
		ret = fsgate_mark(fd, FSGATE_MARK_REMOVE, FAN_ACCESS, AT_FDCWD,
				  path);
	if (!ret)
		return 1;
	return errno == ENOENT ? 0 : -1;
}

/* Reclaim twice: dentries first go round the LRU once (as LTP's fanotify23). */
static void evict_inodes(void)
{
	drop_inode_cache();
	drop_inode_cache();
}

/* FSGATE_MARK_EVICTABLE's errors are fanotify's. */
TEST_F(ext4, evictable_marks_take_fanotifys_errors)
{
	static const struct {
		unsigned int flags;
		int err;
	} calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_MOUNT, EINVAL },
		{ FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_FILESYSTEM, EINVAL },
		/* An evictable mark may come to pin its inode ... */
		{ FAN_MARK_ADD | FAN_MARK_EVICTABLE, 0 },
		{ FAN_MARK_ADD, 0 },
		/* ... but not the other way. */
		{ FAN_MARK_ADD | FAN_MARK_EVICTABLE, EEXIST },
	};
	char fan[64], fsg[64];
	unsigned int i;
	int fa, g, ret;

	fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, fa);
	g = notif_group();
	ASSERT_LE(0, g);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		errno = 0;
		ret = fanotify_mark(fa, calls[i].flags, FAN_OPEN, AT_FDCWD,
				    self->f1);
		EXPECT_EQ(calls[i].err, ret ? errno : 0)
			TH_LOG("fanotify call %u: %m", i);
		errno = 0;
		ret = fsgate_mark(g, calls[i].flags, FAN_OPEN, AT_FDCWD, self->f1);
		EXPECT_EQ(calls[i].err, ret ? errno : 0)
			TH_LOG("fsgate call %u: %m", i);
		if (i == 2) {
			ASSERT_EQ(0, fsgate_test_fdinfo(fa, "mflags", fan,
							sizeof(fan)));
			ASSERT_EQ(0, fsgate_test_fdinfo(g, "mflags", fsg,
							sizeof(fsg)));
			EXPECT_STREQ("200", fan);	/* FAN_MARK_EVICTABLE */
			EXPECT_STREQ(fan, fsg);
		}
	}
	ASSERT_EQ(0, fsgate_test_fdinfo(fa, "mflags", fan, sizeof(fan)));
	ASSERT_EQ(0, fsgate_test_fdinfo(g, "mflags", fsg, sizeof(fsg)));
	EXPECT_STREQ("0", fan);
	EXPECT_STREQ(fan, fsg);
	close(fa);
	close(g);
}

/*
 * An evictable mark goes with its inode, silently, as in-tree fanotify's
 * does beside it; a mark that pins its inode stays.
 */
TEST_F(ext4, an_evictable_mark_goes_with_its_inode)
{
	struct fsgate_stats st;
	char other[96];
	int fa, g;

	snprintf(other, sizeof(other), "%s/other", self->m1);
	ASSERT_LE(0, close(open(other, O_CREAT | O_WRONLY, 0644)));
	fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, fa);
	g = notif_group();
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_ADD | FAN_MARK_EVICTABLE,
				   FAN_OPEN, AT_FDCWD, self->f1));
	ASSERT_EQ(0, mark(g, FSGATE_MARK_EVICTABLE, self->f1));
	ASSERT_EQ(0, mark(g, 0, other));
	EXPECT_EQ(1, has_mark(fa, 1, self->f1));
	EXPECT_EQ(1, has_mark(g, 0, self->f1));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.marks);

	evict_inodes();
	EXPECT_EQ(0, has_mark(fa, 1, self->f1));
	EXPECT_EQ(0, has_mark(g, 0, self->f1));
	EXPECT_EQ(1, has_mark(g, 0, other));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.marks);
	/* Read back from disk, f1 is a new inode nobody marks. */
	open_close(self->f1);
	EXPECT_EQ(0, fsgate_test_drain(g, NULL));
	open_close(other);
	EXPECT_EQ(1, fsgate_test_drain(g, NULL));
	close(fa);
	close(g);
}

/*
 * Another group's mark that pins the inode keeps an evictable mark in
 * memory with it; once that mark goes, the inode may go, and the
 * evictable mark with it, however the pinning mark went: removed (the
 * remover holds a reference to the inode), or closed with its group or
 * flushed (neither does, and the pin must still go).
 */
TEST_F(ext4, an_evictable_mark_goes_once_the_pinning_mark_goes)
{
	enum { REMOVED, CLOSED, FLUSHED, NWAYS };
	int way, pin, g = notif_group();

	ASSERT_LE(0, g);
	for (way = 0; way < NWAYS; way++) {
		pin = notif_group();
		ASSERT_LE(0, pin);
		ASSERT_EQ(0, mark(pin, 0, self->f1));
		ASSERT_EQ(0, mark(g, FSGATE_MARK_EVICTABLE, self->f1));
		evict_inodes();
		EXPECT_EQ(1, has_mark(g, 0, self->f1)) TH_LOG("way %d", way);
		if (way == REMOVED) {
			ASSERT_EQ(0, fsgate_mark(pin, FSGATE_MARK_REMOVE,
						 FAN_OPEN, AT_FDCWD, self->f1));
		} else if (way == FLUSHED) {
			ASSERT_EQ(0, fsgate_mark(pin, FSGATE_MARK_FLUSH, 0,
						 AT_FDCWD, NULL));
		} else {
			close(pin);
		}
		evict_inodes();
		EXPECT_EQ(0, has_mark(g, 0, self->f1)) TH_LOG("way %d", way);
		if (way != CLOSED)
			close(pin);
	}
	close(g);
}

TEST_HARNESS_MAIN
