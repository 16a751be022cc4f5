// SPDX-License-Identifier: GPL-2.0
/*
 * Info records (layer 0): which records an event carries after its
 * metadata and how each is laid out, framed as fanotify frames its own
 * (struct fanotify_event_info_header). event.c sizes events with it, so
 * a read never splits one; user.c fills the records as it copies an
 * event out. It calls nothing else of fsgate's.
 */
#include <linux/build_bug.h>
#include <linux/fanotify.h>
#include <linux/module.h>
#include <linux/string.h>

#include "info.h"

/* Every record keeps the events after it 8-byte aligned. */
static_assert(sizeof(struct fsgate_info_perm) == FSGATE_INFO_PERM_LEN_V1);
static_assert(sizeof(struct fsgate_info_perm) % 8 == 0);
static_assert(FAN_EVENT_METADATA_LEN % 8 == 0);

/**
 * fsgate_info_len() - the bytes of info records an event carries
 * @group_flags: FSGATE_* flags of the group reading it
 * @mask: the event's FAN_* bits; FAN_Q_OVERFLOW carries no records
 *
 * Context: any.
 * Return: the size of the records that follow the event's metadata, a
 * multiple of 8; 0 when it has none.
 */
size_t fsgate_info_len(u32 group_flags, u32 mask)
{
	size_t len = 0;

	if (mask & FAN_Q_OVERFLOW)
		return 0;
	if ((group_flags & FSGATE_REPORT_PERM) && (mask & FSGATE_PERM_EVENTS))
		len += sizeof(struct fsgate_info_perm);
	return len;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_info_len);

/**
 * fsgate_info_perm_fill() - lay out a struct fsgate_info_perm
 * @buf: where it goes, 8-byte aligned, with room for the record
 * @id: the event's id
 * @deadline_ns: CLOCK_MONOTONIC ns of its deadline
 * @unbounded: it has none (then @deadline_ns is not reported)
 *
 * Context: any.
 * Return: the record's size.
 */
size_t fsgate_info_perm_fill(void *buf, u64 id, u64 deadline_ns,
			     bool unbounded)
{
	struct fsgate_info_perm *rec = buf;

	memset(rec, 0, sizeof(*rec));
	rec->hdr.info_type = FSGATE_INFO_PERM;
	rec->hdr.len = sizeof(*rec);
	rec->id = id;
	if (unbounded)
		rec->flags = FSGATE_INFO_PERM_UNBOUNDED;
	else
		rec->deadline_ns = deadline_ns;
	return sizeof(*rec);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_info_perm_fill);
