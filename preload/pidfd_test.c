// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: process-context records become fanotify's pidfd records in
 * place, events shrink and close up, and whatever does not add up is
 * kept as it came.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload.h"

/* A fake pidfd: 1000 + the record's tgid. */
static int pidfd_calls;

static int fake_pidfd_of(const struct fsgate_info_proc *proc)
{
	pidfd_calls++;
	return 1000 + proc->tgid;
}

/* Events are built here, 8-byte aligned as the kernel writes them. */
static union {
	unsigned char b[4096];
	uint64_t align;
} buf;
static size_t used;

static void reset(void)
{
	memset(buf.b, 0xee, sizeof(buf.b));
	used = 0;
	pidfd_calls = 0;
}

/* Start an event at the end of the buffer; return its offset. */
static size_t event(uint64_t mask, int fd, int pid)
{
	struct fanotify_event_metadata ev = {
		.event_len = FAN_EVENT_METADATA_LEN,
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = FAN_EVENT_METADATA_LEN,
		.mask = mask,
		.fd = fd,
		.pid = pid,
	};
	size_t at = used;

	memcpy(buf.b + used, &ev, sizeof(ev));
	used += sizeof(ev);
	return at;
}

/* Append a record of @len bytes to the event at @at. */
static void record(size_t at, const void *rec, size_t len)
{
	struct fanotify_event_metadata *ev = (void *)(buf.b + at);

	memcpy(buf.b + used, rec, len);
	used += len;
	ev->event_len += len;
}

static void proc_record(size_t at, int tgid, size_t len)
{
	unsigned char raw[128] = { 0 };
	struct fsgate_info_proc proc = {
		.hdr.info_type = FSGATE_INFO_PROC,
		.hdr.len = len,
		.uid = 1000,
		.tgid = tgid,
		.tid = tgid + 1,
		.start_time_ns = 123456789,
	};

	memcpy(raw, &proc, sizeof(proc));
	record(at, raw, len);
}

static void perm_record(size_t at, uint64_t id)
{
	struct fsgate_info_perm perm = {
		.hdr.info_type = FSGATE_INFO_PERM,
		.hdr.len = sizeof(perm),
		.id = id,
	};

	record(at, &perm, sizeof(perm));
}

static const struct fanotify_event_metadata *at_(size_t off)
{
	return (const void *)(buf.b + off);
}

/* A pidfd record at @off. */
static void assert_pidfd_record(size_t off, int pidfd)
{
	struct fanotify_event_info_pidfd rec;

	memcpy(&rec, buf.b + off, sizeof(rec));
	assert_int_equal(rec.hdr.info_type, FAN_EVENT_INFO_TYPE_PIDFD);
	assert_int_equal(rec.hdr.pad, 0);
	assert_int_equal(rec.hdr.len, sizeof(rec));
	assert_int_equal(rec.pidfd, pidfd);
}

/* The pidfd record right after the metadata of the event at @off. */
static void assert_pidfd(size_t off, int pidfd)
{
	assert_pidfd_record(off + at_(off)->metadata_len, pidfd);
}

/* The first @len bytes of a buffer of @cap are not for rewriting. */
static void assert_kept_in(size_t len, size_t cap)
{
	unsigned char before[sizeof(buf.b)];

	memcpy(before, buf.b, len);
	assert_int_equal(preload_pidfd_rewrite(buf.b, len, cap, fake_pidfd_of),
			 len);
	assert_memory_equal(buf.b, before, len);
	assert_int_equal(pidfd_calls, 0);
}

static void assert_kept(size_t len)
{
	assert_kept_in(len, sizeof(buf.b));
}

static void one_event_becomes_fanotifys_layout(void **state)
{
	size_t n;

	(void)state;
	reset();
	proc_record(event(FAN_OPEN_PERM, 5, 300), 300, FSGATE_INFO_PROC_LEN_V1);
	n = preload_pidfd_rewrite(buf.b, used, sizeof(buf.b), fake_pidfd_of);
	/* As fanotify's: metadata and one 8-byte pidfd record. */
	assert_int_equal(n, FAN_EVENT_METADATA_LEN + 8);
	assert_int_equal(at_(0)->event_len, n);
	assert_int_equal(at_(0)->metadata_len, FAN_EVENT_METADATA_LEN);
	assert_int_equal(at_(0)->mask, FAN_OPEN_PERM);
	assert_int_equal(at_(0)->fd, 5);
	assert_int_equal(at_(0)->pid, 300);
	assert_pidfd(0, 1300);
	assert_int_equal(pidfd_calls, 1);
}

static void several_events_close_up(void **state)
{
	size_t n, off;
	int i;

	(void)state;
	reset();
	for (i = 0; i < 3; i++)
		proc_record(event(FAN_CLOSE_WRITE, 5 + i, 400 + i), 400 + i,
			    FSGATE_INFO_PROC_LEN_V1);
	n = preload_pidfd_rewrite(buf.b, used, sizeof(buf.b), fake_pidfd_of);
	assert_int_equal(n, 3 * (FAN_EVENT_METADATA_LEN + 8));
	for (i = 0, off = 0; i < 3; i++, off += at_(off)->event_len) {
		assert_int_equal(at_(off)->event_len, FAN_EVENT_METADATA_LEN + 8);
		assert_int_equal(at_(off)->fd, 5 + i);
		assert_int_equal(at_(off)->pid, 400 + i);
		assert_pidfd(off, 1400 + i);
	}
	assert_int_equal(pidfd_calls, 3);
}

/* A longer record (a newer module's) shrinks all the same. */
static void longer_record_is_rewritten(void **state)
{
	size_t n;

	(void)state;
	reset();
	proc_record(event(FAN_OPEN, 5, 7), 7, FSGATE_INFO_PROC_LEN_V1 + 16);
	proc_record(event(FAN_OPEN, 6, 8), 8, FSGATE_INFO_PROC_LEN_V1);
	n = preload_pidfd_rewrite(buf.b, used, sizeof(buf.b), fake_pidfd_of);
	assert_int_equal(n, 2 * (FAN_EVENT_METADATA_LEN + 8));
	assert_pidfd(0, 1007);
	assert_int_equal(at_(32)->fd, 6);
	assert_int_equal(at_(32)->event_len, FAN_EVENT_METADATA_LEN + 8);
	assert_pidfd(32, 1008);
}

/* Other records stay, in order, around the pidfd record. */
static void mixed_records_are_kept(void **state)
{
	struct fsgate_info_perm perm;
	size_t at, n;

	(void)state;
	reset();
	at = event(FAN_OPEN_PERM, 5, 9);
	perm_record(at, 77);
	proc_record(at, 9, FSGATE_INFO_PROC_LEN_V1);
	perm_record(at, 78);
	n = preload_pidfd_rewrite(buf.b, used, sizeof(buf.b), fake_pidfd_of);
	assert_int_equal(n, FAN_EVENT_METADATA_LEN + 2 * sizeof(perm) + 8);
	assert_int_equal(at_(0)->event_len, n);
	memcpy(&perm, buf.b + FAN_EVENT_METADATA_LEN, sizeof(perm));
	assert_int_equal(perm.hdr.info_type, FSGATE_INFO_PERM);
	assert_int_equal(perm.id, 77);
	assert_pidfd_record(FAN_EVENT_METADATA_LEN + sizeof(perm), 1009);
	memcpy(&perm, buf.b + FAN_EVENT_METADATA_LEN + sizeof(perm) + 8,
	       sizeof(perm));
	assert_int_equal(perm.hdr.info_type, FSGATE_INFO_PERM);
	assert_int_equal(perm.id, 78);
}

/*
 * FAN_Q_OVERFLOW has no process: a FAN_NOPIDFD record, as fanotify gives
 * it, in the room what went before left.
 */
static void event_without_the_record_gets_nopidfd(void **state)
{
	size_t n;

	(void)state;
	reset();
	proc_record(event(FAN_ACCESS, 5, 11), 11, FSGATE_INFO_PROC_LEN_V1);
	event(FAN_Q_OVERFLOW, FAN_NOFD, 0);
	proc_record(event(FAN_ACCESS, 6, 12), 12, FSGATE_INFO_PROC_LEN_V1);
	n = preload_pidfd_rewrite(buf.b, used, used, fake_pidfd_of);
	assert_int_equal(n, 3 * (FAN_EVENT_METADATA_LEN + 8));
	assert_pidfd(0, 1011);
	assert_int_equal(at_(32)->mask, FAN_Q_OVERFLOW);
	assert_int_equal(at_(32)->event_len, FAN_EVENT_METADATA_LEN + 8);
	assert_pidfd(32, FAN_NOPIDFD);
	assert_int_equal(at_(64)->fd, 6);
	assert_pidfd(64, 1012);
	assert_int_equal(pidfd_calls, 2);
}

/* FAN_REPORT_FD_ERROR: the record of an event without a process says -ESRCH. */
static void event_without_the_record_gets_the_value_given(void **state)
{
	size_t n;

	(void)state;
	reset();
	event(FAN_Q_OVERFLOW, FAN_NOFD, 0);
	proc_record(event(FAN_ACCESS, 6, 12), 12, FSGATE_INFO_PROC_LEN_V1);
	n = preload_pidfd_rewrite_ext(buf.b, used, sizeof(buf.b), fake_pidfd_of,
				      -ESRCH);
	assert_int_equal(n, 2 * (FAN_EVENT_METADATA_LEN + 8));
	assert_pidfd(0, -ESRCH);
	assert_pidfd(32, 1012);
}

/*
 * The overflow first: the events after it move on to make room, if the
 * buffer has it; else it stays bare.
 */
static void event_without_the_record_first_needs_room(void **state)
{
	size_t n;

	(void)state;
	reset();
	event(FAN_Q_OVERFLOW, FAN_NOFD, 0);
	event(FAN_Q_OVERFLOW, FAN_NOFD, 0);
	proc_record(event(FAN_ACCESS, 5, 13), 13, FSGATE_INFO_PROC_LEN_V1);
	n = preload_pidfd_rewrite(buf.b, used, used + 16, fake_pidfd_of);
	assert_int_equal(n, 3 * (FAN_EVENT_METADATA_LEN + 8));
	assert_pidfd(0, FAN_NOPIDFD);
	assert_pidfd(32, FAN_NOPIDFD);
	assert_int_equal(at_(64)->fd, 5);
	assert_pidfd(64, 1013);
	/* A buffer the overflows filled: as they came. */
	reset();
	event(FAN_Q_OVERFLOW, FAN_NOFD, 0);
	event(FAN_Q_OVERFLOW, FAN_NOFD, 0);
	assert_kept_in(used, used + 7);
	/* Room for one. */
	n = preload_pidfd_rewrite(buf.b, used, used + 8, fake_pidfd_of);
	assert_int_equal(n, 2 * FAN_EVENT_METADATA_LEN + 8);
	assert_pidfd(0, FAN_NOPIDFD);
	assert_int_equal(at_(32)->mask, FAN_Q_OVERFLOW);
	assert_int_equal(at_(32)->event_len, FAN_EVENT_METADATA_LEN);
}

/* A record shorter than the first layout is no record to trust. */
static void short_record_is_kept(void **state)
{
	(void)state;
	reset();
	proc_record(event(FAN_OPEN, 5, 12), 12, FSGATE_INFO_PROC_LEN_V1 - 8);
	assert_kept(used);
}

/*
 * A read() the kernel would never return, ending in part of an event:
 * the whole events before it are rewritten, the part is kept and moves
 * up with them.
 */
static void partial_event_is_kept(void **state)
{
	unsigned char tail[64];
	size_t n, cut;

	(void)state;
	reset();
	proc_record(event(FAN_OPEN, 5, 13), 13, FSGATE_INFO_PROC_LEN_V1);
	cut = used;
	proc_record(event(FAN_OPEN, 6, 14), 14, FSGATE_INFO_PROC_LEN_V1);
	memcpy(tail, buf.b + cut, 40);
	n = preload_pidfd_rewrite(buf.b, cut + 40, sizeof(buf.b), fake_pidfd_of);
	assert_int_equal(n, FAN_EVENT_METADATA_LEN + 8 + 40);
	assert_pidfd(0, 1013);
	assert_memory_equal(buf.b + 32, tail, 40);
	assert_int_equal(pidfd_calls, 1);
}

/* Fewer bytes than a metadata, or a record running past its event. */
static void truncated_buffers_are_kept(void **state)
{
	struct fanotify_event_info_header hdr;

	(void)state;
	reset();
	proc_record(event(FAN_OPEN, 5, 15), 15, FSGATE_INFO_PROC_LEN_V1);
	assert_kept(10);
	assert_kept(0);
	/* The event ends inside its record. */
	assert_kept(used - 8);
	/* The record says it is longer than what is left of the event. */
	memcpy(&hdr, buf.b + 24, sizeof(hdr));
	hdr.len = FSGATE_INFO_PROC_LEN_V1 + 8;
	memcpy(buf.b + 24, &hdr, sizeof(hdr));
	assert_kept(used);
}

/* An event_len shorter than its metadata stops the rewrite there. */
static void bad_event_len_is_kept(void **state)
{
	unsigned char before[256];
	struct fanotify_event_metadata *ev;
	size_t n;

	(void)state;
	reset();
	proc_record(event(FAN_OPEN, 5, 16), 16, FSGATE_INFO_PROC_LEN_V1);
	ev = (void *)(buf.b + event(FAN_OPEN, 6, 17));
	ev->event_len = 8;
	memcpy(before, buf.b + 104, 24);
	n = preload_pidfd_rewrite(buf.b, used, sizeof(buf.b), fake_pidfd_of);
	assert_int_equal(n, 32 + 24);
	assert_pidfd(0, 1016);
	assert_memory_equal(buf.b + 32, before, 24);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_event_becomes_fanotifys_layout),
		cmocka_unit_test(several_events_close_up),
		cmocka_unit_test(longer_record_is_rewritten),
		cmocka_unit_test(mixed_records_are_kept),
		cmocka_unit_test(event_without_the_record_gets_nopidfd),
		cmocka_unit_test(event_without_the_record_gets_the_value_given),
		cmocka_unit_test(event_without_the_record_first_needs_room),
		cmocka_unit_test(short_record_is_kept),
		cmocka_unit_test(partial_event_is_kept),
		cmocka_unit_test(truncated_buffers_are_kept),
		cmocka_unit_test(bad_event_len_is_kept),
	};

	return cmocka_run_group_tests_name("preload_pidfd", tests, NULL, NULL);
}
