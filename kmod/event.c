// SPDX-License-Identifier: GPL-2.0
/*
 * The event queue (layer 2): which bits a group is told of, queueing
 * notification events, taking events off the queue for a reader (user.c
 * copies them out), and flushing the queue when the group goes away.
 * Calls go downward only: to perm.c, for the permission events that share
 * the queue.
 *
 * Locking: a group's @queue_lock (a spinlock) protects @queue, @queued,
 * @overflow_queued and @shutdown. Events are allocated before it is
 * taken and freed after it is dropped. Permission events share the queue
 * (perm.c owns their state) but never merge. The lock order of the
 * module is at the top of mark.c.
 */
#include <linux/fanotify.h>
#include <linux/fsnotify_backend.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "event.h"
#include "fid.h"
#include "group.h"
#include "info.h"
#include "param.h"
#include "perm.h"

static unsigned int max_queued_events = 16384;
module_param_cb(max_queued_events, &fsgate_param_limit,
		&max_queued_events, 0644);
__MODULE_PARM_TYPE(max_queued_events, "uint");
MODULE_PARM_DESC(max_queued_events,
		 "Events one group may queue, unless FSGATE_UNLIMITED_QUEUE (16384)");

/**
 * fsgate_event_mask() - what a group is told of one event
 * @event: the fsnotify event bits, FS_ISDIR included
 * @marks: union of the group's mark masks that apply to the event
 * @ignore: union of the group's ignore masks on the objects involved
 *
 * As fanotify: a directory's events need FAN_ONDIR in the marks, and
 * ignore masks win over marks. As fanotify in fd mode, FAN_ONDIR itself
 * is never reported: the event's fd says what the object is.
 *
 * Context: any.
 * Return: the FAN_* event bits to report, or 0.
 */
u32 fsgate_event_mask(u32 event, u32 marks, u32 ignore)
{
	u32 mask = event & marks & ~ignore & FSGATE_EVENTS;

	if (!mask)
		return 0;
	if ((event & FS_ISDIR) && !(marks & FAN_ONDIR))
		return 0;
	return mask;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_event_mask);

/* fanotify's FANOTIFY_DEFAULT_FEE_POOL_SIZE, on 6.1 and 6.12. */
#define FSGATE_ERROR_RESERVE	32

static struct fsgate_error_event *fsgate_error_of(struct fsgate_event *event)
{
	return container_of(event, struct fsgate_error_event, event);
}

/**
 * fsgate_event_error_reserve() - set aside a group's FSGATE_FS_ERROR events
 * @group: a group a mark asks FSGATE_FS_ERROR for
 *
 * As fanotify_group_init_error_pool(): once per group, a reserve of
 * fanotify's size from which error events are taken, so that a
 * filesystem's error is never lost for want of memory.
 *
 * Context: process context, may sleep; fsgate_marks_lock() held.
 * Return: 0, or -ENOMEM.
 */
int fsgate_event_error_reserve(struct fsgate_group *group)
{
	if (mempool_initialized(&group->error_pool))
		return 0;
	return mempool_init_kmalloc_pool(&group->error_pool,
					 FSGATE_ERROR_RESERVE,
					 FSGATE_ERROR_EVENT_SIZE);
}

/**
 * fsgate_event_error_fill() - lay out an error event's ERROR record
 * @buf: where it goes, with room for %FSGATE_INFO_ERROR_LEN_V1 bytes
 * @event: an %FSGATE_FS_ERROR event
 *
 * As fanotify's copy_error_info_to_user().
 *
 * Context: any.
 * Return: the bytes written.
 */
size_t fsgate_event_error_fill(void *buf, const struct fsgate_event *event)
{
	const struct fsgate_error_event *ee =
		container_of(event, struct fsgate_error_event, event);
	struct fanotify_event_info_error info = {
		.hdr = {
			.info_type = FAN_EVENT_INFO_TYPE_ERROR,
			.len = sizeof(info),
		},
		.error = ee->error,
		.error_count = ee->count,
	};

	static_assert(sizeof(info) == FSGATE_INFO_ERROR_LEN_V1);
	static_assert(FAN_EVENT_INFO_TYPE_ERROR == FSGATE_INFO_ERROR);
	memcpy(buf, &info, sizeof(info));
	return sizeof(info);
}

static void fsgate_event_free(struct fsgate_group *group,
			      struct fsgate_event *event)
{
	fsgate_event_release(event);
	if (event->mask & FSGATE_FS_ERROR)
		mempool_free(fsgate_error_of(event), &group->error_pool);
	else
		kfree(event);
}

/**
 * fsgate_event_done() - done with an event taken off the queue
 * @group: its group
 * @event: from fsgate_event_dequeue(), or flushed
 *
 * Context: process context.
 */
void fsgate_event_done(struct fsgate_group *group,
		       struct fsgate_event *event)
{
	if (event == &group->overflow)
		return;
	if (fsgate_is_perm(event))
		fsgate_perm_put(fsgate_perm_of(event));
	else
		fsgate_event_free(group, event);
}

/* A FID-mode event (@fid) equals @old; any other has @old's @path. */
static bool fsgate_event_mergeable(const struct fsgate_event *old, u32 mask,
				   const struct path *path,
				   const struct fsgate_fid *fid)
{
	if (fid)
		return old->fid &&
		       fsgate_fid_mergeable(old->mask, old->fid, mask, fid);
	return !old->fid && path_equal(&old->path, path);
}

/*
 * As fanotify_merge(): an event merges into any of the last
 * FSGATE_EVENT_MERGE_MAX queued events of the same process about the
 * same object, not only the last one, and never into a permission event:
 * a FID-mode event (@fid) into one it equals (fsgate_fid_mergeable()),
 * any other into one of the same @path. A group's events are all of one
 * kind (FID groups are notification groups).
 */
static bool fsgate_event_merge(struct fsgate_group *group, u32 mask,
			       const struct path *path,
			       const struct fsgate_fid *fid, struct pid *pid)
{
	struct fsgate_event *old;
	unsigned int n = 0;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry_reverse(old, &group->queue, node) {
		if (old == &group->overflow || fsgate_is_perm(old))
			continue;
		if (++n > FSGATE_EVENT_MERGE_MAX)
			break;
		if (old->pid == pid &&
		    fsgate_event_mergeable(old, mask, path, fid)) {
			old->mask |= mask;
			/* fsgate_fid_mergeable(): only into an error event. */
			if (mask & FSGATE_FS_ERROR)
				fsgate_error_of(old)->count++;
			return true;
		}
	}
	return false;
}

/* Under @queue_lock: nothing to add, to a group gone or to a queued event. */
static bool fsgate_event_absorbed(struct fsgate_group *group, u32 mask,
				  const struct path *path, struct pid *pid)
{
	lockdep_assert_held(&group->queue_lock);
	return group->shutdown ||
	       fsgate_event_merge(group, mask, path, NULL, pid);
}

/* Under @queue_lock: put @event at the queue's tail and wake readers. */
static void fsgate_event_enqueue(struct fsgate_group *group,
				 struct fsgate_event *event)
{
	lockdep_assert_held(&group->queue_lock);
	list_add_tail(&event->node, &group->queue);
	group->queued++;
	wake_up(&group->wq);
}

/* Under @queue_lock: whether the queue has room for one more event. */
static bool fsgate_event_room(struct fsgate_group *group)
{
	lockdep_assert_held(&group->queue_lock);
	return group->queued < max_queued_events ||
	       (group->flags & FSGATE_UNLIMITED_QUEUE);
}

/* Queue the overflow event, once, for an event that has no room. */
static void fsgate_event_overflow(struct fsgate_group *group)
{
	lockdep_assert_held(&group->queue_lock);
	if (group->overflow_queued)
		return;
	group->overflow_queued = true;
	atomic64_inc(&group->overflows);
	fsgate_event_enqueue(group, &group->overflow);
}

/* Allocate and queue an event the queue did not absorb when last looked at. */
static noinline void fsgate_event_add(struct fsgate_group *group, u32 mask,
				      const struct path *path, struct pid *pid)
{
	struct fsgate_proc *proc = NULL;
	struct fsgate_event *event;
	struct mem_cgroup *old;

	old = fsgate_group_charge(group);
	event = kmalloc(sizeof(*event), FSGATE_GROUP_GFP);
	/* Without memory for the process record, the event is lost too. */
	if (event && (group->flags & FSGATE_REPORT_PROC)) {
		proc = fsgate_proc_take(FSGATE_GROUP_GFP);
		if (!proc) {
			kfree(event);
			event = NULL;
		}
	}
	fsgate_group_uncharge(old);
	spin_lock(&group->queue_lock);
	/* The lock was dropped to allocate: the queue may have changed. */
	if (fsgate_event_absorbed(group, mask, path, pid))
		goto out_unlock;
	if (!event || !fsgate_event_room(group)) {
		fsgate_event_overflow(group);
		goto out_unlock;
	}
	fsgate_event_init(event, mask, path, pid);
	event->proc = proc;
	proc = NULL;
	fsgate_event_enqueue(group, event);
	event = NULL;
out_unlock:
	spin_unlock(&group->queue_lock);
	fsgate_proc_free(proc);
	kfree(event);
}

/*
 * The event of a FID-mode group: its handles and names are taken now,
 * while its inodes are certainly alive, so it is built before it can be
 * compared with those queued.
 */
/* The record follows the event in one allocation: it must stay aligned. */
static_assert(sizeof(struct fsgate_event) % __alignof__(struct fsgate_fid) == 0);

static void fsgate_event_add_fid(struct fsgate_group *group, u32 mask,
				 const struct fsgate_fid_src *src)
{
	struct pid *pid = fsgate_event_pid(group);
	struct fsgate_event *event = NULL;
	struct fsgate_proc *proc = NULL;
	struct fsgate_fid *fid;
	struct mem_cgroup *old;

	old = fsgate_group_charge(group);
	/* One allocation, the record after the event, as fanotify's. */
	fid = fsgate_fid_alloc(group->flags, mask, src->data, src->data_type,
			       src->dir, src->name, &src->fsid, src->types,
			       sizeof(*event), FSGATE_GROUP_GFP);
	if (fid)
		event = (void *)fid - sizeof(*event);
	if (fid && (group->flags & FSGATE_REPORT_PROC))
		proc = fsgate_proc_take(FSGATE_GROUP_GFP);
	fsgate_group_uncharge(old);
	spin_lock(&group->queue_lock);
	if (group->shutdown ||
	    (fid && fsgate_event_merge(group, mask, NULL, fid, pid)))
		goto out_unlock;
	if (!fid || ((group->flags & FSGATE_REPORT_PROC) && !proc) ||
	    !fsgate_event_room(group)) {
		fsgate_event_overflow(group);
		goto out_unlock;
	}
	fsgate_event_init(event, mask, NULL, pid);
	event->fid = fid;
	event->proc = proc;
	proc = NULL;
	fsgate_event_enqueue(group, event);
	event = NULL;
out_unlock:
	spin_unlock(&group->queue_lock);
	fsgate_proc_free(proc);
	kfree(event);
}

/*
 * As fanotify_alloc_error_event(): an error event is taken from the
 * group's reserve, where mempool_alloc() waits rather than fail, and
 * merges into a queued one of the same process and filesystem, which
 * then counts it. Allocations here must not recurse into the filesystem
 * that reports its error.
 */
static void fsgate_event_add_error(struct fsgate_group *group, u32 mask,
				   const struct fsgate_fid_src *src)
{
	struct fs_error_report *report =
		fsnotify_data_error_report(src->data, src->data_type);
	struct pid *pid = fsgate_event_pid(group);
	struct fsgate_error_event *ee;
	struct fsgate_proc *proc = NULL;
	struct mem_cgroup *old;
	unsigned int nofs;

	/* A mark with FSGATE_FS_ERROR set the reserve up before it was added. */
	if (WARN_ON_ONCE(!report || !mempool_initialized(&group->error_pool)))
		return;
	nofs = memalloc_nofs_save();
	ee = mempool_alloc(&group->error_pool, GFP_NOFS);
	if (ee && (group->flags & FSGATE_REPORT_PROC)) {
		old = fsgate_group_charge(group);
		proc = fsgate_proc_take(FSGATE_GROUP_GFP);
		fsgate_group_uncharge(old);
	}
	memalloc_nofs_restore(nofs);
	if (!ee)
		return;
	ee->error = report->error;
	ee->count = 1;
	fsgate_fid_error_init(&ee->fid, report->inode, &src->fsid);
	spin_lock(&group->queue_lock);
	if (group->shutdown ||
	    fsgate_event_merge(group, mask, NULL, &ee->fid, pid))
		goto out_unlock;
	/* Only the process record, fsgate's own, can be missing. */
	if (((group->flags & FSGATE_REPORT_PROC) && !proc) ||
	    !fsgate_event_room(group)) {
		fsgate_event_overflow(group);
		goto out_unlock;
	}
	fsgate_event_init(&ee->event, mask, NULL, pid);
	ee->event.fid = &ee->fid;
	ee->event.proc = proc;
	proc = NULL;
	fsgate_event_enqueue(group, &ee->event);
	ee = NULL;
out_unlock:
	spin_unlock(&group->queue_lock);
	fsgate_proc_free(proc);
	if (ee)
		mempool_free(ee, &group->error_pool);
}

/**
 * fsgate_event_queue() - tell a group of an event
 * @group: the group, referenced by the caller
 * @mask: FAN_* bits from fsgate_event_mask(), or fsgate_fid_event_mask()
 *	for a group with FSGATE_REPORT_FID_BITS
 * @path: the file; NULL for an event without one (FID-mode groups only)
 * @src: what a group with FSGATE_REPORT_FID_BITS is told; else NULL
 *
 * Merges, as fanotify does, into a queued event of the same process
 * about the same file (fsgate_event_merge()). A full queue, or a group
 * memory cgroup without room for the event (%FSGATE_GROUP_GFP), gets one
 * overflow event and drops the rest until the reader catches up; the
 * accessing process never waits. The merge is tried before anything is allocated: a reader
 * running late sees an access's events merge, and those cost no
 * allocation, no memory cgroup charge and no process record.
 *
 * Context: process context, may sleep; no fsgate locks held.
 */
void fsgate_event_queue(struct fsgate_group *group, u32 mask,
			const struct path *path,
			const struct fsgate_fid_src *src)
{
	struct pid *pid = fsgate_event_pid(group);
	bool absorbed;

	if (group->flags & FSGATE_REPORT_FID_BITS) {
		if (WARN_ON_ONCE(!src))
			return;
		if (mask & FSGATE_FS_ERROR)
			fsgate_event_add_error(group, mask, src);
		else
			fsgate_event_add_fid(group, mask, src);
		return;
	}
	spin_lock(&group->queue_lock);
	absorbed = fsgate_event_absorbed(group, mask, path, pid);
	spin_unlock(&group->queue_lock);
	if (!absorbed)
		fsgate_event_add(group, mask, path, pid);
}

/**
 * fsgate_event_len() - the bytes a read() gives for an event
 * @group: the group reading it
 * @event: the event
 *
 * Context: any.
 * Return: the size of its metadata and its info records.
 */
size_t fsgate_event_len(const struct fsgate_group *group,
			const struct fsgate_event *event)
{
	size_t len = FAN_EVENT_METADATA_LEN + fsgate_info_len(group->flags,
							      event->mask);

	if (event->fid)
		len += fsgate_fid_len(event->fid, group->flags, event->mask);
	if (event->mask & FSGATE_FS_ERROR)
		len += FSGATE_INFO_ERROR_LEN_V1;
	return len;
}

/**
 * fsgate_event_dequeue() - take the first event off a group's queue
 * @group: the group
 * @file: the group fd's file it is read through
 * @count: room left in the reader's buffer
 *
 * A permission event goes on the group's pending list, where its answer
 * finds it (fsgate_perm_report()). The reader hands the event to
 * fsgate_event_done() once it is copied out or failed to be.
 *
 * Context: process context; takes @group's @queue_lock.
 * Return: the event; NULL when the queue is empty; ERR_PTR(-EINVAL) when
 * @count cannot hold the whole first event, which stays queued.
 */
struct fsgate_event *fsgate_event_dequeue(struct fsgate_group *group,
					  const struct file *file, size_t count)
{
	struct fsgate_event *event = NULL;

	spin_lock(&group->queue_lock);
	if (list_empty(&group->queue))
		goto out;
	event = list_first_entry(&group->queue, struct fsgate_event, node);
	if (count < fsgate_event_len(group, event)) {
		event = ERR_PTR(-EINVAL);
		goto out;
	}
	list_del_init(&event->node);
	group->queued--;
	if (event == &group->overflow)
		group->overflow_queued = false;
	else if (fsgate_is_perm(event))
		fsgate_perm_report(group, fsgate_perm_of(event), file);
out:
	spin_unlock(&group->queue_lock);
	return event;
}

/**
 * fsgate_event_unread() - put back an event a reader failed to copy out
 * @group: the group
 * @event: from fsgate_event_dequeue(), whose fd was never installed
 *
 * The event goes back to the head of the queue, to be read first next
 * time, instead of fsgate_event_done(): a reader whose buffer faults
 * loses no event (an unread permission event keeps waiting for its
 * answer within its deadline). Takes over the reader's hold on @event.
 *
 * Context: process context; takes @group's @queue_lock.
 */
void fsgate_event_unread(struct fsgate_group *group, struct fsgate_event *event)
{
	bool perm = fsgate_is_perm(event), back = false;

	spin_lock(&group->queue_lock);
	if (group->shutdown) {
		/* The queue is flushed: nothing goes back. */
	} else if (event == &group->overflow) {
		back = !group->overflow_queued;
		group->overflow_queued = true;
	} else if (perm) {
		back = fsgate_perm_unread(group, fsgate_perm_of(event));
	} else {
		back = true;
	}
	if (back && !perm) {
		list_add(&event->node, &group->queue);
		group->queued++;
	}
	spin_unlock(&group->queue_lock);
	if (back)
		wake_up(&group->wq);
	/* A permission event is the waiting process's; drop the reader's hold. */
	if (perm || !back)
		fsgate_event_done(group, event);
}

/**
 * fsgate_event_poll() - poll() on a group fd
 * @group: the group
 * @file: the group fd's file
 * @wait: poll table
 *
 * Context: process context.
 * Return: EPOLLIN | EPOLLRDNORM while events are queued, else 0.
 */
__poll_t fsgate_event_poll(struct fsgate_group *group, struct file *file,
			   poll_table *wait)
{
	__poll_t ret = 0;

	poll_wait(file, &group->wq, wait);
	spin_lock(&group->queue_lock);
	if (!list_empty(&group->queue))
		ret = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&group->queue_lock);
	return ret;
}

/**
 * fsgate_event_queued_bytes() - what a read() would return now
 * @group: the group
 *
 * Context: process context; takes @group's @queue_lock.
 * Return: the bytes of every queued event, with their info records.
 */
size_t fsgate_event_queued_bytes(struct fsgate_group *group)
{
	struct fsgate_event *event;
	size_t bytes = 0;

	spin_lock(&group->queue_lock);
	if (!(group->flags & (FSGATE_REPORT_INFO | FSGATE_REPORT_FID_BITS)))
		bytes = group->queued * FAN_EVENT_METADATA_LEN;
	else
		list_for_each_entry(event, &group->queue, node)
			bytes += fsgate_event_len(group, event);
	spin_unlock(&group->queue_lock);
	return bytes;
}

/**
 * fsgate_event_queued() - events waiting to be read
 * @group: the group
 *
 * Context: any.
 * Return: the number of queued events, the overflow event included.
 */
unsigned int fsgate_event_queued(struct fsgate_group *group)
{
	return READ_ONCE(group->queued);
}

/**
 * fsgate_event_flush() - stop queueing and drop every queued event
 * @group: a group whose fd is being released
 *
 * Permission events, read or not, are resolved by the group's orphan
 * verdict and their processes go on.
 *
 * Context: process context.
 */
void fsgate_event_flush(struct fsgate_group *group)
{
	struct fsgate_event *event, *next;
	unsigned int orphans;
	LIST_HEAD(dropped);

	spin_lock(&group->queue_lock);
	group->shutdown = true;
	orphans = fsgate_perm_orphan(group);
	list_splice_init(&group->queue, &dropped);
	group->queued = 0;
	group->overflow_queued = false;
	spin_unlock(&group->queue_lock);
	if (orphans)
		fsgate_perm_log_orphans(group, orphans);
	list_for_each_entry_safe(event, next, &dropped, node)
		fsgate_event_done(group, event);
}
