// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Marks and counters of a group: thin wrappers over the group fd's ioctls.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

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

/* One FSGATE_IOC_MUTE request of the size this library knows. */
static int mute_ioctl(int fd, struct fsgate_mute *req)
{
	req->size = sizeof(*req);
	return ioctl(fd, FSGATE_IOC_MUTE, req);
}

int fsgate_mute_add(int fd, const struct fsgate_mute_entry *entry)
{
	struct fsgate_mute req = { .op = FSGATE_MUTE_ADD, .entry = *entry };

	return mute_ioctl(fd, &req);
}

int fsgate_mute_remove(int fd, const struct fsgate_mute_entry *entry)
{
	struct fsgate_mute req = { .op = FSGATE_MUTE_REMOVE, .entry = *entry };

	return mute_ioctl(fd, &req);
}

int fsgate_mute_clear(int fd)
{
	struct fsgate_mute req = { .op = FSGATE_MUTE_CLEAR };

	return mute_ioctl(fd, &req);
}

int fsgate_mute_set_mode(int fd, unsigned int mode)
{
	struct fsgate_mute req = { .op = FSGATE_MUTE_SET_MODE, .mode = mode };

	return mute_ioctl(fd, &req);
}

ssize_t fsgate_mute_list(int fd, struct fsgate_mute_entry *entries,
			 size_t room, unsigned int *mode)
{
	struct fsgate_mute req = {
		.op = FSGATE_MUTE_LIST,
		.count = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room,
		.entries = (uintptr_t)entries,
	};

	if (mute_ioctl(fd, &req) < 0)
		return -1;
	if (mode)
		*mode = req.mode;
	return req.count;
}

int fsgate_mute_exe(int fd, const char *path)
{
	struct fsgate_mute_entry entry = { .type = FSGATE_MUTE_EXE };
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	entry.id = st.st_ino;
	entry.dev = st.st_dev;
	return fsgate_mute_add(fd, &entry);
}
