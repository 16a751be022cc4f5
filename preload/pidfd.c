// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fanotify's pidfd records made of fsgate's process-context records, in
 * the buffer read() filled. A struct fsgate_info_proc (80 bytes or more)
 * becomes a struct fanotify_event_info_pidfd (8 bytes) where it stood,
 * so an event only ever shrinks: its event_len is set to what is left
 * and the events after it move up. Every other record is kept as it
 * came. An event without a process record (FAN_Q_OVERFLOW) gets a pidfd
 * record saying FAN_NOPIDFD (-ESRCH with FAN_REPORT_FD_ERROR), as on
 * fanotify, where the buffer has room.
 *
 * The kernel returns whole, well-framed events; should a length not add
 * up, the bytes from there on are kept as they came, for the program's
 * own checks to judge.
 */
#include <string.h>

#include "preload.h"

static void put_pidfd(unsigned char *at, int pidfd)
{
	const struct fanotify_event_info_pidfd rec = {
		.hdr.info_type = FAN_EVENT_INFO_TYPE_PIDFD,
		.hdr.len = sizeof(rec),
		.pidfd = pidfd,
	};

	memcpy(at, &rec, sizeof(rec));
}

/*
 * Rewrite the event at @buf + @in to @buf + @out; return its new length.
 * *@bare says whether its records were sound and none was a process
 * record, not even one too short to take.
 */
static size_t rewrite_event(unsigned char *buf, size_t out, size_t in,
			    const struct fanotify_event_metadata *ev, bool *bare,
			    int (*pidfd_of)(const struct fsgate_info_proc *proc))
{
	struct fanotify_event_info_header hdr;
	struct fsgate_info_proc proc;
	size_t len = ev->metadata_len, rin = in + len, end = in + ev->event_len;

	*bare = true;
	memmove(buf + out, buf + in, len);
	while (end - rin >= sizeof(hdr)) {
		memcpy(&hdr, buf + rin, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > end - rin)
			break;
		if (hdr.info_type == FSGATE_INFO_PROC)
			*bare = false;
		if (hdr.info_type == FSGATE_INFO_PROC &&
		    hdr.len >= FSGATE_INFO_PROC_LEN_V1) {
			memset(&proc, 0, sizeof(proc));
			memcpy(&proc, buf + rin, FSGATE_INFO_PROC_LEN_V1);
			/* Below rin + hdr.len: the record was read whole. */
			put_pidfd(buf + out + len, pidfd_of(&proc));
			len += sizeof(struct fanotify_event_info_pidfd);
		} else {
			memmove(buf + out + len, buf + rin, hdr.len);
			len += hdr.len;
		}
		rin += hdr.len;
	}
	if (rin != end)
		*bare = false;
	memmove(buf + out + len, buf + rin, end - rin);
	return len + end - rin;
}

size_t preload_pidfd_rewrite(void *buf, size_t len, size_t cap,
			     int (*pidfd_of)(const struct fsgate_info_proc *proc))
{
	return preload_pidfd_rewrite_ext(buf, len, cap, pidfd_of, FAN_NOPIDFD);
}

size_t preload_pidfd_rewrite_ext(void *buf, size_t len, size_t cap,
				 int (*pidfd_of)(const struct fsgate_info_proc *proc),
				 int none)
{
	const size_t rec = sizeof(struct fanotify_event_info_pidfd);
	struct fanotify_event_metadata ev;
	unsigned char *p = buf;
	size_t in = 0, out = 0, next, n, need;
	bool bare;

	while (len - in >= FAN_EVENT_METADATA_LEN) {
		memcpy(&ev, p + in, sizeof(ev));
		if (ev.metadata_len < FAN_EVENT_METADATA_LEN ||
		    ev.event_len < ev.metadata_len || ev.event_len > len - in)
			break;
		next = in + ev.event_len;
		n = rewrite_event(p, out, in, &ev, &bare, pidfd_of);
		/*
		 * fanotify gives every event a pidfd record, FAN_NOPIDFD where
		 * there is no process (FAN_Q_OVERFLOW). It goes at the end of
		 * the event: after what went before shrank, or with the rest
		 * of the buffer moved on when there is room for it.
		 */
		need = out + n + rec > next ? out + n + rec - next : 0;
		if (bare && len + need <= cap) {
			memmove(p + next + need, p + next, len - next);
			next += need;
			len += need;
			put_pidfd(p + out + n, none);
			n += rec;
		}
		ev.event_len = n;
		memcpy(p + out, &ev, sizeof(ev));
		out += n;
		in = next;
	}
	memmove(p + out, p + in, len - in);
	return out + len - in;
}
