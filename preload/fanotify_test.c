// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: fanotify_init() and fanotify_mark() as the layer serves them,
 * against fake libfsgate calls, a fake libc behind the layer and a
 * wrapped access() (-Wl,--wrap=access) that says whether /dev/fsgate is
 * there.
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
#include <sys/fanotify.h>
#include <cmocka.h>

#include "preload.h"

#define GROUP 40
#define FANOTIFY_FD 41
#define OTHER_FD 3

static struct fsgate_init seen;
static int init_calls, mark_calls, next_calls, warnings;
static char warning[256];
static int device_there = 1;
/* What the fake FSGATE_IOC_VERSION says, or fails with. */
static uint64_t features;
static int version_errno, version_calls;
/* The fd fanotify_init() had read() rewrite, and whether it may. */
static int tracked_fd, track_fails;
/* The fd whose pidfd records say errnos (FAN_REPORT_FD_ERROR). */
static int fd_error_fd;

int fsgate_version(struct fsgate_version *v)
{
	version_calls++;
	if (version_errno) {
		errno = version_errno;
		return -1;
	}
	*v = (struct fsgate_version){ .abi = 1, .features = features };
	return 0;
}

int preload_track(int fd)
{
	if (track_fails)
		return -1;
	tracked_fd = fd;
	return 0;
}

void preload_track_fd_error(int fd)
{
	fd_error_fd = fd;
}

int fsgate_init_ext(const struct fsgate_init *init)
{
	seen = *init;
	init_calls++;
	errno = mock_type(int);
	return errno ? -1 : GROUP;
}

/* FSGATE_PERSIST is not set in these tests: never called. */
int fsgate_attach(const char *name, unsigned int flags)
{
	(void)name, (void)flags;
	fail();
	return -1;
}

int fsgate_persist(int fd, const struct fsgate_persist *req)
{
	(void)fd, (void)req;
	fail();
	return -1;
}

int fsgate_stats(int fd, struct fsgate_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (fd == GROUP)
		return 0;
	errno = ENOTTY;
	return -1;
}

int fsgate_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
		const char *pathname)
{
	mark_calls++;
	check_expected(fd);
	check_expected(flags);
	check_expected(mask);
	check_expected(dirfd);
	check_expected(pathname);
	return 0;
}

static int next_fanotify_init(unsigned int flags, unsigned int event_f_flags)
{
	next_calls++;
	check_expected(flags);
	check_expected(event_f_flags);
	return FANOTIFY_FD;
}

static int next_fanotify_mark(int fd, unsigned int flags, uint64_t mask,
			      int dirfd, const char *pathname)
{
	(void)flags, (void)mask, (void)dirfd, (void)pathname;
	next_calls++;
	check_expected(fd);
	return 0;
}

void *preload_next(const char *name)
{
	if (!strcmp(name, "fanotify_init"))
		return (void *)next_fanotify_init;
	if (!strcmp(name, "fanotify_mark"))
		return (void *)next_fanotify_mark;
	fail_msg("unexpected preload_next(%s)", name);
	return NULL;
}

void preload_warn(int *once, const char *msg)
{
	(void)once;
	warnings++;
	snprintf(warning, sizeof(warning), "%s", msg);
}

int __wrap_access(const char *path, int mode)
{
	assert_string_equal(path, FSGATE_DEVICE);
	assert_int_equal(mode, F_OK);
	if (device_there)
		return 0;
	errno = ENOENT;
	return -1;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("FSGATE_PRIORITY");
	unsetenv("FSGATE_TIMEOUT_MS");
	unsetenv("FSGATE_TIMEOUT_VERDICT");
	unsetenv("FSGATE_FALLBACK");
	unsetenv("FSGATE_ORPHAN_VERDICT");
	unsetenv("FSGATE_EXCLUDE_SELF");
	unsetenv("FSGATE_REPORT_PROC");
	unsetenv("FSGATE_PERSIST");
	features = ~0ULL;
	version_errno = version_calls = 0;
	tracked_fd = fd_error_fd = -1;
	track_fails = 0;
	memset(&seen, 0xa5, sizeof(seen));
	init_calls = mark_calls = next_calls = warnings = 0;
	warning[0] = '\0';
	device_there = 1;
	return 0;
}

static void served_flags_make_an_fsgate_group(void **state)
{
	const unsigned int flags = FAN_CLASS_CONTENT | FAN_CLOEXEC |
				   FAN_NONBLOCK | FAN_UNLIMITED_QUEUE |
				   FAN_UNLIMITED_MARKS | FAN_REPORT_TID |
				   FAN_ENABLE_AUDIT;

	(void)state;
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(flags, O_RDONLY | O_LARGEFILE), GROUP);
	assert_int_equal(seen.flags, flags);
	assert_int_equal(seen.event_f_flags, O_RDONLY | O_LARGEFILE);
	assert_int_equal(seen.priority, FSGATE_PRIORITY_DEFAULT);
	assert_int_equal(seen.timeout_ms, FSGATE_TIMEOUT_DEFAULT);
	assert_int_equal(seen.timeout_verdict, FSGATE_VERDICT_DEFAULT);
	assert_int_equal(seen.orphan_verdict, FSGATE_VERDICT_DEFAULT);
	assert_int_equal(seen.max_wait_ms | seen.reserved32 | seen.reserved[0] |
			 seen.reserved[3], 0);
}

static void environment_sets_priority_and_timeout(void **state)
{
	(void)state;
	setenv("FSGATE_PRIORITY", "2500", 1);
	setenv("FSGATE_TIMEOUT_MS", "300", 1);
	setenv("FSGATE_TIMEOUT_VERDICT", "deny", 1);
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_CLASS_PRE_CONTENT, O_RDONLY), GROUP);
	assert_int_equal(seen.priority, 2500);
	assert_int_equal(seen.timeout_ms, 300);
	assert_int_equal(seen.timeout_verdict, FSGATE_VERDICT_DENY);
}

static void bad_environment_is_einval_with_a_warning(void **state)
{
	(void)state;
	setenv("FSGATE_PRIORITY", "high", 1);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(init_calls, 0);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(warning, "FSGATE_PRIORITY=high"));
}

/* FAN_REPORT_MNT (Linux 6.14), which fsgate lacks. */
#define UNSERVED_FLAG 0x00004000

/* What an older kernel refuses with EINVAL, fsgate refuses the same way. */
static void unserved_flags_are_einval(void **state)
{
	static const unsigned int unserved[] = {
		UNSERVED_FLAG,
		FSGATE_EXCLUDE_SELF, FSGATE_REPORT_PERM, FSGATE_REPORT_PROC,
		FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(unserved) / sizeof(unserved[0]); i++) {
		errno = 0;
		assert_int_equal(fanotify_init(unserved[i], O_RDONLY), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(init_calls + next_calls + warnings, 0);
}

/* FAN_REPORT_PIDFD: process records, which read() makes pidfd records. */
static void pidfd_asks_for_process_records(void **state)
{
	(void)state;
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_CLASS_CONTENT | FAN_REPORT_PIDFD |
				       FAN_CLOEXEC, O_RDONLY), GROUP);
	assert_int_equal(seen.flags, FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_REPORT_PROC);
	assert_int_equal(tracked_fd, GROUP);
	/* Without it, read() has nothing to do. */
	will_return(fsgate_init_ext, 0);
	tracked_fd = -1;
	assert_int_equal(fanotify_init(FAN_CLASS_CONTENT, O_RDONLY), GROUP);
	assert_int_equal(tracked_fd, -1);
}

/* As fanotify: a pidfd is for a process, not for a thread. */
static void pidfd_with_tid_is_einval(void **state)
{
	(void)state;
	assert_int_equal(fanotify_init(FAN_REPORT_PIDFD | FAN_REPORT_TID,
				       O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(init_calls + warnings, 0);
}

static void pidfd_with_process_records_is_einval(void **state)
{
	(void)state;
	setenv("FSGATE_REPORT_PROC", "1", 1);
	assert_int_equal(fanotify_init(FAN_REPORT_PIDFD, O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(init_calls, 0);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(warning, "FSGATE_REPORT_PROC"));
}

/* Too many fds open to track the group's: it is not made. */
static void untrackable_pidfd_group_is_emfile(void **state)
{
	(void)state;
	track_fails = 1;
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_REPORT_PIDFD, O_RDONLY), -1);
	assert_int_equal(errno, EMFILE);
	assert_int_equal(warnings, 1);
}

/* What a fanotify program cannot ask for, the environment does. */
static void environment_sets_layer_options(void **state)
{
	(void)state;
	setenv("FSGATE_ORPHAN_VERDICT", "deny", 1);
	setenv("FSGATE_EXCLUDE_SELF", "1", 1);
	setenv("FSGATE_REPORT_PROC", "1", 1);
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_CLASS_CONTENT, O_RDONLY), GROUP);
	assert_int_equal(seen.orphan_verdict, FSGATE_VERDICT_DENY);
	assert_int_equal(seen.flags, FSGATE_CLASS_CONTENT | FSGATE_EXCLUDE_SELF |
			 FSGATE_REPORT_PROC);
	/* Process records the program asked for itself stay as they come. */
	assert_int_equal(tracked_fd, -1);
	setenv("FSGATE_EXCLUDE_SELF", "0", 1);
	setenv("FSGATE_REPORT_PROC", "0", 1);
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_CLASS_CONTENT, O_RDONLY), GROUP);
	assert_int_equal(seen.flags, FSGATE_CLASS_CONTENT);
	assert_int_equal(version_calls, 1);
}

/* The feature bits say what the module lacks; the variable is named. */
static void missing_feature_is_einval_naming_it(void **state)
{
	(void)state;
	features = ~FSGATE_FEATURE_EXCLUDE_SELF;
	setenv("FSGATE_EXCLUDE_SELF", "1", 1);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(init_calls, 0);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(warning, "FSGATE_EXCLUDE_SELF"));
	unsetenv("FSGATE_EXCLUDE_SELF");
	features = ~FSGATE_FEATURE_REPORT_PROC;
	setenv("FSGATE_REPORT_PROC", "1", 1);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(warnings, 2);
	assert_non_null(strstr(warning, "FSGATE_REPORT_PROC"));
	assert_int_equal(init_calls, 0);
}

/* A module without process records: EINVAL, as a kernel without pidfds. */
static void pidfd_without_process_records_is_einval(void **state)
{
	(void)state;
	features = ~FSGATE_FEATURE_REPORT_PROC;
	assert_int_equal(fanotify_init(FAN_REPORT_PIDFD, O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(init_calls + warnings, 0);
}

/* Without the ioctl (ENOTTY) the module's FSGATE_IOC_INIT judges. */
static void module_without_version_is_asked_anyway(void **state)
{
	(void)state;
	version_errno = ENOTTY;
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_REPORT_PIDFD, O_RDONLY), GROUP);
	assert_int_equal(version_calls, 1);
	assert_int_equal(seen.flags, FSGATE_REPORT_PROC);
}

static void other_errors_pass_unchanged(void **state)
{
	(void)state;
	will_return(fsgate_init_ext, EPERM);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(next_calls + warnings, 0);
}

static void no_access_to_the_device_is_eperm_as_for_fanotify(void **state)
{
	(void)state;
	will_return(fsgate_init_ext, EACCES);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), -1);
	assert_int_equal(errno, EPERM);
}

static void missing_module_is_enodev_with_a_warning(void **state)
{
	(void)state;
	will_return(fsgate_init_ext, ENOENT);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(next_calls, 0);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(warning, "not loaded"));
	/* Where to look: the module's error, its build, Secure Boot. */
	assert_non_null(strstr(warning, "modprobe fsgate"));
	assert_non_null(strstr(warning, "dkms status fsgate"));
	assert_non_null(strstr(warning, "mokutil --sb-state"));
}

static void missing_module_with_fallback_is_fanotify(void **state)
{
	(void)state;
	setenv("FSGATE_FALLBACK", "1", 1);
	will_return(fsgate_init_ext, ENOENT);
	expect_value(next_fanotify_init, flags, FAN_CLASS_NOTIF);
	expect_value(next_fanotify_init, event_f_flags, O_RDONLY);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY), FANOTIFY_FD);
	assert_int_equal(warnings, 0);
}

/* With the fallback and no fsgate, even groups fsgate cannot serve go to fanotify. */
static void fallback_serves_what_fsgate_cannot(void **state)
{
	(void)state;
	setenv("FSGATE_FALLBACK", "1", 1);
	device_there = 0;
	expect_value(next_fanotify_init, flags, UNSERVED_FLAG);
	expect_value(next_fanotify_init, event_f_flags, O_RDONLY);
	assert_int_equal(fanotify_init(UNSERVED_FLAG, O_RDONLY), FANOTIFY_FD);
	assert_int_equal(init_calls, 0);
}

static void fallback_is_not_used_when_fsgate_is_there(void **state)
{
	(void)state;
	setenv("FSGATE_FALLBACK", "1", 1);
	assert_int_equal(fanotify_init(UNSERVED_FLAG, O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(next_calls, 0);
}

/* FID reporting is fsgate's: every flag, alone or combined, goes to the module. */
static void fid_flags_pass_to_fsgate(void **state)
{
	static const unsigned int fid[] = {
		FAN_REPORT_FID, FAN_REPORT_DIR_FID, FAN_REPORT_DFID_NAME,
		FAN_REPORT_FID | FAN_REPORT_DFID_NAME,
		FAN_REPORT_DFID_NAME_TARGET,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fid) / sizeof(fid[0]); i++) {
		will_return(fsgate_init_ext, 0);
		assert_int_equal(fanotify_init(fid[i], O_RDONLY), GROUP);
		assert_int_equal(seen.flags, fid[i]);
	}
	assert_int_equal(init_calls, i);
	assert_int_equal(next_calls + warnings, 0);
}

/*
 * FAN_REPORT_FD_ERROR is FSGATE_REPORT_FD_ERROR, for every class and with
 * FID reporting, as 6.12's fanotify_init() takes it; with
 * FAN_REPORT_PIDFD, read() is told to give errnos in pidfd records too.
 */
static void fd_error_passes_to_fsgate(void **state)
{
	static const unsigned int flags[] = {
		FAN_CLASS_NOTIF, FAN_CLASS_CONTENT, FAN_CLASS_PRE_CONTENT,
		FAN_REPORT_DFID_NAME,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		will_return(fsgate_init_ext, 0);
		assert_int_equal(fanotify_init(flags[i] | 0x00002000, O_RDONLY),
				 GROUP);
		assert_int_equal(seen.flags, flags[i] | FSGATE_REPORT_FD_ERROR);
	}
	assert_int_equal(fd_error_fd, -1);
	will_return(fsgate_init_ext, 0);
	assert_int_equal(fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_PIDFD |
				       0x00002000, O_RDONLY), GROUP);
	assert_int_equal(seen.flags, FSGATE_REPORT_PROC | FSGATE_REPORT_FD_ERROR);
	assert_int_equal(tracked_fd, GROUP);
	assert_int_equal(fd_error_fd, GROUP);
	assert_int_equal(next_calls + warnings, 0);
}

static void expect_mark(unsigned int flags, uint64_t mask, const char *path)
{
	expect_value(fsgate_mark, fd, GROUP);
	expect_value(fsgate_mark, flags, flags);
	expect_value(fsgate_mark, mask, mask);
	expect_value(fsgate_mark, dirfd, AT_FDCWD);
	expect_value(fsgate_mark, pathname, path);
}

static void marks_on_a_group_go_to_fsgate(void **state)
{
	static const char path[] = "/mnt";
	const uint64_t mask = FAN_OPEN_PERM | FAN_CLOSE_WRITE | FAN_ONDIR |
			      FAN_EVENT_ON_CHILD;

	(void)state;
	expect_mark(FAN_MARK_ADD | FAN_MARK_MOUNT, mask, path);
	assert_int_equal(fanotify_mark(GROUP, FAN_MARK_ADD | FAN_MARK_MOUNT,
				       mask, AT_FDCWD, path), 0);
	expect_mark(FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_IGNORED_MASK |
		    FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, path);
	assert_int_equal(fanotify_mark(GROUP, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
				       FAN_MARK_IGNORED_MASK |
				       FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN,
				       AT_FDCWD, path), 0);
	expect_mark(FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR,
		    path);
	assert_int_equal(fanotify_mark(GROUP, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
				       FAN_OPEN | FAN_ONDIR, AT_FDCWD, path), 0);
	expect_mark(FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_OPEN, path);
	assert_int_equal(fanotify_mark(GROUP, FAN_MARK_ADD | FAN_MARK_EVICTABLE,
				       FAN_OPEN, AT_FDCWD, path), 0);
	assert_int_equal(next_calls, 0);
}

static void unserved_mark_flags_are_einval(void **state)
{
	static const unsigned int unserved[] = {
		0x10000,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(unserved) / sizeof(unserved[0]); i++) {
		errno = 0;
		assert_int_equal(fanotify_mark(GROUP, FAN_MARK_ADD | unserved[i],
					       FAN_OPEN, AT_FDCWD, "/"), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(mark_calls + next_calls, 0);
}

/*
 * Under FSGATE_PERSIST a flush, as a daemon makes it on its way out,
 * succeeds and leaves the group's marks; without it the flush is done.
 */
static void persistent_groups_keep_their_marks_on_a_flush(void **state)
{
	static const unsigned int flushes[] = {
		FAN_MARK_FLUSH, FAN_MARK_FLUSH | FAN_MARK_MOUNT,
		FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(flushes) / sizeof(flushes[0]); i++) {
		expect_mark(flushes[i], 0, "/mnt");
		assert_int_equal(fanotify_mark(GROUP, flushes[i], 0, AT_FDCWD,
					       "/mnt"), 0);
	}
	assert_int_equal(mark_calls, 3);
	assert_int_equal(warnings, 0);

	setenv("FSGATE_PERSIST", "fapolicyd", 1);
	for (i = 0; i < sizeof(flushes) / sizeof(flushes[0]); i++)
		assert_int_equal(fanotify_mark(GROUP, flushes[i], 0, AT_FDCWD,
					       "/mnt"), 0);
	assert_int_equal(mark_calls, 3);
	assert_int_equal(warnings, 3);
	assert_non_null(strstr(warning, "leaves the persistent group's marks"));
	/* Adding and removing marks still reach the group. */
	expect_mark(FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM, "/mnt");
	assert_int_equal(fanotify_mark(GROUP, FAN_MARK_ADD | FAN_MARK_MOUNT,
				       FAN_OPEN_PERM, AT_FDCWD, "/mnt"), 0);
	expect_mark(FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_OPEN_PERM, "/mnt");
	assert_int_equal(fanotify_mark(GROUP, FAN_MARK_REMOVE | FAN_MARK_MOUNT,
				       FAN_OPEN_PERM, AT_FDCWD, "/mnt"), 0);
	assert_int_equal(next_calls, 0);
}

static void marks_on_other_fds_go_to_libc(void **state)
{
	(void)state;
	expect_value(next_fanotify_mark, fd, OTHER_FD);
	assert_int_equal(fanotify_mark(OTHER_FD, FAN_MARK_ADD | FAN_MARK_EVICTABLE,
				       FAN_OPEN, AT_FDCWD, "/"), 0);
	assert_int_equal(mark_calls, 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(served_flags_make_an_fsgate_group, setup),
		cmocka_unit_test_setup(environment_sets_priority_and_timeout, setup),
		cmocka_unit_test_setup(bad_environment_is_einval_with_a_warning, setup),
		cmocka_unit_test_setup(unserved_flags_are_einval, setup),
		cmocka_unit_test_setup(pidfd_asks_for_process_records, setup),
		cmocka_unit_test_setup(pidfd_with_tid_is_einval, setup),
		cmocka_unit_test_setup(pidfd_with_process_records_is_einval, setup),
		cmocka_unit_test_setup(untrackable_pidfd_group_is_emfile, setup),
		cmocka_unit_test_setup(environment_sets_layer_options, setup),
		cmocka_unit_test_setup(missing_feature_is_einval_naming_it, setup),
		cmocka_unit_test_setup(pidfd_without_process_records_is_einval, setup),
		cmocka_unit_test_setup(module_without_version_is_asked_anyway, setup),
		cmocka_unit_test_setup(other_errors_pass_unchanged, setup),
		cmocka_unit_test_setup(no_access_to_the_device_is_eperm_as_for_fanotify, setup),
		cmocka_unit_test_setup(missing_module_is_enodev_with_a_warning, setup),
		cmocka_unit_test_setup(missing_module_with_fallback_is_fanotify, setup),
		cmocka_unit_test_setup(fallback_serves_what_fsgate_cannot, setup),
		cmocka_unit_test_setup(fallback_is_not_used_when_fsgate_is_there, setup),
		cmocka_unit_test_setup(fid_flags_pass_to_fsgate, setup),
		cmocka_unit_test_setup(fd_error_passes_to_fsgate, setup),
		cmocka_unit_test_setup(marks_on_a_group_go_to_fsgate, setup),
		cmocka_unit_test_setup(unserved_mark_flags_are_einval, setup),
		cmocka_unit_test_setup(persistent_groups_keep_their_marks_on_a_flush, setup),
		cmocka_unit_test_setup(marks_on_other_fds_go_to_libc, setup),
	};

	return cmocka_run_group_tests_name("preload_fanotify", tests, NULL, NULL);
}
