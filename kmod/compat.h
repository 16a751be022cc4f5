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
 * Where fsgate's fsnotify group stands among the kernel's groups.
 *
 * 6.1 orders groups by a plain unsigned priority (fanotify uses 0..2), so
 * fsgate takes the top and is asked before every in-tree group.
 *
 * 6.12 uses the priority to index per-priority watcher counters, so only
 * the enum's values are valid, and the value has effects beyond order:
 * a superblock with CONTENT watchers gives files opened on it permission
 * hooks, and one with PRE_CONTENT watchers puts them in HSM mode, which
 * also stops denying writes to running executables. fsgate does not do
 * pre-content events, so it stays at CONTENT: after fanotify's
 * pre-content groups, and tied with its content groups (ties are ordered
 * by group address). Kbuild probes the headers for the enum and defines
 * FSGATE_HAVE_FSNOTIFY_PRIO_ENUM.
 */
#ifdef FSGATE_HAVE_FSNOTIFY_PRIO_ENUM
#define FSGATE_FSNOTIFY_PRIO	FSNOTIFY_PRIO_CONTENT
#else
#define FSGATE_FSNOTIFY_PRIO	UINT_MAX
#endif

#endif /* _FSGATE_COMPAT_H */
