// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Answering permission events: write() of struct fanotify_response.
 * fsgate takes up to FSGATE_RESPONSE_MAX of them per write and refuses a
 * write as a whole if any one is bad; in-tree fanotify takes one per
 * write and says so with a short count. Both are handled by writing
 * what is left until everything is taken or a write fails.
 */
#include <errno.h>
#include <unistd.h>

#include "fsgate.h"

#define RESPONSE_SIZE sizeof(struct fanotify_response)

/* One write() of up to FSGATE_RESPONSE_MAX: how many were taken, or -1. */
static ssize_t write_some(int fd, const struct fanotify_response *r,
			  size_t count)
{
	ssize_t n;

	if (count > FSGATE_RESPONSE_MAX)
		count = FSGATE_RESPONSE_MAX;
	do
		n = write(fd, r, count * RESPONSE_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	/* Half a response taken, or none: not a group fd we understand. */
	if (n == 0 || n % RESPONSE_SIZE) {
		errno = EIO;
		return -1;
	}
	return n / RESPONSE_SIZE;
}

int fsgate_respond_batch(int fd, const struct fanotify_response *responses,
			 size_t count, size_t *done)
{
	size_t taken = 0;
	ssize_t n = 0;

	while (taken < count) {
		n = write_some(fd, responses + taken, count - taken);
		if (n < 0)
			break;
		taken += n;
	}
	if (done)
		*done = taken;
	return n < 0 ? -1 : 0;
}

int fsgate_respond(int fd, int event_fd, uint32_t response)
{
	const struct fanotify_response r = {
		.fd = event_fd,
		.response = response,
	};

	return fsgate_respond_batch(fd, &r, 1, NULL);
}

/* Write one response of @len bytes in one write(): 0, or -1 with errno. */
static int write_one(int fd, const void *r, size_t len)
{
	ssize_t n;

	do
		n = write(fd, r, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int write_response(int fd, const struct fsgate_response *r)
{
	return write_one(fd, r, sizeof(*r));
}

int fsgate_respond_id(int fd, uint64_t id, uint32_t response)
{
	const struct fsgate_response r = {
		.fd = FAN_NOFD,
		.response = response | FSGATE_RESPONSE_ID,
		.id = id,
	};

	return write_response(fd, &r);
}

int fsgate_extend(int fd, uint64_t id, uint32_t ms)
{
	const struct fsgate_response r = {
		.fd = FAN_NOFD,
		.response = FSGATE_RESPONSE_ID | FSGATE_EXTEND,
		.id = id,
		.extend_ms = ms,
	};

	return write_response(fd, &r);
}

int fsgate_respond_rule(int fd, int event_fd, uint32_t response,
			const struct fsgate_response_audit_rule *rule)
{
	/* fanotify's layout: the response, then its FAN_INFO record. */
	struct {
		struct fanotify_response r;
		struct fsgate_response_audit_rule rule;
	} w;

	if (!rule) {
		errno = EINVAL;
		return -1;
	}
	_Static_assert(sizeof(w) == sizeof(w.r) + sizeof(w.rule),
		       "a response and its rule, unpadded");
	w.r = (struct fanotify_response){
		.fd = event_fd,
		.response = response | FSGATE_INFO,
	};
	w.rule = *rule;
	return write_one(fd, &w, sizeof(w));
}
