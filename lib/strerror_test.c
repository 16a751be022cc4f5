// SPDX-License-Identifier: LGPL-2.1-or-later
/* cmocka: fsgate_strerror() says what an errno means for its call. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fsgate.h"

static void same_errno_means_different_things(void **state)
{
	(void)state;
	assert_non_null(strstr(fsgate_strerror(FSGATE_CALL_INIT, ENOENT),
			       "not loaded"));
	assert_non_null(strstr(fsgate_strerror(FSGATE_CALL_MARK, ENOENT),
			       "no such path"));
	assert_non_null(strstr(fsgate_strerror(FSGATE_CALL_RESPOND, ENOENT),
			       "pending"));
}

static void other_errno_is_strerror(void **state)
{
	(void)state;
	assert_string_equal(fsgate_strerror(FSGATE_CALL_STATS, EFAULT),
			    strerror(EFAULT));
	assert_string_equal(fsgate_strerror(FSGATE_CALL_INIT, ENOMEM),
			    strerror(ENOMEM));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_errno_means_different_things),
		cmocka_unit_test(other_errno_is_strerror),
	};

	return cmocka_run_group_tests_name("libfsgate_strerror", tests, NULL, NULL);
}
