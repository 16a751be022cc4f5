// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* cmocka: the one number and verdict parser, and its edge cases. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/fsgate.h>

#include "parse.h"

/* Each of @bad is refused and leaves the output as it was. */
static void expect_refused(const char *const *bad, size_t n,
			   unsigned long max)
{
	uint32_t v = 4242;
	size_t i;

	for (i = 0; i < n; i++) {
		assert_int_equal(parse_number(bad[i], max, &v), -1);
		assert_int_equal(v, 4242);
	}
}

static void number_takes_digits_up_to_max(void **state)
{
	uint32_t v = 1;

	(void)state;
	assert_int_equal(parse_number("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_number("7", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse_number("10", 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_number("007", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse_number("4294967295", UINT32_MAX, &v), 0);
	assert_int_equal(v, UINT32_MAX);
}

static void number_refuses_space_and_signs(void **state)
{
	static const char *const bad[] = { " 7", "+7", "-7", "-0", "\t7", "\n7" };

	(void)state;
	expect_refused(bad, sizeof(bad) / sizeof(bad[0]), 10);
}

static void number_refuses_trailing_junk(void **state)
{
	static const char *const bad[] = { "7 ", "7x", "7\n", "0x7", "7.0", "1e3" };

	(void)state;
	expect_refused(bad, sizeof(bad) / sizeof(bad[0]), 10000);
}

static void number_refuses_empty_and_null(void **state)
{
	static const char *const bad[] = { "", NULL, " ", "x" };

	(void)state;
	expect_refused(bad, sizeof(bad) / sizeof(bad[0]), 10);
}

static void number_refuses_overflow(void **state)
{
	static const char *const over_max[] = { "11", "65536" };
	static const char *const over_u32[] = {
		"4294967296", "18446744073709551615", "18446744073709551616",
		"99999999999999999999999",
	};

	(void)state;
	expect_refused(over_max, 2, 10);
	expect_refused(over_u32, sizeof(over_u32) / sizeof(over_u32[0]),
		       (unsigned long)-1);
}

static void verdict_is_allow_or_deny_exactly(void **state)
{
	static const char *const bad[] = {
		"", NULL, "Allow", "DENY", " deny", "deny ", "allowed", "1",
	};
	uint32_t v = 0;
	size_t i;

	(void)state;
	assert_int_equal(parse_verdict("allow", &v), 0);
	assert_int_equal(v, FSGATE_VERDICT_ALLOW);
	assert_int_equal(parse_verdict("deny", &v), 0);
	assert_int_equal(v, FSGATE_VERDICT_DENY);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 4242;
		assert_int_equal(parse_verdict(bad[i], &v), -1);
		assert_int_equal(v, 4242);
	}
}

/* A stand-in for fsgate_deny_errno_parse(): EIO only. */
static int eio_only(const char *name)
{
	return strcmp(name, "EIO") ? -1 : EIO;
}

static void absent_is_allow_deny_or_deny_errno(void **state)
{
	uint32_t v = 7, e = 7;

	(void)state;
	assert_int_equal(parse_absent("allow", eio_only, &v, &e), 0);
	assert_int_equal(v, FSGATE_VERDICT_ALLOW);
	assert_int_equal(e, 0);
	assert_int_equal(parse_absent("deny:EIO", eio_only, &v, &e), 0);
	assert_int_equal(v, FSGATE_VERDICT_DENY);
	assert_int_equal(e, EIO);
	assert_int_equal(parse_absent("deny", eio_only, &v, &e), 0);
	assert_int_equal(e, 0);
	v = e = 7;
	assert_int_equal(parse_absent("deny:ENOENT", eio_only, &v, &e), -1);
	assert_int_equal(parse_absent("allow:EIO", eio_only, &v, &e), -1);
	assert_int_equal(parse_absent("deny:", eio_only, &v, &e), -1);
	assert_int_equal(parse_absent(NULL, eio_only, &v, &e), -1);
	assert_int_equal(v, 7);
	assert_int_equal(e, 7);
}

static void persist_takes_a_name_and_bounds(void **state)
{
	struct fsgate_persist p;

	(void)state;
	assert_int_equal(parse_persist("fapolicyd", eio_only, &p), 0);
	assert_string_equal(p.name, "fapolicyd");
	assert_int_equal(p.size, sizeof(p));
	assert_int_equal(p.owner, FSGATE_PERSIST_OWNER_SELF);
	assert_int_equal(p.absent_verdict, FSGATE_VERDICT_DENY);
	assert_int_equal(p.absent_errno, 0);
	assert_int_equal(p.absent_ms, 30000);
	assert_int_equal(p.flags, FSGATE_PERSIST_UNTIL_REMOVED);
	assert_int_equal(p.linger_ms, 0);
	assert_int_equal(parse_persist("scan@1,absent=deny:EIO,absent-ms=0,linger-ms=5000",
				       eio_only, &p), 0);
	assert_string_equal(p.name, "scan@1");
	assert_int_equal(p.absent_errno, EIO);
	assert_int_equal(p.absent_ms, 0);
	assert_int_equal(p.flags, 0);
	assert_int_equal(p.linger_ms, 5000);
}

static void persist_refuses_bad_specs(void **state)
{
	static const char *const bad[] = {
		"", ",absent=allow", "a b", "a/b", "x,absent=maybe", "x,linger-ms=0",
		"x,absent-ms=-1", "x,nosuch=1", "x,", "x,absent=deny:ENOENT",
		"0123456789012345678901234567890123456789012345678901234567890123",
		"-", "-x", ".x", "@x,absent=allow",
	};
	struct fsgate_persist p = { .size = 1 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_persist(bad[i], eio_only, &p), -1);
		assert_int_equal(p.size, 1);
	}
	assert_int_equal(parse_persist(NULL, eio_only, &p), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(number_takes_digits_up_to_max),
		cmocka_unit_test(number_refuses_space_and_signs),
		cmocka_unit_test(number_refuses_trailing_junk),
		cmocka_unit_test(number_refuses_empty_and_null),
		cmocka_unit_test(number_refuses_overflow),
		cmocka_unit_test(verdict_is_allow_or_deny_exactly),
		cmocka_unit_test(absent_is_allow_deny_or_deny_errno),
		cmocka_unit_test(persist_takes_a_name_and_bounds),
		cmocka_unit_test(persist_refuses_bad_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
