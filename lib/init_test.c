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

int __wrap_ioctl(int fd, unsigned long cmd, void *arg)
{
	assert_int_equal(fd, FAKE_DEV);
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

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_passes_its_three_arguments),
		cmocka_unit_test(init_ext_passes_the_whole_struct),
		cmocka_unit_test(missing_module_is_enoent),
		cmocka_unit_test(ioctl_errno_survives_close),
	};

	return cmocka_run_group_tests_name("libfsgate_init", tests, NULL, NULL);
}
