/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replacing a file at once: readers see the old contents or the new,
 * never a part (node_exporter's textfile collector, modprobe).
 */
#ifndef TOOLS_REPLACE_H
#define TOOLS_REPLACE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * Write @path anew with mode @mode: @write(f, @arg) fills a temporary
 * file beside it, which is synced and renamed over @path. @write
 * returns 0, or -1 with errno set to give up (the temporary file is
 * removed and @path left as it was).
 * Return: 0, or -1 with errno set.
 */
int file_replace(const char *path, mode_t mode,
		 int (*write)(FILE *f, void *arg), void *arg);

#endif /* TOOLS_REPLACE_H */
