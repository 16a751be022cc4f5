/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracefs instance of one's own (instances/NAME under the tracefs
 * mount), so that enabling events and consuming trace_pipe there leaves
 * every other tracing user's buffer and events as they were.
 */
#ifndef TOOLS_TRACEFS_H
#define TOOLS_TRACEFS_H

#include <limits.h>

struct tracefs_instance {
	char dir[PATH_MAX];	/* the instance's directory */
	int pipe;		/* its trace_pipe, or -1 */
};

/* Why tracefs_create() failed, for a message that says what to do. */
enum tracefs_error {
	TRACEFS_OK,
	TRACEFS_NOT_MOUNTED,	/* no tracefs at either place */
	TRACEFS_NO_PRIVILEGE,	/* EACCES or EPERM: root's */
	TRACEFS_NO_EVENTS,	/* no events/@system: module not loaded */
	TRACEFS_FAILED,		/* anything else: errno says */
};

/*
 * Make the instance @name under /sys/kernel/tracing (or, without it,
 * /sys/kernel/debug/tracing), enable the @system events named by the
 * NULL-ended @events in it and open its trace_pipe non-blocking. A
 * stale instance of the same name (a killed run's) is replaced.
 * Return: TRACEFS_OK, or why not with errno set and nothing left made.
 */
enum tracefs_error tracefs_create(struct tracefs_instance *t,
				  const char *name, const char *system,
				  const char *const *events);

/* Close trace_pipe and remove the instance. Return: 0, or -1 (errno). */
int tracefs_remove(struct tracefs_instance *t);

#endif /* TOOLS_TRACEFS_H */
