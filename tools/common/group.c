// SPDX-License-Identifier: GPL-2.0
/* See group.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "group.h"
#include "log.h"

int group_watch(const struct fsgate_init *init, uint64_t mask,
		const char *const *paths, size_t n)
{
	size_t i;
	int g;

	g = fsgate_init_ext(init);
	if (g < 0) {
		log_err("cannot make a group: %s",
			fsgate_strerror(FSGATE_CALL_INIT, errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				mask, AT_FDCWD, paths[i]) < 0) {
			log_err("cannot watch %s: %s", paths[i],
				fsgate_strerror(FSGATE_CALL_MARK, errno));
			close(g);
			return -1;
		}
	return g;
}
