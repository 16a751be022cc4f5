// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Marks and counters of a group: thin wrappers over the group fd's ioctls.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "fsgate.h"

int fsgate_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
		const char *pathname)
{
	const struct fsgate_mark mark = {
		.flags = flags,
		.dirfd = dirfd,
		.mask = mask,
		.pathname = (uintptr_t)pathname,
	};

	return ioctl(fd, FSGATE_IOC_MARK, &mark);
}

int fsgate_stats(int fd, struct fsgate_stats *stats)
{
	return ioctl(fd, FSGATE_IOC_STATS, stats);
}

int fsgate_cache_flush(int fd, int file_fd)
{
	const struct fsgate_cache_flush req = {
		.flags = file_fd >= 0 ? FSGATE_FLUSH_FILE : 0,
		.fd = file_fd >= 0 ? file_fd : 0,
	};

	if (file_fd < -1) {
		errno = EBADF;
		return -1;
	}
	return ioctl(fd, FSGATE_IOC_FLUSH_CACHE, &req);
}
