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
/*
 * Answers with FSGATE_AUDIT go to the kernel's audit log as in-tree
 * fanotify's do (FAN_ENABLE_AUDIT); needs CAP_AUDIT_WRITE, and a kernel
 * with audit (FSGATE_FEATURE_AUDIT).
 */
#define FSGATE_ENABLE_AUDIT		0x00000040
/* Events caused by the group's own process are neither queued nor asked. */
#define FSGATE_EXCLUDE_SELF		0x80000000
/*
 * Info records after each event's metadata (see "Info records" below):
 * FSGATE_REPORT_PERM puts a struct fsgate_info_perm (the event's id and
 * deadline) after every permission event.
 */
#define FSGATE_REPORT_PERM		0x40000000
/* ... and FSGATE_REPORT_PROC a struct fsgate_info_proc after every event. */
#define FSGATE_REPORT_PROC		0x20000000
/* Every flag that asks for info records. */
#define FSGATE_REPORT_INFO		(FSGATE_REPORT_PERM | FSGATE_REPORT_PROC)
/*
 * fanotify's FID reporting modes (FSGATE_FEATURE_REPORT_FID), with
 * fanotify_init(2)'s values and rules: for notification groups only;
 * events carry fanotify's struct fanotify_event_info_fid records (file
 * handles, names) and fd FAN_NOFD; NAME needs DIR_FID; TARGET_FID needs
 * FID and DFID_NAME. Marks may then ask for FSGATE_DIRENT_EVENTS.
 */
#define FSGATE_REPORT_FID		FAN_REPORT_FID
#define FSGATE_REPORT_DIR_FID		FAN_REPORT_DIR_FID
#define FSGATE_REPORT_NAME		FAN_REPORT_NAME
/* Linux 5.17's FAN_REPORT_TARGET_FID, which older headers lack. */
#define FSGATE_REPORT_TARGET_FID	0x00001000
#define FSGATE_REPORT_DFID_NAME		(FSGATE_REPORT_DIR_FID | \
					 FSGATE_REPORT_NAME)
#define FSGATE_REPORT_FID_BITS		(FSGATE_REPORT_FID | \
					 FSGATE_REPORT_DFID_NAME | \
					 FSGATE_REPORT_TARGET_FID)
/*
 * Linux 6.13's FAN_REPORT_FD_ERROR (FSGATE_FEATURE_REPORT_FD_ERROR), for
 * every class: an event whose fd cannot be opened is read with the
 * negative errno in its fd (-EMFILE, -EACCES, -EWOULDBLOCK for a lease,
 * ...) instead of being dropped, and read() goes on; a permission event
 * so read is still denied (-EPERM) and counted as unopened. As fanotify
 * with the flag, an event that has no fd to open (FAN_Q_OVERFLOW, the
 * events of FID groups) says -EBADF rather than FAN_NOFD.
 */
#define FSGATE_REPORT_FD_ERROR		0x00002000

/*
 * The flags a group made without CAP_SYS_ADMIN may have, as fanotify's
 * FANOTIFY_USER_INIT_FLAGS (FSGATE_FEATURE_UNPRIV): a notification
 * group reporting file handles, never fds (one of FSGATE_REPORT_FID_BITS
 * is needed), plus FSGATE_ENABLE_AUDIT, which needs CAP_AUDIT_WRITE.
 */
#define FSGATE_USER_INIT_FLAGS	(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID_BITS | \
				 FSGATE_CLOEXEC | FSGATE_NONBLOCK)
#define FSGATE_INIT_FLAGS	(FSGATE_CLASS_MASK | FSGATE_CLOEXEC | \
				 FSGATE_NONBLOCK | FSGATE_UNLIMITED_QUEUE | \
				 FSGATE_UNLIMITED_MARKS | FSGATE_REPORT_TID | \
				 FSGATE_EXCLUDE_SELF | FSGATE_REPORT_INFO | \
				 FSGATE_ENABLE_AUDIT | FSGATE_REPORT_FID_BITS | \
				 FSGATE_REPORT_FD_ERROR)

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
 * @max_wait_ms: the longest one access may wait for this group, counted
 *	from when it was asked, when the group asks for more time
 *	(%FSGATE_EXTEND); 0 takes the module's default_max_wait_ms. Never
 *	shorter than the group's timeout.
 * @reserved32: must be zero
 * @reserved: must be zero
 */
struct fsgate_init {
	__u32 flags;
	__u32 event_f_flags;
	__u32 priority;
	__u32 timeout_ms;
	__u32 timeout_verdict;
	__u32 orphan_verdict;
	__u32 max_wait_ms;
	__u32 reserved32;
	__u64 reserved[4];
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
/*
 * fanotify's FAN_MARK_IGNORE (Linux 6.0): the mask is an ignore mask in
 * which FAN_ONDIR and FAN_EVENT_ON_CHILD take effect (a legacy
 * FSGATE_MARK_IGNORED_MASK applies to directories always and to children
 * when the mark watches them). Not with FSGATE_MARK_IGNORED_MASK; once a
 * mark has used it, FSGATE_MARK_IGNORED_MASK on it is EEXIST.
 * FSGATE_FEATURE_MARK_IGNORE.
 */
#define FSGATE_MARK_IGNORE		FAN_MARK_IGNORE
/* FAN_MARK_IGNORE_SURV: what directories, mounts and filesystems need. */
#define FSGATE_MARK_IGNORE_SURV		FAN_MARK_IGNORE_SURV
/*
 * fanotify's FAN_MARK_EVICTABLE (Linux 5.19): an inode mark that does not
 * keep its inode in memory; when the kernel evicts the inode, the mark
 * goes with it. Inode marks only; an existing mark that pins its inode
 * refuses it (EEXIST), and a request without it makes an evictable mark
 * pin its inode. FSGATE_FEATURE_MARK_EVICTABLE.
 */
#define FSGATE_MARK_EVICTABLE		FAN_MARK_EVICTABLE
#define FSGATE_MARK_INODE		FAN_MARK_INODE
#define FSGATE_MARK_MOUNT		FAN_MARK_MOUNT
#define FSGATE_MARK_FILESYSTEM		FAN_MARK_FILESYSTEM
#define FSGATE_MARK_TYPES		(FSGATE_MARK_INODE | FSGATE_MARK_MOUNT | \
					 FSGATE_MARK_FILESYSTEM)

#define FSGATE_MARK_FLAGS	(FSGATE_MARK_ADD | FSGATE_MARK_REMOVE | \
				 FSGATE_MARK_DONT_FOLLOW | FSGATE_MARK_ONLYDIR | \
				 FSGATE_MARK_IGNORED_MASK | \
				 FSGATE_MARK_IGNORED_SURV_MODIFY | \
				 FSGATE_MARK_IGNORE | FSGATE_MARK_EVICTABLE | \
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
/*
 * Events without a file to open, for groups with FSGATE_REPORT_FID_BITS
 * only, on inode and filesystem marks (fanotify refuses them on mounts):
 * fanotify's values. FAN_RENAME needs FSGATE_REPORT_NAME.
 */
#define FSGATE_DIRENT_EVENTS	(0x00000004 /* FAN_ATTRIB */ | \
				 0x00000040 /* FAN_MOVED_FROM */ | \
				 0x00000080 /* FAN_MOVED_TO */ | \
				 0x00000100 /* FAN_CREATE */ | \
				 0x00000200 /* FAN_DELETE */ | \
				 0x00000400 /* FAN_DELETE_SELF */ | \
				 0x00000800 /* FAN_MOVE_SELF */ | \
				 0x10000000 /* FAN_RENAME */)
/*
 * fanotify's FAN_FS_ERROR (Linux 5.16): errors a filesystem reports
 * (ext4_error(), fsnotify_sb_error()), on filesystem marks of groups
 * with FSGATE_REPORT_FID only (EINVAL otherwise, as fanotify). Each event
 * carries a FID record of the inode the error was about (handle_bytes 0
 * and handle_type FILEID_INVALID when none) and fanotify's struct
 * fanotify_event_info_error record, FSGATE_INFO_ERROR. Such events are
 * allocated ahead from a reserve of the group, and an error while one of
 * the same process and filesystem is queued counts in its error_count.
 * FSGATE_FEATURE_FS_ERROR.
 */
#define FSGATE_FS_ERROR		0x00008000
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

/*
 * Audit (fanotify's FAN_AUDIT and FAN_INFO): on a group made with
 * FSGATE_ENABLE_AUDIT, an answer with FSGATE_AUDIT also writes an
 * AUDIT_FANOTIFY record to the kernel's audit log, in the accessing
 * process's audit context, exactly as the running kernel's fanotify
 * writes its own: "resp=%u" (Linux 6.1), or "resp=%u fan_type=%u
 * fan_info=%X subj_trust=%u obj_trust=%u" (Linux 6.3 and later). As in
 * fanotify, the record is written only while the process's system call
 * is audited (audit is enabled and has rules), and @resp is the answer's
 * FSGATE_ALLOW or FSGATE_DENY alone (no errno, FSGATE_CACHE or
 * FSGATE_INFO). A verdict taken later from the cache writes none.
 *
 * Where the record has rule fields (FSGATE_FEATURE_AUDIT_RULE), a
 * response with FSGATE_INFO is followed in the write by one struct
 * fsgate_response_audit_rule, laid out as fanotify's struct
 * fanotify_response_info_audit_rule, whose fields the record shows.
 * A struct fanotify_response with FSGATE_INFO and @fd FAN_NOFD answers
 * nothing: it is checked and taken, which tells a program (fapolicyd)
 * that the kernel knows FAN_INFO, as fanotify does.
 */
#define FSGATE_AUDIT			0x00000010	/* FAN_AUDIT */
#define FSGATE_INFO			0x00000020	/* FAN_INFO */

/* fsgate_response_audit_rule.type: fanotify's FAN_RESPONSE_INFO_*. */
#define FSGATE_RESPONSE_INFO_NONE	0
#define FSGATE_RESPONSE_INFO_AUDIT_RULE	1

/**
 * struct fsgate_response_audit_rule - the rule behind an audited answer
 * @type: %FSGATE_RESPONSE_INFO_AUDIT_RULE
 * @pad: must be zero
 * @len: sizeof(struct fsgate_response_audit_rule), 16
 * @rule_number: the daemon's rule that decided (the record's fan_info)
 * @subj_trust: whether the process is trusted: 0 no, 1 yes, 2 unknown
 * @obj_trust: whether the file is trusted, likewise
 */
struct fsgate_response_audit_rule {
	__u8 type;
	__u8 pad;
	__u16 len;
	__u32 rule_number;
	__u32 subj_trust;
	__u32 obj_trust;
};

/*
 * ---- Info records ----
 *
 * A group made with FSGATE_REPORT_* flags gets typed records after the
 * struct fanotify_event_metadata of the events they apply to, framed
 * exactly as fanotify frames its own: each starts with a struct
 * fanotify_event_info_header whose @len is the record's whole size, and
 * the event's @event_len covers the metadata and all its records. A
 * read() returns whole events only: a buffer too small for the next
 * event ends the read there (or fails with EINVAL if it cannot hold the
 * first one). fsgate's record types start at 0x80, clear of fanotify's.
 *
 * Every record's size is a multiple of 8, so records and events stay
 * 8-byte aligned in a buffer that is. A record only ever grows: fields
 * are added at its end and @len says how much a reader got, so a reader
 * takes a field only when @len covers it. The size of each record's
 * first layout is FSGATE_INFO_*_LEN_V1.
 */
#define FSGATE_INFO_PERM		0x80

/* fsgate_info_perm.flags: the access waits without a deadline. */
#define FSGATE_INFO_PERM_UNBOUNDED	0x00000001

/**
 * struct fsgate_info_perm - a permission event's identity and deadline
 * @hdr: @info_type %FSGATE_INFO_PERM, @len the record's size
 * @flags: FSGATE_INFO_PERM_* flags
 * @id: the event's id: never 0, never given to another event while the
 *	machine is up (not even across a reload of the module); a struct
 *	fsgate_response with %FSGATE_RESPONSE_ID names the event by it
 * @deadline_ns: CLOCK_MONOTONIC time in ns at which the group's timeout
 *	verdict applies, 0 with %FSGATE_INFO_PERM_UNBOUNDED
 * @latest_ns: CLOCK_MONOTONIC time in ns past which no %FSGATE_EXTEND
 *	moves @deadline_ns: the group's max_wait_ms after the event was
 *	asked, or the access's max_chain_ms ceiling where that comes first;
 *	0 with %FSGATE_INFO_PERM_UNBOUNDED. A daemon that holds an access
 *	decides it before this, or the group's timeout verdict does. Only
 *	where @hdr.len is at least %FSGATE_INFO_PERM_LEN_V2.
 */
struct fsgate_info_perm {
	struct fanotify_event_info_header hdr;
	__u32 flags;
	__u64 id;
	__u64 deadline_ns;
	__u64 latest_ns;
};

#define FSGATE_INFO_PERM_LEN_V1		24
#define FSGATE_INFO_PERM_LEN_V2		32

/*
 * The record of an FSGATE_FS_ERROR event: fanotify's struct
 * fanotify_event_info_error and FAN_EVENT_INFO_TYPE_ERROR, 12 bytes as
 * fanotify writes it (after the FID record, which is 4-byte padded, as
 * fanotify's): @error is the filesystem's errno (EUCLEAN, EFSCORRUPTED,
 * for ext4's corruption), @error_count the errors it stands for.
 */
#define FSGATE_INFO_ERROR		5
#define FSGATE_INFO_ERROR_LEN_V1	12

#define FSGATE_INFO_PROC		0x81

/* fsgate_info_proc.flags: which of the fields that may be absent hold one. */
#define FSGATE_PROC_LOGINUID		0x00000001	/* @loginuid */
#define FSGATE_PROC_SESSIONID		0x00000002	/* @sessionid */
#define FSGATE_PROC_EXE			0x00000004	/* @exe_dev, @exe_ino */
#define FSGATE_PROC_CGROUP		0x00000008	/* @cgroup_id */

/**
 * struct fsgate_info_proc - who caused an event, taken when it happened
 * @hdr: @info_type %FSGATE_INFO_PROC, @len the record's size
 * @flags: FSGATE_PROC_* flags: which optional fields are set
 * @uid: real user id, in the reader's user namespace (the overflow uid,
 *	65534 by default, if it has none there)
 * @gid: real group id, likewise
 * @euid: effective user id, likewise
 * @egid: effective group id, likewise
 * @loginuid: audit login uid, likewise (%FSGATE_PROC_LOGINUID), else -1
 * @sessionid: audit session id (%FSGATE_PROC_SESSIONID), else -1
 * @tgid: the process, in the reader's pid namespace; 0 if not there
 * @tid: the thread, likewise
 * @ppid: the process's parent when the event happened, likewise
 * @reserved: zero
 * @start_time_ns: when the process started, ns since boot (CLOCK_BOOTTIME,
 *	as /proc/PID/stat's starttime in ticks): with @tgid it names the
 *	process even once its pid is given to another
 * @exe_dev: device of the program the process runs, as stat's st_dev
 *	(%FSGATE_PROC_EXE; kernel threads have none)
 * @exe_ino: its inode number, as stat's st_ino
 * @cgroup_id: id of its cgroup v2 (%FSGATE_PROC_CGROUP): the inode number
 *	of the cgroup's directory, as name_to_handle_at(2) gives it
 *
 * Taken from the accessing task as the event happens: for a permission
 * event the task is waiting for the answer, so it describes it exactly;
 * a notification event may be read after the task changed or exited.
 */
struct fsgate_info_proc {
	struct fanotify_event_info_header hdr;
	__u32 flags;
	__u32 uid;
	__u32 gid;
	__u32 euid;
	__u32 egid;
	__u32 loginuid;
	__u32 sessionid;
	__s32 tgid;
	__s32 tid;
	__s32 ppid;
	__u32 reserved;
	__u64 start_time_ns;
	__u64 exe_dev;
	__u64 exe_ino;
	__u64 cgroup_id;
};

#define FSGATE_INFO_PROC_LEN_V1		80

/*
 * ---- Responses by id ----
 *
 * A response whose @response word has FSGATE_RESPONSE_ID is a struct
 * fsgate_response (24 bytes) rather than a struct fanotify_response (8
 * bytes): it names its event by the id of its struct fsgate_info_perm,
 * which no other event ever had, so it can reach no other event. One
 * write() may mix both forms; either, with FSGATE_INFO, is followed by
 * its struct fsgate_response_audit_rule. The rest of @response is as for a
 * struct fanotify_response.
 *
 * An answer by fd number (fanotify's form) looks first among the pending
 * events read by the writing process (by fd number in its own file
 * table; no two of them ever have the same number, even once their fds
 * are closed), then among those read by other processes, where it must
 * name exactly one event (else ENOTUNIQ).
 */
#define FSGATE_RESPONSE_ID		0x00010000
/*
 * With FSGATE_RESPONSE_ID and nothing else in @response: not an answer,
 * but a request for more time. The event's deadline moves to @extend_ms
 * from now, but never past @max_wait_ms (struct fsgate_init) after the
 * group was asked, and never earlier than it was; the event stays
 * pending. Counted in fsgate_stats.extended. A group that waits without
 * bound keeps doing so.
 */
#define FSGATE_EXTEND			0x00020000

/**
 * struct fsgate_response - an answer naming its event by id
 * @fd: %FAN_NOFD
 * @response: %FSGATE_RESPONSE_ID ored with what a struct
 *	fanotify_response's @response may hold, or with %FSGATE_EXTEND alone
 * @id: @id of the event's struct fsgate_info_perm
 * @extend_ms: with %FSGATE_EXTEND, how long from now the group needs
 *	(at least 1); else must be zero
 * @reserved: must be zero
 */
struct fsgate_response {
	__s32 fd;
	__u32 response;
	__u64 id;
	__u32 extend_ms;
	__u32 reserved;
};

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
 * @extended: requests for more time (%FSGATE_EXTEND) the group made
 * @filtered: events the group's filter (%FSGATE_IOC_SET_FILTER) decided
 *	itself: skipped, allowed or denied without asking the group
 * @absent: permission events of a persistent group resolved by its
 *	absent verdict: nobody attached within its absent bound
 *	(%FSGATE_IOC_PERSIST); @reserved[0] before
 * @rereported: events read through a group fd that was closed before
 *	they were answered, and so queued again for the next reader of a
 *	persistent group; @reserved[1] before
 *
 * @asked = @answered + @timedout + @orphaned + @cancelled +
 * @perm_overflows + @unopened + @absent + @pending, at any moment the
 * group is idle.
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
	__u64 extended;
	__u64 filtered;
	__u64 absent;
	__u64 rereported;
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
 *
 * A program entry (FSGATE_MUTE_EXE) is a performance aid, not a
 * security boundary: it matches the program file the process was
 * started from (mm->exe_file), which still names that program while the
 * process runs other code (LD_PRELOAD, a plugin, a command it is told
 * to run) and which a user may set to any program it can run
 * (prctl(PR_SET_MM_MAP) in a user namespace of its own). So neither
 * program entry ever hides a FAN_OPEN_EXEC_PERM event: an exec that a
 * muted program starts is asked. FSGATE_MUTE_EXE_UID names the program
 * run as one effective uid, which a user cannot take on unless it is
 * that uid; a process, uid or cgroup entry names what only its owner or
 * root controls.
 */
#define FSGATE_MUTE_PROCESS	1	/* @id: a process (tgid) */
#define FSGATE_MUTE_EXE		2	/* @dev, @id: a program's file */
#define FSGATE_MUTE_UID		3	/* @id: an effective uid */
#define FSGATE_MUTE_CGROUP	4	/* @id: a cgroup v2 and those below */
/* @dev, @id: a program's file, run with effective uid @uid */
#define FSGATE_MUTE_EXE_UID	5

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
 * @dev: for %FSGATE_MUTE_EXE and %FSGATE_MUTE_EXE_UID, the program's
 *	device (as st_dev); else 0
 * @uid: for %FSGATE_MUTE_EXE_UID, the effective uid in the caller's user
 *	namespace; else 0
 * @reserved: must be zero
 *
 * @uid and @reserved were one __u64 @reserved before
 * %FSGATE_FEATURE_MUTE_EXE_UID, which had to be zero: the layout and
 * what older callers pass are unchanged.
 */
struct fsgate_mute_entry {
	__u32 type;
	__u32 flags;
	__u64 id;
	__u64 dev;
	__u32 uid;
	__u32 reserved;
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
 * %FSGATE_MUTE_LIST it writes @mode and @count back. The struct is
 * versioned by its @size alone, which the module reads as
 * copy_struct_from_user() intends (a longer struct's unknown bytes must
 * be zero, a shorter one's missing fields count as zero): the number
 * keeps %FSGATE_MUTE_SIZE_VER0 in its size bits however long the struct
 * grows, so that every module knows the number every caller sends.
 */
#define FSGATE_IOC_MUTE		_IOC(_IOC_READ | _IOC_WRITE, FSGATE_IOC_MAGIC, \
				     0x21, FSGATE_MUTE_SIZE_VER0)

/*
 * ---- Version and features ----
 *
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_VERSION, struct fsgate_version *)
 * says what the loaded module offers, so programs need not probe with
 * calls that fail. FSGATE_ABI_VERSION grows with every addition to this
 * header; each addition also has a feature bit, which is what programs
 * should test. A module without the ioctl (before ABI version 1) fails
 * it with ENOTTY.
 */
#define FSGATE_ABI_VERSION		1

#define FSGATE_FEATURE_DENY_ERRNO	(1ULL << 0)	/* FSGATE_DENY_ERRNO() */
#define FSGATE_FEATURE_CACHE		(1ULL << 1)	/* FSGATE_CACHE */
#define FSGATE_FEATURE_EXCLUDE_SELF	(1ULL << 2)	/* FSGATE_EXCLUDE_SELF */
#define FSGATE_FEATURE_MOUNT_MARKS	(1ULL << 3)	/* FSGATE_MARK_MOUNT */
#define FSGATE_FEATURE_STATS		(1ULL << 4)	/* FSGATE_IOC_STATS */
/* FSGATE_REPORT_PERM, struct fsgate_response, FSGATE_RESPONSE_ID */
#define FSGATE_FEATURE_REPORT_PERM	(1ULL << 5)
#define FSGATE_FEATURE_REPORT_PROC	(1ULL << 6)	/* FSGATE_REPORT_PROC */
/* FSGATE_EXTEND, fsgate_init.max_wait_ms, fsgate_stats.extended */
#define FSGATE_FEATURE_EXTEND		(1ULL << 7)
#define FSGATE_FEATURE_VERSION		(1ULL << 8)	/* FSGATE_IOC_VERSION */
#define FSGATE_FEATURE_CACHE_FLUSH	(1ULL << 9)	/* FSGATE_IOC_FLUSH_CACHE */
#define FSGATE_FEATURE_MUTE		(1ULL << 10)	/* FSGATE_IOC_MUTE */
/* max_chain_ms bounds one access's whole chain; see FSGATE_TIMEOUT_NONE */
#define FSGATE_FEATURE_CHAIN_CEILING	(1ULL << 11)
#define FSGATE_FEATURE_FILTER		(1ULL << 12)	/* FSGATE_IOC_SET_FILTER */
/* FSGATE_ENABLE_AUDIT, FSGATE_AUDIT: only where the kernel has audit */
#define FSGATE_FEATURE_AUDIT		(1ULL << 13)
/* FSGATE_INFO, struct fsgate_response_audit_rule: where records show it */
#define FSGATE_FEATURE_AUDIT_RULE	(1ULL << 14)
#define FSGATE_FEATURE_GROUPS		(1ULL << 15)	/* FSGATE_IOC_GROUPS */
/* struct fsgate_filter_data has the program and cgroup: @flags onward. */
#define FSGATE_FEATURE_FILTER_PROC	(1ULL << 16)
#define FSGATE_FEATURE_MARK_IGNORE	(1ULL << 17)	/* FSGATE_MARK_IGNORE */
#define FSGATE_FEATURE_MARK_EVICTABLE	(1ULL << 18)	/* FSGATE_MARK_EVICTABLE */
/* FSGATE_REPORT_FID_BITS and FSGATE_DIRENT_EVENTS */
#define FSGATE_FEATURE_REPORT_FID	(1ULL << 19)
/* FSGATE_MUTE_EXE_UID; program entries never hide FAN_OPEN_EXEC_PERM */
#define FSGATE_FEATURE_MUTE_EXE_UID	(1ULL << 20)
/* FSGATE_IOC_PERSIST, FSGATE_IOC_ATTACH, FSGATE_IOC_REMOVE */
#define FSGATE_FEATURE_PERSIST		(1ULL << 21)
/* FSGATE_IOC_GROUPS fills records of FSGATE_GROUP_ENTRY_SIZE_VER1 */
#define FSGATE_FEATURE_GROUPS_PERSIST	(1ULL << 22)
/* FSGATE_REPORT_FD_ERROR */
#define FSGATE_FEATURE_REPORT_FD_ERROR	(1ULL << 23)
/*
 * /dev/fsgate is open to every user, who may make notification groups
 * with FID reporting and inode marks only, as fanotify's unprivileged
 * groups (FSGATE_USER_INIT_FLAGS).
 */
#define FSGATE_FEATURE_UNPRIV		(1ULL << 24)
/* FSGATE_FS_ERROR and FSGATE_INFO_ERROR */
#define FSGATE_FEATURE_FS_ERROR		(1ULL << 25)
/* FSGATE_IOC_GROUPS fills records of FSGATE_GROUP_ENTRY_SIZE_VER2 */
#define FSGATE_FEATURE_GROUPS_VER2	(1ULL << 26)

/**
 * struct fsgate_version - argument of %FSGATE_IOC_VERSION, filled by fsgate
 * @abi: the module's FSGATE_ABI_VERSION
 * @reserved32: zero
 * @features: FSGATE_FEATURE_* bits of what the module offers
 * @version: the module's release ("0.1.0"), NUL-terminated
 * @reserved: zero, for what is to come
 */
struct fsgate_version {
	__u32 abi;
	__u32 reserved32;
	__u64 features;
	char version[32];
	__u64 reserved[4];
};

/*
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_VERSION, struct fsgate_version *)
 * returns 0. Any process that can open /dev/fsgate may ask.
 */
#define FSGATE_IOC_VERSION	_IOR(FSGATE_IOC_MAGIC, 0x30, struct fsgate_version)

/*
 * ---- Every group ----
 *
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_GROUPS, struct fsgate_groups *)
 * lists every group in asking order, as /proc/fsgate/groups does, in
 * records of fixed width instead of text.
 */

/* The first size of struct fsgate_group_entry; a longer one gets its own. */
#define FSGATE_GROUP_ENTRY_SIZE_VER0	256
/* @name onward: what makes a group persistent and how long it waits. */
#define FSGATE_GROUP_ENTRY_SIZE_VER1	368
/* @timeout_ms onward: its policies, wait bounds and marks by type. */
#define FSGATE_GROUP_ENTRY_SIZE_VER2	408

/* Room for a persistent group's name, its NUL included. */
#define FSGATE_NAME_MAX			64

/* A bound that is not running: a daemon is attached, or there is none. */
#define FSGATE_GROUP_NO_DEADLINE	0xffffffff

/**
 * struct fsgate_group_entry - one group, as %FSGATE_IOC_GROUPS lists it
 * @id: the group's id, unique while the module is loaded
 * @pid: the process (tgid) that made the group, in the caller's pid
 *	namespace; 0 if it has none there
 * @uid: real uid of that process when it made the group, in the
 *	caller's user namespace (the overflow uid if it has none there)
 * @comm: that process's command name then, NUL-terminated
 * @group_class: the group's FSGATE_CLASS_* (not "class", a C++ keyword)
 * @priority: its effective priority (the class default resolved)
 * @flags: the FSGATE_* flags it was made with, class included
 * @attached: group fds open on it: 1 for a group that is not
 *	persistent, 0 for a persistent group that waits for its daemon
 *	(@reserved32, always zero, before)
 * @stats: its counters, as %FSGATE_IOC_STATS gives them to the group
 *	itself (@stats.marks: the objects it marks)
 * @reserved: zero, for what is to come
 * @name: a persistent group's name (%FSGATE_IOC_PERSIST), NUL-padded;
 *	empty for any other group, and for one %FSGATE_IOC_REMOVE made
 *	ordinary again (its name is free at once)
 * @owner: a persistent group's owner, in the caller's user namespace
 *	(the overflow uid if it has none there); 0 for any other group
 * @persist_flags: the FSGATE_PERSIST_* flags it was made persistent with
 * @absent_ms: its absent bound, as %FSGATE_IOC_PERSIST set it
 * @absent_verdict: its absent verdict, FSGATE_VERDICT_ALLOW or _DENY
 *	(0, FSGATE_VERDICT_ALLOW, for a group that is not persistent)
 * @absent_errno: with FSGATE_VERDICT_DENY, the errno the access gets
 * @linger_ms: its linger bound; 0 with %FSGATE_PERSIST_UNTIL_REMOVED
 * @absent_left_ms: with nobody attached, the milliseconds until its
 *	absent verdict decides what it holds (rounded up); 0 once it
 *	decides every access by it; %FSGATE_GROUP_NO_DEADLINE while a
 *	daemon is attached or for a group that is not persistent
 * @linger_left_ms: with nobody attached, the milliseconds until it is
 *	torn down (rounded up); %FSGATE_GROUP_NO_DEADLINE while a daemon
 *	is attached, with %FSGATE_PERSIST_UNTIL_REMOVED, or for a group
 *	that is not persistent
 * @attaches: %FSGATE_IOC_ATTACH calls that gave an fd on it
 * @handovers: those among @attaches made while another fd was attached
 *	(a successor taking over from a running daemon)
 * @timeout_ms: how long an access waits for the group's answer, the
 *	module's default_timeout_ms resolved (read when the list is made:
 *	a later change of the default applies to later waits);
 *	%FSGATE_TIMEOUT_NONE for a group that waits without bound
 * @max_wait_ms: the longest one access may wait for it when it asks for
 *	more time (%FSGATE_EXTEND), default_max_wait_ms resolved
 * @timeout_verdict: what a timeout gives, FSGATE_VERDICT_ALLOW or
 *	FSGATE_VERDICT_DENY (%FSGATE_VERDICT_DEFAULT resolved)
 * @timeout_errno: with FSGATE_VERDICT_DENY, the errno the access gets
 * @orphan_verdict: what its pending events get when it goes away,
 *	FSGATE_VERDICT_ALLOW or FSGATE_VERDICT_DENY
 * @orphan_errno: with FSGATE_VERDICT_DENY, the errno the access gets
 * @inode_marks: of @stats.marks, the inode marks (FSGATE_MARK_INODE)
 * @mount_marks: the mount marks (FSGATE_MARK_MOUNT)
 * @filesystem_marks: the filesystem marks (FSGATE_MARK_FILESYSTEM)
 * @reserved2: zero
 *
 * A module that appends fields keeps these at their offsets and gives
 * the longer struct a FSGATE_GROUP_ENTRY_SIZE_VER<n> of its own. One
 * before %FSGATE_FEATURE_GROUPS_PERSIST fills the first
 * %FSGATE_GROUP_ENTRY_SIZE_VER0 bytes and zeroes the rest; one before
 * %FSGATE_FEATURE_GROUPS_VER2 zeroes those from @timeout_ms on (a
 * resolved verdict is never 0: a zero @timeout_verdict means absent).
 */
struct fsgate_group_entry {
	__u64 id;
	__s32 pid;
	__u32 uid;
	char comm[16];
	__u32 group_class;
	__u32 priority;
	__u32 flags;
	__u32 attached;
	struct fsgate_stats stats;
	__u64 reserved[4];
	char name[FSGATE_NAME_MAX];
	__u32 owner;
	__u32 persist_flags;
	__u32 absent_ms;
	__u32 absent_verdict;
	__u32 absent_errno;
	__u32 linger_ms;
	__u32 absent_left_ms;
	__u32 linger_left_ms;
	__u64 attaches;
	__u64 handovers;
	__u32 timeout_ms;
	__u32 max_wait_ms;
	__u32 timeout_verdict;
	__u32 timeout_errno;
	__u32 orphan_verdict;
	__u32 orphan_errno;
	__u32 inode_marks;
	__u32 mount_marks;
	__u32 filesystem_marks;
	__u32 reserved2;
};

/**
 * struct fsgate_groups - argument of %FSGATE_IOC_GROUPS
 * @size: size of one record at @entries, as the caller knows struct
 *	fsgate_group_entry: at least %FSGATE_GROUP_ENTRY_SIZE_VER0 and at
 *	most 4096; bytes of a record past what the module knows are zeroed
 * @count: room at @entries, in records; 0 to ask only how many groups
 *	there are
 * @entries: userspace pointer to @count records of @size bytes; may be
 *	0 when @count is 0
 * @flags: must be zero
 * @reserved32: must be zero
 * @reserved: must be zero
 */
struct fsgate_groups {
	__u32 size;
	__u32 count;
	__u64 entries;
	__u32 flags;
	__u32 reserved32;
	__u64 reserved[2];
};

/*
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_GROUPS, struct fsgate_groups *)
 * needs CAP_SYS_ADMIN. It fills the first min(@count, n) records with
 * the first groups in asking order and returns n, the number of groups
 * there were: a return above @count means the list did not fit, and the
 * caller asks again with room for at least that many (groups may have
 * come or gone in between).
 */
#define FSGATE_IOC_GROUPS	_IOW(FSGATE_IOC_MAGIC, 0x31, struct fsgate_groups)
/**
 * struct fsgate_filter_data - what a group's filter program reads
 * @mask: the FAN_* event (one bit)
 * @mode: the object's mode: its type (S_IFMT) and permission bits
 * @size_lo: low 32 bits of its size in bytes
 * @size_hi: high 32 bits of its size
 * @ino_lo: low 32 bits of its inode number
 * @ino_hi: high 32 bits of its inode number
 * @dev: its device, as st_dev
 * @uid: effective uid of the accessing process, in the user namespace
 *	of the process that set the filter, the one whose program compares
 *	it (the overflow uid if it has none there)
 * @tgid: the accessing process, in the group creator's pid namespace
 *	(0 if it has none there)
 * @reserved: 0
 * @flags: FSGATE_PROC_EXE when @exe_dev and @exe_ino_* are set,
 *	FSGATE_PROC_CGROUP when @cgroup_id_* is (as struct fsgate_info_proc)
 * @exe_dev: device of the program the accessing process runs, as st_dev
 * @exe_ino_lo: low 32 bits of the program's inode number, as st_ino
 * @exe_ino_hi: high 32 bits of it
 * @cgroup_id_lo: low 32 bits of the process's cgroup v2 id (the inode
 *	number of the cgroup's directory)
 * @cgroup_id_hi: high 32 bits of it
 *
 * The fields from @flags on came with feature bit
 * %FSGATE_FEATURE_FILTER_PROC; a module without it refuses a filter that
 * loads them (EINVAL). The filter is classic BPF (struct sock_filter, as seccomp's): it loads
 * these 32-bit words with BPF_LD | BPF_W | BPF_ABS at their offsets (a
 * multiple of 4 below the struct's size), and BPF_LD | BPF_W | BPF_LEN
 * gives the struct's size. No other load reaches outside the program's
 * own scratch memory.
 */
struct fsgate_filter_data {
	__u32 mask;
	__u32 mode;
	__u32 size_lo;
	__u32 size_hi;
	__u32 ino_lo;
	__u32 ino_hi;
	__u32 dev;
	__u32 uid;
	__u32 tgid;
	__u32 reserved;
	__u32 flags;
	__u32 exe_dev;
	__u32 exe_ino_lo;
	__u32 exe_ino_hi;
	__u32 cgroup_id_lo;
	__u32 cgroup_id_hi;
};

/*
 * What a filter returns: an action in the top 16 bits; for a deny, an
 * errno in the low 16 (0: EPERM; otherwise one a response may carry).
 * Any other value asks the group.
 */
#define FSGATE_FILTER_ASK	0x00000000	/* tell or ask the group */
#define FSGATE_FILTER_SKIP	0x00010000	/* not its business */
#define FSGATE_FILTER_ALLOW	0x00020000	/* allowed by this group */
#define FSGATE_FILTER_DENY	0x00030000	/* denied by this group */
#define FSGATE_FILTER_ACTION	0xffff0000
#define FSGATE_FILTER_ERRNO	0x0000ffff

/* Instructions a filter may have: classic BPF's limit. */
#define FSGATE_FILTER_MAX	4096

/**
 * struct fsgate_filter - argument of %FSGATE_IOC_SET_FILTER
 * @len: instructions at @insns, 1..%FSGATE_FILTER_MAX; 0 (with @insns
 *	0) removes the group's filter
 * @flags: must be zero
 * @insns: userspace pointer to @len struct sock_filter
 * @reserved: must be zero
 */
struct fsgate_filter {
	__u32 len;
	__u32 flags;
	__u64 insns;
	__u64 reserved[2];
};

/* ioctl(group fd, FSGATE_IOC_SET_FILTER, struct fsgate_filter *) returns 0. */
#define FSGATE_IOC_SET_FILTER	_IOW(FSGATE_IOC_MAGIC, 0x22, struct fsgate_filter)

/*
 * ---- Persistent groups ----
 *
 * A group made persistent outlives its group fds: its marks, mutes,
 * filter, verdict cache and queue stay when the last fd closes, and a
 * daemon (re)attaches to it by name. Events read through a closed fd
 * and not answered are queued again, with the same ids, for the next
 * reader. While nobody is attached, permission events wait in the queue
 * for at most @absent_ms, then the group is absent: they, and every
 * access it is asked about until a daemon attaches, get its absent
 * verdict at once. Every access stays bounded by the group's timeout
 * and the module's max_chain_ms too. FSGATE_NAME_MAX, the room for a
 * name, is defined with struct fsgate_group_entry above.
 */

/* Flags of struct fsgate_persist. */
#define FSGATE_PERSIST_UNTIL_REMOVED	0x00000001	/* no linger bound */

/* uid_t -1: the owner is the caller's effective uid. */
#define FSGATE_PERSIST_OWNER_SELF	0xffffffff

/* The first size of struct fsgate_persist; a later, longer one has its own. */
#define FSGATE_PERSIST_SIZE_VER0	96

/**
 * struct fsgate_persist - argument of %FSGATE_IOC_PERSIST
 * @size: sizeof(struct fsgate_persist) as the caller knows it
 *	(%FSGATE_PERSIST_SIZE_VER0 or more; bytes fsgate does not know
 *	must be zero)
 * @flags: FSGATE_PERSIST_* flags
 * @name: 1 to %FSGATE_NAME_MAX - 1 characters of [A-Za-z0-9._@:-], a
 *	letter or digit first, NUL-terminated and NUL-padded, unique among
 *	the module's groups
 * @owner: the uid (in the caller's user namespace) whose processes may
 *	attach and remove it besides CAP_SYS_ADMIN, or
 *	%FSGATE_PERSIST_OWNER_SELF
 * @absent_ms: how long permission events wait with nobody attached
 *	before the absent verdict decides them; 0: decided at once
 * @absent_verdict: FSGATE_VERDICT_ALLOW or FSGATE_VERDICT_DENY
 * @absent_errno: with FSGATE_VERDICT_DENY, the errno the access gets
 *	(0 for EPERM, or one FSGATE_DENY_ERRNO() takes); else 0
 * @linger_ms: with nobody attached this long, the group is removed (its
 *	events get the orphan verdict); must be non-zero unless
 *	%FSGATE_PERSIST_UNTIL_REMOVED, with which it must be zero
 * @reserved: must be zero
 */
struct fsgate_persist {
	__u32 size;
	__u32 flags;
	char name[FSGATE_NAME_MAX];
	__u32 owner;
	__u32 absent_ms;
	__u32 absent_verdict;
	__u32 absent_errno;
	__u32 linger_ms;
	__u32 reserved;
};

/*
 * ioctl(group fd, FSGATE_IOC_PERSIST, struct fsgate_persist *) returns 0.
 * It needs CAP_SYS_ADMIN, since a persistent group gates files with no
 * process behind it; a group is made persistent once. Versioned by @size
 * alone, as %FSGATE_IOC_MUTE.
 */
#define FSGATE_IOC_PERSIST	_IOC(_IOC_WRITE, FSGATE_IOC_MAGIC, 0x23, \
				     FSGATE_PERSIST_SIZE_VER0)

/**
 * struct fsgate_attach - argument of %FSGATE_IOC_ATTACH and %FSGATE_IOC_REMOVE
 * @flags: for %FSGATE_IOC_ATTACH, FSGATE_CLOEXEC and FSGATE_NONBLOCK, as
 *	the group fd's; for %FSGATE_IOC_REMOVE, zero
 * @reserved32: must be zero
 * @name: the persistent group's name, NUL-terminated
 */
struct fsgate_attach {
	__u32 flags;
	__u32 reserved32;
	char name[FSGATE_NAME_MAX];
};

/*
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_ATTACH, struct fsgate_attach *)
 * returns a new group fd on the named persistent group. Several fds may
 * be attached at once (a daemon's successor attaches before it exits):
 * each event is read through one of them, and answered only through the
 * fd it was read through.
 *
 * ioctl(fd of /dev/fsgate, FSGATE_IOC_REMOVE, struct fsgate_attach *)
 * makes the named group an ordinary one again: it goes away at once if
 * no fd is attached, else when its last fd closes. Both need the
 * group's owner or CAP_SYS_ADMIN; to anyone else a group is ENOENT, as
 * a name no group has, so that names cannot be probed.
 */
#define FSGATE_IOC_ATTACH	_IOW(FSGATE_IOC_MAGIC, 0x32, struct fsgate_attach)
#define FSGATE_IOC_REMOVE	_IOW(FSGATE_IOC_MAGIC, 0x33, struct fsgate_attach)

#endif /* _UAPI_LINUX_FSGATE_H */
