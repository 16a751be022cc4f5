// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* cmocka: the one number and verdict parser, and its edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(number_takes_digits_up_to_max),
		cmocka_unit_test(number_refuses_space_and_signs),
		cmocka_unit_test(number_refuses_trailing_junk),
		cmocka_unit_test(number_refuses_empty_and_null),
		cmocka_unit_test(number_refuses_overflow),
		cmocka_unit_test(verdict_is_allow_or_deny_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
