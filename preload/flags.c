// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which fanotify_init() and fanotify_mark() flags fsgate serves. fsgate
 * took fanotify's values for everything it shares, so serving a flag is
 * passing it on (FAN_ENABLE_AUDIT too: a module on a kernel without
 * audit refuses it with EINVAL, as fanotify_init() can not); the
 * responses' FAN_AUDIT and FAN_INFO go straight to the group fd, which
 * takes fanotify's layout. A flag it lacks (FID reporting, pidfds,
 * evictable and ignore marks, anything newer) fails with EINVAL, which
 * is what a kernel without the flag says, so that programs take the
 * fallback they already have for older kernels.
 */
#include "preload.h"

#define SERVED_INIT_FLAGS (FSGATE_CLASS_MASK | FSGATE_CLOEXEC | \
			   FSGATE_NONBLOCK | FSGATE_UNLIMITED_QUEUE | \
			   FSGATE_UNLIMITED_MARKS | FSGATE_REPORT_TID | \
			   FSGATE_ENABLE_AUDIT)

_Static_assert(FSGATE_CLASS_CONTENT == FAN_CLASS_CONTENT &&
	       FSGATE_CLASS_PRE_CONTENT == FAN_CLASS_PRE_CONTENT &&
	       FSGATE_CLOEXEC == FAN_CLOEXEC && FSGATE_NONBLOCK == FAN_NONBLOCK &&
	       FSGATE_UNLIMITED_QUEUE == FAN_UNLIMITED_QUEUE &&
	       FSGATE_UNLIMITED_MARKS == FAN_UNLIMITED_MARKS &&
	       FSGATE_REPORT_TID == FAN_REPORT_TID &&
	       FSGATE_ENABLE_AUDIT == FAN_ENABLE_AUDIT,
	       "fsgate's group flags are fanotify's");
_Static_assert(FSGATE_AUDIT == FAN_AUDIT, "fsgate's FSGATE_AUDIT is FAN_AUDIT");
#ifdef FAN_INFO
_Static_assert(FSGATE_INFO == FAN_INFO &&
	       FSGATE_RESPONSE_INFO_AUDIT_RULE == FAN_RESPONSE_INFO_AUDIT_RULE &&
	       sizeof(struct fsgate_response_audit_rule) ==
	       sizeof(struct fanotify_response_info_audit_rule),
	       "fsgate's FSGATE_INFO is FAN_INFO");
#endif
/* FSGATE_EXCLUDE_SELF is fsgate's own: a fanotify program never asks it. */
_Static_assert(!(SERVED_INIT_FLAGS & FSGATE_EXCLUDE_SELF),
	       "fanotify has no EXCLUDE_SELF");

bool preload_init_args(unsigned int flags, unsigned int event_f_flags,
		      const struct preload_env *env, struct fsgate_init *init)
{
	if (flags & ~SERVED_INIT_FLAGS)
		return false;
	/* Both class bits: fanotify has no such class either. */
	if ((flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_MASK)
		return false;
	*init = (struct fsgate_init){
		.flags = flags,
		.event_f_flags = event_f_flags,
		.priority = env->priority,
		.timeout_ms = env->timeout_ms,
		.timeout_verdict = env->timeout_verdict,
	};
	return true;
}

/* FSGATE_MARK_FLAGS are fanotify's FAN_MARK_* values, mount marks included. */
bool preload_mark_flags_ok(unsigned int flags)
{
	return !(flags & ~FSGATE_MARK_FLAGS);
}
