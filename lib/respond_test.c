// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: fsgate_respond(), fsgate_respond_batch() and
 * fsgate_respond_rule() against a fake
 * group fd. write is wrapped at link time (-Wl,--wrap=write); each call
 * takes from the queue how many responses it accepts, or an errno.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsgate.h"

#define GROUP 7
#define SIZE sizeof(struct fanotify_response)

static struct fanotify_response last;
static unsigned char last_bytes[64];
static size_t writes;

/* will_return: responses the fake takes, or -errno. */
ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	int taken = mock_type(int);

	assert_int_equal(fd, GROUP);
	assert_int_equal(count % SIZE, 0);
	check_expected(count);
	memcpy(&last, buf, SIZE);
	memcpy(last_bytes, buf, count < sizeof(last_bytes) ? count : sizeof(last_bytes));
	writes++;
	if (taken < 0) {
		errno = -taken;
		return -1;
	}
	return taken * SIZE;
}

static void expect_write(size_t count, int taken)
{
	expect_value(__wrap_write, count, count * SIZE);
	will_return(__wrap_write, taken);
}

static struct fanotify_response many[3 * FSGATE_RESPONSE_MAX];

static int setup(void **state)
{
	size_t i;

	(void)state;
	writes = 0;
	for (i = 0; i < sizeof(many) / SIZE; i++)
		many[i] = (struct fanotify_response){ .fd = 100 + (int)i,
						      .response = FSGATE_ALLOW };
	return 0;
}

static void respond_writes_one_response(void **state)
{
	(void)state;
	expect_write(1, 1);
	assert_int_equal(fsgate_respond(GROUP, 12,
					FSGATE_DENY_ERRNO(EIO) | FSGATE_CACHE), 0);
	assert_int_equal(last.fd, 12);
	assert_int_equal(last.response, FSGATE_DENY | FSGATE_CACHE |
			 ((uint32_t)EIO << FSGATE_ERRNO_SHIFT));
}

static void respond_passes_the_errno_on(void **state)
{
	(void)state;
	expect_write(1, -ENOENT);
	assert_int_equal(fsgate_respond(GROUP, 12, FSGATE_ALLOW), -1);
	assert_int_equal(errno, ENOENT);
}

static void batch_is_one_write_up_to_the_maximum(void **state)
{
	size_t done = 99;

	(void)state;
	expect_write(FSGATE_RESPONSE_MAX, FSGATE_RESPONSE_MAX);
	assert_int_equal(fsgate_respond_batch(GROUP, many, FSGATE_RESPONSE_MAX,
					      &done), 0);
	assert_int_equal(done, FSGATE_RESPONSE_MAX);
	assert_int_equal(writes, 1);
}

static void larger_batch_is_split(void **state)
{
	size_t done;

	(void)state;
	expect_write(FSGATE_RESPONSE_MAX, FSGATE_RESPONSE_MAX);
	expect_write(5, 5);
	assert_int_equal(fsgate_respond_batch(GROUP, many,
					      FSGATE_RESPONSE_MAX + 5, &done), 0);
	assert_int_equal(done, FSGATE_RESPONSE_MAX + 5);
	assert_int_equal(last.fd, 100 + FSGATE_RESPONSE_MAX);
}

static void refused_write_tells_how_many_were_taken(void **state)
{
	size_t done;

	(void)state;
	expect_write(FSGATE_RESPONSE_MAX, FSGATE_RESPONSE_MAX);
	expect_write(FSGATE_RESPONSE_MAX, -EINVAL);
	assert_int_equal(fsgate_respond_batch(GROUP, many,
					      2 * FSGATE_RESPONSE_MAX + 1, &done), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(done, FSGATE_RESPONSE_MAX);
}

/* In-tree fanotify takes one response per write(). */
static void one_per_write_fd_gets_the_rest(void **state)
{
	size_t done;

	(void)state;
	expect_write(3, 1);
	expect_write(2, 1);
	expect_write(1, 1);
	assert_int_equal(fsgate_respond_batch(GROUP, many, 3, &done), 0);
	assert_int_equal(done, 3);
	assert_int_equal(last.fd, 102);
}

static void interrupted_write_is_retried(void **state)
{
	(void)state;
	expect_write(2, -EINTR);
	expect_write(2, 2);
	assert_int_equal(fsgate_respond_batch(GROUP, many, 2, NULL), 0);
}

static void write_that_takes_nothing_is_eio(void **state)
{
	size_t done;

	(void)state;
	expect_write(2, 0);
	assert_int_equal(fsgate_respond_batch(GROUP, many, 2, &done), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(done, 0);
}

static void empty_batch_writes_nothing(void **state)
{
	size_t done = 99;

	(void)state;
	assert_int_equal(fsgate_respond_batch(GROUP, many, 0, &done), 0);
	assert_int_equal(done, 0);
	assert_int_equal(writes, 0);
}

static const struct fsgate_response_audit_rule rule = {
	.type = FSGATE_RESPONSE_INFO_AUDIT_RULE,
	.len = sizeof(struct fsgate_response_audit_rule),
	.rule_number = 0x3137,
	.subj_trust = 1,
	.obj_trust = 0,
};

/* fanotify's FAN_INFO layout: the response, then the rule, one write(). */
static void respond_rule_writes_response_then_rule(void **state)
{
	struct fsgate_response_audit_rule got;

	(void)state;
	expect_write(3, 3);
	assert_int_equal(fsgate_respond_rule(GROUP, 12,
					     FSGATE_DENY | FSGATE_AUDIT, &rule), 0);
	assert_int_equal(writes, 1);
	assert_int_equal(last.fd, 12);
	assert_int_equal(last.response, FSGATE_DENY | FSGATE_AUDIT | FSGATE_INFO);
	memcpy(&got, last_bytes + SIZE, sizeof(got));
	assert_memory_equal(&got, &rule, sizeof(rule));
}

static void respond_rule_passes_the_errno_on(void **state)
{
	(void)state;
	expect_write(3, -EINVAL);
	assert_int_equal(fsgate_respond_rule(GROUP, 12, FSGATE_ALLOW, &rule), -1);
	assert_int_equal(errno, EINVAL);
}

static void respond_rule_short_write_is_eio(void **state)
{
	(void)state;
	expect_write(3, 1);
	assert_int_equal(fsgate_respond_rule(GROUP, 12, FSGATE_ALLOW, &rule), -1);
	assert_int_equal(errno, EIO);
}

static void respond_rule_without_rule_is_einval(void **state)
{
	(void)state;
	assert_int_equal(fsgate_respond_rule(GROUP, 12, FSGATE_ALLOW, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(writes, 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(respond_writes_one_response, setup),
		cmocka_unit_test_setup(respond_passes_the_errno_on, setup),
		cmocka_unit_test_setup(batch_is_one_write_up_to_the_maximum, setup),
		cmocka_unit_test_setup(larger_batch_is_split, setup),
		cmocka_unit_test_setup(refused_write_tells_how_many_were_taken, setup),
		cmocka_unit_test_setup(one_per_write_fd_gets_the_rest, setup),
		cmocka_unit_test_setup(interrupted_write_is_retried, setup),
		cmocka_unit_test_setup(write_that_takes_nothing_is_eio, setup),
		cmocka_unit_test_setup(empty_batch_writes_nothing, setup),
		cmocka_unit_test_setup(respond_rule_writes_response_then_rule, setup),
		cmocka_unit_test_setup(respond_rule_passes_the_errno_on, setup),
		cmocka_unit_test_setup(respond_rule_short_write_is_eio, setup),
		cmocka_unit_test_setup(respond_rule_without_rule_is_einval, setup),
	};

	return cmocka_run_group_tests_name("libfsgate_respond", tests, NULL, NULL);
}
