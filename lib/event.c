// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Walking the records of one read(). FAN_EVENT_OK() trusts event_len:
 * a zero length loops for ever and a length past the buffer reads beyond
 * it. Here each record is checked before it is handed out, and the walk
 * stops at the first bad one.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <unistd.h>

#include "fsgate.h"

void fsgate_events_init(struct fsgate_events *it, const void *buf,
			ssize_t len)
{
	it->buf = buf;
	it->len = len > 0 ? (size_t)len : 0;
	it->off = 0;
	it->error = 0;
}

/* Why the record at it->off cannot be handed out, or 0. */
static int record_error(const struct fsgate_events *it)
{
	const struct fanotify_event_metadata *ev;
	size_t left = it->len - it->off;

	if (left < FAN_EVENT_METADATA_LEN)
		return EBADMSG;
	/* The caller dereferences the record: it must be aligned. */
	if ((uintptr_t)(it->buf + it->off) %
	    alignof(struct fanotify_event_metadata))
		return EBADMSG;
	ev = (const void *)(it->buf + it->off);
	if (ev->event_len < FAN_EVENT_METADATA_LEN || ev->event_len > left)
		return EBADMSG;
	if (ev->vers != FANOTIFY_METADATA_VERSION)
		return EPROTO;
	return 0;
}

const struct fanotify_event_metadata *
fsgate_event_next(struct fsgate_events *it)
{
	const struct fanotify_event_metadata *ev;

	if (it->error || it->off >= it->len)
		return NULL;
	it->error = record_error(it);
	if (it->error) {
		errno = it->error;
		return NULL;
	}
	ev = (const void *)(it->buf + it->off);
	it->off += ev->event_len;
	return ev;
}

ssize_t fsgate_events_drain(int fd, void *buf, size_t len,
			    fsgate_event_fn fn, void *arg)
{
	const struct fanotify_event_metadata *ev;
	struct fsgate_events it;
	ssize_t n, handled = 0;
	int stop = 0;

	while (!stop) {
		n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if ((n < 0 && errno == EAGAIN) || n == 0)
			break;
		if (n < 0)
			return -1;
		fsgate_events_init(&it, buf, n);
		while ((ev = fsgate_event_next(&it))) {
			/* Past a stop the fds are the drain's to close. */
			if (stop) {
				if (ev->fd >= 0)
					close(ev->fd);
				continue;
			}
			handled++;
			stop = fn(ev, arg);
		}
		if (it.error) {
			errno = it.error;
			return -1;
		}
	}
	return handled;
}
