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
	};

	return cmocka_run_group_tests_name("libfsgate_event", tests, NULL, NULL);
}
