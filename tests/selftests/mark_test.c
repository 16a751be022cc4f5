// SPDX-License-Identifier: GPL-2.0
/*
 * FSGATE_IOC_MARK and notification events: marks on inodes, directories
 * and filesystems, ignore masks, reading, limits and bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define ALL_EVENTS FSGATE_NOTIF_EVENTS

struct seen {
	uint64_t mask;		/* every event's bits, ored */
	int records;
	int overflows;
	pid_t pid;		/* of the last record */
};

/* Read every queued event (non-blocking); fold those about @path. */
static int drain(int fd, const char *path, struct seen *s)
{
	char buf[4096] __attribute__((aligned(8))), link[64], got[PATH_MAX];
	const struct fanotify_event_metadata *ev;
	ssize_t len, n;
	int total = 0;

	memset(s, 0, sizeof(*s));
	for (;;) {
		len = read(fd, buf, sizeof(buf));
		if (len < 0)
			return errno == EAGAIN ? total : -1;
		for (ev = (void *)buf; FAN_EVENT_OK(ev, len);
		     ev = FAN_EVENT_NEXT(ev, len)) {
			total++;
			if (ev->vers != FANOTIFY_METADATA_VERSION)
				return -1;
			if (ev->mask & FAN_Q_OVERFLOW) {
				s->overflows++;
				if (ev->fd != FAN_NOFD)
					return -1;
				continue;
			}
			snprintf(link, sizeof(link), "/proc/self/fd/%d", ev->fd);
			n = readlink(link, got, sizeof(got) - 1);
			close(ev->fd);
			if (n < 0)
				return -1;
			got[n] = '\0';
			if (path && strcmp(got, path))
				continue;
			s->mask |= ev->mask;
			s->records++;
			s->pid = ev->pid;
		}
	}
}

static int group(unsigned int flags)
{
	return fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK | flags,
			   O_RDONLY | O_CLOEXEC, FSGATE_PRIORITY_DEFAULT);
}

static void touch_read(const char *path)
{
	char c;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) < 0)
			perror("read");
		close(fd);
	}
}

static void append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd >= 0) {
		if (write(fd, "x", 1) != 1)
			perror("write");
		close(fd);
	}
}

FIXTURE(fs) {
	char dir[64];
	char file[80];
	char sub[80];
	int g;
};

/* Each test gets a fresh tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(fs)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("mark", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->sub, sizeof(self->sub), "%s/sub", self->dir);
	ASSERT_EQ(0, mkdir(self->sub, 0755));
	ASSERT_LE(0, close(open(self->file, O_CREAT | O_WRONLY, 0644)));
	append(self->file);
	self->g = group(0);
	ASSERT_LE(0, self->g);
}

FIXTURE_TEARDOWN(fs)
{
	close(self->g);
	fsgate_test_tmpfs_done(self->dir);
}

TEST_F(fs, inode_mark_reports_open_read_close)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, ALL_EVENTS,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE, s.mask);
	EXPECT_EQ(getpid(), s.pid);
}

TEST_F(fs, only_the_asked_events_are_reported)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_CLOSE_WRITE,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	append(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_CLOSE_WRITE, s.mask);
}

TEST_F(fs, write_reports_modify_and_close_write)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, ALL_EVENTS,
				 AT_FDCWD, self->file));
	append(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN | FAN_MODIFY | FAN_CLOSE_WRITE, s.mask);
}

TEST_F(fs, identical_events_of_one_process_merge)
{
	struct seen s;
	int i;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	for (i = 0; i < 10; i++)
		touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(1, s.records);
}

TEST_F(fs, directory_mark_needs_event_on_child)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->dir));
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD,
				 FAN_OPEN | FAN_EVENT_ON_CHILD, AT_FDCWD,
				 self->dir));
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
}

TEST_F(fs, directories_need_ondir)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->sub));
	close(open(self->sub, O_RDONLY | O_DIRECTORY));
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN | FAN_ONDIR,
				 AT_FDCWD, self->sub));
	close(open(self->sub, O_RDONLY | O_DIRECTORY));
	ASSERT_LE(0, drain(self->g, self->sub, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
}

TEST_F(fs, filesystem_mark_sees_every_file)
{
	char other[96];
	struct seen s;

	snprintf(other, sizeof(other), "%s/other", self->sub);
	ASSERT_LE(0, close(open(other, O_CREAT | O_WRONLY, 0644)));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FAN_OPEN,
				 AT_FDCWD, self->dir));
	touch_read(other);
	ASSERT_LE(0, drain(self->g, other, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
	/* Nothing from another filesystem. */
	touch_read("/fsgate/bin/run-suite");
	ASSERT_EQ(0, drain(self->g, NULL, &s));
}

TEST_F(fs, ignore_mask_wins_and_modify_clears_it)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FAN_OPEN | FAN_CLOSE_WRITE,
				 AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_IGNORED_MASK, FAN_OPEN,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	/* The write clears the ignore mask: its close is reported... */
	append(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_CLOSE_WRITE, s.mask & FAN_CLOSE_WRITE);
	/* ... and so is the next open. */
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
}

TEST_F(fs, truncation_clears_ignore_masks_as_a_write_does)
{
	struct seen s;
	int fd;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FAN_OPEN,
				 AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_IGNORED_MASK, FAN_OPEN,
				 AT_FDCWD, self->file));
	/* Its FS_MODIFY carries no path: nobody is told, the mask still goes. */
	ASSERT_EQ(0, truncate(self->file, 0));
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
	/* And again through O_TRUNC. */
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_IGNORED_MASK, FAN_OPEN,
				 AT_FDCWD, self->file));
	fd = open(self->file, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_LE(0, drain(self->g, NULL, &s));
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
}

TEST_F(fs, ignore_mask_can_survive_modify)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FAN_OPEN,
				 AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_IGNORED_MASK |
				 FSGATE_MARK_IGNORED_SURV_MODIFY, FAN_OPEN,
				 AT_FDCWD, self->file));
	append(self->file);
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
}

TEST_F(fs, remove_and_flush_stop_events)
{
	struct seen s;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_REMOVE, FAN_OPEN,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	EXPECT_EQ(-1, fsgate_mark(self->g, FSGATE_MARK_REMOVE, FAN_OPEN,
				  AT_FDCWD, self->file));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->sub));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_FLUSH, 0, AT_FDCWD,
				 NULL));
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
}

TEST_F(fs, other_groups_marks_are_their_own)
{
	int g2 = group(0);
	struct seen s;

	ASSERT_LE(0, g2);
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_mark(g2, FSGATE_MARK_ADD, FAN_CLOSE_NOWRITE,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
	ASSERT_LE(0, drain(g2, self->file, &s));
	EXPECT_EQ(FAN_CLOSE_NOWRITE, s.mask);
	/* Closing one group leaves the other's mark working. */
	close(g2);
	touch_read(self->file);
	ASSERT_LE(0, drain(self->g, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
}

TEST_F(fs, event_fd_is_quiet_and_has_the_group_flags)
{
	char buf[4096] __attribute__((aligned(8))), c;
	const struct fanotify_event_metadata *ev = (void *)buf;
	struct seen s;
	ssize_t len;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, ALL_EVENTS,
				 AT_FDCWD, self->file));
	close(open(self->file, O_RDONLY));
	len = read(self->g, buf, sizeof(buf));
	ASSERT_EQ(FAN_EVENT_METADATA_LEN, len);
	ASSERT_LE(0, ev->fd);
	EXPECT_EQ(O_RDONLY, fcntl(ev->fd, F_GETFL) & O_ACCMODE);
	EXPECT_EQ(FD_CLOEXEC, fcntl(ev->fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(1, read(ev->fd, &c, 1));
	close(ev->fd);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
}

/*
 * The group's own process and what it forks afterwards are not told; a
 * process forked before the group was made is.
 */
TEST_F(fs, exclude_self_drops_own_events_only)
{
	struct seen s;
	pid_t pid;
	int g, go[2];
	char c;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			touch_read(self->file);
		_exit(0);
	}
	close(go[0]);
	g = group(FSGATE_EXCLUDE_SELF);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 self->file));
	touch_read(self->file);
	ASSERT_EQ(0, drain(g, NULL, &s));
	if (fork() == 0) {
		touch_read(self->file);
		_exit(0);
	}
	ASSERT_LT(0, wait(NULL));
	ASSERT_EQ(0, drain(g, NULL, &s));
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_LE(0, drain(g, self->file, &s));
	EXPECT_EQ(pid, s.pid);
	close(g);
}

static void *thread_open(void *arg)
{
	touch_read(arg);
	return (void *)(long)syscall(SYS_gettid);
}

TEST_F(fs, report_tid_reports_the_thread)
{
	int g = group(FSGATE_REPORT_TID);
	struct seen s;
	pthread_t t;
	void *tid;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 self->file));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_open, self->file));
	ASSERT_EQ(0, pthread_join(t, &tid));
	ASSERT_LE(0, drain(g, self->file, &s));
	EXPECT_EQ((pid_t)(long)tid, s.pid);
	EXPECT_NE(getpid(), s.pid);
	close(g);
}

TEST_F(fs, blocking_rules_poll_and_fionread)
{
	struct pollfd p = { .fd = self->g, .events = POLLIN };
	char small[8], buf[4096] __attribute__((aligned(8)));
	int n = -1;

	EXPECT_EQ(-1, read(self->g, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	EXPECT_EQ(1, poll(&p, 1, 0));
	ASSERT_EQ(0, ioctl(self->g, FIONREAD, &n));
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, n);
	EXPECT_EQ(-1, read(self->g, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(fs, full_queue_reports_one_overflow)
{
	struct fsgate_stats st;
	char path[128];
	struct seen s;
	int i, n;

	ASSERT_EQ(0, fsgate_test_param("max_queued_events", "10", NULL, 0));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FAN_CLOSE_WRITE,
				 AT_FDCWD, self->dir));
	for (i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "%s/f%d", self->dir, i);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	n = drain(self->g, NULL, &s);
	fsgate_test_param("max_queued_events", "16384", NULL, 0);
	EXPECT_EQ(11, n);
	EXPECT_EQ(1, s.overflows);
	ASSERT_EQ(0, fsgate_stats(self->g, &st));
	EXPECT_EQ(1, st.overflows);
	EXPECT_EQ(0, st.queued);
	EXPECT_EQ(11, st.delivered);
}

TEST_F(fs, proc_shows_marks_and_counters)
{
	unsigned int id, pid, prio, marks, queued, delivered, overflows;
	char line[1024], comm[64], class[32];
	int found = 0;
	FILE *f;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	touch_read(self->file);
	touch_read(self->file);
	f = fopen("/proc/fsgate/groups", "re");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	EXPECT_EQ(0, strncmp(line, "id pid comm class priority marks queued delivered overflows ",
			     60));
	while (fgets(line, sizeof(line), f)) {
		ASSERT_EQ(9, sscanf(line, "%u %u %63s %31s %u %u %u %u %u", &id,
				    &pid, comm, class, &prio, &marks, &queued,
				    &delivered, &overflows));
		if (pid != (unsigned int)getpid())
			continue;
		found++;
		EXPECT_EQ(1, marks);
		EXPECT_EQ(1, queued);	/* the two opens merged */
		EXPECT_EQ(0, delivered);
	}
	fclose(f);
	EXPECT_EQ(1, found);
}

TEST_F(fs, unlink_and_umount_free_marks)
{
	struct fsgate_stats st;

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->sub));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FAN_OPEN,
				 AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_stats(self->g, &st));
	EXPECT_EQ(3, st.marks);
	ASSERT_EQ(0, unlink(self->file));
	ASSERT_EQ(0, fsgate_stats(self->g, &st));
	EXPECT_EQ(2, st.marks);
	ASSERT_EQ(0, umount(self->dir));
	ASSERT_EQ(0, fsgate_stats(self->g, &st));
	EXPECT_EQ(0, st.marks);
}

/*
 * How many of @g's marks are on objects whose fsnotify mask (the union
 * of every group's marks there, in fdinfo) has @bit; -1 on error.
 */
static int marks_reporting(int g, unsigned int bit)
{
	char path[64], line[512], *p;
	unsigned int mask;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " fsnotify_mask:");
		if (strncmp(line, "fsgate-mark ", 12) || !p ||
		    sscanf(p, " fsnotify_mask:%x", &mask) != 1)
			continue;
		n += !!(mask & bit);
	}
	fclose(f);
	return n;
}

/*
 * 2000 marks: seconds on a stock kernel, a minute or more on debug. A
 * second group marks every 100th file for another event: the union
 * fsgate asks the kernel for on those files loses the first group's
 * FAN_OPEN once that group is closed, so its marks went with it.
 */
TEST_F_TIMEOUT(fs, many_inode_marks_are_freed_with_the_group, 300)
{
	struct fsgate_stats st;
	char path[128];
	int i, g = group(0), other = group(0);

	ASSERT_LE(0, g);
	ASSERT_LE(0, other);
	for (i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "%s/m%d", self->dir, i);
		ASSERT_LE(0, close(open(path, O_CREAT | O_WRONLY, 0644)));
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN,
					 AT_FDCWD, path));
		if (i % 100 == 0)
			ASSERT_EQ(0, fsgate_mark(other, FSGATE_MARK_ADD,
						 FAN_CLOSE_WRITE, AT_FDCWD,
						 path));
	}
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2000, st.marks);
	EXPECT_EQ(20, marks_reporting(other, FAN_OPEN));
	EXPECT_EQ(0, close(g));
	EXPECT_EQ(0, marks_reporting(other, FAN_OPEN));
	EXPECT_EQ(20, marks_reporting(other, FAN_CLOSE_WRITE));
	ASSERT_EQ(0, fsgate_stats(other, &st));
	EXPECT_EQ(20, st.marks);
	/* What is left: the fixture's group and the other. */
	EXPECT_EQ(2, fsgate_test_groups_of(getpid()));
	EXPECT_EQ(0, close(other));
}

TEST_F(fs, fdinfo_lists_marks)
{
	char buf[64];

	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_test_fdinfo(self->g, "mask", buf, sizeof(buf)));
	EXPECT_STREQ("20", buf);
}

TEST_F(fs, bad_requests_fail_as_fanotify_mark)
{
	struct fsgate_mark m = {
		.flags = FSGATE_MARK_ADD, .dirfd = AT_FDCWD, .mask = FAN_OPEN,
		.pathname = (uintptr_t)self->file,
	};
	struct fsgate_mark bad;
	static const struct {
		unsigned int flags;
		uint64_t mask;
		int err;
	} cases[] = {
		{ FSGATE_MARK_ADD | FSGATE_MARK_REMOVE, FAN_OPEN, EINVAL },
		{ 0, FAN_OPEN, EINVAL },
		{ FSGATE_MARK_ADD | 0x80000000u, FAN_OPEN, EINVAL },
		{ FSGATE_MARK_ADD | FSGATE_MARK_MOUNT | FSGATE_MARK_FILESYSTEM,
		  FAN_OPEN, EINVAL },
		{ FSGATE_MARK_ADD, 0, EINVAL },
		{ FSGATE_MARK_ADD, FAN_ONDIR, EINVAL },
		{ FSGATE_MARK_ADD, FAN_OPEN | (1ULL << 40), EINVAL },
		{ FSGATE_MARK_ADD, FAN_OPEN_PERM, EINVAL },
		{ FSGATE_MARK_ADD, FAN_OPEN | FAN_Q_OVERFLOW, EINVAL },
		{ FSGATE_MARK_ADD | FSGATE_MARK_IGNORED_SURV_MODIFY, FAN_OPEN,
		  EINVAL },
		{ FSGATE_MARK_FLUSH | FSGATE_MARK_ONLYDIR, 0, EINVAL },
		{ FSGATE_MARK_ADD | FSGATE_MARK_ONLYDIR, FAN_OPEN, ENOTDIR },
		{ FSGATE_MARK_REMOVE | FSGATE_MARK_MOUNT, FAN_OPEN, ENOENT },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bad = m;
		bad.flags = cases[i].flags;
		bad.mask = cases[i].mask;
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_MARK, &bad))
			TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].err, errno) TH_LOG("case %u", i);
	}
	bad = m;
	bad.reserved[3] = 1;
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_MARK, &bad));
	EXPECT_EQ(EINVAL, errno);
	bad = m;
	bad.dirfd = 1000;
	bad.pathname = 0;
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_MARK, &bad));
	EXPECT_EQ(EBADF, errno);
	bad = m;
	bad.pathname = (uintptr_t)"/no/such/file";
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_MARK, &bad));
	EXPECT_EQ(ENOENT, errno);
	bad = m;
	bad.pathname = 8;
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_MARK, &bad));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_MARK, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(fs, relative_path_and_dirfd_mark_the_same_object)
{
	int dfd = open(self->dir, O_RDONLY | O_DIRECTORY);
	int ffd = open(self->file, O_RDONLY);
	struct seen s;

	ASSERT_LE(0, dfd);
	ASSERT_LE(0, ffd);
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN, dfd,
				 "file"));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_REMOVE, FAN_OPEN, ffd,
				 NULL));
	touch_read(self->file);
	ASSERT_EQ(0, drain(self->g, NULL, &s));
	close(dfd);
	close(ffd);
}

TEST_F(fs, max_marks_gives_enospc_unless_unlimited_marks)
{
	char path[128], old[32], cur[32];
	int i, g = group(FSGATE_UNLIMITED_MARKS);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_test_param("max_marks", "3", old, sizeof(old)));
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/l%d", self->dir, i);
		ASSERT_LE(0, close(open(path, O_CREAT | O_WRONLY, 0644)));
		errno = 0;
		EXPECT_EQ(i < 3 ? 0 : -1,
			  fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN,
				      AT_FDCWD, path)) TH_LOG("mark %d", i);
		EXPECT_EQ(i < 3 ? 0 : ENOSPC, errno) TH_LOG("mark %d", i);
		EXPECT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN,
					 AT_FDCWD, path)) TH_LOG("mark %d", i);
	}
	/* A mark that exists already is changed, not counted again. */
	snprintf(path, sizeof(path), "%s/l0", self->dir);
	EXPECT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_CLOSE_WRITE,
				 AT_FDCWD, path));
	ASSERT_EQ(0, fsgate_test_param("max_marks", old, cur, sizeof(cur)));
	EXPECT_STREQ("3", cur);
	close(g);
}

/* The inode number of @g's (first) inode mark, from its fdinfo. */
static int mark_inode(int g, unsigned long *ino)
{
	char path[64], line[512];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "fsgate-mark inode ino:%lx", ino) == 1)
			ret = 0;
	fclose(f);
	return ret;
}

TEST_F(fs, dont_follow_marks_the_symlink_not_its_target)
{
	int follow = group(0), nofollow = group(0);
	unsigned long ino = 0;
	char link[96];
	struct stat st;
	struct seen s;

	ASSERT_LE(0, follow);
	ASSERT_LE(0, nofollow);
	snprintf(link, sizeof(link), "%s/link", self->dir);
	ASSERT_EQ(0, symlink(self->file, link));
	ASSERT_EQ(0, fsgate_mark(follow, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 link));
	ASSERT_EQ(0, fsgate_mark(nofollow, FSGATE_MARK_ADD |
				 FSGATE_MARK_DONT_FOLLOW, FAN_OPEN, AT_FDCWD,
				 link));
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_EQ(0, mark_inode(nofollow, &ino));
	EXPECT_EQ(st.st_ino, ino);
	touch_read(link);
	EXPECT_EQ(1, drain(follow, self->file, &s));
	EXPECT_EQ(FAN_OPEN, s.mask);
	EXPECT_EQ(0, drain(nofollow, NULL, &s));
	close(follow);
	close(nofollow);
}

TEST_F(fs, marks_and_stats_need_a_group_fd)
{
	struct fsgate_mark m = {
		.flags = FSGATE_MARK_ADD, .dirfd = AT_FDCWD, .mask = FAN_OPEN,
		.pathname = (uintptr_t)self->file,
	};
	struct fsgate_stats st;
	int dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC);
	int file = open(self->file, O_RDONLY | O_CLOEXEC);
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
	int fds[3] = { dev, file, fan }, i;

	for (i = 0; i < 3; i++) {
		ASSERT_LE(0, fds[i]) TH_LOG("fd %d", i);
		errno = 0;
		EXPECT_EQ(-1, ioctl(fds[i], FSGATE_IOC_MARK, &m)) TH_LOG("fd %d", i);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("fd %d", i);
		errno = 0;
		EXPECT_EQ(-1, ioctl(fds[i], FSGATE_IOC_STATS, &st)) TH_LOG("fd %d", i);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("fd %d", i);
		close(fds[i]);
	}
	EXPECT_EQ(-1, ioctl(fds[0], FSGATE_IOC_MARK, &m));
	EXPECT_EQ(EBADF, errno);
}

TEST_F(fs, stats_with_a_bad_pointer_is_efault)
{
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_STATS, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->g, FSGATE_IOC_STATS, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(fs, exec_reports_open_exec)
{
	char prog[96];
	struct seen s;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/prog", self->dir);
	write_file(prog, "#!/bin/sh\nexit 0\n");
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD, FAN_OPEN_EXEC,
				 AT_FDCWD, prog));
	touch_read(prog);
	EXPECT_EQ(0, drain(self->g, prog, &s));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(prog, prog, (char *)NULL);
		_exit(errno);
	}
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_EQ(1, drain(self->g, prog, &s));
	EXPECT_EQ(FAN_OPEN_EXEC, s.mask);
	EXPECT_EQ(pid, s.pid);
}

/*
 * The fd-mode workload in @dir: two files written and read, one of them
 * again (its events merge with the first, unread), the directory
 * listed, and a child's read (another pid: an event of its own).
 */
static void fd_workload(const char *dir)
{
	char f1[PATH_MAX], f2[PATH_MAX];
	pid_t pid;
	int fd;

	snprintf(f1, sizeof(f1), "%s/f1", dir);
	snprintf(f2, sizeof(f2), "%s/f2", dir);
	fd = open(f1, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "abc", 3) != 3)
			perror("write");
		close(fd);
	}
	touch_read(f2);
	touch_read(f1);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	pid = fork();
	if (pid == 0) {
		touch_read(f2);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/*
 * Mark @dir (inode mark, its children and itself) in a group that
 * @fsgate_side says, run fd_workload() there and read what came into
 * @buf; the records' fds are closed after naming each object in @out,
 * one line an event: mask, then the file and whose access it was. The
 * fds and pids, which differ between the sides, are zeroed in @buf.
 */
static ssize_t hear_fds_alone(bool fsgate_side, const char *dir,
			      char *buf, size_t len, char *out, size_t room)
{
	struct fanotify_event_metadata *ev;
	char link[64], got[PATH_MAX];
	const uint64_t mask = FAN_OPEN | FAN_ACCESS | FAN_MODIFY |
			      FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE |
			      FAN_EVENT_ON_CHILD | FAN_ONDIR;
	ssize_t total, n, got_len, o = 0;
	int g, ret;

	g = fsgate_side ? group(0) :
	    fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC,
			  O_RDONLY | O_CLOEXEC);
	if (g < 0)
		return -1;
	ret = fsgate_side ?
	      fsgate_mark(g, FSGATE_MARK_ADD, mask, AT_FDCWD, dir) :
	      fanotify_mark(g, FAN_MARK_ADD, mask, AT_FDCWD, dir);
	if (ret) {
		close(g);
		return -1;
	}
	fd_workload(dir);
	total = n = read(g, buf, len);
	close(g);
	out[0] = '\0';
	for (ev = (void *)buf; n > 0 && FAN_EVENT_OK(ev, n) && o < (ssize_t)room;
	     ev = FAN_EVENT_NEXT(ev, n)) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", ev->fd);
		got_len = readlink(link, got, sizeof(got) - 1);
		got[got_len < 0 ? 0 : got_len] = '\0';
		close(ev->fd);
		o += snprintf(out + o, room - o, "%#llx %s %s\n",
			      (unsigned long long)ev->mask,
			      !strcmp(got, dir) ? "." :
			      !strncmp(got, dir, strlen(dir)) ?
			      got + strlen(dir) + 1 : got,
			      ev->pid == getpid() ? "self" : "child");
		ev->fd = 0;
		ev->pid = 0;
	}
	return total;
}

/*
 * fd-mode notification records are fanotify's byte for byte, but for
 * each reader's own fd numbers and the child's pid, merging included.
 * Each side is heard alone, on a directory of its own, so that the
 * other's marks cannot add to what the shared inode masks let through;
 * the events are written down too, so that neither can pass by
 * reporting nothing.
 */
TEST_F(fs, notification_records_are_fanotifys_byte_for_byte)
{
	/*
	 * f1's read merges into its write's event, f2's between them; the
	 * directory's FAN_ONDIR is not reported in fd mode; the child's
	 * read is an event of its own.
	 */
	static const char expected[] =
		"0x3b f1 self\n"	/* OPEN|MODIFY|CLOSE_WRITE|ACCESS|CLOSE_NOWRITE */
		"0x31 f2 self\n"	/* OPEN|ACCESS|CLOSE_NOWRITE */
		"0x30 . self\n"	/* OPEN|CLOSE_NOWRITE */
		"0x31 f2 child\n";
	char dirs[2][96], path[PATH_MAX], bufs[2][4096] __attribute__((aligned(8)));
	char out[2][512];
	ssize_t n[2];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", self->dir,
			 i ? "fsgate" : "fanotify");
		ASSERT_EQ(0, mkdir(dirs[i], 0755));
		snprintf(path, sizeof(path), "%s/f1", dirs[i]);
		write_file(path, "one\n");
		snprintf(path, sizeof(path), "%s/f2", dirs[i]);
		write_file(path, "two\n");
		n[i] = hear_fds_alone(i, dirs[i], bufs[i], sizeof(bufs[i]),
				      out[i], sizeof(out[i]));
		ASSERT_LT(0, n[i]) TH_LOG("%s: %s", dirs[i], strerror(errno));
	}
	EXPECT_STREQ(expected, out[0]) TH_LOG("fanotify");
	EXPECT_STREQ(expected, out[1]) TH_LOG("fsgate");
	ASSERT_EQ(n[0], n[1]);
	EXPECT_EQ(0, memcmp(bufs[0], bufs[1], n[0]));
}

TEST_HARNESS_MAIN
