/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_INFO_H
#define _FSGATE_INFO_H

#include <linux/types.h>
#include <linux/fsgate.h>

/* Bytes of the largest set of info records one event carries. */
#define FSGATE_INFO_MAX_LEN	(sizeof(struct fsgate_info_perm))

size_t fsgate_info_len(u32 group_flags, u32 mask);
size_t fsgate_info_perm_fill(void *buf, u64 id, u64 deadline_ns,
			     bool unbounded);

#endif /* _FSGATE_INFO_H */
