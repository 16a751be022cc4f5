// SPDX-License-Identifier: GPL-2.0
/* cmocka: fsgatectl params --persist's modprobe.d file, in a temporary directory. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "modconf.h"

struct dir {
	char path[64];
	char file[96];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/modconf_test.XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	snprintf(d->file, sizeof(d->file), "%s/fsgate.conf", d->path);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char path[384];
	struct dirent *e;
	DIR *dir = opendir(d->path);

	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", d->path, e->d_name);
			unlink(path);
		}
	if (dir)
		closedir(dir);
	rmdir(d->path);
	free(d);
	return 0;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *get(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Files in @d's directory: the conf alone, no temporary one left. */
static int files_in(const struct dir *d)
{
	DIR *dir = opendir(d->path);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

static void new_file_gets_a_comment_and_the_options(void **state)
{
	static const char *const set[] = { "max_groups=64", "default_timeout_ms=5000" };
	struct dir *d = *state;
	struct stat st;

	assert_int_equal(modconf_set(d->file, "fsgate", set, 2), 0);
	assert_string_equal(get(d->file),
		"# fsgate's parameters at load, written by fsgatectl params --persist\n"
		"options fsgate max_groups=64 default_timeout_ms=5000\n");
	assert_int_equal(stat(d->file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(files_in(d), 1);
}

static void values_are_replaced_in_place_and_other_lines_kept(void **state)
{
	static const char *const set[] = { "max_marks=9", "max_groups=3" };
	struct dir *d = *state;

	put(d->file, "# mine\n"
		     "options fsgate max_groups=64 fanotify_order=first\n"
		     "options other max_groups=1\n"
		     "options fsgate  max_marks=100\n"
		     "blacklist nothing");
	assert_int_equal(modconf_set(d->file, "fsgate", set, 2), 0);
	assert_string_equal(get(d->file),
		"# mine\n"
		"options fsgate max_groups=3 fanotify_order=first max_marks=9\n"
		"options other max_groups=1\n"
		"blacklist nothing\n");
	assert_int_equal(files_in(d), 1);
}

static void file_without_options_gets_them_at_the_end(void **state)
{
	static const char *const set[] = { "max_mutes=7" };
	struct dir *d = *state;

	put(d->file, "# an administrator's note\n");
	assert_int_equal(modconf_set(d->file, "fsgate", set, 1), 0);
	assert_string_equal(get(d->file), "# an administrator's note\n"
			    "options fsgate max_mutes=7\n");
}

static void malformed_entries_change_nothing(void **state)
{
	static const char *const bad[][1] = {
		{ "max_groups" }, { "=3" }, { "max_groups=3 max_marks=1" },
		{ "max_groups=3\nblacklist fsgate" },
	};
	struct dir *d = *state;
	size_t i;

	put(d->file, "options fsgate max_groups=64\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_int_equal(modconf_set(d->file, "fsgate", bad[i], 1), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_string_equal(get(d->file), "options fsgate max_groups=64\n");
	assert_int_equal(files_in(d), 1);
}

static void missing_directory_fails_with_its_errno(void **state)
{
	static const char *const set[] = { "max_groups=3" };
	struct dir *d = *state;
	char path[128];

	snprintf(path, sizeof(path), "%s/nodir/fsgate.conf", d->path);
	errno = 0;
	assert_int_equal(modconf_set(path, "fsgate", set, 1), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(files_in(d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_file_gets_a_comment_and_the_options,
						setup, teardown),
		cmocka_unit_test_setup_teardown(values_are_replaced_in_place_and_other_lines_kept,
						setup, teardown),
		cmocka_unit_test_setup_teardown(file_without_options_gets_them_at_the_end,
						setup, teardown),
		cmocka_unit_test_setup_teardown(malformed_entries_change_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(missing_directory_fails_with_its_errno,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
