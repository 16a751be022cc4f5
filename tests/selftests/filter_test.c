// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel decides before a group is asked: flushing a group's
 * verdict cache (FSGATE_IOC_FLUSH_CACHE), muting (FSGATE_IOC_MUTE),
 * FSGATE_EXCLUDE_SELF for a daemon's forked workers, and a group's
 * classic BPF filter (FSGATE_IOC_SET_FILTER).
 *
 * The accesses are made by forked processes, which exit with their
 * errno; the test itself reads and answers for its groups.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <linux/filter.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NONE_MS 300	/* for events that must not */

#define DATA(field) offsetof(struct fsgate_filter_data, field)

FIXTURE(filter) {
	char dir[64];
	char file[80];
	char other[80];
};

/* Each test gets a tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(filter)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("filter", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/other", self->dir);
	write_file(self->file, "content\n");
	write_file(self->other, "other\n");
}

FIXTURE_TEARDOWN(filter)
{
	fsgate_test_tmpfs_done(self->dir);
}

/* A content group gating opens on the tmpfs of @dir, without a bound. */
static int open_gate(const char *dir)
{
	int g = content_group(2000);

	if (g < 0 || perm_mark(g, FAN_OPEN_PERM, dir))
		return -1;
	return g;
}

/* A notification group told of opens on the tmpfs of @dir. */
static int open_watch(const char *dir)
{
	int g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			    FSGATE_PRIORITY_DEFAULT);

	if (g < 0 || fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN, AT_FDCWD, dir))
		return -1;
	return g;
}

TEST_F(filter, a_flushed_clean_verdict_is_asked_again)
{
	struct fsgate_stats st;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, open_answered(g, self->other,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_TRUE(decided_quietly(g, self->file));

	EXPECT_EQ(2, fsgate_cache_flush(g, -1));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.cache_flushes);
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	EXPECT_EQ(0, open_answered(g, self->other, FSGATE_ALLOW));
	/* Nothing left to flush. */
	EXPECT_EQ(0, fsgate_cache_flush(g, -1));
	close(g);
}

TEST_F(filter, a_one_file_flush_leaves_the_others_cached)
{
	int g = open_gate(self->dir), fd;

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, open_answered(g, self->other,
				   FSGATE_ALLOW | FSGATE_CACHE));
	/* Any fd of the file names it; O_PATH raises no event. */
	fd = open(self->file, O_PATH);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fsgate_cache_flush(g, fd));
	EXPECT_EQ(0, fsgate_cache_flush(g, fd));
	close(fd);
	EXPECT_TRUE(decided_quietly(g, self->other));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	close(g);
}

TEST_F(filter, a_flush_with_a_bad_fd_changes_nothing)
{
	struct fsgate_cache_flush req = { .flags = FSGATE_FLUSH_FILE, .fd = 1000 };
	struct fsgate_stats st;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EBADF, errno);
	req.fd = -5;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EBADF, errno);
	/* Unknown flags, an fd without FSGATE_FLUSH_FILE, reserved bits. */
	req = (struct fsgate_cache_flush){ .flags = 2 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EINVAL, errno);
	req = (struct fsgate_cache_flush){ .fd = 1 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EINVAL, errno);
	req = (struct fsgate_cache_flush){ .reserved[2] = 1 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_FLUSH_CACHE, &req));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, fsgate_cache_flush(g, -2));
	EXPECT_EQ(EBADF, errno);

	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.cache_flushes);
	EXPECT_TRUE(decided_quietly(g, self->file));
	close(g);
}

/* A scanner flushes while a worker still holds an event of the old rules. */
TEST_F(filter, an_answer_to_an_event_asked_before_a_flush_is_not_cached)
{
	struct fanotify_event_metadata ev;
	int g = open_gate(self->dir);
	pid_t pid;

	ASSERT_LE(0, g);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(0, fsgate_cache_flush(g, -1));
	EXPECT_EQ(sizeof(struct fanotify_response),
		  answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_EQ(0, reap(pid));
	/* The answer decided its access, and is not remembered. */
	EXPECT_EQ(0, open_answered(g, self->file,
				   FSGATE_ALLOW | FSGATE_CACHE));
	/* Asked after the flush: cached as usual. */
	EXPECT_TRUE(decided_quietly(g, self->file));
	close(g);
}

/* A flush is the group's own: another group's cache stays. */
TEST_F(filter, a_flush_leaves_other_groups_caches)
{
	struct fanotify_event_metadata ev;
	pid_t pid;
	int g = open_gate(self->dir), h = content_group(1000);

	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, perm_mark(h, FAN_OPEN_PERM, self->dir));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE);
	ASSERT_EQ(0, next_event(h, WAIT_MS, &ev));
	answer(h, ev.fd, FSGATE_ALLOW | FSGATE_CACHE);
	EXPECT_EQ(0, reap(pid));
	EXPECT_EQ(1, fsgate_cache_flush(g, -1));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	EXPECT_FALSE(readable(h, NONE_MS));
	close(h);
	close(g);
}

/*
 * A process that waits to be told, then opens @path (as @uid unless it
 * is -1, from the cgroup.procs file @procs unless it is NULL, forking
 * first when @fork_first) and exits with the open's errno.
 */
struct child {
	pid_t pid;
	int go;
};

static void child_run(const char *path, int uid, const char *procs,
		      int fork_first, int go)
{
	char c;
	int fd;

	if (read(go, &c, 1) != 1)
		_exit(100);
	if (procs) {
		fd = open(procs, O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(101);
		close(fd);
	}
	if (uid >= 0 && setresuid(uid, uid, uid))
		_exit(102);
	if (fork_first)
		_exit(reap(spawn_open(path, O_RDONLY, 0)));
	fd = open(path, O_RDONLY);
	_exit(fd < 0 ? errno : 0);
}

static int child_start(struct child *c, const char *path, int uid,
		       const char *procs, int fork_first)
{
	int p[2];

	if (pipe(p))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		close(p[1]);
		child_run(path, uid, procs, fork_first, p[0]);
	}
	close(p[0]);
	c->go = p[1];
	return 0;
}

/* Tell the child to open, and wait for it: its errno. */
static int child_finish(struct child *c)
{
	if (write(c->go, "g", 1) != 1)
		return -1;
	close(c->go);
	return reap(c->pid);
}

/* Tell the child to open, answer its event on @g with an allow. */
static int child_answered(struct __test_metadata *_metadata, struct child *c,
			  int g)
{
	struct fanotify_event_metadata ev;

	EXPECT_EQ(1, write(c->go, "g", 1));
	close(c->go);
	EXPECT_EQ(0, next_event(g, WAIT_MS, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FSGATE_ALLOW));
	return reap(c->pid);
}

static int mute(int g, unsigned int type, unsigned int flags, uint64_t id,
		uint64_t dev)
{
	const struct fsgate_mute_entry e = {
		.type = type, .flags = flags, .id = id, .dev = dev,
	};

	return fsgate_mute_add(g, &e);
}

static uint64_t muted_count(int g)
{
	struct fsgate_stats st = { 0 };

	fsgate_stats(g, &st);
	return st.muted;
}

TEST_F(filter, a_muted_process_is_not_asked)
{
	struct child a, b;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, child_start(&a, self->file, -1, NULL, 0));
	ASSERT_EQ(0, child_start(&b, self->file, -1, NULL, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, 0, a.pid, 0)) TH_LOG("%m");
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_EQ(1, muted_count(g));
	EXPECT_EQ(0, child_answered(_metadata, &b, g));
	close(g);
}

/* Muting is before the queue: a notification group hears nothing either. */
TEST_F(filter, a_muted_process_queues_no_notification)
{
	struct child a;
	int g = open_watch(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, child_start(&a, self->file, -1, NULL, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, 0, a.pid, 0));
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_EQ(1, muted_count(g));
	/* Unmuted, the same access is told. */
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_TRUE(readable(g, WAIT_MS));
	close(g);
}

/*
 * FSGATE_MUTE_DESCENDANTS: what the process forks from then on is muted;
 * a child it forked before is not.
 */
TEST_F(filter, a_muted_process_s_later_children_are_muted)
{
	struct child parent, early, plain;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, child_start(&parent, self->file, -1, NULL, 1));
	ASSERT_EQ(0, child_start(&plain, self->file, -1, NULL, 1));
	/* The test itself is the parent of early: mute it, not early. */
	ASSERT_EQ(0, child_start(&early, self->file, -1, NULL, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, FSGATE_MUTE_DESCENDANTS,
			  parent.pid, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, 0, plain.pid, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, FSGATE_MUTE_DESCENDANTS,
			  getpid(), 0));
	EXPECT_EQ(0, child_finish(&parent));
	EXPECT_FALSE(readable(g, NONE_MS));
	/* Without the flag, a muted process's child is asked. */
	EXPECT_EQ(0, child_answered(_metadata, &plain, g));
	/* Forked by a muted process before it was muted: asked. */
	EXPECT_EQ(0, child_answered(_metadata, &early, g));
	close(g);
}

TEST_F(filter, a_muted_program_is_not_asked)
{
	struct fanotify_event_metadata ev;
	struct child a;
	struct stat st;
	pid_t pid;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, stat("/proc/self/exe", &st));
	ASSERT_EQ(0, fsgate_mute_exe(g, "/proc/self/exe")) TH_LOG("%m");
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_EXE, 0, st.st_ino, st.st_dev));
	EXPECT_EQ(EEXIST, errno);
	/* Any process running this program. */
	ASSERT_EQ(0, child_start(&a, self->file, -1, NULL, 0));
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	/* Another program (busybox's cat) is asked. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl("/bin/cat", "cat", self->file, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	answer(g, ev.fd, FSGATE_ALLOW);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/*
 * An exec that a muted program starts is asked: during the exec the
 * process still has the muted program as its own, so a program entry
 * that hid it would let whatever that program is told to run (rsync -e
 * ./x) go unjudged. The same for a program entry with a uid.
 */
TEST_F(filter, an_exec_a_muted_program_starts_is_asked)
{
	struct fanotify_event_metadata ev;
	char script[96];
	struct stat st;
	pid_t pid;
	int g = content_group(2000);

	ASSERT_LE(0, g);
	/* Written before the mark: this process's own open would wait on g. */
	snprintf(script, sizeof(script), "%s/run", self->dir);
	write_file(script, "#!/bin/sh\nexit 0\n");
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM,
			       self->dir));
	ASSERT_EQ(0, stat("/proc/self/exe", &st));
	for (int i = 0; i < 2; i++) {
		const struct fsgate_mute_entry e = {
			.type = i ? FSGATE_MUTE_EXE_UID : FSGATE_MUTE_EXE,
			.id = st.st_ino,
			.dev = st.st_dev,
			.uid = i ? getuid() : 0,
		};
		ASSERT_EQ(0, fsgate_mute_add(g, &e)) TH_LOG("type %u: %m", e.type);
		/* The opens this program makes itself stay muted. */
		EXPECT_TRUE(decided_quietly(g, self->file));
		pid = spawn_exec(script);
		ASSERT_EQ(0, next_event(g, WAIT_MS, &ev)) TH_LOG("type %u", e.type);
		EXPECT_EQ(FAN_OPEN_EXEC_PERM, ev.mask);
		EXPECT_EQ(pid, ev.pid);
		/* Denied, the exec fails: the script raises nothing more. */
		EXPECT_EQ(sizeof(struct fanotify_response),
			  answer(g, ev.fd, FSGATE_DENY));
		EXPECT_EQ(EPERM, reap(pid));
		EXPECT_FALSE(readable(g, NONE_MS));
		ASSERT_EQ(0, fsgate_mute_remove(g, &e));
	}
	close(g);
}

/*
 * A program run as one effective uid, which a user who is not that uid
 * cannot become by running the program, or by making its process look
 * like it: the same program as another uid, and another program as that
 * uid, are asked.
 */
TEST_F(filter, a_muted_program_run_as_one_uid_is_not_asked)
{
	struct fsgate_mute_entry e = { .type = FSGATE_MUTE_EXE_UID,
				       .uid = 4321 }, list[2];
	struct fanotify_event_metadata ev;
	struct fsgate_version v;
	struct child a, b;
	struct stat st;
	pid_t pid;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_version(&v));
	EXPECT_TRUE(v.features & FSGATE_FEATURE_MUTE_EXE_UID);
	ASSERT_EQ(0, stat("/proc/self/exe", &st));
	e.id = st.st_ino;
	e.dev = st.st_dev;
	ASSERT_EQ(0, fsgate_mute_add(g, &e)) TH_LOG("%m");
	errno = 0;
	EXPECT_EQ(-1, fsgate_mute_add(g, &e));
	EXPECT_EQ(EEXIST, errno);
	ASSERT_EQ(0, child_start(&a, self->file, 4321, NULL, 0));
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_EQ(1, muted_count(g));
	ASSERT_EQ(0, child_start(&b, self->file, 4322, NULL, 0));
	EXPECT_EQ(0, child_answered(_metadata, &b, g));
	/* Busybox's cat as that uid. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		if (setresuid(4321, 4321, 4321))
			_exit(126);
		execl("/bin/cat", "cat", self->file, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(0, next_event(g, WAIT_MS, &ev));
	answer(g, ev.fd, FSGATE_ALLOW);
	EXPECT_EQ(0, reap(pid));
	/* Listed with its uid, removed as listed. */
	ASSERT_EQ(1, fsgate_mute_list(g, list, 2, NULL));
	EXPECT_EQ(FSGATE_MUTE_EXE_UID, list[0].type);
	EXPECT_EQ(st.st_ino, list[0].id);
	EXPECT_EQ(st.st_dev, list[0].dev);
	EXPECT_EQ(4321, list[0].uid);
	ASSERT_EQ(0, fsgate_mute_remove(g, &list[0]));
	EXPECT_EQ(0, fsgate_mute_list(g, list, 2, NULL));
	/* No other kind of entry takes a uid. */
	e.type = FSGATE_MUTE_EXE;
	errno = 0;
	EXPECT_EQ(-1, fsgate_mute_add(g, &e));
	EXPECT_EQ(EINVAL, errno);
	close(g);
}

TEST_F(filter, a_muted_uid_is_not_asked)
{
	struct child a, b;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_UID, 0, 4321, 0));
	ASSERT_EQ(0, child_start(&a, self->file, 4321, NULL, 0));
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	ASSERT_EQ(0, child_start(&b, self->file, 4322, NULL, 0));
	EXPECT_EQ(0, child_answered(_metadata, &b, g));
	close(g);
}

/*
 * A consensus: an access every group answered from its cache is allowed
 * next time without matching the groups again. These check that it holds
 * no longer than the groups' answers would.
 */

TEST_F(filter, a_consensus_counts_each_cached_answer_and_lapses_with_a_new_mark)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	int g = open_gate(self->dir), h;
	pid_t pid;

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_TRUE(quiet_opens(g, self->file, 3));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(3, st.cached);
	h = content_group(1000);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, fsgate_mark(h, FSGATE_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				 self->file));
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(h, WAIT_MS, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(h, ev.fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	EXPECT_FALSE(readable(g, NONE_MS));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(4, st.cached);
	close(h);
	close(g);
}

/* A group that mutes one process left it out: not a consensus for others. */
TEST_F(filter, a_group_muting_one_uid_leaves_no_consensus_for_others)
{
	struct child a, b;
	int g = open_gate(self->dir), h;

	ASSERT_LE(0, g);
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW | FSGATE_CACHE));
	h = content_group(1000);
	ASSERT_LE(0, h);
	ASSERT_EQ(0, mute(h, FSGATE_MUTE_UID, 0, 4321, 0));
	ASSERT_EQ(0, perm_mark(h, FAN_OPEN_PERM, self->dir));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, child_start(&a, self->file, 4321, NULL, 0));
		EXPECT_EQ(0, child_finish(&a));
	}
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_FALSE(readable(h, NONE_MS));
	ASSERT_EQ(0, child_start(&b, self->file, 4322, NULL, 0));
	EXPECT_EQ(0, child_answered(_metadata, &b, h));
	close(h);
	close(g);
}

/* A filter may deny another process what it let this one be asked about. */
TEST_F(filter, a_group_with_a_filter_leaves_no_consensus)
{
	static const struct sock_filter deny_uid[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(uid)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 4321, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_DENY | EACCES),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
	};
	struct child a;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_set_filter(g, deny_uid, 4));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_TRUE(quiet_opens(g, self->file, 3));
	ASSERT_EQ(0, child_start(&a, self->file, 4321, NULL, 0));
	EXPECT_EQ(EACCES, child_finish(&a));
	close(g);
}

/* A group gating opens of the files in @dir (a mark on the directory). */
static int dir_gate(unsigned int priority, const char *dir)
{
	int g = content_group(priority);

	if (g < 0 || fsgate_mark(g, FSGATE_MARK_ADD,
				 FAN_OPEN_PERM | FAN_EVENT_ON_CHILD,
				 AT_FDCWD, dir))
		return -1;
	return g;
}

/*
 * Opened through its other name, under a directory another group
 * watches, the file asks that group: a consensus made through one
 * parent does not hold for another.
 */
TEST_F(filter, a_consensus_holds_for_one_parent_directory)
{
	struct fanotify_event_metadata ev;
	char sub[96], other[112];
	int g = dir_gate(2000, self->dir), h;
	pid_t pid;

	ASSERT_LE(0, g);
	snprintf(sub, sizeof(sub), "%s/watched", self->dir);
	snprintf(other, sizeof(other), "%s/link", sub);
	ASSERT_EQ(0, mkdir(sub, 0755));
	ASSERT_EQ(0, link(self->file, other));
	h = dir_gate(1000, sub);
	ASSERT_LE(0, h);
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW | FSGATE_CACHE));
	EXPECT_TRUE(quiet_opens(g, self->file, 3));
	EXPECT_FALSE(readable(h, NONE_MS));
	pid = spawn_open(other, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(h, WAIT_MS, &ev));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(h, ev.fd, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	EXPECT_FALSE(readable(g, NONE_MS));
	close(h);
	close(g);
}

/* A cgroup v2 and the cgroups below it: a container. */
TEST_F(filter, a_muted_cgroup_is_not_asked)
{
	char root[96], sub[128], leaf[160], procs[192];
	struct child a, b;
	struct stat st;
	int g = open_gate(self->dir), ret;

	ASSERT_LE(0, g);
	snprintf(root, sizeof(root), "%s/cg", self->dir);
	ASSERT_EQ(0, mkdir(root, 0755));
	if (mount("cgroup2", root, "cgroup2", 0, NULL)) {
		close(g);
		SKIP(return, "no cgroup2: %m");
	}
	snprintf(sub, sizeof(sub), "%s/fsgate-%d", root, getpid());
	snprintf(leaf, sizeof(leaf), "%s/leaf", sub);
	ASSERT_EQ(0, mkdir(sub, 0755));
	ASSERT_EQ(0, mkdir(leaf, 0755));
	ASSERT_EQ(0, stat(sub, &st));
	/*
	 * cgroup2 mounted, so the kernel has cgroups: fsgate's EOPNOTSUPP
	 * would be its own defect, not a reason to skip.
	 */
	ret = mute(g, FSGATE_MUTE_CGROUP, 0, st.st_ino, 0);
	ASSERT_EQ(0, ret) TH_LOG("%m");
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", leaf);
	ASSERT_EQ(0, child_start(&a, self->file, -1, procs, 0));
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	ASSERT_EQ(0, child_start(&b, self->file, -1, NULL, 0));
	EXPECT_EQ(0, child_answered(_metadata, &b, g));
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_CGROUP, 0, st.st_ino + 1000000, 0));
	EXPECT_EQ(ENOENT, errno);
	close(g);
	rmdir(leaf);
	rmdir(sub);
	umount(root);
}

TEST_F(filter, in_only_mode_only_the_entries_are_seen)
{
	struct child a, b;
	unsigned int mode = 7;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, child_start(&a, self->file, -1, NULL, 0));
	ASSERT_EQ(0, child_start(&b, self->file, -1, NULL, 0));
	ASSERT_EQ(0, fsgate_mute_set_mode(g, FSGATE_MUTE_MODE_ONLY));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, 0, a.pid, 0));
	EXPECT_EQ(1, fsgate_mute_list(g, NULL, 0, &mode));
	EXPECT_EQ(FSGATE_MUTE_MODE_ONLY, mode);
	EXPECT_EQ(0, child_finish(&b));
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_EQ(0, child_answered(_metadata, &a, g));
	/* Cleared, the mode stays: nothing is seen. */
	ASSERT_EQ(0, fsgate_mute_clear(g));
	EXPECT_EQ(0, fsgate_mute_list(g, NULL, 0, &mode));
	EXPECT_EQ(FSGATE_MUTE_MODE_ONLY, mode);
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, NONE_MS));
	ASSERT_EQ(0, fsgate_mute_set_mode(g, FSGATE_MUTE_MODE_MUTE));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	close(g);
}

TEST_F(filter, mutes_are_listed_removed_and_cleared)
{
	struct fsgate_mute_entry list[4];
	struct child a;
	unsigned int mode = 7;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, child_start(&a, self->file, -1, NULL, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_UID, 0, 4321, 0));
	ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS, FSGATE_MUTE_DESCENDANTS,
			  a.pid, 0));
	ASSERT_EQ(2, fsgate_mute_list(g, list, 4, &mode));
	EXPECT_EQ(FSGATE_MUTE_MODE_MUTE, mode);
	EXPECT_EQ(FSGATE_MUTE_PROCESS, list[0].type);
	EXPECT_EQ(FSGATE_MUTE_DESCENDANTS, list[0].flags);
	EXPECT_EQ(a.pid, (pid_t)list[0].id);
	EXPECT_EQ(FSGATE_MUTE_UID, list[1].type);
	EXPECT_EQ(4321, list[1].id);
	/* Less room: the count says how many there are. */
	EXPECT_EQ(2, fsgate_mute_list(g, list, 1, NULL));
	/* Removed as listed; again, there is none. */
	ASSERT_EQ(0, fsgate_mute_remove(g, &list[0]));
	errno = 0;
	EXPECT_EQ(-1, fsgate_mute_remove(g, &list[0]));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, fsgate_mute_list(g, list, 4, NULL));
	EXPECT_EQ(0, child_answered(_metadata, &a, g));
	ASSERT_EQ(0, fsgate_mute_clear(g));
	EXPECT_EQ(0, fsgate_mute_list(g, list, 4, NULL));
	close(g);
}

/* Bad requests get a clear errno and change nothing. */
TEST_F(filter, bad_mute_requests_change_nothing)
{
	struct fsgate_mute req = { .size = sizeof(req), .op = FSGATE_MUTE_ADD };
	char big[sizeof(req) + 8] = { 0 };
	char old[32];
	pid_t gone;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	gone = spawn_open("/", O_RDONLY, 0);
	ASSERT_EQ(0, reap(gone));
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_PROCESS, 0, gone, 0));
	EXPECT_EQ(ESRCH, errno);
	errno = 0;
	EXPECT_EQ(-1, mute(g, 9, 0, 1, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_UID, FSGATE_MUTE_DESCENDANTS, 1, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_UID, 0, 1, 5));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_PROCESS, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, fsgate_mute_set_mode(g, 2));
	EXPECT_EQ(EINVAL, errno);
	/* Sizes and fields the operation does not take. */
	req.entry = (struct fsgate_mute_entry){ .type = FSGATE_MUTE_UID, .id = 5 };
	req.size = FSGATE_MUTE_SIZE_VER0 - 8;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_MUTE, &req));
	EXPECT_EQ(EINVAL, errno);
	req.size = sizeof(req);
	req.reserved[0] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_MUTE, &req));
	EXPECT_EQ(EINVAL, errno);
	req.reserved[0] = 0;
	req.count = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_MUTE, &req));
	EXPECT_EQ(EINVAL, errno);
	req.count = 0;
	req.op = 77;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_MUTE, &req));
	EXPECT_EQ(EINVAL, errno);
	/* A longer struct: its unknown tail must be zero. */
	req.op = FSGATE_MUTE_ADD;
	req.size = sizeof(big);
	memcpy(big, &req, sizeof(req));
	big[sizeof(req) + 3] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_MUTE, big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, fsgate_mute_list(g, NULL, 0, NULL));
	big[sizeof(req) + 3] = 0;
	EXPECT_EQ(0, ioctl(g, FSGATE_IOC_MUTE, big));
	EXPECT_EQ(1, fsgate_mute_list(g, NULL, 0, NULL));
	/*
	 * One number for every size: @size alone versions the struct, and
	 * the number is the one callers built before that was said send.
	 */
	EXPECT_EQ(0xc050f521, FSGATE_IOC_MUTE);
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, _IOWR(FSGATE_IOC_MAGIC, 0x21, big), big));
	EXPECT_EQ(ENOTTY, errno);

	/* The bound. */
	ASSERT_EQ(0, fsgate_test_param("max_mutes", "2", old, sizeof(old)));
	EXPECT_EQ(0, mute(g, FSGATE_MUTE_UID, 0, 6, 0));
	errno = 0;
	EXPECT_EQ(-1, mute(g, FSGATE_MUTE_UID, 0, 7, 0));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(2, fsgate_mute_list(g, NULL, 0, NULL));
	ASSERT_EQ(0, fsgate_test_param("max_mutes", old, NULL, 0));
	/* None of it muted anything else. */
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	close(g);
}

/*
 * A content group with FSGATE_EXCLUDE_SELF gating opens on the tmpfs of
 * @dir, denying when it does not answer within 3 s.
 */
static int exclude_self_gate(const char *dir)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_EXCLUDE_SELF,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = 2000,
		.timeout_ms = 3000,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};
	int g = fsgate_init_ext(&init);

	if (g < 0 || perm_mark(g, FAN_OPEN_PERM, dir))
		return -1;
	return g;
}

/*
 * FSGATE_EXCLUDE_SELF covers the workers a daemon forks after making its
 * group. Before, a worker's open waited on the daemon itself until the
 * group's timeout, whose verdict (deny here) failed it.
 */
TEST_F(filter, exclude_self_covers_workers_forked_after_init)
{
	struct fsgate_stats st;
	struct child early, w;
	int g;

	ASSERT_EQ(0, child_start(&early, self->file, -1, NULL, 0));
	g = exclude_self_gate(self->dir);
	ASSERT_LE(0, g);
	/* The daemon itself, a worker, and a worker's worker. */
	EXPECT_LE(0, close(open(self->file, O_RDONLY)));
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	ASSERT_EQ(0, child_start(&w, self->file, -1, NULL, 1));
	EXPECT_EQ(0, child_finish(&w));
	EXPECT_FALSE(readable(g, NONE_MS));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.asked);
	/* Forked before the group was made: not the daemon's worker. */
	EXPECT_EQ(0, child_answered(_metadata, &early, g));
	close(g);
}

/*
 * A child forked just before the group, or just before its parent was
 * muted with FSGATE_MUTE_DESCENDANTS, is asked, however coarse the
 * guest's clock: where the TSC is marked unstable the kernel falls back
 * to jiffies, the fork and the call read the same time, and the child
 * counted as forked after it (the daemon's worker, or muted). Twenty
 * times each, so that most fall within one tick on such a clock.
 */
TEST_F(filter, children_forked_just_before_are_asked)
{
	struct child early;
	int i, g;

	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, child_start(&early, self->file, -1, NULL, 0));
		g = exclude_self_gate(self->dir);
		ASSERT_LE(0, g);
		EXPECT_EQ(0, child_answered(_metadata, &early, g))
			TH_LOG("EXCLUDE_SELF, round %d", i);
		close(g);
	}
	g = open_gate(self->dir);
	ASSERT_LE(0, g);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, child_start(&early, self->file, -1, NULL, 0));
		ASSERT_EQ(0, mute(g, FSGATE_MUTE_PROCESS,
				  FSGATE_MUTE_DESCENDANTS, getpid(), 0));
		EXPECT_EQ(0, child_answered(_metadata, &early, g))
			TH_LOG("FSGATE_MUTE_DESCENDANTS, round %d", i);
		ASSERT_EQ(0, fsgate_mute_clear(g));
	}
	close(g);
}

/* Files under 64 bytes are allowed in the kernel, the rest asked. */
static const struct sock_filter small_allowed[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(size_hi)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(size_lo)),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
};

TEST_F(filter, a_filter_allows_small_files_in_the_kernel)
{
	char big[96];
	struct fsgate_stats st;
	int g;

	snprintf(big, sizeof(big), "%s/big", self->dir);
	write_file(big, "0123456789012345678901234567890123456789"
			"0123456789012345678901234567890123456789");
	g = open_gate(self->dir);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_set_filter(g, small_allowed,
				       sizeof(small_allowed) /
				       sizeof(small_allowed[0]))) TH_LOG("%m");
	EXPECT_TRUE(decided_quietly(g, self->file));
	EXPECT_EQ(0, open_answered(g, big, FSGATE_ALLOW));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.filtered);
	EXPECT_EQ(1, st.asked);
	/* Removed: asked again. */
	ASSERT_EQ(0, fsgate_set_filter(g, NULL, 0));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	close(g);
}

/* A deny with its errno, for one inode, by the facts the filter reads. */
TEST_F(filter, a_filter_denies_with_an_errno)
{
	struct stat st;
	int g = open_gate(self->dir);
	struct sock_filter deny_file[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(ino_lo)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(mask)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FAN_OPEN_PERM, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_DENY | EACCES),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
	};

	ASSERT_LE(0, g);
	ASSERT_EQ(0, stat(self->file, &st));
	deny_file[1].k = (uint32_t)st.st_ino;
	ASSERT_EQ(0, fsgate_set_filter(g, deny_file, 6));
	EXPECT_EQ(EACCES, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_EQ(0, open_answered(g, self->other, FSGATE_ALLOW));
	close(g);
}

/* The process's facts: uid 4321 is skipped, a notification not queued. */
TEST_F(filter, a_filter_skips_by_uid_and_queues_nothing)
{
	static const struct sock_filter skip_uid[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(uid)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 4321, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_SKIP),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
	};
	struct child a;
	int g = open_watch(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_set_filter(g, skip_uid, 4));
	ASSERT_EQ(0, child_start(&a, self->file, 4321, NULL, 0));
	EXPECT_EQ(0, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	EXPECT_EQ(0, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_TRUE(readable(g, WAIT_MS));
	close(g);
}

/* Deny with EACCES where word @at is @value and @flag is in flags. */
static void deny_where(struct sock_filter prog[6], uint32_t flag,
		       uint32_t at, uint32_t value)
{
	const struct sock_filter p[6] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(flags)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, flag, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, at),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_DENY | EACCES),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
	};

	memcpy(prog, p, sizeof(p));
}

/* The program the accessing process runs, as FSGATE_MUTE_EXE names it. */
TEST_F(filter, a_filter_denies_by_program)
{
	struct sock_filter prog[6];
	struct fsgate_version v;
	struct stat exe;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_version(&v));
	ASSERT_TRUE(v.features & FSGATE_FEATURE_FILTER_PROC);
	ASSERT_EQ(0, stat("/proc/self/exe", &exe));
	ASSERT_EQ(0, (uint64_t)exe.st_ino >> 32) TH_LOG("a 64-bit inode number");
	/* The device must match too: a filter reads both words. */
	deny_where(prog, FSGATE_PROC_EXE, DATA(exe_dev), (uint32_t)exe.st_dev);
	ASSERT_EQ(0, fsgate_set_filter(g, prog, 6)) TH_LOG("%m");
	EXPECT_EQ(EACCES, reap(spawn_open(self->file, O_RDONLY, 0)));
	deny_where(prog, FSGATE_PROC_EXE, DATA(exe_ino_lo), (uint32_t)exe.st_ino);
	ASSERT_EQ(0, fsgate_set_filter(g, prog, 6));
	EXPECT_EQ(EACCES, reap(spawn_open(self->file, O_RDONLY, 0)));
	EXPECT_FALSE(readable(g, NONE_MS));
	/* Another inode: asked. */
	deny_where(prog, FSGATE_PROC_EXE, DATA(exe_ino_lo),
		   (uint32_t)exe.st_ino + 1);
	ASSERT_EQ(0, fsgate_set_filter(g, prog, 6));
	EXPECT_EQ(0, open_answered(g, self->file, FSGATE_ALLOW));
	close(g);
}

/* The accessing process's cgroup v2, as FSGATE_MUTE_CGROUP names it. */
TEST_F(filter, a_filter_denies_by_cgroup)
{
	char root[96], leaf[128], procs[160];
	struct sock_filter prog[6];
	struct child a, b;
	struct stat st;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	snprintf(root, sizeof(root), "%s/cg", self->dir);
	ASSERT_EQ(0, mkdir(root, 0755));
	if (mount("cgroup2", root, "cgroup2", 0, NULL)) {
		close(g);
		SKIP(return, "no cgroup2: %m");
	}
	snprintf(leaf, sizeof(leaf), "%s/fsgate-filter-%d", root, getpid());
	ASSERT_EQ(0, mkdir(leaf, 0755));
	ASSERT_EQ(0, stat(leaf, &st));
	deny_where(prog, FSGATE_PROC_CGROUP, DATA(cgroup_id_lo),
		   (uint32_t)st.st_ino);
	ASSERT_EQ(0, fsgate_set_filter(g, prog, 6)) TH_LOG("%m");
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", leaf);
	ASSERT_EQ(0, child_start(&a, self->file, -1, procs, 0));
	EXPECT_EQ(EACCES, child_finish(&a));
	EXPECT_FALSE(readable(g, NONE_MS));
	/* Outside it: asked. */
	ASSERT_EQ(0, child_start(&b, self->file, -1, NULL, 0));
	EXPECT_EQ(0, child_answered(_metadata, &b, g));
	close(g);
	rmdir(leaf);
	umount(root);
}

/* Malformed programs are refused, and the filter in place stays. */
TEST_F(filter, a_malformed_filter_is_refused)
{
	struct sock_filter bad[][2] = {
		/* Past the struct, unaligned, a byte or indirect load. */
		{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			   sizeof(struct fsgate_filter_data)),
		  BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
		  BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		  BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0),
		  BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		  BPF_STMT(BPF_RET | BPF_A, 0) },
		/* An extension (SKF_AD_OFF) and no return at the end. */
		{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL),
		  BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		  BPF_STMT(BPF_MISC | BPF_TAX, 0) },
		/* A jump out of the program. */
		{ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 5),
		  BPF_STMT(BPF_RET | BPF_K, 0) },
	};
	struct fsgate_filter req = { .len = 2 };
	unsigned int i;
	int g = open_gate(self->dir);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_set_filter(g, small_allowed,
				       sizeof(small_allowed) /
				       sizeof(small_allowed[0])));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, fsgate_set_filter(g, bad[i], 2)) TH_LOG("program %u", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("program %u", i);
	}
	errno = 0;
	EXPECT_EQ(-1, fsgate_set_filter(g, bad[0], FSGATE_FILTER_MAX + 1));
	EXPECT_EQ(EINVAL, errno);
	req.insns = (uintptr_t)small_allowed;
	req.flags = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_SET_FILTER, &req));
	EXPECT_EQ(EINVAL, errno);
	req = (struct fsgate_filter){ .insns = (uintptr_t)small_allowed };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_SET_FILTER, &req));
	EXPECT_EQ(EINVAL, errno);
	req = (struct fsgate_filter){ .len = 1, .insns = 8 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(g, FSGATE_IOC_SET_FILTER, &req));
	EXPECT_EQ(EFAULT, errno);
	/* The filter set before still allows small files. */
	EXPECT_TRUE(decided_quietly(g, self->file));
	close(g);
}

TEST_HARNESS_MAIN
