// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fanotify's pidfd records made of fsgate's process-context records, in
 * the buffer read() filled. A struct fsgate_info_proc (80 bytes or more)
 * becomes a struct fanotify_event_info_pidfd (8 bytes) where it stood,
 * so an event only ever shrinks: its event_len is set to what is left
 * and the events after it move up. Every other record, and an event
 * without a process record (FAN_Q_OVERFLOW), is kept as it came.
 *
 * The kernel returns whole, well-framed events; should a length not add
 * up, the bytes from there on are kept as they came, for the program's
 * own checks to judge.
 */
#include <string.h>

#include "preload.h"

/* Rewrite the event at @buf + @in to @buf + @out; return its new length. */
static size_t rewrite_event(unsigned char *buf, size_t out, size_t in,
			    struct fanotify_event_metadata *ev,
			    int (*pidfd_of)(const struct fsgate_info_proc *proc))
{
	struct fanotify_event_info_header hdr;
	struct fanotify_event_info_pidfd rec;
	struct fsgate_info_proc proc;
	size_t len = ev->metadata_len, rin = in + len, end = in + ev->event_len;

	memmove(buf + out, buf + in, len);
	while (end - rin >= sizeof(hdr)) {
		memcpy(&hdr, buf + rin, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > end - rin)
			break;
		if (hdr.info_type == FSGATE_INFO_PROC &&
		    hdr.len >= FSGATE_INFO_PROC_LEN_V1) {
			memset(&proc, 0, sizeof(proc));
			memcpy(&proc, buf + rin, FSGATE_INFO_PROC_LEN_V1);
			rec = (struct fanotify_event_info_pidfd){
				.hdr.info_type = FAN_EVENT_INFO_TYPE_PIDFD,
				.hdr.len = sizeof(rec),
				.pidfd = pidfd_of(&proc),
			};
			/* Below rin + hdr.len: the record was read whole. */
			memcpy(buf + out + len, &rec, sizeof(rec));
			len += sizeof(rec);
		} else {
			memmove(buf + out + len, buf + rin, hdr.len);
			len += hdr.len;
		}
		rin += hdr.len;
	}
	memmove(buf + out + len, buf + rin, end - rin);
	len += end - rin;
	ev->event_len = len;
	memcpy(buf + out, ev, sizeof(*ev));
	return len;
}

size_t preload_pidfd_rewrite(void *buf, size_t len,
			     int (*pidfd_of)(const struct fsgate_info_proc *proc))
{
	struct fanotify_event_metadata ev;
	unsigned char *p = buf;
	size_t in = 0, out = 0, event_len;

	while (len - in >= FAN_EVENT_METADATA_LEN) {
		memcpy(&ev, p + in, sizeof(ev));
		if (ev.metadata_len < FAN_EVENT_METADATA_LEN ||
		    ev.event_len < ev.metadata_len || ev.event_len > len - in)
			break;
		event_len = ev.event_len;
		out += rewrite_event(p, out, in, &ev, pidfd_of);
		in += event_len;
	}
	memmove(p + out, p + in, len - in);
	return out + len - in;
}
