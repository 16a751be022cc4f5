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

/*
 * "fsgate.ko is not loaded" alone leaves an operator guessing: the
 * message names where to look, for every errno a missing module gives.
 */
static void missing_module_says_how_to_find_out_why(void **state)
{
	static const struct {
		enum fsgate_call call;
		int errnum;
	} missing[] = {
		{ FSGATE_CALL_INIT, ENOENT },
		{ FSGATE_CALL_INIT, ENXIO },
		{ FSGATE_CALL_INIT, ENODEV },
		{ FSGATE_CALL_VERSION, ENOENT },
		{ FSGATE_CALL_VERSION, ENXIO },
		{ FSGATE_CALL_VERSION, ENODEV },
	};
	const char *text;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		text = fsgate_strerror(missing[i].call, missing[i].errnum);
		assert_non_null(strstr(text, "fsgate.ko is not loaded"));
		assert_non_null(strstr(text, "modprobe fsgate"));
		assert_non_null(strstr(text, "dkms status fsgate"));
		assert_non_null(strstr(text, "mokutil --sb-state"));
	}
}

/*
 * EINVAL is each call's own: the message names what most likely made
 * that call fail first, never strerror()'s "Invalid argument".
 */
static void einval_names_the_likely_cause_of_each_call(void **state)
{
	static const struct {
		enum fsgate_call call;
		const char *likely;
	} einval[] = {
		/* A module not reloaded after an upgrade knows fewer flags. */
		{ FSGATE_CALL_INIT, "likely a flag this fsgate.ko does not know: the loaded module is older than the program" },
		{ FSGATE_CALL_MARK, "likely an event the group cannot take: permission events" },
		{ FSGATE_CALL_READ, "read with a larger buffer" },
		{ FSGATE_CALL_RESPOND, "likely the errno of a deny: only EPERM, EACCES, EIO, EBUSY, ETXTBSY, EAGAIN, ENOSPC and EDQUOT" },
		{ FSGATE_CALL_CACHE_FLUSH, "likely a flag this fsgate.ko does not know" },
		{ FSGATE_CALL_MUTE, "likely an entry its type cannot take: FSGATE_MUTE_DESCENDANTS on anything but a process" },
		{ FSGATE_CALL_FILTER, "a load outside struct fsgate_filter_data" },
		{ FSGATE_CALL_PERSIST, "likely the name: 1 to 63 of" },
		{ FSGATE_CALL_ATTACH, "likely flags this fsgate.ko does not take" },
	};
	const char *text;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(einval) / sizeof(einval[0]); i++) {
		text = fsgate_strerror(einval[i].call, EINVAL);
		if (!strstr(text, einval[i].likely))
			fail_msg("call %d: EINVAL is \"%s\", not \"%s...\"",
				 (int)einval[i].call, text, einval[i].likely);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_errno_means_different_things),
		cmocka_unit_test(other_errno_is_strerror),
		cmocka_unit_test(missing_module_says_how_to_find_out_why),
		cmocka_unit_test(einval_names_the_likely_cause_of_each_call),
	};

	return cmocka_run_group_tests_name("libfsgate_strerror", tests, NULL, NULL);
}
