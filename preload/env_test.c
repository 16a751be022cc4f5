// SPDX-License-Identifier: LGPL-2.1-or-later
/* cmocka: the layer's variables are parsed strictly, defaults when unset. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload.h"

static const char *const names[] = {
	"FSGATE_PRIORITY", "FSGATE_TIMEOUT_MS", "FSGATE_TIMEOUT_VERDICT",
	"FSGATE_FALLBACK", "FSGATE_ORPHAN_VERDICT", "FSGATE_EXCLUDE_SELF",
	"FSGATE_REPORT_PROC", "FSGATE_PERSIST",
};

static int clean(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
	return 0;
}

static void priority_is_0_to_65535(void **state)
{
	uint32_t p = 7;

	(void)state;
	assert_int_equal(preload_parse_priority("0", &p), 0);
	assert_int_equal(p, 0);
	assert_int_equal(preload_parse_priority("65535", &p), 0);
	assert_int_equal(p, 65535);
	assert_int_equal(preload_parse_priority("65536", &p), -1);
	assert_int_equal(preload_parse_priority("-1", &p), -1);
	assert_int_equal(preload_parse_priority(" 5", &p), -1);
	assert_int_equal(preload_parse_priority("5x", &p), -1);
	assert_int_equal(preload_parse_priority("", &p), -1);
	assert_int_equal(preload_parse_priority("99999999999999999999", &p), -1);
	assert_int_equal(p, 65535);
}

static void timeout_is_milliseconds_or_none(void **state)
{
	uint32_t t = 7;

	(void)state;
	assert_int_equal(preload_parse_timeout("250", &t), 0);
	assert_int_equal(t, 250);
	assert_int_equal(preload_parse_timeout("none", &t), 0);
	assert_int_equal(t, FSGATE_TIMEOUT_NONE);
	/* The bound's own value is spelt "none", never as a number. */
	assert_int_equal(preload_parse_timeout("4294967295", &t), -1);
	assert_int_equal(preload_parse_timeout("4294967294", &t), 0);
	assert_int_equal(preload_parse_timeout("never", &t), -1);
}

static void verdict_is_allow_or_deny(void **state)
{
	uint32_t v = 7;

	(void)state;
	assert_int_equal(preload_parse_verdict("allow", &v), 0);
	assert_int_equal(v, FSGATE_VERDICT_ALLOW);
	assert_int_equal(preload_parse_verdict("deny", &v), 0);
	assert_int_equal(v, FSGATE_VERDICT_DENY);
	assert_int_equal(preload_parse_verdict("DENY", &v), -1);
	assert_int_equal(preload_parse_verdict("", &v), -1);
}

/* Every 0|1 variable: exactly "0" or "1". */
static void switch_is_0_or_1(void **state)
{
	static const char *const bad[] = {
		"", "yes", "true", "01", "1 ", " 1", "2", "-1", "on",
	};
	bool b = false;
	size_t i;

	(void)state;
	assert_int_equal(preload_parse_switch("1", &b), 0);
	assert_true(b);
	assert_int_equal(preload_parse_switch("0", &b), 0);
	assert_false(b);
	b = true;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(preload_parse_switch(bad[i], &b), -1);
	assert_int_equal(preload_parse_switch(NULL, &b), -1);
	assert_true(b);
}

static void unset_variables_give_defaults(void **state)
{
	struct preload_env env;

	(void)state;
	assert_null(preload_env_read(&env));
	assert_int_equal(env.priority, FSGATE_PRIORITY_DEFAULT);
	assert_int_equal(env.timeout_ms, FSGATE_TIMEOUT_DEFAULT);
	assert_int_equal(env.timeout_verdict, FSGATE_VERDICT_DEFAULT);
	assert_int_equal(env.orphan_verdict, FSGATE_VERDICT_DEFAULT);
	assert_false(env.fallback);
	assert_false(env.exclude_self);
	assert_false(env.report_proc);
	assert_false(env.persist);
}

static void set_variables_are_read(void **state)
{
	struct preload_env env;

	(void)state;
	setenv("FSGATE_PRIORITY", "2500", 1);
	setenv("FSGATE_TIMEOUT_MS", "100", 1);
	setenv("FSGATE_TIMEOUT_VERDICT", "deny", 1);
	setenv("FSGATE_FALLBACK", "1", 1);
	setenv("FSGATE_ORPHAN_VERDICT", "deny", 1);
	setenv("FSGATE_EXCLUDE_SELF", "1", 1);
	setenv("FSGATE_REPORT_PROC", "1", 1);
	setenv("FSGATE_PERSIST", "fapolicyd,absent=deny:EIO,absent-ms=5000", 1);
	assert_null(preload_env_read(&env));
	assert_true(env.persist);
	assert_string_equal(env.persist_req.name, "fapolicyd");
	assert_int_equal(env.persist_req.absent_errno, EIO);
	assert_int_equal(env.persist_req.absent_ms, 5000);
	assert_int_equal(env.priority, 2500);
	assert_int_equal(env.timeout_ms, 100);
	assert_int_equal(env.timeout_verdict, FSGATE_VERDICT_DENY);
	assert_int_equal(env.orphan_verdict, FSGATE_VERDICT_DENY);
	assert_true(env.fallback);
	assert_true(env.exclude_self);
	assert_true(env.report_proc);
}

/* Each variable's bad value is named, with what it wants. */
static void bad_value_is_named(void **state)
{
	static const struct {
		const char *name, *value, *said;
	} bad[] = {
		{ "FSGATE_TIMEOUT_VERDICT", "maybe", "FSGATE_TIMEOUT_VERDICT=maybe" },
		{ "FSGATE_FALLBACK", "yes", "FSGATE_FALLBACK=yes is not valid: want 0 or 1" },
		{ "FSGATE_ORPHAN_VERDICT", "reject",
		  "FSGATE_ORPHAN_VERDICT=reject is not valid: want \"allow\" or \"deny\"" },
		{ "FSGATE_EXCLUDE_SELF", "true", "FSGATE_EXCLUDE_SELF=true" },
		{ "FSGATE_REPORT_PROC", "2", "FSGATE_REPORT_PROC=2" },
		{ "FSGATE_PERSIST", "a b", "FSGATE_PERSIST=a b is not valid: want NAME[," },
	};
	struct preload_env env;
	const char *msg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i].name, bad[i].value, 1);
		msg = preload_env_read(&env);
		assert_non_null(msg);
		assert_non_null(strstr(msg, bad[i].said));
		unsetenv(bad[i].name);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(priority_is_0_to_65535),
		cmocka_unit_test(timeout_is_milliseconds_or_none),
		cmocka_unit_test(verdict_is_allow_or_deny),
		cmocka_unit_test(switch_is_0_or_1),
		cmocka_unit_test_setup(unset_variables_give_defaults, clean),
		cmocka_unit_test_setup(set_variables_are_read, clean),
		cmocka_unit_test_setup(bad_value_is_named, clean),
	};

	return cmocka_run_group_tests_name("preload_env", tests, NULL, NULL);
}
