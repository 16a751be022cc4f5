// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: read() rewrites what a tracked group fd gives and passes every
 * other fd's bytes untouched; close(), dup(), dup2() and dup3() keep the
 * table right, against a fake libc behind the layer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload.h"

#define GROUP 40
#define FILE_FD 41
#define EVENT_LEN (FAN_EVENT_METADATA_LEN + FSGATE_INFO_PROC_LEN_V1)

/* What the fake read() returns: @data, or -1 with @err. */
static unsigned char data[2 * EVENT_LEN];
static ssize_t data_len;
static int err, groups[4], next_fd;

static ssize_t fake_read(int fd, void *buf, size_t count)
{
	(void)fd;
	if (data_len < 0) {
		errno = err;
		return -1;
	}
	assert_true((size_t)data_len <= count);
	memcpy(buf, data, data_len);
	return data_len;
}

static ssize_t fake_read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	assert_true(count <= buflen);
	return fake_read(fd, buf, count);
}

static int fake_close(int fd)
{
	(void)fd;
	return 0;
}

static int fake_dup(int fd)
{
	(void)fd;
	return next_fd;
}

static int fake_dup2(int oldfd, int newfd)
{
	(void)oldfd;
	return newfd;
}

static int fake_dup3(int oldfd, int newfd, int flags)
{
	(void)oldfd, (void)flags;
	return newfd;
}

void *preload_next(const char *name)
{
	static const struct {
		const char *name;
		void *fn;
	} fns[] = {
		{ "read", (void *)fake_read },
		{ "__read_chk", (void *)fake_read_chk },
		{ "close", (void *)fake_close },
		{ "dup", (void *)fake_dup },
		{ "dup2", (void *)fake_dup2 },
		{ "dup3", (void *)fake_dup3 },
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(name, fns[i].name))
			return fns[i].fn;
	fail_msg("unexpected preload_next(%s)", name);
	return NULL;
}

/* The fds that are fsgate groups now. */
bool preload_is_group(int fd)
{
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (groups[i] == fd)
			return true;
	return false;
}

int preload_pidfd_of(const struct fsgate_info_proc *proc)
{
	return 1000 + proc->tgid;
}

int preload_pidfd_errno_of(const struct fsgate_info_proc *proc)
{
	return -proc->tgid;
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);

/* Two events with a process record each, as the module writes them. */
static int setup(void **state)
{
	struct fanotify_event_metadata ev = {
		.event_len = EVENT_LEN,
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = FAN_EVENT_METADATA_LEN,
		.mask = FAN_OPEN,
		.fd = 7,
		.pid = 300,
	};
	struct fsgate_info_proc proc = {
		.hdr.info_type = FSGATE_INFO_PROC,
		.hdr.len = FSGATE_INFO_PROC_LEN_V1,
		.tgid = 300,
	};
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		memcpy(data + i * EVENT_LEN, &ev, sizeof(ev));
		memcpy(data + i * EVENT_LEN + sizeof(ev), &proc, sizeof(proc));
	}
	data_len = sizeof(data);
	memset(groups, -1, sizeof(groups));
	groups[0] = GROUP;
	next_fd = -1;
	for (i = 0; i < PRELOAD_TRACKED_MAX; i++)
		if (preload_tracked(i))
			close(i);
	return 0;
}

static void assert_rewritten(const unsigned char *buf, ssize_t n)
{
	struct fanotify_event_metadata ev;
	struct fanotify_event_info_pidfd rec;

	assert_int_equal(n, 2 * (FAN_EVENT_METADATA_LEN + sizeof(rec)));
	memcpy(&ev, buf, sizeof(ev));
	assert_int_equal(ev.event_len, FAN_EVENT_METADATA_LEN + sizeof(rec));
	memcpy(&rec, buf + sizeof(ev), sizeof(rec));
	assert_int_equal(rec.hdr.info_type, FAN_EVENT_INFO_TYPE_PIDFD);
	assert_int_equal(rec.pidfd, 1300);
}

static void untracked_fd_reads_as_it_came(void **state)
{
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_false(preload_tracked(GROUP));
	assert_int_equal(read(GROUP, buf, sizeof(buf)), sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
}

static void tracked_group_is_rewritten(void **state)
{
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_int_equal(preload_track(GROUP), 0);
	assert_rewritten(buf, read(GROUP, buf, sizeof(buf)));
}

static void fortified_read_is_rewritten(void **state)
{
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_int_equal(preload_track(GROUP), 0);
	assert_rewritten(buf, __read_chk(GROUP, buf, sizeof(buf), sizeof(buf)));
}

static void failed_read_passes_its_errno(void **state)
{
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_int_equal(preload_track(GROUP), 0);
	data_len = -1;
	err = EAGAIN;
	assert_int_equal(read(GROUP, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	data_len = 0;
	assert_int_equal(read(GROUP, buf, sizeof(buf)), 0);
}

/* The number reused by a file, closed where the layer did not see it. */
static void tracked_number_that_is_no_group_reads_as_it_came(void **state)
{
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_int_equal(preload_track(FILE_FD), 0);
	assert_int_equal(read(FILE_FD, buf, sizeof(buf)), sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
}

static void close_forgets_the_fd(void **state)
{
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_int_equal(preload_track(GROUP), 0);
	assert_int_equal(close(GROUP), 0);
	assert_false(preload_tracked(GROUP));
	/* Another group, without pidfds, at the number. */
	assert_int_equal(read(GROUP, buf, sizeof(buf)), sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
}

static void dups_follow_the_fd(void **state)
{
	(void)state;
	assert_int_equal(preload_track(GROUP), 0);
	next_fd = 50;
	assert_int_equal(dup(GROUP), 50);
	assert_true(preload_tracked(50));
	assert_int_equal(dup2(GROUP, 51), 51);
	assert_true(preload_tracked(51));
	assert_int_equal(dup3(GROUP, 52, 0), 52);
	assert_true(preload_tracked(52));
	/* A copy of an untracked fd over a tracked one: no longer tracked. */
	assert_int_equal(dup2(FILE_FD, 50), 50);
	assert_false(preload_tracked(50));
	assert_int_equal(dup3(FILE_FD, 51, 0), 51);
	assert_false(preload_tracked(51));
	assert_true(preload_tracked(GROUP));
	/* dup2() of an fd onto itself changes nothing. */
	preload_track_fd_error(GROUP);
	assert_int_equal(dup2(GROUP, GROUP), GROUP);
	assert_true(preload_tracked(GROUP));
	assert_true(preload_tracked_fd_error(GROUP));
}

/*
 * A FAN_REPORT_FD_ERROR group's pidfd records take their values from
 * preload_pidfd_errno_of() (here -300), its dups' too; close() forgets.
 */
static void fd_error_group_gets_errnos(void **state)
{
	struct fanotify_event_info_pidfd rec;
	unsigned char buf[sizeof(data)];

	(void)state;
	assert_int_equal(preload_track(GROUP), 0);
	preload_track_fd_error(GROUP);
	assert_true(preload_tracked_fd_error(GROUP));
	assert_int_equal(read(GROUP, buf, sizeof(buf)),
			 2 * (FAN_EVENT_METADATA_LEN + sizeof(rec)));
	memcpy(&rec, buf + FAN_EVENT_METADATA_LEN, sizeof(rec));
	assert_int_equal(rec.pidfd, -300);
	next_fd = 50;
	assert_int_equal(dup(GROUP), 50);
	assert_true(preload_tracked_fd_error(50));
	assert_int_equal(dup2(FILE_FD, 50), 50);
	assert_false(preload_tracked_fd_error(50));
	assert_int_equal(close(GROUP), 0);
	assert_false(preload_tracked_fd_error(GROUP));
	/* A group without it at the number again: fanotify's values. */
	assert_int_equal(preload_track(GROUP), 0);
	assert_rewritten(buf, read(GROUP, buf, sizeof(buf)));
}

static void fds_beyond_the_table_are_refused(void **state)
{
	(void)state;
	assert_int_equal(preload_track(PRELOAD_TRACKED_MAX - 1), 0);
	assert_true(preload_tracked(PRELOAD_TRACKED_MAX - 1));
	assert_int_equal(preload_track(PRELOAD_TRACKED_MAX), -1);
	assert_false(preload_tracked(PRELOAD_TRACKED_MAX));
	assert_int_equal(preload_track(-1), -1);
	assert_false(preload_tracked(-1));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(untracked_fd_reads_as_it_came, setup),
		cmocka_unit_test_setup(tracked_group_is_rewritten, setup),
		cmocka_unit_test_setup(fortified_read_is_rewritten, setup),
		cmocka_unit_test_setup(failed_read_passes_its_errno, setup),
		cmocka_unit_test_setup(tracked_number_that_is_no_group_reads_as_it_came, setup),
		cmocka_unit_test_setup(close_forgets_the_fd, setup),
		cmocka_unit_test_setup(dups_follow_the_fd, setup),
		cmocka_unit_test_setup(fd_error_group_gets_errnos, setup),
		cmocka_unit_test_setup(fds_beyond_the_table_are_refused, setup),
	};

	return cmocka_run_group_tests_name("preload_read", tests, NULL, NULL);
}
