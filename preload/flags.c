// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which fanotify_init() and fanotify_mark() flags fsgate serves. fsgate
 * took fanotify's values for everything it shares, so serving a flag is
 * passing it on (FAN_ENABLE_AUDIT too: a module on a kernel without
 * audit refuses it with EINVAL, as fanotify_init() can not); the
 * responses' FAN_AUDIT and FAN_INFO go straight to the group fd, which
 * takes fanotify's layout. FAN_REPORT_PIDFD is served by asking for
 * fsgate's process-context records (FSGATE_REPORT_PROC), which the
 * layer's read() turns into pidfd records (read.c). fanotify's FID
 * reporting flags are fsgate's too (FSGATE_REPORT_FID_BITS): the module
 * checks their combinations as fanotify_init() does, and its events
 * carry fanotify's own FID records, so they pass unchanged, as do the
 * directory entry events of fanotify_mark(). FAN_REPORT_FD_ERROR is
 * fsgate's FSGATE_REPORT_FD_ERROR, on every kernel; with FAN_REPORT_PIDFD
 * read() gives its pidfd records errnos too. A flag it lacks (anything
 * newer) fails with EINVAL, which is what a kernel without the flag
 * says, so that programs take the fallback they already have for older
 * kernels.
 *
 * What a fanotify program cannot ask for, the environment adds: an
 * orphan verdict, FSGATE_EXCLUDE_SELF and FSGATE_REPORT_PROC (env.c).
 */
#include "preload.h"

#define SERVED_INIT_FLAGS (FSGATE_CLASS_MASK | FSGATE_CLOEXEC | \
			   FSGATE_NONBLOCK | FSGATE_UNLIMITED_QUEUE | \
			   FSGATE_UNLIMITED_MARKS | FSGATE_REPORT_TID | \
			   FSGATE_ENABLE_AUDIT | FAN_REPORT_PIDFD | \
			   FSGATE_REPORT_FID_BITS | FSGATE_REPORT_FD_ERROR)

_Static_assert(FSGATE_CLASS_CONTENT == FAN_CLASS_CONTENT &&
	       FSGATE_CLASS_PRE_CONTENT == FAN_CLASS_PRE_CONTENT &&
	       FSGATE_CLOEXEC == FAN_CLOEXEC && FSGATE_NONBLOCK == FAN_NONBLOCK &&
	       FSGATE_UNLIMITED_QUEUE == FAN_UNLIMITED_QUEUE &&
	       FSGATE_UNLIMITED_MARKS == FAN_UNLIMITED_MARKS &&
	       FSGATE_REPORT_TID == FAN_REPORT_TID &&
	       FSGATE_ENABLE_AUDIT == FAN_ENABLE_AUDIT &&
	       FSGATE_REPORT_FID == FAN_REPORT_FID &&
	       FSGATE_REPORT_DIR_FID == FAN_REPORT_DIR_FID &&
	       FSGATE_REPORT_NAME == FAN_REPORT_NAME &&
	       FSGATE_REPORT_TARGET_FID == 0x00001000 /* FAN_REPORT_TARGET_FID */ &&
	       FSGATE_REPORT_FD_ERROR == 0x00002000 /* FAN_REPORT_FD_ERROR */,
	       "fsgate's group flags are fanotify's");
_Static_assert(FSGATE_DIRENT_EVENTS ==
	       (FAN_ATTRIB | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE |
		FAN_DELETE | FAN_DELETE_SELF | FAN_MOVE_SELF |
		0x10000000 /* FAN_RENAME */),
	       "fsgate's directory entry events are fanotify's");
_Static_assert(FSGATE_AUDIT == FAN_AUDIT, "fsgate's FSGATE_AUDIT is FAN_AUDIT");
#ifdef FAN_INFO
_Static_assert(FSGATE_INFO == FAN_INFO &&
	       FSGATE_RESPONSE_INFO_AUDIT_RULE == FAN_RESPONSE_INFO_AUDIT_RULE &&
	       sizeof(struct fsgate_response_audit_rule) ==
	       sizeof(struct fanotify_response_info_audit_rule),
	       "fsgate's FSGATE_INFO is FAN_INFO");
#endif
/*
 * FSGATE_EXCLUDE_SELF and the FSGATE_REPORT_* flags are fsgate's own: a
 * fanotify program never asks them; FAN_REPORT_PIDFD is no fsgate flag.
 */
_Static_assert(!(SERVED_INIT_FLAGS & (FSGATE_EXCLUDE_SELF | FSGATE_REPORT_INFO)),
	       "fanotify has no EXCLUDE_SELF or fsgate records");
_Static_assert(!(FSGATE_INIT_FLAGS & FAN_REPORT_PIDFD),
	       "FAN_REPORT_PIDFD is not an fsgate flag");

bool preload_init_args(unsigned int flags, unsigned int event_f_flags,
		      const struct preload_env *env, struct fsgate_init *init)
{
	if (flags & ~SERVED_INIT_FLAGS)
		return false;
	/* Both class bits: fanotify has no such class either. */
	if ((flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_MASK)
		return false;
	if (flags & FAN_REPORT_PIDFD) {
		/* fanotify's rule: a pidfd is for a process, not a thread. */
		if (flags & FAN_REPORT_TID)
			return false;
		/*
		 * The pidfd record takes the process-context record's place;
		 * both would need a buffer larger than the one read() got.
		 */
		if (env->report_proc)
			return false;
	}
	*init = (struct fsgate_init){
		.flags = flags & ~FAN_REPORT_PIDFD,
		.event_f_flags = event_f_flags,
		.priority = env->priority,
		.timeout_ms = env->timeout_ms,
		.timeout_verdict = env->timeout_verdict,
		.orphan_verdict = env->orphan_verdict,
	};
	if (flags & FAN_REPORT_PIDFD || env->report_proc)
		init->flags |= FSGATE_REPORT_PROC;
	if (env->exclude_self)
		init->flags |= FSGATE_EXCLUDE_SELF;
	return true;
}

/* FSGATE_MARK_FLAGS are fanotify's FAN_MARK_* values, mount marks included. */
bool preload_mark_flags_ok(unsigned int flags)
{
	return !(flags & ~FSGATE_MARK_FLAGS);
}
