// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: fsgate_groups_read() finds columns by name in the header, and
 * refuses what is not a group list; parameter names cannot leave the
 * module's directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsgate.h"

static char path[] = "/tmp/fsgate-groups-test-XXXXXX";

static const char *file_with(const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/fsgate-groups-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

#define HEADER "id pid comm class priority marks queued delivered overflows " \
	       "pending asked answered denied timedout orphaned cancelled " \
	       "perm_overflows cached\n"

static void reads_every_group_in_order(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with(HEADER
		  "7 162 hsm pre-content 3000 1 0 5 0 0 5 5 1 0 0 0 0 2\n"
		  "9 170 fsgate-scan content 2000 2 1 8 0 1 9 7 3 1 0 0 0 4\n");
	assert_int_equal(fsgate_groups_read(path, &g), 2);
	assert_int_equal(g[0].id, 7);
	assert_int_equal(g[0].pid, 162);
	assert_string_equal(g[0].comm, "hsm");
	assert_string_equal(g[0].class_name, "pre-content");
	assert_int_equal(g[0].priority, 3000);
	assert_int_equal(g[0].stats.marks, 1);
	assert_int_equal(g[0].stats.cached, 2);
	assert_string_equal(g[1].comm, "fsgate-scan");
	assert_int_equal(g[1].stats.queued, 1);
	assert_int_equal(g[1].stats.pending, 1);
	assert_int_equal(g[1].stats.asked, 9);
	assert_int_equal(g[1].stats.denied, 3);
	assert_int_equal(g[1].stats.timedout, 1);
	free(g);
	unlink(path);
}

/* A later module's extra column, an older one's missing column. */
static void columns_are_found_by_name(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with("priority id newcolumn comm asked\n"
		  "1000 4 xyz monitor 12\n");
	assert_int_equal(fsgate_groups_read(path, &g), 1);
	assert_int_equal(g[0].priority, 1000);
	assert_int_equal(g[0].id, 4);
	assert_string_equal(g[0].comm, "monitor");
	assert_int_equal(g[0].stats.asked, 12);
	assert_int_equal(g[0].stats.cached, 0);
	assert_int_equal(g[0].pid, 0);
	free(g);
	unlink(path);
}

/* The module escapes whitespace and backslashes in comm as \ooo. */
static void an_escaped_comm_is_one_field(void **state)
{
	struct fsgate_group_info *g;

	(void)state;
	file_with("id pid comm class priority asked\n"
		  "3 40 my\\040scan\\012x content 2000 6\n"
		  "5 41 back\\134slash\\ notif 1000 7\n");
	assert_int_equal(fsgate_groups_read(path, &g), 2);
	assert_string_equal(g[0].comm, "my scan\nx");
	assert_string_equal(g[0].class_name, "content");
	assert_int_equal(g[0].stats.asked, 6);
	/* A backslash not followed by three octal digits is itself. */
	assert_string_equal(g[1].comm, "back\\slash\\");
	assert_int_equal(g[1].priority, 1000);
	free(g);
	unlink(path);
}

static void no_groups_is_an_empty_list(void **state)
{
	struct fsgate_group_info *g = (void *)1;

	(void)state;
	file_with(HEADER);
	assert_int_equal(fsgate_groups_read(path, &g), 0);
	assert_null(g);
	unlink(path);
}

static void what_is_not_a_group_list_is_refused(void **state)
{
	static const char *const bad[] = {
		"",				/* no header */
		"pid comm\n1 x\n",		/* no id column */
		"id pid\n1\n",			/* a short line */
		"id pid\n1 2 3\n",		/* a long line */
		"id pid\n1 x\n",		/* not a number */
		"id pid\n1 2",			/* a line cut short */
	};
	struct fsgate_group_info *g;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		file_with(bad[i]);
		errno = 0;
		assert_int_equal(fsgate_groups_read(path, &g), -1);
		assert_int_equal(errno, EBADMSG);
		assert_null(g);
		unlink(path);
	}
	assert_int_equal(fsgate_groups_read("/nonexistent/groups", &g), -1);
	assert_int_equal(errno, ENOENT);
}

static void parameter_names_stay_in_the_module(void **state)
{
	unsigned long long v;

	(void)state;
	errno = 0;
	assert_int_equal(fsgate_param_get("../../../etc/passwd", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_param_set("a/b", 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_param_get("", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_param_get("..", &v), -1);
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_every_group_in_order),
		cmocka_unit_test(columns_are_found_by_name),
		cmocka_unit_test(an_escaped_comm_is_one_field),
		cmocka_unit_test(no_groups_is_an_empty_list),
		cmocka_unit_test(what_is_not_a_group_list_is_refused),
		cmocka_unit_test(parameter_names_stay_in_the_module),
	};

	return cmocka_run_group_tests_name("libfsgate_groups", tests, NULL, NULL);
}
