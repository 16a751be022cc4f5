/* SPDX-License-Identifier: GPL-2.0 */
/* Making a daemon's group and marking the filesystems it watches. */
#ifndef TOOLS_GROUP_H
#define TOOLS_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include <fsgate.h>

/*
 * A group made from @init, with a filesystem mark for @mask on each of
 * the @n @paths. Its fd, or -1 having logged why in fsgate's terms.
 */
int group_watch(const struct fsgate_init *init, uint64_t mask,
		const char *const *paths, size_t n);

#endif /* TOOLS_GROUP_H */
