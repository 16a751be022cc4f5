// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Walking the info records of one event and finding fsgate's own among
 * them. Each record is checked before it is handed out, as events are
 * (event.c): a zero or oversized length neither loops for ever nor reads
 * past the event.
 */
#include <errno.h>
#include <stdint.h>

#include "fsgate.h"

/* fanotify keeps records 4-byte aligned; fsgate's are 8-byte aligned. */
#define INFO_ALIGN 4

void fsgate_infos_init(struct fsgate_infos *it,
		       const struct fanotify_event_metadata *ev)
{
	const unsigned char *start = (const unsigned char *)ev;

	it->next = start + ev->metadata_len;
	it->end = start + ev->event_len;
	it->error = 0;
	if (ev->metadata_len < FAN_EVENT_METADATA_LEN ||
	    ev->metadata_len > ev->event_len)
		it->error = EBADMSG;
}

/* Why the record at it->next cannot be handed out, or 0. */
static int info_error(const struct fsgate_infos *it)
{
	const struct fanotify_event_info_header *hdr;
	size_t left = it->end - it->next;

	if (left < sizeof(*hdr) || (uintptr_t)it->next % INFO_ALIGN)
		return EBADMSG;
	hdr = (const void *)it->next;
	if (hdr->len < sizeof(*hdr) || hdr->len > left)
		return EBADMSG;
	return 0;
}

const struct fanotify_event_info_header *
fsgate_info_next(struct fsgate_infos *it)
{
	const struct fanotify_event_info_header *hdr;

	if (!it->error && it->next < it->end)
		it->error = info_error(it);
	if (it->error) {
		errno = it->error;
		return NULL;
	}
	if (it->next >= it->end)
		return NULL;
	hdr = (const void *)it->next;
	it->next += hdr->len;
	return hdr;
}

/*
 * The first record of @type at least @len bytes long and 8-byte aligned,
 * or NULL with errno set.
 */
static const void *info_find(const struct fanotify_event_metadata *ev,
			     uint8_t type, size_t len)
{
	const struct fanotify_event_info_header *hdr;
	struct fsgate_infos it;

	fsgate_infos_init(&it, ev);
	while ((hdr = fsgate_info_next(&it))) {
		if (hdr->info_type != type)
			continue;
		if (hdr->len < len || (uintptr_t)hdr % 8) {
			errno = EBADMSG;
			return NULL;
		}
		return hdr;
	}
	if (!it.error)
		errno = ENOENT;
	return NULL;
}

const struct fsgate_info_perm *
fsgate_info_perm(const struct fanotify_event_metadata *ev)
{
	return info_find(ev, FSGATE_INFO_PERM, FSGATE_INFO_PERM_LEN_V1);
}

const struct fsgate_info_proc *
fsgate_info_proc(const struct fanotify_event_metadata *ev)
{
	return info_find(ev, FSGATE_INFO_PROC, FSGATE_INFO_PROC_LEN_V1);
}
