// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: syscall() serves the two fanotify numbers and read's, and
 * hands every other one, with all six arguments, to the next syscall().
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload.h"

int preload_fanotify_init(unsigned int flags, unsigned int event_f_flags)
{
	check_expected(flags);
	check_expected(event_f_flags);
	return 42;
}

int preload_fanotify_mark(int fd, unsigned int flags, uint64_t mask,
			 int dirfd, const char *pathname)
{
	check_expected(fd);
	check_expected(flags);
	check_expected(mask);
	check_expected(dirfd);
	check_expected(pathname);
	errno = ENOENT;
	return -1;
}

ssize_t preload_read(int fd, void *buf, size_t count)
{
	check_expected(fd);
	check_expected(buf);
	check_expected(count);
	errno = EAGAIN;
	return -1;
}

static long next_syscall(long number, ...)
{
	va_list ap;
	int i;

	check_expected(number);
	va_start(ap, number);
	for (i = 1; i <= 6; i++)
		assert_int_equal(va_arg(ap, long), 100 + i);
	va_end(ap);
	return 77;
}

void *preload_next(const char *name)
{
	check_expected(name);
	return (void *)next_syscall;
}

static void fanotify_init_number_is_served(void **state)
{
	(void)state;
	expect_value(preload_fanotify_init, flags, FAN_CLASS_CONTENT);
	expect_value(preload_fanotify_init, event_f_flags, O_RDONLY);
	assert_int_equal(syscall(SYS_fanotify_init, FAN_CLASS_CONTENT, O_RDONLY), 42);
}

static void fanotify_mark_number_is_served(void **state)
{
	static const char path[] = "/tmp";

	(void)state;
	expect_value(preload_fanotify_mark, fd, 5);
	expect_value(preload_fanotify_mark, flags, FAN_MARK_ADD | FAN_MARK_MOUNT);
	expect_value(preload_fanotify_mark, mask, FAN_OPEN_PERM | FAN_ONDIR);
	expect_value(preload_fanotify_mark, dirfd, AT_FDCWD);
	expect_value(preload_fanotify_mark, pathname, path);
	errno = 0;
	assert_int_equal(syscall(SYS_fanotify_mark, 5, FAN_MARK_ADD | FAN_MARK_MOUNT,
				 (uint64_t)(FAN_OPEN_PERM | FAN_ONDIR), AT_FDCWD,
				 path), -1);
	assert_int_equal(errno, ENOENT);
}

/* A pidfd group's events are rewritten whichever way they are read. */
static void read_number_is_served(void **state)
{
	char buf[64];

	(void)state;
	expect_value(preload_read, fd, 5);
	expect_value(preload_read, buf, buf);
	expect_value(preload_read, count, sizeof(buf));
	errno = 0;
	assert_int_equal(syscall(SYS_read, 5, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
}

static void other_numbers_go_on_with_six_arguments(void **state)
{
	(void)state;
	expect_string(preload_next, name, "syscall");
	expect_value(next_syscall, number, SYS_getpid);
	assert_int_equal(syscall(SYS_getpid, 101L, 102L, 103L, 104L, 105L, 106L), 77);
	/* The next syscall() is looked up once only. */
	expect_value(next_syscall, number, SYS_gettid);
	assert_int_equal(syscall(SYS_gettid, 101L, 102L, 103L, 104L, 105L, 106L), 77);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(fanotify_init_number_is_served),
		cmocka_unit_test(fanotify_mark_number_is_served),
		cmocka_unit_test(read_number_is_served),
		cmocka_unit_test(other_numbers_go_on_with_six_arguments),
	};

	return cmocka_run_group_tests_name("preload_syscall", tests, NULL, NULL);
}
