/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest selftests. Groups are made with libfsgate,
 * whose fsgate_init_ext() is the bare FSGATE_IOC_INIT ioctl.
 */
#ifndef FSGATE_UTIL_H
#define FSGATE_UTIL_H

#include <stddef.h>
#include <fsgate.h>

/* Copy the value of @key from the fdinfo of @fd into @buf. */
int fsgate_test_fdinfo(int fd, const char *key, char *buf, size_t len);

/* Number of lines of /proc/fsgate/groups whose pid column is @pid. */
int fsgate_test_groups_of(int pid);

#endif /* FSGATE_UTIL_H */
