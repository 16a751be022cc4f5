/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fsgate: a file access gate with explicitly ordered listener groups.
 *
 * This is the whole ABI between fsgate.ko and userspace. Events read from a
 * group fd are laid out as struct fanotify_event_metadata and responses are
 * struct fanotify_response, so the event and flag values below are
 * fanotify's own wherever fanotify has one.
 */
#ifndef _UAPI_LINUX_FSGATE_H
#define _UAPI_LINUX_FSGATE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Group classes: fanotify's FAN_CLASS_* values. */
#define FSGATE_CLASS_NOTIF		0x00000000
#define FSGATE_CLASS_CONTENT		0x00000004
#define FSGATE_CLASS_PRE_CONTENT	0x00000008
#define FSGATE_CLASS_MASK		0x0000000c

/* Group flags: fanotify's FAN_* values where fanotify has the flag. */
#define FSGATE_CLOEXEC			0x00000001
#define FSGATE_NONBLOCK			0x00000002
#define FSGATE_UNLIMITED_QUEUE		0x00000010
#define FSGATE_UNLIMITED_MARKS		0x00000020
#define FSGATE_REPORT_TID		0x00000100
/* Events caused by the group's own process are neither queued nor asked. */
#define FSGATE_EXCLUDE_SELF		0x80000000

#define FSGATE_INIT_FLAGS	(FSGATE_CLASS_MASK | FSGATE_CLOEXEC | \
				 FSGATE_NONBLOCK | FSGATE_UNLIMITED_QUEUE | \
				 FSGATE_UNLIMITED_MARKS | FSGATE_REPORT_TID | \
				 FSGATE_EXCLUDE_SELF)

/*
 * Priorities: higher is asked first. Groups of equal priority form one
 * tier that is asked at once. FSGATE_PRIORITY_DEFAULT takes the class
 * default below; any other value must be at most FSGATE_PRIORITY_MAX.
 */
#define FSGATE_PRIORITY_MAX		65535
#define FSGATE_PRIORITY_DEFAULT		0xffffffff
#define FSGATE_PRIORITY_PRE_CONTENT	3000
#define FSGATE_PRIORITY_CONTENT		2000
#define FSGATE_PRIORITY_NOTIF		1000

/* Verdict policies for timeouts and orphaned events. */
#define FSGATE_VERDICT_DEFAULT		0	/* allow */
#define FSGATE_VERDICT_ALLOW		1	/* FAN_ALLOW */
#define FSGATE_VERDICT_DENY		2	/* FAN_DENY */

/* timeout_ms: 0 takes the module's default_timeout_ms. */
#define FSGATE_TIMEOUT_DEFAULT		0
#define FSGATE_TIMEOUT_NONE		0xffffffff	/* wait without bound */

/**
 * struct fsgate_init - argument of %FSGATE_IOC_INIT
 * @flags: one class (FSGATE_CLASS_*) ored with FSGATE_* group flags
 * @event_f_flags: open flags of the fds that events carry, as the
 *	event_f_flags of fanotify_init(2)
 * @priority: 0..%FSGATE_PRIORITY_MAX, or %FSGATE_PRIORITY_DEFAULT
 * @timeout_ms: how long an access waits for this group's answer;
 *	%FSGATE_TIMEOUT_DEFAULT or %FSGATE_TIMEOUT_NONE
 * @timeout_verdict: FSGATE_VERDICT_* applied when the wait times out
 * @orphan_verdict: FSGATE_VERDICT_* applied to pending events when the
 *	group goes away
 * @reserved: must be zero
 */
struct fsgate_init {
	__u32 flags;
	__u32 event_f_flags;
	__u32 priority;
	__u32 timeout_ms;
	__u32 timeout_verdict;
	__u32 orphan_verdict;
	__u64 reserved[5];
};

#define FSGATE_IOC_MAGIC	0xF5

/*
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_INIT, struct fsgate_init *)
 * returns the fd of a new listener group.
 */
#define FSGATE_IOC_INIT		_IOW(FSGATE_IOC_MAGIC, 0x01, struct fsgate_init)

#endif /* _UAPI_LINUX_FSGATE_H */
