// SPDX-License-Identifier: GPL-2.0
/*
 * Info records (layer 0): which records an event carries after its
 * metadata and how each is laid out, framed as fanotify frames its own
 * (struct fanotify_event_info_header), and the accessing task's context
 * that the process record reports, taken when the event happens.
 * event.c and perm.c take the context; event.c sizes events with it, so
 * a read never splits one; user.c fills the records as it copies an
 * event out. It calls nothing else of fsgate's.
 */
#include <linux/audit.h>
#include <linux/build_bug.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/fanotify.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "info.h"
#include "who.h"

/* Every record keeps the events after it 8-byte aligned. */
static_assert(sizeof(struct fsgate_info_perm) == FSGATE_INFO_PERM_LEN_V2);
static_assert(sizeof(struct fsgate_info_perm) % 8 == 0);
static_assert(sizeof(struct fsgate_info_proc) == FSGATE_INFO_PROC_LEN_V1);
static_assert(sizeof(struct fsgate_info_proc) % 8 == 0);
static_assert(FAN_EVENT_METADATA_LEN % 8 == 0);

/**
 * fsgate_info_len() - the bytes of info records an event carries
 * @group_flags: FSGATE_* flags of the group reading it
 * @mask: the event's FAN_* bits; FAN_Q_OVERFLOW carries no records
 *
 * Context: any.
 * Return: the size of the records that follow the event's metadata, a
 * multiple of 8; 0 when it has none.
 */
size_t fsgate_info_len(u32 group_flags, u32 mask)
{
	size_t len = 0;

	if (mask & FAN_Q_OVERFLOW)
		return 0;
	if ((group_flags & FSGATE_REPORT_PERM) && (mask & FSGATE_PERM_EVENTS))
		len += sizeof(struct fsgate_info_perm);
	if (group_flags & FSGATE_REPORT_PROC)
		len += sizeof(struct fsgate_info_proc);
	return len;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_info_len);

/**
 * fsgate_info_perm_fill() - lay out a struct fsgate_info_perm
 * @buf: where it goes, 8-byte aligned, with room for the record
 * @id: the event's id
 * @deadline_ns: CLOCK_MONOTONIC ns of its deadline
 * @latest_ns: CLOCK_MONOTONIC ns past which no request for more time
 *	moves the deadline
 * @unbounded: it has none (then neither time is reported)
 *
 * Context: any.
 * Return: the record's size.
 */
size_t fsgate_info_perm_fill(void *buf, u64 id, u64 deadline_ns,
			     u64 latest_ns, bool unbounded)
{
	struct fsgate_info_perm *rec = buf;

	memset(rec, 0, sizeof(*rec));
	rec->hdr.info_type = FSGATE_INFO_PERM;
	rec->hdr.len = sizeof(*rec);
	rec->id = id;
	if (unbounded) {
		rec->flags = FSGATE_INFO_PERM_UNBOUNDED;
	} else {
		rec->deadline_ns = deadline_ns;
		rec->latest_ns = latest_ns;
	}
	return sizeof(*rec);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_info_perm_fill);

/* The program and cgroup of the current task, where it has them. */
static void fsgate_proc_take_rcu(struct fsgate_proc *proc)
{
	struct inode *exe = fsgate_current_exe();
	struct cgroup *cgrp = fsgate_compat_current_cgroup();

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	proc->ppid = get_pid(task_tgid(rcu_dereference(current->real_parent)));
	if (exe) {
		proc->exe_dev = exe->i_sb->s_dev;
		proc->exe_ino = exe->i_ino;
		proc->flags |= FSGATE_PROC_EXE;
	}
	if (cgrp) {
		proc->cgroup_id = cgroup_id(cgrp);
		proc->flags |= FSGATE_PROC_CGROUP;
	}
}

/**
 * fsgate_proc_take() - describe the current task for a process record
 * @gfp: allocation flags, the caller's to choose (%FSGATE_GROUP_GFP for
 *	an event of a group)
 *
 * Context: process context, in the task that caused the event; may
 * sleep.
 * Return: its description, for fsgate_proc_free(); NULL without memory.
 */
struct fsgate_proc *fsgate_proc_take(gfp_t gfp)
{
	const struct cred *cred = current_cred();
	struct fsgate_proc *proc;

	proc = kzalloc(sizeof(*proc), gfp);
	if (!proc)
		return NULL;
	proc->uid = cred->uid;
	proc->gid = cred->gid;
	proc->euid = cred->euid;
	proc->egid = cred->egid;
	/* Without CONFIG_AUDIT these say unset. */
	proc->loginuid = audit_get_loginuid(current);
	if (uid_valid(proc->loginuid))
		proc->flags |= FSGATE_PROC_LOGINUID;
	proc->sessionid = audit_get_sessionid(current);
	if (proc->sessionid != AUDIT_SID_UNSET)
		proc->flags |= FSGATE_PROC_SESSIONID;
	proc->tgid = get_pid(task_tgid(current));
	proc->tid = get_pid(task_pid(current));
	proc->start_time_ns = current->group_leader->start_boottime;
	rcu_read_lock();
	fsgate_proc_take_rcu(proc);
	rcu_read_unlock();
	return proc;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_proc_take);

/**
 * fsgate_proc_free() - drop what fsgate_proc_take() took
 * @proc: its description, or NULL
 *
 * Context: any.
 */
void fsgate_proc_free(struct fsgate_proc *proc)
{
	if (!proc)
		return;
	put_pid(proc->tgid);
	put_pid(proc->tid);
	put_pid(proc->ppid);
	kfree(proc);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_proc_free);

/**
 * fsgate_info_proc_fill() - lay out a struct fsgate_info_proc
 * @buf: where it goes, with room for the record; only 4-byte aligned
 *	after FID records, which are padded as fanotify's, so the record
 *	is built aside and copied
 * @proc: the task as the event found it
 *
 * Ids and pids are translated into the namespaces of the current task,
 * the reader.
 *
 * Context: process context, in the reader.
 * Return: the record's size.
 */
size_t fsgate_info_proc_fill(void *buf, const struct fsgate_proc *proc)
{
	struct user_namespace *ns = current_user_ns();
	struct fsgate_info_proc rec;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.info_type = FSGATE_INFO_PROC;
	rec.hdr.len = sizeof(rec);
	rec.flags = proc->flags;
	rec.uid = from_kuid_munged(ns, proc->uid);
	rec.gid = from_kgid_munged(ns, proc->gid);
	rec.euid = from_kuid_munged(ns, proc->euid);
	rec.egid = from_kgid_munged(ns, proc->egid);
	rec.loginuid = proc->flags & FSGATE_PROC_LOGINUID ?
		       from_kuid_munged(ns, proc->loginuid) : (u32)-1;
	rec.sessionid = proc->flags & FSGATE_PROC_SESSIONID ?
			proc->sessionid : (u32)-1;
	rec.tgid = pid_vnr(proc->tgid);
	rec.tid = pid_vnr(proc->tid);
	rec.ppid = pid_vnr(proc->ppid);
	rec.start_time_ns = proc->start_time_ns;
	if (proc->flags & FSGATE_PROC_EXE) {
		rec.exe_dev = new_encode_dev(proc->exe_dev);
		rec.exe_ino = proc->exe_ino;
	}
	rec.cgroup_id = proc->cgroup_id;
	memcpy(buf, &rec, sizeof(rec));
	return sizeof(rec);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_info_proc_fill);
