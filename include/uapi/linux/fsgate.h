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

#include <linux/fanotify.h>
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

/*
 * timeout_ms: 0 takes the module's default_timeout_ms. Any wait also ends
 * at the module's max_chain_ms, the ceiling on one access's whole chain.
 * FSGATE_TIMEOUT_NONE waits without bound, and lifts the ceiling for the
 * accesses the group is asked about; FSGATE_IOC_INIT refuses it (EPERM)
 * unless the module's allow_unbounded_waits is set.
 */
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

/*
 * Mark flags: fanotify_mark(2)'s FAN_MARK_* values. Exactly one of ADD,
 * REMOVE and FLUSH; at most one object type.
 */
#define FSGATE_MARK_ADD			FAN_MARK_ADD
#define FSGATE_MARK_REMOVE		FAN_MARK_REMOVE
#define FSGATE_MARK_DONT_FOLLOW		FAN_MARK_DONT_FOLLOW
#define FSGATE_MARK_ONLYDIR		FAN_MARK_ONLYDIR
#define FSGATE_MARK_IGNORED_MASK	FAN_MARK_IGNORED_MASK
#define FSGATE_MARK_IGNORED_SURV_MODIFY	FAN_MARK_IGNORED_SURV_MODIFY
#define FSGATE_MARK_FLUSH		FAN_MARK_FLUSH
#define FSGATE_MARK_INODE		FAN_MARK_INODE
#define FSGATE_MARK_MOUNT		FAN_MARK_MOUNT
#define FSGATE_MARK_FILESYSTEM		FAN_MARK_FILESYSTEM
#define FSGATE_MARK_TYPES		(FSGATE_MARK_INODE | FSGATE_MARK_MOUNT | \
					 FSGATE_MARK_FILESYSTEM)

#define FSGATE_MARK_FLAGS	(FSGATE_MARK_ADD | FSGATE_MARK_REMOVE | \
				 FSGATE_MARK_DONT_FOLLOW | FSGATE_MARK_ONLYDIR | \
				 FSGATE_MARK_IGNORED_MASK | \
				 FSGATE_MARK_IGNORED_SURV_MODIFY | \
				 FSGATE_MARK_FLUSH | FSGATE_MARK_TYPES)

/* Notification events a mark may ask for: fanotify's FAN_* values. */
#define FSGATE_NOTIF_EVENTS	(FAN_ACCESS | FAN_MODIFY | FAN_CLOSE_WRITE | \
				 FAN_CLOSE_NOWRITE | FAN_OPEN | FAN_OPEN_EXEC)
/*
 * Permission events a mark may ask for, for CONTENT and PRE_CONTENT
 * groups only: fanotify's FAN_*_PERM values.
 */
#define FSGATE_PERM_EVENTS	(FAN_OPEN_PERM | FAN_ACCESS_PERM | \
				 FAN_OPEN_EXEC_PERM)
#define FSGATE_EVENTS		(FSGATE_NOTIF_EVENTS | FSGATE_PERM_EVENTS)
/* Flags a mark's mask may carry besides events. */
#define FSGATE_MASK_FLAGS	(FAN_ONDIR | FAN_EVENT_ON_CHILD)

/**
 * struct fsgate_mark - argument of %FSGATE_IOC_MARK, as fanotify_mark(2)
 * @flags: FSGATE_MARK_* flags
 * @dirfd: with @pathname as in openat(2); without it, the object of the
 *	fd itself (AT_FDCWD: the current directory)
 * @mask: FSGATE_EVENTS bits, with FAN_ONDIR and FAN_EVENT_ON_CHILD
 * @pathname: userspace pointer to a NUL-terminated path, or 0
 * @reserved: must be zero
 */
struct fsgate_mark {
	__u32 flags;
	__s32 dirfd;
	__u64 mask;
	__u64 pathname;
	__u64 reserved[4];
};

/*
 * Responses: write() on a group fd takes one or more struct
 * fanotify_response, whose @response is FSGATE_ALLOW or FSGATE_DENY,
 * optionally with FSGATE_CACHE, and for a deny optionally an errno in
 * the top byte (Linux 6.13's FAN_DENY_ERRNO encoding): EPERM (the
 * default), EACCES, EIO, EBUSY, ETXTBSY, EAGAIN, ENOSPC or EDQUOT.
 */
#define FSGATE_ALLOW			FAN_ALLOW
#define FSGATE_DENY			FAN_DENY
/* Remember this verdict for this group and file until it is modified. */
#define FSGATE_CACHE			0x00008000
#define FSGATE_ERRNO_SHIFT		24
#define FSGATE_ERRNO_MASK		0xff
#define FSGATE_DENY_ERRNO(err)		(FSGATE_DENY | \
					 (((__u32)(err) & FSGATE_ERRNO_MASK) << \
					  FSGATE_ERRNO_SHIFT))
#define FSGATE_RESPONSE_ERRNO(res)	((int)((res) >> FSGATE_ERRNO_SHIFT))
/* Responses one write() may carry. */
#define FSGATE_RESPONSE_MAX		1024

/**
 * struct fsgate_stats - argument of %FSGATE_IOC_STATS, filled by fsgate
 * @marks: objects the group has marks or ignore masks on; cached verdicts
 *	are not marks
 * @queued: events waiting to be read, permission events included
 * @delivered: events read since the group was made
 * @overflows: times the queue was full and events were dropped
 * @pending: permission events asked and not yet resolved
 * @asked: permission events the group was asked, overflows included
 * @answered: permission events the group answered
 * @denied: of those, answered with a deny
 * @timedout: permission events resolved by the group's timeout verdict:
 *	not answered within the group's timeout or the chain's ceiling
 *	(max_chain_ms), or not asked because the ceiling had passed
 * @orphaned: permission events resolved by the group's orphan verdict
 * @cancelled: permission events withdrawn because the waiting process
 *	was killed, or another group of the same tier denied the access
 * @perm_overflows: permission events resolved at once by the timeout
 *	verdict because max_pending_events were pending already
 * @cached: accesses decided from the group's verdict cache, not asked
 * @unopened: permission events denied (%EPERM) because read() could not
 *	open their fd (%EMFILE, %ETXTBSY for a writable fd on a running
 *	program, ...): the group could not judge the access
 * @cache_entries: files the group has cached verdicts on now, at most
 *	the module's max_cached_verdicts (whatever FSGATE_UNLIMITED_MARKS
 *	says); not counted in @marks
 * @cache_evictions: cached verdicts evicted, least recently used first,
 *	to make room for new ones
 * @cache_flushes: %FSGATE_IOC_FLUSH_CACHE requests the group made
 * @muted: events the group was neither told of nor asked because of its
 *	mutes (%FSGATE_IOC_MUTE); permission events among them are
 *	decided without it
 * @reserved: zero, for counters to come
 *
 * @asked = @answered + @timedout + @orphaned + @cancelled +
 * @perm_overflows + @unopened + @pending, at any moment the group
 * is idle.
 */
struct fsgate_stats {
	__u64 marks;
	__u64 queued;
	__u64 delivered;
	__u64 overflows;
	__u64 pending;
	__u64 asked;
	__u64 answered;
	__u64 denied;
	__u64 timedout;
	__u64 orphaned;
	__u64 cancelled;
	__u64 perm_overflows;
	__u64 cached;
	__u64 unopened;
	__u64 cache_entries;
	__u64 cache_evictions;
	__u64 cache_flushes;
	__u64 muted;
	__u64 reserved[2];
};

#define FSGATE_IOC_MAGIC	0xF5

/*
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_INIT, struct fsgate_init *)
 * returns the fd of a new listener group.
 */
#define FSGATE_IOC_INIT		_IOW(FSGATE_IOC_MAGIC, 0x01, struct fsgate_init)

/* ioctl(group fd, FSGATE_IOC_MARK, struct fsgate_mark *) returns 0. */
#define FSGATE_IOC_MARK		_IOW(FSGATE_IOC_MAGIC, 0x02, struct fsgate_mark)

/* ioctl(group fd, FSGATE_IOC_STATS, struct fsgate_stats *) returns 0. */
#define FSGATE_IOC_STATS	_IOR(FSGATE_IOC_MAGIC, 0x03, struct fsgate_stats)

/* Flags of struct fsgate_cache_flush. */
#define FSGATE_FLUSH_FILE		0x00000001	/* only @fd's file */
#define FSGATE_FLUSH_FLAGS		FSGATE_FLUSH_FILE

/**
 * struct fsgate_cache_flush - argument of %FSGATE_IOC_FLUSH_CACHE
 * @flags: 0 to drop every verdict the group has cached, or
 *	%FSGATE_FLUSH_FILE to drop only those on the file of @fd
 * @fd: with %FSGATE_FLUSH_FILE, an open fd of the file (an event's fd,
 *	or any other, O_PATH included); otherwise 0
 * @reserved: must be zero
 *
 * Once the ioctl returns, every later access the group caches a verdict
 * for is asked of it again, and no answer to an event asked before the
 * flush is cached (it still decides its access).
 */
struct fsgate_cache_flush {
	__u32 flags;
	__s32 fd;
	__u64 reserved[3];
};

/*
 * ioctl(group fd, FSGATE_IOC_FLUSH_CACHE, struct fsgate_cache_flush *)
 * returns how many files had verdicts of the group cached that were
 * dropped.
 */
#define FSGATE_IOC_FLUSH_CACHE	_IOW(FSGATE_IOC_MAGIC, 0x20, \
				     struct fsgate_cache_flush)

/*
 * Muting: the accesses a group is neither told of nor asked about,
 * decided in the kernel before any event is made. Kinds of entry:
 */
#define FSGATE_MUTE_PROCESS	1	/* @id: a process (tgid) */
#define FSGATE_MUTE_EXE		2	/* @dev, @id: a program's file */
#define FSGATE_MUTE_UID		3	/* @id: an effective uid */
#define FSGATE_MUTE_CGROUP	4	/* @id: a cgroup v2 and those below */

/* Flags of struct fsgate_mute_entry. */
#define FSGATE_MUTE_DESCENDANTS	0x00000001	/* PROCESS: and what it forks */
#define FSGATE_MUTE_ENTRY_FLAGS	FSGATE_MUTE_DESCENDANTS

/**
 * struct fsgate_mute_entry - one entry of a group's mutes
 * @type: FSGATE_MUTE_*
 * @flags: %FSGATE_MUTE_DESCENDANTS for a process: the processes it forks
 *	from the moment the entry is added, and theirs, match too
 * @id: the tgid in the caller's pid namespace; the inode number of the
 *	program (as st_ino); the uid in the caller's user namespace; or
 *	the cgroup id (the cgroup2 directory's st_ino, or its file handle)
 * @dev: for %FSGATE_MUTE_EXE, the program's device (as st_dev); else 0
 * @reserved: must be zero
 */
struct fsgate_mute_entry {
	__u32 type;
	__u32 flags;
	__u64 id;
	__u64 dev;
	__u64 reserved;
};

/* Operations of struct fsgate_mute. */
#define FSGATE_MUTE_ADD		1	/* add @entry */
#define FSGATE_MUTE_REMOVE	2	/* remove @entry */
#define FSGATE_MUTE_CLEAR	3	/* remove every entry */
#define FSGATE_MUTE_LIST	4	/* copy entries out, see @count */
#define FSGATE_MUTE_SET_MODE	5	/* set @mode */

/* Modes of a group's mutes. */
#define FSGATE_MUTE_MODE_MUTE	0	/* the entries are not seen */
#define FSGATE_MUTE_MODE_ONLY	1	/* only the entries are seen */

/* The first size of struct fsgate_mute; a later, longer one has its own. */
#define FSGATE_MUTE_SIZE_VER0	80

/**
 * struct fsgate_mute - argument of %FSGATE_IOC_MUTE
 * @size: sizeof(struct fsgate_mute) as the caller knows it
 *	(%FSGATE_MUTE_SIZE_VER0 or more; bytes fsgate does not know must
 *	be zero)
 * @op: FSGATE_MUTE_ADD, _REMOVE, _CLEAR, _LIST or _SET_MODE
 * @mode: for %FSGATE_MUTE_SET_MODE, FSGATE_MUTE_MODE_*; set by
 *	%FSGATE_MUTE_LIST to the group's mode; otherwise 0
 * @count: for %FSGATE_MUTE_LIST, room in @entries, then set to how many
 *	entries the group has (more than were copied if there was no
 *	room for all); otherwise 0
 * @entries: for %FSGATE_MUTE_LIST, userspace pointer to @count struct
 *	fsgate_mute_entry; otherwise 0
 * @entry: the entry to add or remove; otherwise zero
 * @reserved: must be zero
 */
struct fsgate_mute {
	__u32 size;
	__u32 op;
	__u32 mode;
	__u32 count;
	__u64 entries;
	struct fsgate_mute_entry entry;
	__u64 reserved[3];
};

/*
 * ioctl(group fd, FSGATE_IOC_MUTE, struct fsgate_mute *) returns 0; with
 * %FSGATE_MUTE_LIST it writes @mode and @count back.
 */
#define FSGATE_IOC_MUTE		_IOWR(FSGATE_IOC_MAGIC, 0x21, struct fsgate_mute)

#endif /* _UAPI_LINUX_FSGATE_H */
