/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels fsgate builds against lives here
 * (Debian 12's 6.1 and 6.12 and the 6.1 debug kernel). Force-included into
 * each file by Kbuild, so no other file tests a kernel version.
 */
#ifndef _FSGATE_COMPAT_H
#define _FSGATE_COMPAT_H

#include <linux/fsnotify_backend.h>

/*
 * fsgate's fsnotify group must be asked before every in-tree group. 6.1
 * orders groups by a plain unsigned priority (fanotify uses 0..2). 6.12
 * uses the priority to index per-priority watcher counters, so only the
 * enum's values are valid there; fanotify's pre-content groups share the
 * top value and ties are ordered by group address. Kbuild probes the
 * headers for the enum and defines FSGATE_HAVE_FSNOTIFY_PRIO_ENUM.
 */
#ifdef FSGATE_HAVE_FSNOTIFY_PRIO_ENUM
#define FSGATE_FSNOTIFY_PRIO	FSNOTIFY_PRIO_PRE_CONTENT
#else
#define FSGATE_FSNOTIFY_PRIO	UINT_MAX
#endif

#endif /* _FSGATE_COMPAT_H */
