// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka unit tests for the KTAP/TAP counter; one behaviour per test.
 * CMOCKA_MESSAGE_OUTPUT=TAP makes the runner itself speak TAP.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ktap.h"

#define MAX_FAILS 8

/* What one parse produced: the counts plus each reported failure. */
struct outcome {
	struct ktap_counts c;
	int nfails;
	char fails[MAX_FAILS][KTAP_NAME_MAX];
	/* with list_text(): each leaf as "status path [reason]" */
	int nleaves;
	char leaves[MAX_FAILS][2 * KTAP_NAME_MAX];
};

static struct outcome out;

static void collect_failure(void *ctx, const char *failure)
{
	struct outcome *o = ctx;

	assert_true(o->nfails < MAX_FAILS);
	snprintf(o->fails[o->nfails++], KTAP_NAME_MAX, "%s", failure);
}

static void collect_leaf(void *ctx, enum ktap_status status,
			 const char *path, const char *reason)
{
	static const char *const word[] = { "ok", "not ok", "skip" };
	struct outcome *o = ctx;

	assert_true(o->nleaves < MAX_FAILS);
	snprintf(o->leaves[o->nleaves++], sizeof(o->leaves[0]), "%s %s%s%s",
		 word[status], path, *reason ? " " : "", reason);
}

/* Feed @text line by line, as ktap-count would for one file. */
static void parse_lines(const char *text, bool list)
{
	struct ktap_parser p;
	char *copy = strdup(text), *rest = copy, *line;

	assert_non_null(copy);
	memset(&out, 0, sizeof(out));
	ktap_parser_init(&p, collect_failure, &out);
	if (list)
		ktap_parser_list(&p, collect_leaf, &out);
	while ((line = strsep(&rest, "\n")))
		ktap_parse_line(&p, line);
	out.c = ktap_parser_finish(&p);
	free(copy);
}

static void parse_text(const char *text)
{
	parse_lines(text, false);
}

static void assert_counts(unsigned long passed, unsigned long failed,
			  unsigned long skipped)
{
	assert_int_equal(out.c.passed, passed);
	assert_int_equal(out.c.failed, failed);
	assert_int_equal(out.c.skipped, skipped);
	/* every failure counted must also have been reported */
	assert_int_equal(out.nfails, failed);
}

static void test_flat_tap_all_pass(void **state)
{
	(void)state;
	parse_text("TAP version 13\n1..3\nok 1 a\nok 2 b\nok 3 c\n");
	assert_counts(3, 0, 0);
}

static void test_skip_directive(void **state)
{
	(void)state;
	parse_text("TAP version 13\n1..4\n"
		   "ok 1 a # SKIP no device\n"
		   "ok 2 b # skip\n"
		   "not ok 3 c # TODO not written yet\n"
		   "ok 4 d\n");
	assert_counts(1, 0, 3);
}

static void test_nested_suite_counts_leaves_only(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..1\n"
		   "    KTAP version 1\n"
		   "    # Subtest: fsgate_group\n"
		   "    1..2\n"
		   "    ok 1 init_check_bounds\n"
		   "    not ok 2 init_check_bounds_priority\n"
		   "not ok 1 fsgate_group\n");
	/* the failed parent adds nothing: its failing leaf is reported */
	assert_counts(1, 1, 0);
	assert_string_equal(out.fails[0],
			    "fsgate_group/init_check_bounds_priority");
}

static void test_parent_not_ok_with_passing_leaves_fails(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..1\n"
		   "    KTAP version 1\n"
		   "    # Subtest: suite\n"
		   "    1..2\n"
		   "    ok 1 a\n"
		   "    ok 2 b\n"
		   "not ok 1 suite\n");
	assert_counts(2, 1, 0);
	assert_string_equal(out.fails[0], "suite");
}

static void test_parameterized_path_has_three_parts(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..1\n"
		   "    KTAP version 1\n"
		   "    # Subtest: suite\n"
		   "    1..1\n"
		   "        KTAP version 1\n"
		   "        # Subtest: param_test\n"
		   "        ok 1 param-0\n"
		   "        not ok 2 param-1\n"
		   "        ok 3 # SKIP\n"
		   "    not ok 1 param_test\n"
		   "ok 1 suite\n");
	assert_counts(1, 1, 1);
	assert_string_equal(out.fails[0], "suite/param_test/param-1");
}

static void test_truncated_stream_fails_plan(void **state)
{
	(void)state;
	parse_text("TAP version 13\n1..3\nok 1 a\nok 2 b\n");
	assert_counts(2, 1, 0);
	assert_string_equal(out.fails[0], "plan (expected 3, got 2)");
}

static void test_truncated_nested_stream_names_subtest(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..1\n"
		   "    KTAP version 1\n"
		   "    # Subtest: suite\n"
		   "    1..3\n"
		   "    ok 1 a\n"
		   "    ok 2 b\n"
		   "BUG: kernel NULL pointer dereference\n");
	assert_counts(2, 2, 0);
	assert_string_equal(out.fails[0], "suite/plan (expected 3, got 2)");
	assert_string_equal(out.fails[1], "plan (expected 1, got 0)");
}

static void test_skipped_plan_counts_one_skip(void **state)
{
	(void)state;
	parse_text("TAP version 13\n1..0 # SKIP nothing to do\n");
	assert_counts(0, 0, 1);
}

/* run-suite nests a scenario that found no fatrace under its result. */
static void test_skipped_program_counts_as_skipped(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..2\n"
		   "    1..0 # SKIP fatrace is not in the guest\n"
		   "ok 1 fatrace_scenario_test # SKIP\n"
		   "    TAP version 13\n    1..1\n    ok 1 a\n"
		   "ok 2 other_test\n");
	assert_counts(1, 0, 1);
}

static void test_empty_plan_without_skip_fails(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..1\n"
		   "    TAP version 13\n    1..0\n"
		   "ok 1 quiet_test\n");
	assert_counts(0, 1, 0);
	assert_string_equal(out.fails[0], "quiet_test/plan (1..0: nothing ran)");
}

static void test_dmesg_timestamps_stripped(void **state)
{
	(void)state;
	parse_text("[    2.345000] KTAP version 1\n"
		   "[    2.345100] 1..1\n"
		   "[    2.345200]     KTAP version 1\n"
		   "[    2.345300]     # Subtest: fsgate_group\n"
		   "[    2.345400]     1..2\n"
		   "[    2.345500]     ok 1 - case_ok\n"
		   "[    2.345678]     not ok 2 - case_name\n"
		   "[    2.345700] not ok 1 - fsgate_group\n");
	assert_counts(1, 1, 0);
	assert_string_equal(out.fails[0], "fsgate_group/case_name");
}

static void test_kernel_noise_ignored(void **state)
{
	(void)state;
	parse_text("[    0.000000] Linux version 6.1.0\n"
		   "fsgate: loading out-of-tree module taints kernel.\n"
		   "TAP version 13\n1..1\n"
		   "    random indented output\n"
		   "okay then\n"
		   "not okay\n"
		   "ok 1 a\n"
		   "[    3.1] reboot: Power down\n");
	assert_counts(1, 0, 0);
}

static void test_dash_form(void **state)
{
	(void)state;
	parse_text("TAP version 14\n1..2\nok 1 - first\nnot ok 2 - second\n");
	assert_counts(1, 1, 0);
	assert_string_equal(out.fails[0], "second");
}

static void test_two_concatenated_streams(void **state)
{
	(void)state;
	parse_text("KTAP version 1\n1..1\n"
		   "    KTAP version 1\n    # Subtest: one\n    1..1\n"
		   "    ok 1 a\n"
		   "ok 1 one\n"
		   "KTAP version 1\n1..1\n"
		   "    KTAP version 1\n    # Subtest: two\n    1..1\n"
		   "    not ok 1 b\n"
		   "not ok 1 two\n");
	assert_counts(1, 1, 0);
	assert_string_equal(out.fails[0], "two/b");
}

static void test_new_stream_checks_previous_plan(void **state)
{
	(void)state;
	parse_text("TAP version 13\n1..2\nok 1 a\n"
		   "TAP version 13\n1..1\nok 1 b\n");
	assert_counts(2, 1, 0);
	assert_string_equal(out.fails[0], "plan (expected 2, got 1)");
}

static void test_empty_input_counts_nothing(void **state)
{
	(void)state;
	parse_text("");
	assert_counts(0, 0, 0);
}

static void test_kselftest_harness_output(void **state)
{
	(void)state;
	parse_text("TAP version 13\n"
		   "1..2\n"
		   "# Starting 2 tests from 1 test cases.\n"
		   "#  RUN           global.first ...\n"
		   "#            OK  global.first\n"
		   "ok 1 global.first\n"
		   "#  RUN           global.second ...\n"
		   "# second: Test terminated by assertion\n"
		   "#          FAIL  global.second\n"
		   "not ok 2 global.second\n"
		   "# FAILED: 1 / 2 tests passed.\n"
		   "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0\n");
	assert_counts(1, 1, 0);
	assert_string_equal(out.fails[0], "global.second");
}

/*
 * The list names every leaf by its path: a case 6.1's kselftest harness
 * skipped without a name takes the one its "RUN" line gave, a skipped
 * program (nested "1..0 # SKIP") its parent's, a KUnit case its suite's.
 */
static void test_list_names_every_leaf(void **state)
{
	(void)state;
	parse_lines("KTAP version 1\n1..3\n"
		    "    TAP version 13\n    1..2\n"
		    "    #  RUN           audit.first ...\n"
		    "    ok 1 audit.first\n"
		    "    #  RUN           audit.rule ...\n"
		    "    #      SKIP      no rule\n"
		    "    ok 2 # SKIP no rule\n"
		    "ok 1 audit_test\n"
		    "    1..0 # SKIP fatrace is not in the guest\n"
		    "ok 2 fatrace_scenario_test # SKIP\n"
		    "    KTAP version 1\n    # Subtest: fsgate_info\n    1..2\n"
		    "    ok 1 parse # SKIP old audit\n"
		    "    not ok 2 other\n"
		    "not ok 3 fsgate_info\n", true);
	assert_counts(1, 1, 3);
	assert_int_equal(out.nleaves, 5);
	assert_string_equal(out.leaves[0], "ok audit_test/audit.first");
	assert_string_equal(out.leaves[1], "skip audit_test/audit.rule no rule");
	assert_string_equal(out.leaves[2],
			    "skip fatrace_scenario_test fatrace is not in the guest");
	assert_string_equal(out.leaves[3], "skip fsgate_info/parse old audit");
	assert_string_equal(out.leaves[4], "not ok fsgate_info/other");
}

static void test_stream_with_crlf(void **state)
{
	static char text[] = "TAP version 13\r\n1..1\r\nnot ok 1 crlf\r\n";
	struct ktap_parser p;
	FILE *f = fmemopen(text, strlen(text), "r");

	(void)state;
	assert_non_null(f);
	memset(&out, 0, sizeof(out));
	ktap_parser_init(&p, collect_failure, &out);
	assert_int_equal(ktap_parse_stream(&p, f), 0);
	out.c = ktap_parser_finish(&p);
	fclose(f);
	assert_counts(0, 1, 0);
	assert_string_equal(out.fails[0], "crlf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_tap_all_pass),
		cmocka_unit_test(test_skip_directive),
		cmocka_unit_test(test_nested_suite_counts_leaves_only),
		cmocka_unit_test(test_parent_not_ok_with_passing_leaves_fails),
		cmocka_unit_test(test_parameterized_path_has_three_parts),
		cmocka_unit_test(test_truncated_stream_fails_plan),
		cmocka_unit_test(test_truncated_nested_stream_names_subtest),
		cmocka_unit_test(test_skipped_plan_counts_one_skip),
		cmocka_unit_test(test_skipped_program_counts_as_skipped),
		cmocka_unit_test(test_empty_plan_without_skip_fails),
		cmocka_unit_test(test_dmesg_timestamps_stripped),
		cmocka_unit_test(test_kernel_noise_ignored),
		cmocka_unit_test(test_dash_form),
		cmocka_unit_test(test_two_concatenated_streams),
		cmocka_unit_test(test_new_stream_checks_previous_plan),
		cmocka_unit_test(test_empty_input_counts_nothing),
		cmocka_unit_test(test_kselftest_harness_output),
		cmocka_unit_test(test_stream_with_crlf),
		cmocka_unit_test(test_list_names_every_leaf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
