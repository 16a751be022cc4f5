// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: event masks to and from names, deny errnos by name, and what
 * /proc tells of an event's file and process.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsgate.h"

static void names_and_sets_parse(void **state)
{
	uint64_t mask = 0;

	(void)state;
	assert_int_equal(fsgate_mask_parse("open", &mask, NULL), 0);
	assert_int_equal(mask, FAN_OPEN);
	assert_int_equal(fsgate_mask_parse("OPEN,close_write,Access", &mask,
					   NULL), 0);
	assert_int_equal(mask, FAN_OPEN | FAN_CLOSE_WRITE | FAN_ACCESS);
	assert_int_equal(fsgate_mask_parse("close", &mask, NULL), 0);
	assert_int_equal(mask, FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE);
	assert_int_equal(fsgate_mask_parse("all", &mask, NULL), 0);
	assert_int_equal(mask, FSGATE_NOTIF_EVENTS);
	assert_int_equal(fsgate_mask_parse("perm,open_exec", &mask, NULL), 0);
	assert_int_equal(mask, FSGATE_PERM_EVENTS | FAN_OPEN_EXEC);
}

/* A prefix of a name is not the name: "open" is not "open_exec". */
static void unknown_or_empty_names_fail_and_say_where(void **state)
{
	uint64_t mask = 7;
	size_t bad = 99;

	(void)state;
	errno = 0;
	assert_int_equal(fsgate_mask_parse("open,opn", &mask, &bad), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(bad, 5);
	assert_int_equal(mask, 7);
	assert_int_equal(fsgate_mask_parse("open_", &mask, &bad), -1);
	assert_int_equal(bad, 0);
	assert_int_equal(fsgate_mask_parse("open,,access", &mask, &bad), -1);
	assert_int_equal(bad, 5);
	assert_int_equal(fsgate_mask_parse("", &mask, &bad), -1);
	assert_int_equal(fsgate_mask_parse("open,", &mask, &bad), -1);
	assert_int_equal(bad, 5);
}

static void masks_format_in_a_fixed_order(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(fsgate_mask_format(FAN_CLOSE_NOWRITE | FAN_OPEN,
					    buf, sizeof(buf)),
			 strlen("CLOSE_NOWRITE,OPEN"));
	assert_string_equal(buf, "CLOSE_NOWRITE,OPEN");
	fsgate_mask_format(FAN_OPEN_PERM, buf, sizeof(buf));
	assert_string_equal(buf, "OPEN_PERM");
	fsgate_mask_format(FAN_OPEN | FAN_ONDIR, buf, sizeof(buf));
	assert_string_equal(buf, "OPEN,ONDIR");
	assert_int_equal(fsgate_mask_format(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

/* Too small a buffer gets the empty string and the length it needed. */
static void format_never_writes_past_the_buffer(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(fsgate_mask_format(FAN_CLOSE_WRITE | FAN_OPEN, buf, 6),
			 strlen("CLOSE_WRITE,OPEN"));
	assert_string_equal(buf, "");
	assert_int_equal(buf[6], 'x');
	assert_int_equal(fsgate_mask_format(FAN_OPEN, buf, 4), 4);
	assert_string_equal(buf, "");
	assert_int_equal(fsgate_mask_format(FAN_OPEN, buf, 5), 4);
	assert_string_equal(buf, "OPEN");
}

static void format_and_parse_round_trip(void **state)
{
	uint64_t in = FAN_ACCESS | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_OPEN_EXEC;
	uint64_t out;
	char buf[128];

	(void)state;
	fsgate_mask_format(in, buf, sizeof(buf));
	assert_int_equal(fsgate_mask_parse(buf, &out, NULL), 0);
	assert_int_equal(out, in);
}

static void deny_errnos_by_name(void **state)
{
	(void)state;
	assert_int_equal(fsgate_deny_errno_parse("EPERM"), EPERM);
	assert_int_equal(fsgate_deny_errno_parse("eio"), EIO);
	assert_int_equal(fsgate_deny_errno_parse("ETXTBSY"), ETXTBSY);
	assert_int_equal(fsgate_deny_errno_parse("EACCES"), EACCES);
	errno = 0;
	assert_int_equal(fsgate_deny_errno_parse("ENOENT"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fsgate_deny_errno_parse("EPERMX"), -1);
	assert_string_equal(fsgate_deny_errno_name(EDQUOT), "EDQUOT");
	assert_null(fsgate_deny_errno_name(ENOENT));
}

static void fd_path_names_the_file(void **state)
{
	char tmpl[] = "/tmp/fsgate-describe-XXXXXX", buf[256], tiny[4];
	int fd = mkstemp(tmpl);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fsgate_fd_path(fd, buf, sizeof(buf)), 0);
	assert_string_equal(buf, tmpl);
	errno = 0;
	assert_int_equal(fsgate_fd_path(fd, tiny, sizeof(tiny)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	unlink(tmpl);
	close(fd);
	assert_int_equal(fsgate_fd_path(fd, buf, sizeof(buf)), -1);
}

static void own_process_comm_and_uid(void **state)
{
	char comm[16];
	uid_t uid = (uid_t)-1;

	(void)state;
	assert_int_equal(fsgate_pid_comm(getpid(), comm, sizeof(comm)), 0);
	assert_non_null(strstr("libfsgate_describe_test", comm));
	assert_int_equal(fsgate_pid_uid(getpid(), &uid), 0);
	assert_int_equal(uid, getuid());
	/* pid_max is at most 2^22: this one cannot exist. */
	assert_int_equal(fsgate_pid_comm(1 << 23, comm, sizeof(comm)), -1);
	assert_int_equal(fsgate_pid_uid(1 << 23, &uid), -1);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_sets_parse),
		cmocka_unit_test(unknown_or_empty_names_fail_and_say_where),
		cmocka_unit_test(masks_format_in_a_fixed_order),
		cmocka_unit_test(format_never_writes_past_the_buffer),
		cmocka_unit_test(format_and_parse_round_trip),
		cmocka_unit_test(deny_errnos_by_name),
		cmocka_unit_test(fd_path_names_the_file),
		cmocka_unit_test(own_process_comm_and_uid),
	};

	return cmocka_run_group_tests_name("libfsgate_describe", tests, NULL, NULL);
}
