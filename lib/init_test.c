// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: fsgate_init() and fsgate_init_ext() against a fake device.
 * open, ioctl and close are wrapped at link time (-Wl,--wrap=...).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fsgate.h"

#define FAKE_DEV 42
#define FAKE_GROUP 43

static struct fsgate_init seen;
static int closed_fd;

int __wrap_open(const char *path, int flags, ...)
{
	check_expected(path);
	check_expected(flags);
	errno = mock_type(int);
	return errno ? -1 : FAKE_DEV;
}

/* What the fake module says to FSGATE_IOC_VERSION. */
static struct fsgate_version fake_version = {
	.abi = 7,
	.features = FSGATE_FEATURE_CACHE | FSGATE_FEATURE_VERSION,
	.version = "9.8.7",
};

int __wrap_ioctl(int fd, unsigned long cmd, void *arg)
{
	assert_int_equal(fd, FAKE_DEV);
	if (cmd == FSGATE_IOC_VERSION) {
		memcpy(arg, &fake_version, sizeof(fake_version));
		errno = mock_type(int);
		return errno ? -1 : 0;
	}
	assert_int_equal(cmd, FSGATE_IOC_INIT);
	memcpy(&seen, arg, sizeof(seen));
	errno = mock_type(int);
	return errno ? -1 : FAKE_GROUP;
}

int __wrap_close(int fd)
{
	closed_fd = fd;
	errno = EINTR;	/* close() must not clobber ioctl()'s errno */
	return 0;
}

static void expect_open(int err)
{
	expect_string(__wrap_open, path, FSGATE_DEVICE);
	expect_value(__wrap_open, flags, O_RDWR | O_CLOEXEC);
	will_return(__wrap_open, err);
}

static void init_passes_its_three_arguments(void **state)
{
	(void)state;
	expect_open(0);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(fsgate_init(FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC,
				     O_RDONLY | O_LARGEFILE, 2500), FAKE_GROUP);
	assert_int_equal(seen.flags, FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC);
	assert_int_equal(seen.event_f_flags, O_RDONLY | O_LARGEFILE);
	assert_int_equal(seen.priority, 2500);
	assert_int_equal(seen.timeout_ms, FSGATE_TIMEOUT_DEFAULT);
	assert_int_equal(seen.timeout_verdict, FSGATE_VERDICT_DEFAULT);
	assert_int_equal(closed_fd, FAKE_DEV);
}

static void init_ext_passes_the_whole_struct(void **state)
{
	const struct fsgate_init init = {
		.flags = FSGATE_CLASS_PRE_CONTENT,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = 250,
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};

	(void)state;
	expect_open(0);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(fsgate_init_ext(&init), FAKE_GROUP);
	assert_memory_equal(&seen, &init, sizeof(init));
}

static void missing_module_is_enoent(void **state)
{
	(void)state;
	closed_fd = -1;
	expect_open(ENOENT);
	assert_int_equal(fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
				     FSGATE_PRIORITY_DEFAULT), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(closed_fd, -1);
}

static void ioctl_errno_survives_close(void **state)
{
	(void)state;
	expect_open(0);
	will_return(__wrap_ioctl, EINVAL);
	assert_int_equal(fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY, 70000), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(closed_fd, FAKE_DEV);
}

static void version_reports_what_the_module_says(void **state)
{
	struct fsgate_version v;

	(void)state;
	expect_open(0);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(fsgate_version(&v), 0);
	assert_int_equal(v.abi, 7);
	assert_true(v.features == (FSGATE_FEATURE_CACHE | FSGATE_FEATURE_VERSION));
	assert_string_equal(v.version, "9.8.7");
	assert_int_equal(closed_fd, FAKE_DEV);
}

static void version_string_is_always_terminated(void **state)
{
	struct fsgate_version v;

	(void)state;
	memset(fake_version.version, 'x', sizeof(fake_version.version));
	expect_open(0);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(fsgate_version(&v), 0);
	assert_int_equal(strlen(v.version), sizeof(v.version) - 1);
	strcpy(fake_version.version, "9.8.7");
}

static void version_of_an_older_module_is_enotty(void **state)
{
	struct fsgate_version v = { .abi = 99 };

	(void)state;
	expect_open(0);
	will_return(__wrap_ioctl, ENOTTY);
	assert_int_equal(fsgate_version(&v), -1);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(v.abi, 99);
}

static void header_version_matches_the_release(void **state)
{
	char s[32];

	(void)state;
	snprintf(s, sizeof(s), "%d.%d.%d", FSGATE_VERSION_MAJOR,
		 FSGATE_VERSION_MINOR, FSGATE_VERSION_PATCH);
	assert_string_equal(s, FSGATE_VERSION_STRING);
#ifdef VERSION
	assert_string_equal(FSGATE_VERSION_STRING, VERSION);
#endif
	assert_true(FSGATE_VERSION_NUMBER == FSGATE_VERSION_CODE(0, 1, 0) ||
		    FSGATE_VERSION_NUMBER > FSGATE_VERSION_CODE(0, 1, 0));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_passes_its_three_arguments),
		cmocka_unit_test(init_ext_passes_the_whole_struct),
		cmocka_unit_test(missing_module_is_enoent),
		cmocka_unit_test(ioctl_errno_survives_close),
		cmocka_unit_test(version_reports_what_the_module_says),
		cmocka_unit_test(version_string_is_always_terminated),
		cmocka_unit_test(version_of_an_older_module_is_enotty),
		cmocka_unit_test(header_version_matches_the_release),
	};

	return cmocka_run_group_tests_name("libfsgate_init", tests, NULL, NULL);
}
