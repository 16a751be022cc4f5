// SPDX-License-Identifier: GPL-2.0
/*
 * FSGATE_IOC_GROUPS: every group in asking order, in fixed-width records
 * whose size the caller gives. The records say what /proc/fsgate/groups
 * says and what FSGATE_IOC_STATS gives each group; pids are the caller's
 * pid namespace's; bad requests change nothing and say why.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

/* More groups than any test makes, and those the guest may have. */
#define ROOM 64
/* A record size from a later release: the module zeroes the tail. */
#define LONGER (sizeof(struct fsgate_group_entry) + 40)
/* What a record holds before the module writes it. */
#define FILL 0xa5

static int dev_open(void)
{
	return open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);
}

/* FSGATE_IOC_GROUPS on a device fd of its own; errno kept. */
static int list_groups(void *entries, unsigned int count, unsigned int size)
{
	struct fsgate_groups req = {
		.size = size,
		.count = count,
		.entries = (uintptr_t)entries,
	};
	int dev = dev_open(), ret, saved;

	if (dev < 0)
		return -1;
	ret = ioctl(dev, FSGATE_IOC_GROUPS, &req);
	saved = errno;
	close(dev);
	errno = saved;
	return ret;
}

/* A notification group made under the name @comm. */
static int named_group(const char *comm, unsigned int priority)
{
	char old[17] = "";
	int g;

	prctl(PR_GET_NAME, old);
	prctl(PR_SET_NAME, comm);
	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC | FSGATE_NONBLOCK,
			O_RDONLY, priority);
	prctl(PR_SET_NAME, old);
	return g;
}

static unsigned long long group_id(int g)
{
	char buf[32] = "";

	if (fsgate_test_fdinfo(g, "id", buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 10);
}

/* The entry of the group @id among @n, or NULL. */
static const struct fsgate_group_entry *
entry_of(const struct fsgate_group_entry *e, int n, unsigned long long id)
{
	int i;

	for (i = 0; i < n; i++)
		if (e[i].id == id)
			return &e[i];
	return NULL;
}

static int all_bytes(const void *p, int byte, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != byte)
			return 0;
	return 1;
}

/* Three groups of this process, made in an order that is not asking order. */
FIXTURE(three) {
	int g[3];
	unsigned long long id[3];
};

FIXTURE_SETUP(three)
{
	static const unsigned int prios[] = { 1234, 3456, 2345 };
	int i;

	for (i = 0; i < 3; i++) {
		self->g[i] = named_group("groups-three", prios[i]);
		ASSERT_LE(0, self->g[i]);
		self->id[i] = group_id(self->g[i]);
		ASSERT_NE(0, self->id[i]);
	}
}

FIXTURE_TEARDOWN(three)
{
	int i;

	for (i = 0; i < 3; i++)
		close(self->g[i]);
}

/* Every group, the fixture's among them; the count, or -1. */
static int list_all(struct fsgate_group_entry *e)
{
	int n = list_groups(e, ROOM, sizeof(e[0]));

	return n >= 3 && n <= ROOM ? n : -1;
}

/* The groups come back highest priority first, the fixture's too. */
TEST_F(three, lists_groups_in_asking_order)
{
	struct fsgate_group_entry e[ROOM];
	int n, i, seen = 0;

	n = list_all(e);
	ASSERT_LE(3, n) TH_LOG("FSGATE_IOC_GROUPS: %s", strerror(errno));
	for (i = 1; i < n; i++)
		EXPECT_GE(e[i - 1].priority, e[i].priority);
	/* 3456 (g[1]), then 2345 (g[2]), then 1234 (g[0]). */
	for (i = 0; i < n; i++) {
		if (strcmp(e[i].comm, "groups-three"))
			continue;
		EXPECT_EQ(self->id[(seen + 1) % 3], e[i].id);
		EXPECT_EQ(getpid(), e[i].pid);
		EXPECT_EQ(getuid(), e[i].uid);
		EXPECT_EQ(FSGATE_CLASS_NOTIF, e[i].group_class);
		EXPECT_EQ(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC | FSGATE_NONBLOCK,
			  e[i].flags);
		EXPECT_EQ(1, e[i].attached);
		EXPECT_EQ(1, all_bytes(e[i].reserved, 0, sizeof(e[i].reserved)));
		seen++;
	}
	EXPECT_EQ(3, seen);
}

/*
 * Asked from a pid namespace, a daemon's pid is its pid there, and 0
 * for one outside it, as /proc/fsgate/groups of that namespace says.
 */
TEST(pids_are_the_callers)
{
	unsigned long long outer_id;
	int outer, status;
	pid_t pid;

	outer = named_group("groups-outer", 1235);
	ASSERT_LE(0, outer);
	outer_id = group_id(outer);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fsgate_group_entry e[ROOM];
		const struct fsgate_group_entry *mine, *theirs;
		int g, n;
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(errno == EINVAL ? 99 : 100);
		inner = fork();
		if (inner)
			_exit(inner < 0 ? 101 : reap(inner));
		g = named_group("groups-inner", 1236);
		if (g < 0)
			_exit(102);
		n = list_groups(e, ROOM, sizeof(e[0]));
		if (n < 2 || n > ROOM)
			_exit(103);
		mine = entry_of(e, n, group_id(g));
		theirs = entry_of(e, n, outer_id);
		if (!mine || mine->pid != 1)
			_exit(104);
		if (!theirs || theirs->pid != 0)
			_exit(105);
		_exit(0);
	}
	status = reap(pid);
	close(outer);
	if (status == 99)
		SKIP(return, "no pid namespaces in this kernel");
	EXPECT_EQ(0, status);
}

/* The device is root's; a root process that dropped privilege gets EPERM. */
TEST(needs_cap_sys_admin)
{
	pid_t pid;
	int dev;

	dev = dev_open();
	ASSERT_LE(0, dev);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fsgate_group_entry e[ROOM];
		struct fsgate_groups req = {
			.size = sizeof(e[0]),
			.count = ROOM,
			.entries = (uintptr_t)e,
		};

		memset(e, FILL, sizeof(e));
		/* Leaving uid 0 drops every capability. */
		if (setgid(65534) || setuid(65534))
			_exit(100);
		if (ioctl(dev, FSGATE_IOC_GROUPS, &req) >= 0)
			_exit(101);
		if (!all_bytes(e, FILL, sizeof(e)))
			_exit(102);
		_exit(errno);
	}
	EXPECT_EQ(EPERM, reap(pid));
	close(dev);
}

/* Records shorter than the first version, or longer than a page: EINVAL. */
TEST_F(three, record_size_out_of_range_is_einval)
{
	static const unsigned int sizes[] = {
		0, 8, FSGATE_GROUP_ENTRY_SIZE_VER0 - 8,
		FSGATE_GROUP_ENTRY_SIZE_VER0 - 1, 4097,
	};
	static unsigned char buf[ROOM * 4097];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, FILL, sizeof(buf));
		EXPECT_EQ(-1, list_groups(buf, ROOM, sizes[i]));
		EXPECT_EQ(EINVAL, errno) TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(1, all_bytes(buf, FILL, sizeof(buf)));
	}
}

/* Flags and reserved fields are for later: EINVAL while they are not 0. */
TEST_F(three, reserved_fields_are_einval)
{
	struct fsgate_group_entry e[ROOM];
	struct fsgate_groups req;
	int dev, i;

	dev = dev_open();
	ASSERT_LE(0, dev);
	for (i = 0; i < 4; i++) {
		req = (struct fsgate_groups) {
			.size = sizeof(e[0]),
			.count = ROOM,
			.entries = (uintptr_t)e,
		};
		if (i == 0)
			req.flags = 1;
		else if (i == 1)
			req.reserved32 = 1;
		else
			req.reserved[i - 2] = 1;
		memset(e, FILL, sizeof(e));
		EXPECT_EQ(-1, ioctl(dev, FSGATE_IOC_GROUPS, &req));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(1, all_bytes(e, FILL, sizeof(e)));
	}
	close(dev);
}

/* A request or records the caller cannot reach: EFAULT. */
TEST_F(three, bad_pointers_are_efault)
{
	struct fsgate_groups req = {
		.size = FSGATE_GROUP_ENTRY_SIZE_VER0,
		.count = ROOM,
		.entries = 8,
	};
	int dev;

	dev = dev_open();
	ASSERT_LE(0, dev);
	EXPECT_EQ(-1, ioctl(dev, FSGATE_IOC_GROUPS, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(dev, FSGATE_IOC_GROUPS, &req));
	EXPECT_EQ(EFAULT, errno);
	close(dev);
}

/*
 * A buffer too small gets the first groups and the number there are, so
 * the caller can ask again with room for all; room for none (and no
 * buffer) just counts.
 */
TEST_F(three, small_buffer_gets_the_first_and_the_count)
{
	struct fsgate_group_entry all[ROOM], some[3];
	int n;

	n = list_all(all);
	ASSERT_LE(3, n);
	EXPECT_EQ(n, list_groups(NULL, 0, sizeof(all[0])));
	memset(some, FILL, sizeof(some));
	EXPECT_EQ(n, list_groups(some, 2, sizeof(some[0])));
	EXPECT_EQ(all[0].id, some[0].id);
	EXPECT_EQ(all[1].id, some[1].id);
	EXPECT_EQ(1, all_bytes(&some[2], FILL, sizeof(some[2])));
}

/*
 * Records longer than the module knows keep their stride; the bytes
 * past struct fsgate_group_entry are zeroed, as a later module would
 * give a field it had and this one has not.
 */
TEST_F(three, longer_records_are_zero_filled)
{
	static unsigned char buf[ROOM * LONGER];
	struct fsgate_group_entry e[ROOM];
	int n, i;

	n = list_all(e);
	ASSERT_LE(3, n);
	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(n, list_groups(buf, ROOM, LONGER));
	for (i = 0; i < n; i++) {
		const unsigned char *rec = buf + (size_t)i * LONGER;
		struct fsgate_group_entry got;

		memcpy(&got, rec, sizeof(got));
		EXPECT_EQ(e[i].id, got.id);
		EXPECT_STREQ(e[i].comm, got.comm);
		EXPECT_EQ(1, all_bytes(rec + sizeof(got), 0,
				       LONGER - sizeof(got)));
	}
	EXPECT_EQ(1, all_bytes(buf + (size_t)n * LONGER, FILL,
			       sizeof(buf) - (size_t)n * LONGER));
}

/*
 * Records of @size, shorter than the module's, against @e, the @n the
 * module gave at full size: each the first @size bytes of its entry at
 * the caller's stride, nothing written past the last.
 */
static void expect_short_records(struct __test_metadata *_metadata,
				 const struct fsgate_group_entry *e, int n,
				 unsigned int size)
{
	static unsigned char buf[ROOM * FSGATE_GROUP_ENTRY_SIZE_VER1 + 64];
	int i;

	memset(buf, FILL, sizeof(buf));
	ASSERT_EQ(n, list_groups(buf, ROOM, size));
	for (i = 0; i < n; i++) {
		const unsigned char *rec = buf + (size_t)i * size;
		struct fsgate_group_entry got;

		memset(&got, 0, sizeof(got));
		memcpy(&got, rec, size);
		EXPECT_EQ(e[i].id, got.id);
		EXPECT_STREQ(e[i].comm, got.comm);
		EXPECT_EQ(e[i].priority, got.priority);
		EXPECT_EQ(e[i].attached, got.attached);
		if (size < FSGATE_GROUP_ENTRY_SIZE_VER1)
			continue;
		EXPECT_STREQ(e[i].name, got.name);
		EXPECT_EQ(e[i].absent_left_ms, got.absent_left_ms);
		EXPECT_EQ(e[i].handovers, got.handovers);
		EXPECT_EQ(0, got.timeout_verdict);
	}
	EXPECT_EQ(1, all_bytes(buf + (size_t)n * size, FILL,
			       sizeof(buf) - (size_t)n * size));
}

/*
 * A caller that knows only the first version's records gets them at its
 * stride: the first FSGATE_GROUP_ENTRY_SIZE_VER0 bytes of each entry,
 * nothing written past its last record.
 */
TEST_F(three, first_version_records_hold_the_first_fields)
{
	struct fsgate_group_entry e[ROOM];
	int n;

	n = list_all(e);
	ASSERT_LE(3, n);
	expect_short_records(_metadata, e, n, FSGATE_GROUP_ENTRY_SIZE_VER0);
}

/*
 * A caller that knows the persistent groups' records (VER1) gets them at
 * its stride, as the module before FSGATE_FEATURE_GROUPS_VER2 gave them:
 * the first FSGATE_GROUP_ENTRY_SIZE_VER1 bytes, nothing written past.
 */
TEST_F(three, persistent_version_records_hold_what_they_held)
{
	struct fsgate_group_entry e[ROOM];
	int n;

	n = list_all(e);
	ASSERT_LE(3, n);
	expect_short_records(_metadata, e, n, FSGATE_GROUP_ENTRY_SIZE_VER1);
}

/* The module parameter @name as a number, or 0. */
static unsigned int param_value(const char *name)
{
	char path[128], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/fsgate/parameters/%s", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return (unsigned int)strtoul(text, NULL, 10);
}

/*
 * FSGATE_GROUP_ENTRY_SIZE_VER2: each group's wait bounds and verdict
 * policies as the waits apply them (the module's defaults resolved), and
 * its marks by type, which follow marks added and removed. Issue 40,
 * item 3.
 */
TEST(records_carry_policies_bounds_and_marks_by_type)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC | FSGATE_NONBLOCK,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = 2222,
		.timeout_ms = 1500,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.max_wait_ms = 7000,
	};
	struct fsgate_group_entry e[ROOM];
	const struct fsgate_group_entry *mine, *plain;
	struct fsgate_version v;
	char dir[64], file[80];
	int g, g2, n;

	ASSERT_EQ(0, fsgate_version(&v));
	ASSERT_NE(0, v.features & FSGATE_FEATURE_GROUPS_VER2);
	ASSERT_EQ(0, fsgate_test_tmpfs("groups-ver2", dir, sizeof(dir)));
	snprintf(file, sizeof(file), "%s/file", dir);
	write_file(file, "content\n");
	g = fsgate_init_ext(&init);
	ASSERT_LE(0, g);
	g2 = named_group("groups-ver2", 1111);
	ASSERT_LE(0, g2);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_INODE,
				 FAN_OPEN_PERM, AT_FDCWD, file));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_INODE,
				 FAN_OPEN_PERM, AT_FDCWD, dir));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_MOUNT,
				 FAN_OPEN_PERM, AT_FDCWD, dir));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, dir));

	n = list_groups(e, ROOM, sizeof(e[0]));
	ASSERT_LE(2, n);
	mine = entry_of(e, n, group_id(g));
	ASSERT_NE(NULL, mine);
	EXPECT_EQ(1500, mine->timeout_ms);
	EXPECT_EQ(7000, mine->max_wait_ms);
	EXPECT_EQ(FSGATE_VERDICT_DENY, mine->timeout_verdict);
	EXPECT_EQ(EPERM, mine->timeout_errno);
	EXPECT_EQ(FSGATE_VERDICT_ALLOW, mine->orphan_verdict);
	EXPECT_EQ(0, mine->orphan_errno);
	EXPECT_EQ(4, mine->stats.marks);
	EXPECT_EQ(2, mine->inode_marks);
	EXPECT_EQ(1, mine->mount_marks);
	EXPECT_EQ(1, mine->filesystem_marks);
	EXPECT_EQ(0, mine->reserved2);
	/* Defaults resolved: the parameters' values, a verdict given. */
	plain = entry_of(e, n, group_id(g2));
	ASSERT_NE(NULL, plain);
	EXPECT_EQ(param_value("default_timeout_ms"), plain->timeout_ms);
	EXPECT_EQ(param_value("default_max_wait_ms"), plain->max_wait_ms);
	EXPECT_EQ(FSGATE_VERDICT_ALLOW, plain->timeout_verdict);
	EXPECT_EQ(0, plain->timeout_errno);
	EXPECT_EQ(FSGATE_VERDICT_ALLOW, plain->orphan_verdict);
	EXPECT_EQ(0, plain->inode_marks + plain->mount_marks +
		     plain->filesystem_marks);

	/* Removed marks leave their type's count. */
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_REMOVE | FSGATE_MARK_INODE,
				 FAN_OPEN_PERM, AT_FDCWD, file));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_FLUSH | FSGATE_MARK_MOUNT,
				 0, AT_FDCWD, NULL));
	n = list_groups(e, ROOM, sizeof(e[0]));
	mine = entry_of(e, n, group_id(g));
	ASSERT_NE(NULL, mine);
	EXPECT_EQ(2, mine->stats.marks);
	EXPECT_EQ(1, mine->inode_marks);
	EXPECT_EQ(0, mine->mount_marks);
	EXPECT_EQ(1, mine->filesystem_marks);
	close(g2);
	close(g);
	fsgate_test_tmpfs_done(dir);
}

/* An idle group's counters are those FSGATE_IOC_STATS gives the group. */
TEST(counters_match_ioc_stats)
{
	struct fsgate_group_entry e[ROOM];
	const struct fsgate_group_entry *mine;
	struct fsgate_stats stats;
	char dir[64], file[80];
	int g, n, fd, i;

	ASSERT_EQ(0, fsgate_test_tmpfs("groups", dir, sizeof(dir)));
	snprintf(file, sizeof(file), "%s/file", dir);
	write_file(file, "content\n");
	g = named_group("groups-stats", 1000);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN | FAN_CLOSE_NOWRITE, AT_FDCWD, dir));
	/* Events read and events left queued: several counters move. */
	for (i = 0; i < 3; i++) {
		fd = open(file, O_RDONLY);
		ASSERT_LE(0, fd);
		close(fd);
	}
	fsgate_test_drain(g, NULL);
	fd = open(file, O_RDONLY);
	ASSERT_LE(0, fd);
	close(fd);

	n = list_groups(e, ROOM, sizeof(e[0]));
	ASSERT_LE(1, n);
	ASSERT_EQ(0, fsgate_stats(g, &stats));
	mine = entry_of(e, n, group_id(g));
	ASSERT_NE(NULL, mine);
	/* Events of one file may merge: how many is not the point here. */
	EXPECT_EQ(1, mine->stats.marks);
	EXPECT_LE(1, mine->stats.delivered);
	EXPECT_LE(1, mine->stats.queued);
	EXPECT_EQ(0, memcmp(&stats, &mine->stats, sizeof(stats)));
	close(g);
	fsgate_test_tmpfs_done(dir);
}

/* Each record says what its row of /proc/fsgate/groups says. */
TEST(records_match_proc_rows)
{
	static const char comm[] = "a b\\c";
	struct fsgate_group_entry e[ROOM];
	struct fsgate_group_info *rows = NULL;
	ssize_t nrows;
	int g[2], n, i;

	g[0] = named_group(comm, 1700);
	ASSERT_LE(0, g[0]);
	g[1] = content_group(2500);
	ASSERT_LE(0, g[1]);
	n = list_groups(e, ROOM, sizeof(e[0]));
	nrows = fsgate_groups_read(FSGATE_GROUPS_FILE, &rows);
	ASSERT_LE(2, n);
	ASSERT_EQ(n, nrows);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(rows[i].id, e[i].id);
		EXPECT_EQ(rows[i].pid, e[i].pid);
		EXPECT_STREQ(rows[i].comm, e[i].comm);
		EXPECT_STREQ(rows[i].class_name,
			     e[i].group_class == FSGATE_CLASS_PRE_CONTENT ? "pre-content" :
			     e[i].group_class == FSGATE_CLASS_CONTENT ? "content" :
			     "notif");
		EXPECT_EQ(rows[i].priority, e[i].priority);
		EXPECT_EQ(0, memcmp(&rows[i].stats, &e[i].stats,
				    sizeof(e[i].stats)));
		EXPECT_EQ(rows[i].attached, e[i].attached);
		EXPECT_STREQ(rows[i].name, e[i].name);
		EXPECT_EQ(rows[i].attaches, e[i].attaches);
		EXPECT_EQ(rows[i].handovers, e[i].handovers);
		/* Time runs between the two: the file's is no later. */
		EXPECT_GE(e[i].absent_left_ms, rows[i].absent_left_ms);
		EXPECT_GE(e[i].linger_left_ms, rows[i].linger_left_ms);
	}
	EXPECT_NE(NULL, entry_of(e, n, group_id(g[0])));
	/* Groups that are not persistent: no name, no bound running. */
	EXPECT_STREQ("", entry_of(e, n, group_id(g[0]))->name);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE,
		  entry_of(e, n, group_id(g[0]))->absent_left_ms);
	EXPECT_EQ(FSGATE_GROUP_NO_DEADLINE,
		  entry_of(e, n, group_id(g[0]))->linger_left_ms);
	EXPECT_STREQ(comm, entry_of(e, n, group_id(g[0]))->comm);
	free(rows);
	close(g[1]);
	close(g[0]);
}

/* libfsgate reads the list through the ioctl, with the same result. */
TEST(library_reads_the_same_list)
{
	struct fsgate_group_info *lib = NULL, *proc = NULL;
	ssize_t n;
	int g, i;

	g = named_group("groups-lib", 1800);
	ASSERT_LE(0, g);
	n = fsgate_groups_read(NULL, &lib);
	ASSERT_LE(1, n);
	ASSERT_EQ(n, fsgate_groups_read(FSGATE_GROUPS_FILE, &proc));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(proc[i].id, lib[i].id);
		EXPECT_EQ(proc[i].pid, lib[i].pid);
		EXPECT_STREQ(proc[i].comm, lib[i].comm);
		EXPECT_STREQ(proc[i].class_name, lib[i].class_name);
		EXPECT_EQ(proc[i].priority, lib[i].priority);
		EXPECT_EQ(0, memcmp(&proc[i].stats, &lib[i].stats,
				    sizeof(lib[i].stats)));
	}
	free(lib);
	free(proc);
	close(g);
}

TEST_HARNESS_MAIN
