/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest selftests: raw access to the fsgate ABI,
 * without libfsgate, so that the tests check the kernel alone.
 */
#ifndef FSGATE_UTIL_H
#define FSGATE_UTIL_H

#include <stddef.h>
#include <linux/fsgate.h>

#define FSGATE_DEV "/dev/fsgate"

/* Make a group from @init; returns its fd, or -1 with errno set. */
int fsgate_test_init(const struct fsgate_init *init);

/* A group of @flags (class included) with class default priority. */
int fsgate_test_group(unsigned int flags);

/* Copy the value of @key from the fdinfo of @fd into @buf. */
int fsgate_test_fdinfo(int fd, const char *key, char *buf, size_t len);

/* Number of lines of /proc/fsgate/groups whose pid column is @pid. */
int fsgate_test_groups_of(int pid);

#endif /* FSGATE_UTIL_H */
