// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One line on stderr, once: a program that probes fanotify_init() with
 * several flag sets must not repeat the same complaint for each.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

void preload_warn(int *once, const char *msg)
{
	char line[256];
	int len;

	if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
		return;
	/* One write(): stdio's stderr may be in any state in the program. */
	len = snprintf(line, sizeof(line), "libfsgate-fanotify: %s\n", msg);
	if (len > (int)sizeof(line) - 1)
		len = sizeof(line) - 1;
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}
