/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libfsgate: the userspace side of fsgate.
 *
 * Functions return -1 and set errno on failure, as libc does.
 */
#ifndef FSGATE_H
#define FSGATE_H

#include <stdint.h>
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

/**
 * fsgate_mark() - add, remove or flush marks, as fanotify_mark(2)
 * @fd: a group fd
 * @flags: FSGATE_MARK_* flags
 * @mask: FAN_* events, with FAN_ONDIR and FAN_EVENT_ON_CHILD
 * @dirfd: as in openat(2), or the object itself when @pathname is NULL
 * @pathname: path of the object, or NULL
 *
 * Return: 0, or -1 with errno set as fanotify_mark(2) would set it.
 */
int fsgate_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
		const char *pathname);

/**
 * fsgate_stats() - read a group's counters
 * @fd: a group fd
 * @stats: filled in
 *
 * Return: 0, or -1 with errno set.
 */
int fsgate_stats(int fd, struct fsgate_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* FSGATE_H */
