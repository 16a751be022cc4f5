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
#include <signal.h>
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
#include <time.h>
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

/* Module parameters a test changes, put back by its teardown. */
FIXTURE(cache) {
	char dir[64];
	char max_marks[32];
	char max_cached[32];
};

/* Files f0..f39 and new0, made before any test marks the tmpfs. */
FIXTURE_SETUP(cache)
{
	char path[96];
	int i;

	ASSERT_EQ(0, fsgate_test_tmpfs("cache", self->dir, sizeof(self->dir)));
	for (i = 0; i < 40; i++)
		make_file(path, sizeof(path), self->dir, "f", i);
	make_file(path, sizeof(path), self->dir, "new", 0);
	ASSERT_EQ(0, fsgate_test_param("max_marks", "8", self->max_marks,
				       sizeof(self->max_marks)));
	ASSERT_EQ(0, fsgate_test_param("max_cached_verdicts", "16",
				       self->max_cached,
				       sizeof(self->max_cached)));
}

FIXTURE_TEARDOWN(cache)
{
	fsgate_test_param("max_marks", self->max_marks, NULL, 0);
	fsgate_test_param("max_cached_verdicts", self->max_cached, NULL, 0);
	fsgate_test_tmpfs_done(self->dir);
}

/*
 * Cache files f0..f(n-1) of @dir for @g, each opened once and allowed
 * with FSGATE_CACHE. Return: how many opens failed.
 */
static int cache_files(int g, const char *dir, int n)
{
	char path[96];
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		bad += open_answered(g, path, FSGATE_ALLOW | FSGATE_CACHE) != 0;
	}
	return bad;
}

/*
 * Opening many files on a filesystem-marked tmpfs fills the group's
 * cache, not its marks: past max_cached_verdicts the least recently
 * used verdicts are evicted and counted, and the daemon can still add
 * marks up to max_marks.
 */
TEST_F(cache, cached_verdicts_are_not_marks)
{
	struct fsgate_stats st;
	char path[96];
	int g, i;

	g = content_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, cache_files(g, self->dir, 40));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.marks);
	EXPECT_EQ(16, st.cache_entries);
	EXPECT_EQ(24, st.cache_evictions);

	/* The daemon's own marks: seven more fit beside the filesystem's. */
	for (i = 0; i < 7; i++) {
		snprintf(path, sizeof(path), "%s/f%d", self->dir, i);
		EXPECT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_CLOSE_WRITE,
					 AT_FDCWD, path)) TH_LOG("mark %d: %m", i);
	}
	snprintf(path, sizeof(path), "%s/f%d", self->dir, 39);
	EXPECT_EQ(-1, fsgate_mark(g, FSGATE_MARK_ADD, FAN_CLOSE_WRITE,
				  AT_FDCWD, path));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(8, st.marks);
	EXPECT_LE(st.cache_entries, 16);

	/* The most recent verdict is still cached: no question. */
	EXPECT_EQ(0, reap(spawn_open(path, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, 200));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.cached);
	close(g);
}

/* A verdict a lookup used since the last sweep outlives one that was not. */
TEST_F(cache, eviction_spares_recently_used_verdicts)
{
	struct fsgate_stats st;
	char f0[96], f1[96], path[96];
	int g;

	g = content_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, cache_files(g, self->dir, 16));
	snprintf(f0, sizeof(f0), "%s/f0", self->dir);
	snprintf(f1, sizeof(f1), "%s/f1", self->dir);
	/* f0, the oldest, is used; f1, the next oldest, is not. */
	EXPECT_EQ(0, reap(spawn_open(f0, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, 100));
	snprintf(path, sizeof(path), "%s/new0", self->dir);
	EXPECT_EQ(0, open_answered(g, path, FSGATE_ALLOW | FSGATE_CACHE));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(16, st.cache_entries);
	EXPECT_EQ(1, st.cache_evictions);
	/* f0 survived the sweep, f1 was evicted. */
	EXPECT_EQ(0, reap(spawn_open(f0, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, 100));
	EXPECT_EQ(0, open_answered(g, f1, FSGATE_ALLOW));
	close(g);
}

/* FSGATE_UNLIMITED_MARKS lifts max_marks, not the cache's bound. */
TEST_F(cache, unlimited_marks_keep_the_cache_bounded)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_UNLIMITED_MARKS,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = FSGATE_TIMEOUT_DEFAULT,
	};
	struct fsgate_stats st;
	int g = fsgate_init_ext(&init);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	ASSERT_EQ(0, cache_files(g, self->dir, 24));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.marks);
	EXPECT_EQ(16, st.cache_entries);
	EXPECT_EQ(8, st.cache_evictions);
	close(g);
}

/*
 * The verdict cache's race: a writer changes the file between the
 * question and the answer, without changing its size or ctime (through
 * a shared mapping, which tmpfs does not timestamp). The answer, with
 * FSGATE_CACHE, was about the old content: the next open is asked.
 */
static void write_while_deciding(struct __test_metadata *_metadata,
				 const char *dir, int use_mmap)
{
	struct fanotify_event_metadata ev, wev;
	struct stat before, after;
	char path[96];
	pid_t reader, writer;
	int g, fd;

	g = content_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	snprintf(path, sizeof(path), "%s/racy", dir);
	write_file(path, "clean\n");
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, dir));
	ASSERT_EQ(0, stat(path, &before));

	reader = spawn_open(path, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	/* While the scanner looks at "clean", someone writes "dirty". */
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer) {
		char *p;

		close_range(3, ~0U, 0);
		fd = open(path, O_RDWR);
		if (fd < 0)
			_exit(errno);
		if (use_mmap) {
			p = mmap(NULL, 6, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
			if (p == MAP_FAILED)
				_exit(errno);
			memcpy(p, "dirty\n", 6);
			munmap(p, 6);
		} else if (pwrite(fd, "dirty\n", 6, 0) != 6) {
			_exit(errno);
		}
		_exit(close(fd) ? errno : 0);
	}
	ASSERT_EQ(0, next_event(g, WAIT_MS, &wev));
	ASSERT_EQ((int)sizeof(struct fanotify_response),
		  answer(g, wev.fd, FSGATE_ALLOW));
	ASSERT_EQ(0, reap(writer));
	ASSERT_EQ(0, stat(path, &after));
	EXPECT_EQ(before.st_size, after.st_size);
	TH_LOG("ctime %s by the write",
	       before.st_ctim.tv_sec == after.st_ctim.tv_sec &&
	       before.st_ctim.tv_nsec == after.st_ctim.tv_nsec ?
	       "unchanged" : "changed");
	ASSERT_EQ((int)sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, reap(reader));

	/* "dirty" was never looked at: the next open is asked. */
	EXPECT_EQ(0, open_answered(g, path, FSGATE_ALLOW | FSGATE_CACHE));
	/* Unchanged since, that answer holds. */
	EXPECT_EQ(0, reap(spawn_open(path, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, 200));
	close(g);
}

TEST_F(limits, cache_refuses_a_verdict_on_a_file_mapped_and_written_meanwhile)
{
	write_while_deciding(_metadata, self->dir, 1);
}

TEST_F(limits, cache_refuses_a_verdict_on_a_file_written_meanwhile)
{
	write_while_deciding(_metadata, self->dir, 0);
}

/*
 * An ext2 image with 128-byte inodes, whose timestamps end in January
 * 2038, and the guest's clock set past that: every change gets the same
 * ctime, as every change within one timestamp tick does, but every time.
 */
FIXTURE(frozen) {
	char img[64], dev[32], dir[64];
	struct timespec real, mono;
};

FIXTURE_SETUP(frozen)
{
	struct timespec later = { .tv_sec = 2208988800 };	/* 2040 */
	char cmd[256];

	ASSERT_EQ(0, fsgate_test_own_mounts());
	snprintf(self->img, sizeof(self->img), "/tmp/limits.%d.img", getpid());
	snprintf(self->dir, sizeof(self->dir), "/tmp/limits-ext2.%d", getpid());
	snprintf(cmd, sizeof(cmd),
		 "dd if=/dev/zero of=%s bs=1M count=4 2>/dev/null && mke2fs -F -I 128 %s >/dev/null 2>&1",
		 self->img, self->img);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, fsgate_test_loop_attach(self->img, self->dev,
					    sizeof(self->dev)));
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	ASSERT_EQ(0, mount(self->dev, self->dir, "ext4", 0, NULL));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &self->real));
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &self->mono));
	ASSERT_EQ(0, clock_settime(CLOCK_REALTIME, &later));
}

FIXTURE_TEARDOWN(frozen)
{
	struct timespec now;

	/* The real time, plus what passed since it was saved. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	now.tv_sec += self->real.tv_sec - self->mono.tv_sec;
	now.tv_nsec += self->real.tv_nsec - self->mono.tv_nsec;
	if (now.tv_nsec < 0) {
		now.tv_nsec += 1000000000;
		now.tv_sec--;
	} else if (now.tv_nsec >= 1000000000) {
		now.tv_nsec -= 1000000000;
		now.tv_sec++;
	}
	clock_settime(CLOCK_REALTIME, &now);
	umount2(self->dir, MNT_DETACH);
	fsgate_test_loop_detach(self->dev);
	unlink(self->img);
	rmdir(self->dir);
}

TEST_F(frozen, cache_refuses_a_verdict_on_a_file_written_within_its_tick)
{
	write_while_deciding(_metadata, self->dir, 0);
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
 * An overlay's files get no cached verdict. A write made in the layer
 * beneath (a rootless container's user writes its upper directory; here
 * the lower one) changes neither the overlay inode's ctime, size nor
 * writers, and fsgate hears nothing of it through the overlay's marks:
 * a cached allow would stand for content nobody was asked about. So the
 * answer's FSGATE_CACHE is not kept, and the open after such a write is
 * asked.
 */
TEST(overlay_files_get_no_cached_verdicts)
{
	char base[64], lower[96], upper[96], work[96], merged[96];
	char opts[512], in_lower[128], in_merged[128];
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	pid_t pid;
	int g;

	ASSERT_EQ(0, fsgate_test_tmpfs("overlay", base, sizeof(base)));
	snprintf(lower, sizeof(lower), "%s/lower", base);
	snprintf(upper, sizeof(upper), "%s/upper", base);
	snprintf(work, sizeof(work), "%s/work", base);
	snprintf(merged, sizeof(merged), "%s/merged", base);
	ASSERT_EQ(0, mkdir(lower, 0755));
	ASSERT_EQ(0, mkdir(upper, 0755));
	ASSERT_EQ(0, mkdir(work, 0755));
	ASSERT_EQ(0, mkdir(merged, 0755));
	snprintf(in_lower, sizeof(in_lower), "%s/f", lower);
	snprintf(in_merged, sizeof(in_merged), "%s/f", merged);
	write_file(in_lower, "clean\n");
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		 lower, upper, work);
	ASSERT_EQ(0, mount("overlay", merged, "overlay", 0, opts))
		TH_LOG("mount overlay: %m");

	g = content_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, merged));
	EXPECT_EQ(0, open_answered(g, in_merged, FSGATE_ALLOW | FSGATE_CACHE));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.cache_entries);

	write_file(in_lower, "changed beneath\n");
	pid = spawn_open(in_merged, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, 5000, &ev)) TH_LOG("the open was not asked");
	ASSERT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FAN_DENY));
	EXPECT_EQ(EPERM, reap(pid));
	close(g);
	umount2(merged, MNT_DETACH);
	fsgate_test_tmpfs_done(base);
}

/* Write @s to the cgroup file @cg/@file; 0 or -1. */
static int cg_write(const char *cg, const char *file, const char *s)
{
	char path[192];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

/* Move the calling process into @cg; 0 or -1. */
static int cg_enter(const char *cg)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return cg_write(cg, "cgroup.procs", pid);
}

/*
 * Mount cgroup2 on @dir/cg, its path into @cg, with the memory
 * controller on for its children; 0 or -1. Every kernel the suite boots
 * has cgroup2 and its memory controller.
 */
static int cg_mount(const char *dir, char *cg, size_t len)
{
	snprintf(cg, len, "%s/cg", dir);
	if (mkdir(cg, 0755) || mount("cgroup2", cg, "cgroup2", 0, NULL))
		return -1;
	return cg_write(cg, "cgroup.subtree_control", "+memory");
}

/*
 * A number of @cg's @file: the line that begins with @fmt's word, or the
 * first for a @fmt of "%ld" alone; -1 if there is none.
 */
static long cg_value(const char *cg, const char *file, const char *fmt)
{
	char path[192], line[128];
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &value) == 1)
			break;
	fclose(f);
	return value;
}

/* The slab bytes memory.stat charges to @cg, or -1. */
static long cg_slab(const char *cg)
{
	return cg_value(cg, "memory.stat", "slab %ld");
}

#define MEMCG_FILES 500

/*
 * A user's opens fill a daemon's verdict cache, whose memory is charged
 * to the daemon's memory cgroup (where the group was made), not to the
 * user's: a user cannot make the cache its own memory, nor make the
 * daemon's limit hide behind its own. MEMCG_FILES verdicts, at least 64
 * bytes each in the daemon's cgroup; the user's grows by far less.
 */
TEST(cached_verdicts_are_charged_to_the_daemons_memcg)
{
	char dir[64], cg[80], daemon[96], user[96], path[128];
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	long d0, d1, u0, u1;
	int g = -1, i, fd;
	pid_t pid;

	ASSERT_EQ(0, fsgate_test_tmpfs("memcg", dir, sizeof(dir)));
	for (i = 0; i < MEMCG_FILES; i++)
		make_file(path, sizeof(path), dir, "f", i);
	ASSERT_EQ(0, cg_mount(dir, cg, sizeof(cg))) TH_LOG("%m");
	snprintf(daemon, sizeof(daemon), "%s/daemon", cg);
	snprintf(user, sizeof(user), "%s/user", cg);
	ASSERT_EQ(0, mkdir(daemon, 0755));
	ASSERT_EQ(0, mkdir(user, 0755));
	ASSERT_EQ(0, cg_enter(daemon));
	g = content_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, dir));
	d0 = cg_slab(daemon);
	u0 = cg_slab(user);
	ASSERT_LE(0, d0);
	ASSERT_LE(0, u0);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (cg_enter(user))
			_exit(100);
		for (i = 0; i < MEMCG_FILES; i++) {
			snprintf(path, sizeof(path), "%s/f%d", dir, i);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				_exit(errno);
			close(fd);
		}
		_exit(0);
	}
	for (i = 0; i < MEMCG_FILES; i++) {
		ASSERT_EQ(0, next_event(g, 5000, &ev)) TH_LOG("open %d", i);
		ASSERT_EQ(sizeof(struct fanotify_response),
			  answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE));
	}
	EXPECT_EQ(0, reap(pid));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(MEMCG_FILES, st.cache_entries);
	d1 = cg_slab(daemon);
	u1 = cg_slab(user);
	TH_LOG("slab: daemon %+ld bytes, user %+ld bytes", d1 - d0, u1 - u0);
	EXPECT_LE(MEMCG_FILES * 64, d1 - d0);
	EXPECT_GT((d1 - d0) / 4, u1 - u0);

	close(g);
	cg_enter(cg);
	rmdir(user);
	rmdir(daemon);
	umount(cg);
	fsgate_test_tmpfs_done(dir);
}

/* Files a user opens at most to fill the daemon's cgroup. */
#define LIMIT_FILES 40000
/* Opens of a gated file tried once it is full: see below. */
#define LIMIT_OPENERS 64

/* The stats of the group the process named @comm made, or -1. */
static int stats_of(const char *comm, struct fsgate_stats *st)
{
	struct fsgate_group_info *all = NULL;
	const struct fsgate_group_info *row = row_of(NULL, comm, &all);

	if (row)
		*st = row->stats;
	free(all);
	return row ? 0 : -1;
}

/* Whether @pid, a child, is still alive; its wait status into @status. */
static bool alive(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == 0;
}

/*
 * A daemon's memory cgroup pays for the events users' accesses make its
 * group hold, as fanotify's does, so a user can fill that cgroup. Then
 * an event is lost (the overflow event says so) and a permission event
 * is not asked: the access gets the group's timeout verdict at once,
 * counted in perm_overflows, as when the queue is full. Neither may call
 * the cgroup's OOM killer (fanotify asks for __GFP_RETRY_MAYFAIL for the
 * same reason): it would kill the daemon, and every access waiting on
 * it would get the orphan verdict, so a user could turn a daemon's
 * denies into allows. Here the daemon's group hears of opens on one
 * tmpfs and decides opens on another (timeout verdict deny, orphan
 * verdict allow); its cgroup gets a memory.max a little above what it
 * uses; a user opens new files on the first until their events are
 * lost, then the gated file on the second, until one is denied at once
 * (a few may still fit in what was charged ahead, and wait on the
 * daemon, which never answers).
 */
TEST(a_users_events_at_the_daemons_memcg_limit_do_not_kill_it)
{
	char dir[64], cg[80], daemon[96], gated[96], path[128], limit[32];
	pid_t pid, openers[LIMIT_OPENERS];
	int ready[2], status = 0, i, n = 0, denied = -1;
	struct fsgate_stats st = {};
	__u64 queued;
	long used;
	char c;

	ASSERT_EQ(0, fsgate_test_tmpfs("memlimit", dir, sizeof(dir)));
	snprintf(gated, sizeof(gated), "%s/gated", dir);
	ASSERT_EQ(0, mkdir(gated, 0755));
	ASSERT_EQ(0, mount("tmpfs", gated, "tmpfs", 0, NULL)) TH_LOG("%m");
	snprintf(path, sizeof(path), "%s/file", gated);
	write_file(path, "gated\n");
	ASSERT_EQ(0, cg_mount(dir, cg, sizeof(cg))) TH_LOG("%m");
	snprintf(daemon, sizeof(daemon), "%s/daemon", cg);
	ASSERT_EQ(0, mkdir(daemon, 0755));
	ASSERT_EQ(0, pipe(ready));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int g;

		close(ready[0]);
		if (cg_enter(daemon) || prctl(PR_SET_NAME, "memcg-daemon"))
			_exit(100);
		g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT,
			       PERM_LONG_MS, FSGATE_VERDICT_DENY,
			       FSGATE_VERDICT_ALLOW);
		if (g < 0 || perm_mark(g, FAN_OPEN, dir) ||
		    perm_mark(g, FAN_OPEN_PERM, gated))
			_exit(101);
		if (write(ready[1], "r", 1) != 1)
			_exit(102);
		for (;;)
			pause();
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the daemon did not start");
	close(ready[0]);
	used = cg_value(daemon, "memory.current", "%ld");
	ASSERT_LT(0, used);
	snprintf(limit, sizeof(limit), "%ld", used + 16384);
	ASSERT_EQ(0, cg_write(daemon, "memory.max", limit));

	/*
	 * The user: new files, each open an event, until 64 in a row are
	 * lost. The first loss drains what other CPUs charged ahead, which
	 * makes room again: give the drain time.
	 */
	for (i = 0; i < LIMIT_FILES && alive(pid, &status); i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		if (i % 64 != 63)
			continue;
		queued = st.queued;
		if (stats_of("memcg-daemon", &st) ||
		    (st.overflows && st.queued == queued))
			break;
		if (st.overflows)
			usleep(100000);
	}
	TH_LOG("%d opens; %llu events queued, %llu lost", i,
	       (unsigned long long)st.queued, (unsigned long long)st.overflows);
	EXPECT_TRUE(alive(pid, &status))
		TH_LOG("the daemon died: %s",
		       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) :
					     "it exited");
	EXPECT_LT(0, st.overflows) TH_LOG("no event was lost");

	/* Then gated opens, until one is decided at once. */
	snprintf(path, sizeof(path), "%s/file", gated);
	for (n = 0; n < LIMIT_OPENERS && denied < 0; n++) {
		openers[n] = spawn_open(path, O_RDONLY, 0);
		ASSERT_LT(0, openers[n]);
		for (i = 0; i < 30 && denied < 0; i++) {
			if (waitpid(openers[n], &status, WNOHANG) == openers[n])
				denied = WIFEXITED(status) ?
					 WEXITSTATUS(status) : 1000;
			else
				usleep(10000);
		}
	}
	EXPECT_EQ(EPERM, denied) TH_LOG("after %d gated opens", n);
	if (alive(pid, &status)) {
		EXPECT_EQ(0, stats_of("memcg-daemon", &st));
		EXPECT_LT(0, st.perm_overflows);
		TH_LOG("%llu gated opens wait on the daemon",
		       (unsigned long long)st.pending);
	}

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* The daemon gone, the opens still waiting get the orphan verdict. */
	for (i = 0; i < n - (denied >= 0); i++)
		reap(openers[i]);
	cg_enter(cg);
	rmdir(daemon);
	umount(cg);
	umount(gated);
	fsgate_test_tmpfs_done(dir);
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
	int outer, status;
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

		if (fsgate_test_own_mounts())
			_exit(100);
		if (unshare(CLONE_NEWPID))
			_exit(errno == EINVAL ? 99 : 100);
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
	status = reap(pid);
	rmdir(dir);
	close(outer);
	if (status == 99)
		SKIP(return, "no pid namespaces in this kernel");
	EXPECT_EQ(0, status);
}

TEST_HARNESS_MAIN
