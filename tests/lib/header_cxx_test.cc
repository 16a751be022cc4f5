// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka, built as C++: <fsgate.h> and the uapi header it includes
 * compile in a C++ program (no member named after a C++ keyword, the
 * extern "C" block), with the same layouts as in C.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h declares its functions without extern "C". */
extern "C" {
#include <cmocka.h>
}

#include <fsgate.h>

static void layouts_are_those_of_c(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct fsgate_group_entry),
			 FSGATE_GROUP_ENTRY_SIZE_VER2);
	assert_int_equal(offsetof(struct fsgate_group_entry, name),
			 FSGATE_GROUP_ENTRY_SIZE_VER0);
	assert_int_equal(offsetof(struct fsgate_group_entry, timeout_ms),
			 FSGATE_GROUP_ENTRY_SIZE_VER1);
	assert_int_equal(sizeof(struct fsgate_groups), 40);
	assert_int_equal(offsetof(struct fsgate_group_entry, stats), 48);
	assert_int_equal(sizeof(struct fsgate_version), 80);
	assert_int_equal(sizeof(struct fsgate_init), 64);
	assert_int_equal(offsetof(struct fsgate_group_info, attached),
			 sizeof(uint64_t) * 29);
	assert_int_equal(offsetof(struct fsgate_group_info, timeout_ms) % 8, 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts_are_those_of_c),
	};

	return cmocka_run_group_tests_name("header_cxx", tests, NULL, NULL);
}
