// SPDX-License-Identifier: GPL-2.0
/*
 * Limits: what a local user can do with a group's verdict cache,
 * /proc/fsgate/groups and read() must neither starve the group nor
 * confuse its daemon.
 *
 * Accesses are made by forked processes, which exit with their errno;
 * the test itself reads and answers for its group.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define EV_LEN ((int)sizeof(struct fanotify_event_metadata))

FIXTURE(limits) {
	char dir[64];
};

/* Each test gets a tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(limits)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("limits", self->dir, sizeof(self->dir)));
}

FIXTURE_TEARDOWN(limits)
{
	fsgate_test_tmpfs_done(self->dir);
}

/* Bytes waiting on @g, once at least @want are (or WAIT_MS passed). */
static int wait_queued(int g, int want)
{
	int n = 0, i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (ioctl(g, FIONREAD, &n) || n >= want)
			break;
		usleep(10000);
	}
	return n;
}

/* Number of fds the test process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* @path is @dir/@name@i; the file holds its name. */
static void make_file(char *path, size_t len, const char *dir,
		      const char *name, int i)
{
	snprintf(path, len, "%s/%s%d", dir, name, i);
	write_file(path, path);
}

/*
 * A read() whose buffer ends in an unmapped page returns the events that
 * fit before it, each with an fd the daemon can answer by; the event
 * that faulted and those after it are read next time, and no fd leaks.
 */
TEST_F(limits, read_fault_returns_what_was_copied)
{
	struct fanotify_event_metadata ev[4];
	long page = sysconf(_SC_PAGESIZE);
	struct fsgate_stats st;
	char path[96], *map;
	pid_t pid[4];
	int g, i, fds;

	g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT, 30000,
		       FSGATE_VERDICT_DENY, FSGATE_VERDICT_DENY);
	ASSERT_LE(0, g);
	for (i = 0; i < 4; i++)
		make_file(path, sizeof(path), self->dir, "f", i);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));
	fds = open_fds();

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/f%d", self->dir, i);
		pid[i] = spawn_open(path, O_RDONLY, 0);
	}
	ASSERT_EQ(4 * EV_LEN, wait_queued(g, 4 * EV_LEN));

	/* Not even one event fits in the mapped part: nothing is lost. */
	EXPECT_EQ(-1, read(g, map + page, 4 * EV_LEN));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(4 * EV_LEN, wait_queued(g, 4 * EV_LEN));
	EXPECT_EQ(fds, open_fds());

	/* Two fit: they are read, the other two stay queued. */
	ASSERT_EQ(2 * EV_LEN, read(g, map + page - 2 * EV_LEN, 4 * EV_LEN))
		TH_LOG("read: %m");
	memcpy(ev, map + page - 2 * EV_LEN, 2 * EV_LEN);
	EXPECT_EQ(2 * EV_LEN, wait_queued(g, 0));
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(ev[i].mask & FAN_OPEN_PERM);
		ASSERT_LE(0, ev[i].fd);
		EXPECT_EQ((int)sizeof(struct fanotify_response),
			  answer(g, ev[i].fd, FAN_ALLOW));
	}
	ASSERT_EQ(2 * EV_LEN, read(g, &ev[2], 2 * EV_LEN)) TH_LOG("read: %m");
	for (i = 2; i < 4; i++) {
		ASSERT_LE(0, ev[i].fd);
		EXPECT_EQ((int)sizeof(struct fanotify_response),
			  answer(g, ev[i].fd, FAN_ALLOW));
	}
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, reap(pid[i]));
	EXPECT_EQ(fds, open_fds());
	ASSERT_EQ(0, ioctl(g, FSGATE_IOC_STATS, &st));
	EXPECT_EQ(4, st.answered);
	EXPECT_EQ(0, st.timedout);
	EXPECT_EQ(4, st.delivered);
	munmap(map, page);
	close(g);
}

/* The row of /proc/fsgate/groups (at @file) whose comm is @comm, or NULL. */
static const struct fsgate_group_info *
row_of(const char *file, const char *comm, struct fsgate_group_info **all)
{
	ssize_t n = fsgate_groups_read(file, all), i;

	for (i = 0; i < n; i++)
		if (!strcmp((*all)[i].comm, comm))
			return &(*all)[i];
	return NULL;
}

/*
 * A comm with whitespace stays one field, escaped as \ooo in the file
 * and read back whole by libfsgate; the other columns stay in place.
 */
TEST(proc_groups_escapes_comm)
{
	static const char comm[] = "a b\tc\nd\\";
	struct fsgate_group_info *all = NULL;
	const struct fsgate_group_info *row;
	char old[17] = "", line[512];
	int g, found = 0;
	FILE *f;

	ASSERT_EQ(0, prctl(PR_GET_NAME, old));
	ASSERT_EQ(0, prctl(PR_SET_NAME, comm));
	g = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY, 1234);
	prctl(PR_SET_NAME, old);
	ASSERT_LE(0, g);

	f = fopen("/proc/fsgate/groups", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		found += strstr(line, " a\\040b\\011c\\012d\\134 notif 1234 ") != NULL;
	fclose(f);
	EXPECT_EQ(1, found);

	row = row_of(NULL, comm, &all);
	ASSERT_NE(NULL, row);
	EXPECT_EQ(getpid(), row->pid);
	EXPECT_STREQ("notif", row->class_name);
	EXPECT_EQ(1234, row->priority);
	free(all);
	close(g);
}

/* Only root reads /proc/fsgate/groups: an unprivileged user gets EACCES. */
TEST(proc_groups_is_root_only)
{
	struct stat st;
	pid_t pid;

	ASSERT_EQ(0, stat("/proc/fsgate/groups", &st));
	EXPECT_EQ(0400, st.st_mode & 07777);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		if (open("/proc/fsgate/groups", O_RDONLY) >= 0)
			_exit(0);
		_exit(errno);
	}
	EXPECT_EQ(EACCES, reap(pid));
}

/*
 * Seen through the procfs of a pid namespace, a daemon's pid is its pid
 * there, and 0 for one outside it, as /proc/PID would show.
 */
TEST(proc_groups_pids_are_the_readers)
{
	char old[17] = "", dir[64];
	int outer;
	pid_t pid;

	ASSERT_EQ(0, prctl(PR_GET_NAME, old));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "limits-outer"));
	outer = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY, 1235);
	prctl(PR_SET_NAME, old);
	ASSERT_LE(0, outer);
	snprintf(dir, sizeof(dir), "/tmp/limits-proc.%d", (int)getpid());
	ASSERT_EQ(0, mkdir(dir, 0700));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fsgate_group_info *all = NULL;
		const struct fsgate_group_info *row;
		pid_t inner;

		if (fsgate_test_own_mounts() || unshare(CLONE_NEWPID))
			_exit(100);
		inner = fork();
		if (inner)
			_exit(inner < 0 ? 101 : reap(inner));
		/* pid 1 of a new pid namespace, with a procfs of its own. */
		if (mount("proc", dir, "proc", 0, NULL))
			_exit(102);
		prctl(PR_SET_NAME, "limits-inner");
		if (fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY, 1236) < 0)
			_exit(103);
		strcat(dir, "/fsgate/groups");
		row = row_of(dir, "limits-inner", &all);
		if (!row || row->pid != 1)
			_exit(104);
		free(all);
		row = row_of(dir, "limits-outer", &all);
		if (!row || row->pid != 0)
			_exit(105);
		_exit(0);
	}
	EXPECT_EQ(0, reap(pid));
	rmdir(dir);
	close(outer);
}

TEST_HARNESS_MAIN
