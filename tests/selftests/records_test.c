// SPDX-License-Identifier: GPL-2.0
/*
 * Info records: the process record (FSGATE_REPORT_PROC) says who caused
 * an event, as the event found it; records of several kinds follow one
 * event in a fixed order, each framed as fanotify frames its own.
 *
 * The access is made by a forked process with credentials of its own;
 * the test reads the event and compares the record with what /proc and
 * stat(2) say about that process.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */

/* An event with its records. */
struct event_buf {
	struct fanotify_event_metadata meta;
	unsigned char info[256];
} __attribute__((aligned(8)));

FIXTURE(records) {
	char dir[64];
	char file[80];
};

FIXTURE_SETUP(records)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("records", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
	ASSERT_EQ(0, chmod(self->dir, 0755));
}

FIXTURE_TEARDOWN(records)
{
	fsgate_test_tmpfs_done(self->dir);
}

static int record_group(unsigned int class, unsigned int flags)
{
	struct fsgate_init init = {
		.flags = class | FSGATE_CLOEXEC | FSGATE_NONBLOCK | flags,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = 10000,
		.timeout_verdict = FSGATE_VERDICT_DENY,
	};

	return fsgate_init_ext(&init);
}

/* Read a number from /proc/@pid/@name; -1 if there is no such file. */
static long long proc_number(pid_t pid, const char *name)
{
	char path[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Field 22 of /proc/@pid/stat: the start time in clock ticks. */
static unsigned long long proc_starttime(pid_t pid)
{
	unsigned long long v = 0;
	char path[64], buf[1024], *p;
	int i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	p = strrchr(buf, ')');
	/* After "pid (comm)", field 3 is the state: 19 fields to skip. */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &v);
	return v;
}

/*
 * A process with distinct real and effective ids, a login uid where the
 * kernel keeps one, that waits for a byte on @go, opens @path and exits
 * with its errno.
 */
static pid_t spawn_as_other(const char *path, int go)
{
	pid_t pid = fork();
	char c;
	int fd;

	if (pid)
		return pid;
	/* The kernel keeps a login uid only with CONFIG_AUDIT. */
	fd = open("/proc/self/loginuid", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "4321", 4) != 4)
			_exit(100);
		close(fd);
	}
	if (setresgid(100, 200, 0) || setresuid(1000, 2000, 0))
		_exit(101);
	if (read(go, &c, 1) != 1)
		_exit(102);
	fd = open(path, O_RDONLY);
	_exit(fd < 0 ? errno : 0);
}

/* Check @p against what the kernel says about @pid. */
static void check_proc_record(struct __test_metadata *_metadata,
			      const struct fsgate_info_proc *p, pid_t pid)
{
	long long loginuid = proc_number(pid, "loginuid");
	long long sessionid = proc_number(pid, "sessionid");
	long tick_ns = 1000000000L / sysconf(_SC_CLK_TCK);
	struct stat exe, cg;

	EXPECT_EQ(FSGATE_INFO_PROC, p->hdr.info_type);
	EXPECT_EQ(0, p->hdr.pad);
	EXPECT_EQ(FSGATE_INFO_PROC_LEN_V1, p->hdr.len);
	EXPECT_EQ(1000, p->uid);
	EXPECT_EQ(2000, p->euid);
	EXPECT_EQ(100, p->gid);
	EXPECT_EQ(200, p->egid);
	EXPECT_EQ(pid, p->tgid);
	EXPECT_EQ(pid, p->tid);
	EXPECT_EQ(getpid(), p->ppid);
	EXPECT_EQ(0, p->reserved);
	EXPECT_EQ(proc_starttime(pid), p->start_time_ns / tick_ns);

	if (loginuid < 0 || loginuid == 4294967295LL) {
		EXPECT_FALSE(p->flags & FSGATE_PROC_LOGINUID);
		EXPECT_EQ(4294967295U, p->loginuid);
	} else {
		EXPECT_TRUE(p->flags & FSGATE_PROC_LOGINUID);
		EXPECT_EQ(4321, p->loginuid);
		EXPECT_EQ(loginuid, p->loginuid);
	}
	if (sessionid < 0 || sessionid == 4294967295LL) {
		EXPECT_FALSE(p->flags & FSGATE_PROC_SESSIONID);
	} else {
		EXPECT_TRUE(p->flags & FSGATE_PROC_SESSIONID);
		EXPECT_EQ(sessionid, p->sessionid);
	}

	/* Forked, not exec'ed: the same program as the test. */
	ASSERT_EQ(0, stat("/proc/self/exe", &exe));
	EXPECT_TRUE(p->flags & FSGATE_PROC_EXE);
	EXPECT_EQ((uint64_t)exe.st_dev, p->exe_dev);
	EXPECT_EQ((uint64_t)exe.st_ino, p->exe_ino);

	/* Nobody moved it: the root cgroup, the root of a cgroup2 mount. */
	if (access("/proc/self/cgroup", F_OK)) {
		EXPECT_FALSE(p->flags & FSGATE_PROC_CGROUP);
	} else {
		EXPECT_TRUE(p->flags & FSGATE_PROC_CGROUP);
		ASSERT_EQ(0, mkdir("/tmp/records.cgroup", 0755));
		if (!mount("cgroup2", "/tmp/records.cgroup", "cgroup2", 0, NULL)) {
			ASSERT_EQ(0, stat("/tmp/records.cgroup", &cg));
			EXPECT_EQ((uint64_t)cg.st_ino, p->cgroup_id);
			umount("/tmp/records.cgroup");
		}
		rmdir("/tmp/records.cgroup");
	}
}

/*
 * Mark @dir's filesystem of @g for @mask and have spawn_as_other() open
 * @file; once the event is there, the process's pid, else -1.
 */
static pid_t watch_and_access(int g, uint64_t mask, const char *dir,
			      const char *file)
{
	pid_t pid;
	int go[2];

	if (g < 0 || perm_mark(g, mask, dir) || pipe(go))
		return -1;
	pid = spawn_as_other(file, go[0]);
	if (write(go[1], "x", 1) != 1 || !readable(g, WAIT_MS))
		return -1;
	close(go[0]);
	close(go[1]);
	return pid;
}

/* A permission event's process record describes the waiting process. */
TEST_F(records, permission_event_names_its_process)
{
	const struct fanotify_event_metadata *ev;
	const struct fsgate_info_proc *proc;
	const struct fsgate_info_perm *perm;
	struct fsgate_events it;
	struct event_buf b;
	ssize_t len;
	pid_t pid;
	int g;

	g = record_group(FSGATE_CLASS_CONTENT,
			 FSGATE_REPORT_PERM | FSGATE_REPORT_PROC);
	pid = watch_and_access(g, FAN_OPEN_PERM, self->dir, self->file);
	ASSERT_LT(0, pid);
	len = read(g, &b, sizeof(b));
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2 +
		  FSGATE_INFO_PROC_LEN_V1, len);
	fsgate_events_init(&it, &b, len);
	ev = fsgate_event_next(&it);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(len, ev->event_len);
	EXPECT_EQ(pid, ev->pid);

	/* The permission record first, then the process record. */
	perm = fsgate_info_perm(ev);
	proc = fsgate_info_proc(ev);
	ASSERT_NE(NULL, perm);
	ASSERT_NE(NULL, proc);
	EXPECT_EQ((void *)b.info, (void *)perm);
	EXPECT_EQ((void *)(b.info + FSGATE_INFO_PERM_LEN_V2), (void *)proc);
	check_proc_record(_metadata, proc, pid);

	EXPECT_EQ(0, fsgate_respond_id(g, perm->id, FSGATE_ALLOW));
	close(ev->fd);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/*
 * A notification event carries the process record taken when it
 * happened: read after its process exited, it still says who it was.
 */
TEST_F(records, notification_event_keeps_its_process_after_exit)
{
	const struct fanotify_event_metadata *ev;
	const struct fsgate_info_proc *proc;
	struct fsgate_events it;
	struct event_buf b;
	ssize_t len;
	pid_t pid;
	int g;

	g = record_group(FSGATE_CLASS_NOTIF, FSGATE_REPORT_PROC);
	pid = watch_and_access(g, FAN_OPEN, self->dir, self->file);
	ASSERT_LT(0, pid);
	/* Start time and ids are read from /proc before the process goes. */
	len = read(g, &b, sizeof(b));
	ASSERT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PROC_LEN_V1, len);
	fsgate_events_init(&it, &b, len);
	ev = fsgate_event_next(&it);
	ASSERT_NE(NULL, ev);
	proc = fsgate_info_proc(ev);
	ASSERT_NE(NULL, proc);
	EXPECT_EQ(NULL, fsgate_info_perm(ev));
	EXPECT_EQ(ENOENT, errno);
	check_proc_record(_metadata, proc, pid);
	close(ev->fd);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/* Without report flags an event is fanotify's metadata alone. */
TEST_F(records, no_records_unless_asked)
{
	struct event_buf b;
	pid_t pid;
	int g;

	g = record_group(FSGATE_CLASS_NOTIF, 0);
	pid = watch_and_access(g, FAN_OPEN, self->dir, self->file);
	ASSERT_LT(0, pid);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, read(g, &b, sizeof(b)));
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, b.meta.event_len);
	close(b.meta.fd);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/* Read one permission event; its id, and its fd closed. */
static uint64_t read_perm_id(struct __test_metadata *_metadata, int g)
{
	const struct fsgate_info_perm *perm;
	struct event_buf b;
	ssize_t len;

	EXPECT_TRUE(readable(g, WAIT_MS));
	len = read(g, &b, sizeof(b));
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PERM_LEN_V2, len);
	if (len <= 0)
		return 0;
	close(b.meta.fd);
	perm = fsgate_info_perm(&b.meta);
	EXPECT_NE(NULL, perm);
	return perm ? perm->id : 0;
}

/*
 * Make a deadline_group() that watches @self's directory, open its file
 * from a forked process (to @pid) and read the permission event: its id.
 */
#define ASK_ONE(timeout_ms, max_wait_ms, g, pid) ({			\
	(g) = deadline_group(timeout_ms, max_wait_ms);			\
	ASSERT_LE(0, (g));						\
	ASSERT_EQ(0, perm_mark((g), FAN_OPEN_PERM, self->dir));	\
	(pid) = spawn_open(self->file, O_RDONLY, 0);			\
	read_perm_id(_metadata, (g));					\
})

/*
 * A group that asks for more time can still answer after its timeout
 * would have passed; the request is counted.
 */
TEST_F(records, more_time_keeps_the_event_pending)
{
	struct fsgate_stats st;
	uint64_t id;
	pid_t pid;
	int g;

	id = ASK_ONE(3000, 600000, g, pid);
	ASSERT_NE(0, id);
	ASSERT_EQ(0, fsgate_extend(g, id, 600000));
	/* Past the 3 s timeout: still pending, so the allow is taken. */
	sleep(4);
	EXPECT_EQ(0, fsgate_respond_id(g, id, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.extended);
	EXPECT_EQ(1, st.answered);
	EXPECT_EQ(0, st.timedout);
	close(g);
}

/*
 * More time is bounded by the group's max_wait_ms: an access whose group
 * asked for ten minutes gets the timeout verdict once the maximum passed.
 */
TEST_F(records, more_time_is_bounded_by_the_group_maximum)
{
	struct fsgate_stats st;
	uint64_t id;
	pid_t pid;
	int g;

	id = ASK_ONE(1000, 2000, g, pid);
	ASSERT_NE(0, id);
	ASSERT_EQ(0, fsgate_extend(g, id, 600000));
	/* The waiter ends by itself: the deadline moved 2 s at most. */
	EXPECT_EQ(EPERM, reap(pid));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.extended);
	EXPECT_EQ(1, st.timedout);
	EXPECT_EQ(-1, fsgate_respond_id(g, id, FSGATE_ALLOW));
	EXPECT_EQ(ENOENT, errno);
	close(g);
}

/* Malformed requests for more time are refused and change nothing. */
TEST_F(records, malformed_requests_for_time_are_refused)
{
	struct fsgate_response r = {
		.fd = FAN_NOFD,
		.response = FSGATE_RESPONSE_ID | FSGATE_EXTEND,
	};
	struct fsgate_stats st;
	uint64_t id;
	pid_t pid;
	int g;

	id = ASK_ONE(10000, 0, g, pid);
	ASSERT_NE(0, id);
	r.id = id;
	/* No time asked for. */
	EXPECT_EQ(-1, write(g, &r, sizeof(r)));
	EXPECT_EQ(EINVAL, errno);
	/* Time and a verdict at once. */
	r.extend_ms = 1000;
	r.response |= FSGATE_ALLOW;
	EXPECT_EQ(-1, write(g, &r, sizeof(r)));
	EXPECT_EQ(EINVAL, errno);
	/* Time with an answer that is not a request for it. */
	r.response = FSGATE_RESPONSE_ID | FSGATE_ALLOW;
	EXPECT_EQ(-1, write(g, &r, sizeof(r)));
	EXPECT_EQ(EINVAL, errno);
	/* Only by id. */
	EXPECT_EQ(-1, fsgate_respond(g, 3, FSGATE_EXTEND));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(0, st.extended);
	EXPECT_EQ(0, fsgate_respond_id(g, id, FSGATE_ALLOW));
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/*
 * FSGATE_IOC_VERSION says what the module offers: this header's ABI
 * version, every feature this change adds, and the module's release as
 * the kernel records it.
 */
TEST(version_reports_abi_features_and_release)
{
	struct fsgate_version v;
	char release[64] = "";
	FILE *f;

	memset(&v, 0xa5, sizeof(v));
	ASSERT_EQ(0, fsgate_version(&v));
	EXPECT_EQ(FSGATE_ABI_VERSION, v.abi);
	EXPECT_EQ(0, v.reserved32);
	EXPECT_EQ(0, v.reserved[0] | v.reserved[1] | v.reserved[2] |
		     v.reserved[3]);
	EXPECT_EQ(FSGATE_FEATURE_REPORT_PERM | FSGATE_FEATURE_REPORT_PROC |
		  FSGATE_FEATURE_EXTEND | FSGATE_FEATURE_VERSION,
		  v.features & (FSGATE_FEATURE_REPORT_PERM |
				FSGATE_FEATURE_REPORT_PROC |
				FSGATE_FEATURE_EXTEND |
				FSGATE_FEATURE_VERSION));
	f = fopen("/sys/module/fsgate/version", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(release, sizeof(release), f));
	fclose(f);
	release[strcspn(release, "\n")] = 0;
	EXPECT_STREQ(release, v.version);
}

TEST_HARNESS_MAIN
