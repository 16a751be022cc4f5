/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libfsgate: the userspace side of fsgate.
 *
 * Functions return -1 and set errno on failure, as libc does.
 */
#ifndef FSGATE_H
#define FSGATE_H

#include <linux/fsgate.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The device groups are made through. */
#define FSGATE_DEVICE "/dev/fsgate"

/**
 * fsgate_init() - make a listener group, as fanotify_init() was proposed
 * @flags: an FSGATE_CLASS_* ored with FSGATE_* group flags
 * @event_f_flags: open flags of the fds events carry (O_RDONLY, ...)
 * @priority: 0..FSGATE_PRIORITY_MAX, higher asked first, or
 *	FSGATE_PRIORITY_DEFAULT for the class default
 *
 * Return: the group fd, or -1 with errno set: ENOENT when fsgate.ko is
 * not loaded, EACCES/EPERM without privilege, EINVAL for bad arguments.
 */
int fsgate_init(unsigned int flags, unsigned int event_f_flags,
		unsigned int priority);

/**
 * fsgate_init_ext() - make a listener group from a full struct fsgate_init
 * @init: every field, timeouts and verdict policies included; reserved
 *	fields must be zero
 *
 * Return: as fsgate_init().
 */
int fsgate_init_ext(const struct fsgate_init *init);

#ifdef __cplusplus
}
#endif

#endif /* FSGATE_H */
