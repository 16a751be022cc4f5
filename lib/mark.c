// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Marks and counters of a group: thin wrappers over the group fd's ioctls.
 */
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
