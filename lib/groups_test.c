// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: fsgate_groups_read() finds columns by name in the header, and
 * refuses what is not a group list; it lists the loaded module's groups
 * through FSGATE_IOC_GROUPS where the module has it, and from
 * FSGATE_GROUPS_FILE where it does not; parameter names cannot leave the
 * module's directory. fsgate_version() is faked here; open, ioctl, close
 * and fopen are wrapped at link time (-Wl,--wrap=...).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsgate.h"

#define FAKE_DEV 42

/* What the fake module offers, and its groups. */
static struct fsgate_version fake_version;
static int fake_version_errno;
static struct fsgate_group_entry fake_groups[40];
static unsigned int fake_count;
/* FSGATE_IOC_GROUPS calls seen, and the room each gave. */
static unsigned int ioctls, rooms[8];
static int fake_ioctl_errno;
static int dev_closed;

int fsgate_version(struct fsgate_version *version)
{
	if (fake_version_errno) {
		errno = fake_version_errno;
		return -1;
	}
	*version = fake_version;
	return 0;
}

int __real_open(const char *file, int flags, ...);
int __wrap_open(const char *file, int flags, ...)
{
	if (strcmp(file, FSGATE_DEVICE))
		return __real_open(file, flags);
	assert_int_equal(flags, O_RDWR | O_CLOEXEC);
	return FAKE_DEV;
}

int __wrap_ioctl(int fd, unsigned long cmd, void *arg)
{
	struct fsgate_groups *req = arg;
	unsigned int i;

	assert_int_equal(fd, FAKE_DEV);
	assert_int_equal(cmd, FSGATE_IOC_GROUPS);
	assert_int_equal(req->size, FSGATE_GROUP_ENTRY_SIZE_VER2);
	assert_int_equal(req->flags, 0);
	assert_int_equal(req->reserved32, 0);
	if (ioctls < sizeof(rooms) / sizeof(rooms[0]))
		rooms[ioctls] = req->count;
	ioctls++;
	if (fake_ioctl_errno) {
		errno = fake_ioctl_errno;
		return -1;
	}
	for (i = 0; i < req->count && i < fake_count; i++)
		memcpy((char *)(uintptr_t)req->entries + i * req->size,
		       &fake_groups[i], sizeof(fake_groups[i]));
	return (int)fake_count;
}

int __real_close(int fd);
int __wrap_close(int fd)
{
	if (fd != FAKE_DEV)
		return __real_close(fd);
	dev_closed++;
	errno = EINTR;	/* close() must not clobber ioctl()'s errno */
	return 0;
}

/* Where the fake module's /proc/fsgate/groups is; NULL: nowhere. */
static const char *fake_proc_file;

FILE *__real_fopen(const char *file, const char *mode);
FILE *__wrap_fopen(const char *file, const char *mode)
{
	if (!strcmp(file, FSGATE_GROUPS_FILE)) {
		if (!fake_proc_file) {
			errno = ENOENT;
			return NULL;
		}
		file = fake_proc_file;
	}
	return __real_fopen(file, mode);
}

static int reset_fakes(void **state)
{
	(void)state;
	memset(&fake_version, 0, sizeof(fake_version));
	fake_version.features = FSGATE_FEATURE_VERSION | FSGATE_FEATURE_GROUPS |
				FSGATE_FEATURE_GROUPS_PERSIST;
	fake_version_errno = 0;
	memset(fake_groups, 0, sizeof(fake_groups));
	fake_count = 0;
	ioctls = 0;
	memset(rooms, 0, sizeof(rooms));
	fake_ioctl_errno = 0;
	dev_closed = 0;
	fake_proc_file = NULL;
	return 0;
}

static void fake_group(unsigned int i, __u64 id, __u32 class, __u32 priority)
{
	struct fsgate_group_entry *e = &fake_groups[i];

	e->id = id;
	e->pid = (__s32)(100 + i);
	e->uid = 0;
	snprintf(e->comm, sizeof(e->comm), "daemon-%u", i);
	e->group_class = class;
	e->flags = class;
	e->priority = priority;
	e->stats.marks = i;
	e->stats.asked = 10 * i;
	e->stats.filtered = 7;
	if (fake_count <= i)
		fake_count = i + 1;
}

static char path[] = "/tmp/fsgate-groups-test-XXXXXX";

static const char *file_with(const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/fsgate-groups-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

#define HEADER "id pid comm class priority marks queued delivered overflows " \
	       "pending asked answered denied timedout orphaned cancelled " \
	       "perm_overflows cached\n"

static void reads_every_group_in_order(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with(HEADER
		  "7 162 hsm pre-content 3000 1 0 5 0 0 5 5 1 0 0 0 0 2\n"
		  "9 170 fsgate-scan content 2000 2 1 8 0 1 9 7 3 1 0 0 0 4\n");
	assert_int_equal(fsgate_groups_read(path, &g), 2);
	assert_int_equal(g[0].id, 7);
	assert_int_equal(g[0].pid, 162);
	assert_string_equal(g[0].comm, "hsm");
	assert_string_equal(g[0].class_name, "pre-content");
	assert_int_equal(g[0].priority, 3000);
	assert_int_equal(g[0].stats.marks, 1);
	assert_int_equal(g[0].stats.cached, 2);
	assert_string_equal(g[1].comm, "fsgate-scan");
	assert_int_equal(g[1].stats.queued, 1);
	assert_int_equal(g[1].stats.pending, 1);
	assert_int_equal(g[1].stats.asked, 9);
	assert_int_equal(g[1].stats.denied, 3);
	assert_int_equal(g[1].stats.timedout, 1);
	free(g);
	unlink(path);
}

/* A later module's extra column, an older one's missing column. */
static void columns_are_found_by_name(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with("priority id newcolumn comm asked\n"
		  "1000 4 xyz monitor 12\n");
	assert_int_equal(fsgate_groups_read(path, &g), 1);
	assert_int_equal(g[0].priority, 1000);
	assert_int_equal(g[0].id, 4);
	assert_string_equal(g[0].comm, "monitor");
	assert_int_equal(g[0].stats.asked, 12);
	assert_int_equal(g[0].stats.cached, 0);
	assert_int_equal(g[0].pid, 0);
	free(g);
	unlink(path);
}

/* The module escapes whitespace and backslashes in comm as \ooo. */
static void an_escaped_comm_is_one_field(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with("id pid comm class priority asked\n"
		  "3 40 my\\040scan\\012x content 2000 6\n"
		  "5 41 back\\134slash\\ notif 1000 7\n");
	assert_int_equal(fsgate_groups_read(path, &g), 2);
	assert_string_equal(g[0].comm, "my scan\nx");
	assert_string_equal(g[0].class_name, "content");
	assert_int_equal(g[0].stats.asked, 6);
	/* A backslash not followed by three octal digits is itself. */
	assert_string_equal(g[1].comm, "back\\slash\\");
	assert_int_equal(g[1].priority, 1000);
	free(g);
	unlink(path);
}

static void no_groups_is_an_empty_list(void **state)
{
	struct fsgate_group_info *g = (void *)1;

	(void)state;
	file_with(HEADER);
	assert_int_equal(fsgate_groups_read(path, &g), 0);
	assert_null(g);
	unlink(path);
}

static void what_is_not_a_group_list_is_refused(void **state)
{
	static const char *const bad[] = {
		"",				/* no header */
		"pid comm\n1 x\n",		/* no id column */
		"id pid\n1\n",			/* a short line */
		"id pid\n1 2 3\n",		/* a long line */
		"id pid\n1 x\n",		/* not a number */
		"id pid\n1 2",			/* a line cut short */
	};
	struct fsgate_group_info *g;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		file_with(bad[i]);
		errno = 0;
		assert_int_equal(fsgate_groups_read(path, &g), -1);
		assert_int_equal(errno, EBADMSG);
		assert_null(g);
		unlink(path);
	}
	assert_int_equal(fsgate_groups_read("/nonexistent/groups", &g), -1);
	assert_int_equal(errno, ENOENT);
}

/* The module's records become the library's, field by field. */
static void device_records_become_group_infos(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_group(0, 7, FSGATE_CLASS_PRE_CONTENT, 3000);
	fake_group(1, 9, FSGATE_CLASS_CONTENT, 2000);
	fake_group(2, 4, FSGATE_CLASS_NOTIF, 1000);
	/* A comm of 16 bytes without a NUL stays within the record. */
	memset(fake_groups[2].comm, 'x', sizeof(fake_groups[2].comm));
	assert_int_equal(fsgate_groups_read(NULL, &g), 3);
	assert_int_equal(ioctls, 1);
	assert_int_equal(dev_closed, 1);
	assert_int_equal(g[0].id, 7);
	assert_int_equal(g[0].pid, 100);
	assert_string_equal(g[0].comm, "daemon-0");
	assert_string_equal(g[0].class_name, "pre-content");
	assert_int_equal(g[0].priority, 3000);
	assert_string_equal(g[1].class_name, "content");
	assert_int_equal(g[1].stats.marks, 1);
	assert_int_equal(g[1].stats.asked, 10);
	assert_int_equal(g[1].stats.filtered, 7);
	assert_string_equal(g[2].class_name, "notif");
	assert_string_equal(g[2].comm, "xxxxxxxxxxxxxxxx");
	free(g);
}

/* More groups than the first room: asked again with room for all. */
static void a_long_list_is_asked_again(void **state)
{
	struct fsgate_group_info *g;
	unsigned int i;

	(void)state;
	for (i = 0; i < 40; i++)
		fake_group(i, 100 + i, FSGATE_CLASS_NOTIF, 1000);
	assert_int_equal(fsgate_groups_read(NULL, &g), 40);
	assert_int_equal(ioctls, 2);
	assert_true(rooms[0] < 40);
	assert_true(rooms[1] >= 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(g[i].id, 100 + i);
	free(g);
}

static void no_groups_from_the_device_is_an_empty_list(void **state)
{
	struct fsgate_group_info *g = (void *)1;

	(void)state;
	assert_int_equal(fsgate_groups_read(NULL, &g), 0);
	assert_null(g);
	assert_int_equal(ioctls, 1);
}

/* The ioctl's errno reaches the caller; the device is closed. */
static void device_errors_are_the_callers(void **state)
{
	struct fsgate_group_info *g = (void *)1;

	(void)state;
	fake_group(0, 1, FSGATE_CLASS_NOTIF, 1000);
	fake_ioctl_errno = EPERM;
	assert_int_equal(fsgate_groups_read(NULL, &g), -1);
	assert_int_equal(errno, EPERM);
	assert_null(g);
	assert_int_equal(dev_closed, 1);
}

/* A module without the feature bit is read from its file, as before. */
static void an_older_module_is_read_from_its_file(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_version.features = FSGATE_FEATURE_VERSION;
	fake_proc_file = file_with(HEADER
				   "7 162 hsm pre-content 3000 1 0 5 0 0 5 5 1 0 0 0 0 2\n");
	assert_int_equal(fsgate_groups_read(NULL, &g), 1);
	assert_int_equal(ioctls, 0);
	assert_int_equal(g[0].id, 7);
	assert_string_equal(g[0].comm, "hsm");
	free(g);
	unlink(path);
}

/* ... and so is one older than FSGATE_IOC_VERSION (ENOTTY). */
static void a_module_without_version_is_read_from_its_file(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_version_errno = ENOTTY;
	fake_proc_file = file_with(HEADER
				   "9 170 scan content 2000 2 1 8 0 1 9 7 3 1 0 0 0 4\n");
	assert_int_equal(fsgate_groups_read(NULL, &g), 1);
	assert_int_equal(ioctls, 0);
	assert_int_equal(g[0].id, 9);
	free(g);
	unlink(path);
}

/* No module at all: the file is missing too, ENOENT. */
static void no_module_is_enoent(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_version_errno = ENOENT;
	assert_int_equal(fsgate_groups_read(NULL, &g), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(ioctls, 0);
}

/* A persistent group's record: its name, bounds, time left, attaches. */
static void persistent_groups_are_described(void **state)
{
	struct fsgate_group_entry *e = &fake_groups[1];
	struct fsgate_group_info *g;

	(void)state;
	fake_group(0, 7, FSGATE_CLASS_PRE_CONTENT, 3000);
	fake_groups[0].attached = 1;
	fake_groups[0].absent_left_ms = FSGATE_GROUP_NO_DEADLINE;
	fake_groups[0].linger_left_ms = FSGATE_GROUP_NO_DEADLINE;
	fake_group(1, 9, FSGATE_CLASS_CONTENT, 2000);
	snprintf(e->name, sizeof(e->name), "fsgate-scan");
	e->owner = 1000;
	e->persist_flags = FSGATE_PERSIST_UNTIL_REMOVED;
	e->absent_ms = 30000;
	e->absent_verdict = FSGATE_VERDICT_DENY;
	e->absent_errno = EIO;
	e->absent_left_ms = 1234;
	e->linger_left_ms = FSGATE_GROUP_NO_DEADLINE;
	e->attaches = 3;
	e->handovers = 1;
	assert_int_equal(fsgate_groups_read(NULL, &g), 2);
	assert_string_equal(g[0].name, "");
	assert_int_equal(g[0].attached, 1);
	assert_int_equal(g[0].absent_left_ms, FSGATE_GROUP_NO_DEADLINE);
	assert_string_equal(g[1].name, "fsgate-scan");
	assert_int_equal(g[1].attached, 0);
	assert_int_equal(g[1].owner, 1000);
	assert_int_equal(g[1].persist_flags, FSGATE_PERSIST_UNTIL_REMOVED);
	assert_int_equal(g[1].absent_ms, 30000);
	assert_int_equal(g[1].absent_verdict, FSGATE_VERDICT_DENY);
	assert_int_equal(g[1].absent_errno, EIO);
	assert_int_equal(g[1].absent_left_ms, 1234);
	assert_int_equal(g[1].linger_left_ms, FSGATE_GROUP_NO_DEADLINE);
	assert_int_equal(g[1].attaches, 3);
	assert_int_equal(g[1].handovers, 1);
	free(g);
}

/*
 * A module before FSGATE_FEATURE_GROUPS_PERSIST zeroes what it does not
 * know: no name, and no bound running (not one that has run out).
 */
static void an_older_module_has_no_persistent_fields(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_version.features &= ~FSGATE_FEATURE_GROUPS_PERSIST;
	fake_group(0, 7, FSGATE_CLASS_PRE_CONTENT, 3000);
	fake_groups[0].attached = 1;
	/* What it would not write: the library must not read it. */
	snprintf(fake_groups[0].name, sizeof(fake_groups[0].name), "junk");
	fake_groups[0].attaches = 9;
	assert_int_equal(fsgate_groups_read(NULL, &g), 1);
	assert_int_equal(g[0].attached, 1);
	assert_string_equal(g[0].name, "");
	assert_int_equal(g[0].attaches, 0);
	assert_int_equal(g[0].absent_left_ms, FSGATE_GROUP_NO_DEADLINE);
	assert_int_equal(g[0].linger_left_ms, FSGATE_GROUP_NO_DEADLINE);
	free(g);
}

/* The file's name and time-left columns; "-" where none applies. */
static void the_files_persistent_columns(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with("id attached name absent_left_ms linger_left_ms attaches handovers\n"
		  "3 1 - - - 0 0\n"
		  "5 0 hsm@srv 250 - 2 1\n"
		  "6 0 scan 0 59000 1 0\n");
	assert_int_equal(fsgate_groups_read(path, &g), 3);
	assert_string_equal(g[0].name, "");
	assert_int_equal(g[0].attached, 1);
	assert_int_equal(g[0].absent_left_ms, FSGATE_GROUP_NO_DEADLINE);
	assert_int_equal(g[0].linger_left_ms, FSGATE_GROUP_NO_DEADLINE);
	assert_string_equal(g[1].name, "hsm@srv");
	assert_int_equal(g[1].absent_left_ms, 250);
	assert_int_equal(g[1].linger_left_ms, FSGATE_GROUP_NO_DEADLINE);
	assert_int_equal(g[1].attaches, 2);
	assert_int_equal(g[1].handovers, 1);
	assert_int_equal(g[2].absent_left_ms, 0);
	assert_int_equal(g[2].linger_left_ms, 59000);
	free(g);
	unlink(path);
	/* "-" is a number nowhere else. */
	file_with("id attached\n3 -\n");
	assert_int_equal(fsgate_groups_read(path, &g), -1);
	assert_int_equal(errno, EBADMSG);
	unlink(path);
}

/* FSGATE_0.2's function, which <fsgate.h> now covers with a macro. */
ssize_t (fsgate_groups_read)(const char *path,
			     struct fsgate_group_info **groups);

/* FSGATE_0.2's struct: the fields up to stats, nothing after. */
struct group_info_0_2 {
	uint64_t id;
	pid_t pid;
	char comm[17];
	char class_name[16];
	unsigned int priority;
	struct fsgate_stats stats;
};

/*
 * Programs built before FSGATE_0.6 call fsgate_groups_read() itself and
 * index the array with the old size; a caller that knows more fields
 * than the library gets them zeroed; one that knows too few, EINVAL.
 */
static void records_have_the_callers_size(void **state)
{
	struct group_info_0_2 *old;
	struct fsgate_group_info *g;
	char *big;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		fake_group(i, 10 + i, FSGATE_CLASS_NOTIF, 1000);
	snprintf(fake_groups[2].name, sizeof(fake_groups[2].name), "n");
	assert_int_equal((fsgate_groups_read)(NULL, &g), 3);
	old = (struct group_info_0_2 *)g;
	for (i = 0; i < 3; i++) {
		assert_int_equal(old[i].id, 10 + i);
		assert_int_equal(old[i].pid, 100 + i);
		assert_int_equal(old[i].stats.asked, 10 * i);
		assert_int_equal(old[i].stats.filtered, 7);
	}
	free(g);
	assert_int_equal(fsgate_groups_list(NULL, &g, sizeof(*g) + 40), 3);
	big = (char *)g;
	for (i = 0; i < 3; i++) {
		g = (struct fsgate_group_info *)(big + i * (sizeof(*g) + 40));
		assert_int_equal(g->id, 10 + i);
		assert_int_equal(g->handovers, 0);
		assert_string_equal(g->name, i == 2 ? "n" : "");
		assert_true(!memcmp(big + i * (sizeof(*g) + 40) + sizeof(*g),
				    (char[40]){ 0 }, 40));
	}
	free(big);
	g = (void *)1;
	assert_int_equal(fsgate_groups_list(NULL, &g,
					    offsetof(struct fsgate_group_info,
						     stats)), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(g);
}

/* A group's policies, wait bounds and marks by type (issue 40, item 3). */
static void fake_ver2(struct fsgate_group_entry *e)
{
	e->timeout_ms = 1500;
	e->max_wait_ms = 7000;
	e->timeout_verdict = FSGATE_VERDICT_DENY;
	e->timeout_errno = EPERM;
	e->orphan_verdict = FSGATE_VERDICT_ALLOW;
	e->inode_marks = 2;
	e->mount_marks = 1;
	e->filesystem_marks = 3;
}

/* FSGATE_FEATURE_GROUPS_VER2: the record's appended fields, as they are. */
static void policies_and_marks_by_type_are_described(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_version.features |= FSGATE_FEATURE_GROUPS_VER2;
	fake_group(0, 7, FSGATE_CLASS_CONTENT, 2000);
	fake_ver2(&fake_groups[0]);
	assert_int_equal(fsgate_groups_read(NULL, &g), 1);
	assert_int_equal(g[0].timeout_ms, 1500);
	assert_int_equal(g[0].max_wait_ms, 7000);
	assert_int_equal(g[0].timeout_verdict, FSGATE_VERDICT_DENY);
	assert_int_equal(g[0].timeout_errno, EPERM);
	assert_int_equal(g[0].orphan_verdict, FSGATE_VERDICT_ALLOW);
	assert_int_equal(g[0].orphan_errno, 0);
	assert_int_equal(g[0].inode_marks, 2);
	assert_int_equal(g[0].mount_marks, 1);
	assert_int_equal(g[0].filesystem_marks, 3);
	free(g);
}

/*
 * A module before FSGATE_FEATURE_GROUPS_VER2 says nothing of them: zero
 * (timeout_verdict 0, which no module gives), whatever the bytes hold.
 */
static void an_older_module_has_no_policies(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_group(0, 7, FSGATE_CLASS_CONTENT, 2000);
	fake_ver2(&fake_groups[0]);
	assert_int_equal(fsgate_groups_read(NULL, &g), 1);
	assert_int_equal(g[0].timeout_verdict, 0);
	assert_int_equal(g[0].timeout_ms, 0);
	assert_int_equal(g[0].inode_marks, 0);
	assert_int_equal(g[0].filesystem_marks, 0);
	free(g);
}

/*
 * FSGATE_0.6's fsgate_groups_list() fills nothing past @handovers, at
 * any size: a program that asks for more gets what a 0.6 library gave.
 */
static void the_0_6_entry_point_stops_at_handovers(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	fake_version.features |= FSGATE_FEATURE_GROUPS_VER2;
	fake_group(0, 7, FSGATE_CLASS_CONTENT, 2000);
	fake_groups[0].handovers = 4;
	fake_ver2(&fake_groups[0]);
	assert_int_equal(fsgate_groups_list(NULL, &g, sizeof(*g)), 1);
	assert_int_equal(g[0].id, 7);
	assert_int_equal(g[0].handovers, 4);
	assert_int_equal(g[0].timeout_verdict, 0);
	assert_int_equal(g[0].inode_marks, 0);
	free(g);
	assert_int_equal(fsgate_groups_get(NULL, &g, sizeof(*g)), 1);
	assert_int_equal(g[0].timeout_verdict, FSGATE_VERDICT_DENY);
	free(g);
}

static void parameter_names_stay_in_the_module(void **state)
{
	unsigned long long v;

	(void)state;
	errno = 0;
	assert_int_equal(fsgate_param_get("../../../etc/passwd", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_param_set("a/b", 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_param_get("", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_param_get("..", &v), -1);
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_every_group_in_order),
		cmocka_unit_test(columns_are_found_by_name),
		cmocka_unit_test(an_escaped_comm_is_one_field),
		cmocka_unit_test(no_groups_is_an_empty_list),
		cmocka_unit_test(what_is_not_a_group_list_is_refused),
		cmocka_unit_test(parameter_names_stay_in_the_module),
		cmocka_unit_test_setup(device_records_become_group_infos,
				       reset_fakes),
		cmocka_unit_test_setup(a_long_list_is_asked_again,
				       reset_fakes),
		cmocka_unit_test_setup(no_groups_from_the_device_is_an_empty_list,
				       reset_fakes),
		cmocka_unit_test_setup(device_errors_are_the_callers,
				       reset_fakes),
		cmocka_unit_test_setup(an_older_module_is_read_from_its_file,
				       reset_fakes),
		cmocka_unit_test_setup(a_module_without_version_is_read_from_its_file,
				       reset_fakes),
		cmocka_unit_test_setup(no_module_is_enoent, reset_fakes),
		cmocka_unit_test_setup(persistent_groups_are_described,
				       reset_fakes),
		cmocka_unit_test_setup(an_older_module_has_no_persistent_fields,
				       reset_fakes),
		cmocka_unit_test(the_files_persistent_columns),
		cmocka_unit_test_setup(records_have_the_callers_size,
				       reset_fakes),
		cmocka_unit_test_setup(policies_and_marks_by_type_are_described,
				       reset_fakes),
		cmocka_unit_test_setup(an_older_module_has_no_policies,
				       reset_fakes),
		cmocka_unit_test_setup(the_0_6_entry_point_stops_at_handovers,
				       reset_fakes),
	};

	return cmocka_run_group_tests_name("libfsgate_groups", tests, NULL, NULL);
}
