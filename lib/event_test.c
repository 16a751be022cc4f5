// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: fsgate_event_next() hands out whole, sound records only, and
 * stops for good at the first one that is not.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsgate.h"

#define LEN FAN_EVENT_METADATA_LEN

static union {
	struct fanotify_event_metadata ev[4];
	unsigned char bytes[4 * LEN + 16];
} buf;

static void put(int i, uint32_t event_len, int fd)
{
	buf.ev[i] = (struct fanotify_event_metadata){
		.event_len = event_len,
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = LEN,
		.mask = FAN_OPEN,
		.fd = fd,
		.pid = 100 + i,
	};
}

static void walks_every_record_in_order(void **state)
{
	struct fsgate_events it;
	const struct fanotify_event_metadata *ev;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		put(i, LEN, 10 + i);
	fsgate_events_init(&it, &buf, 3 * LEN);
	for (i = 0; i < 3; i++) {
		ev = fsgate_event_next(&it);
		assert_non_null(ev);
		assert_ptr_equal(ev, &buf.ev[i]);
		assert_int_equal(ev->fd, 10 + i);
	}
	assert_null(fsgate_event_next(&it));
	assert_int_equal(it.error, 0);
}

static void longer_record_is_stepped_over_whole(void **state)
{
	struct fsgate_events it;

	(void)state;
	put(0, 2 * LEN, 10);
	put(2, LEN, 12);
	fsgate_events_init(&it, &buf, 3 * LEN);
	assert_ptr_equal(fsgate_event_next(&it), &buf.ev[0]);
	assert_ptr_equal(fsgate_event_next(&it), &buf.ev[2]);
	assert_null(fsgate_event_next(&it));
	assert_int_equal(it.error, 0);
}

static void empty_and_failed_reads_have_no_records(void **state)
{
	struct fsgate_events it;

	(void)state;
	fsgate_events_init(&it, &buf, 0);
	assert_null(fsgate_event_next(&it));
	assert_int_equal(it.error, 0);
	fsgate_events_init(&it, &buf, -1);
	assert_null(fsgate_event_next(&it));
	assert_int_equal(it.error, 0);
}

/* Refused at the second record with @err, and for good. */
static void assert_refused_second(ssize_t len, int err)
{
	struct fsgate_events it;

	fsgate_events_init(&it, &buf, len);
	assert_ptr_equal(fsgate_event_next(&it), &buf.ev[0]);
	errno = 0;
	assert_null(fsgate_event_next(&it));
	assert_int_equal(errno, err);
	assert_int_equal(it.error, err);
	assert_null(fsgate_event_next(&it));
}

static void zero_length_does_not_loop(void **state)
{
	(void)state;
	put(0, LEN, 10);
	put(1, 0, 11);
	assert_refused_second(2 * LEN, EBADMSG);
}

static void length_past_the_buffer_is_refused(void **state)
{
	(void)state;
	put(0, LEN, 10);
	put(1, 2 * LEN, 11);
	assert_refused_second(2 * LEN, EBADMSG);
}

static void truncated_header_is_refused(void **state)
{
	(void)state;
	put(0, LEN, 10);
	assert_refused_second(LEN + 8, EBADMSG);
}

static void misaligned_record_is_refused(void **state)
{
	(void)state;
	put(0, LEN + 4, 10);
	assert_refused_second(3 * LEN, EBADMSG);
}

static void other_version_is_refused(void **state)
{
	(void)state;
	put(0, LEN, 10);
	put(1, LEN, 11);
	buf.ev[1].vers = FANOTIFY_METADATA_VERSION + 1;
	assert_refused_second(2 * LEN, EPROTO);
}

/*
 * fsgate_events_drain(): read() and close() are wrapped. Each read
 * returns the next script entry: a byte count copied from buf, or a
 * negative errno.
 */
static ssize_t script[4];
static int reads, closed[8], nclosed;

ssize_t __wrap_read(int fd, void *dst, size_t len)
{
	ssize_t n = script[reads++];

	assert_int_equal(fd, 5);
	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	assert_true((size_t)n <= len);
	memcpy(dst, &buf, n);
	return n;
}

int __wrap_close(int fd)
{
	closed[nclosed++] = fd;
	return 0;
}

static int seen[8], nseen, stop_at;

static int take(const struct fanotify_event_metadata *ev, void *arg)
{
	assert_ptr_equal(arg, &seen);
	seen[nseen++] = ev->fd;
	return nseen == stop_at;
}

static void drain_reset(void)
{
	reads = nclosed = nseen = stop_at = 0;
}

static void drain_reads_until_eagain(void **state)
{
	static char dst[4 * LEN] __attribute__((aligned(8)));

	(void)state;
	drain_reset();
	put(0, LEN, 10);
	put(1, LEN, 11);
	script[0] = 2 * LEN;
	script[1] = -EINTR;
	script[2] = 2 * LEN;
	script[3] = -EAGAIN;
	assert_int_equal(fsgate_events_drain(5, dst, sizeof(dst), take, seen), 4);
	assert_int_equal(reads, 4);
	assert_int_equal(nseen, 4);
	assert_int_equal(seen[3], 11);
	assert_int_equal(nclosed, 0);
}

/* A stop mid-read: the rest of that read is closed, nothing more read. */
static void drain_stops_and_closes_the_rest(void **state)
{
	static char dst[4 * LEN] __attribute__((aligned(8)));

	(void)state;
	drain_reset();
	put(0, LEN, 10);
	put(1, LEN, 11);
	put(2, LEN, 12);
	script[0] = 3 * LEN;
	stop_at = 1;
	assert_int_equal(fsgate_events_drain(5, dst, sizeof(dst), take, seen), 1);
	assert_int_equal(reads, 1);
	assert_int_equal(nclosed, 2);
	assert_int_equal(closed[0], 11);
	assert_int_equal(closed[1], 12);
}

static void drain_fails_on_read_errors_and_bad_records(void **state)
{
	static char dst[4 * LEN] __attribute__((aligned(8)));

	(void)state;
	drain_reset();
	script[0] = -EBADF;
	errno = 0;
	assert_int_equal(fsgate_events_drain(5, dst, sizeof(dst), take, seen), -1);
	assert_int_equal(errno, EBADF);

	drain_reset();
	put(0, LEN, 10);
	buf.ev[1] = buf.ev[0];
	buf.ev[1].vers = FANOTIFY_METADATA_VERSION + 1;
	script[0] = 2 * LEN;
	errno = 0;
	assert_int_equal(fsgate_events_drain(5, dst, sizeof(dst), take, seen), -1);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(nseen, 1);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_every_record_in_order),
		cmocka_unit_test(longer_record_is_stepped_over_whole),
		cmocka_unit_test(empty_and_failed_reads_have_no_records),
		cmocka_unit_test(zero_length_does_not_loop),
		cmocka_unit_test(length_past_the_buffer_is_refused),
		cmocka_unit_test(truncated_header_is_refused),
		cmocka_unit_test(misaligned_record_is_refused),
		cmocka_unit_test(other_version_is_refused),
		cmocka_unit_test(drain_reads_until_eagain),
		cmocka_unit_test(drain_stops_and_closes_the_rest),
		cmocka_unit_test(drain_fails_on_read_errors_and_bad_records),
	};

	return cmocka_run_group_tests_name("libfsgate_event", tests, NULL, NULL);
}
