/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_EVENT_H
#define _FSGATE_EVENT_H

#include <linux/exportfs.h>
#include <linux/list.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/fsgate.h>

#include "fid.h"
#include "info.h"

struct fsgate_group;
struct file;
struct pid;

/* fanotify merges an event into one of at most this many queued before it. */
#define FSGATE_EVENT_MERGE_MAX	128

/**
 * struct fsgate_fid_src - what a FID-mode group's event is built from
 * @data: fsnotify's data of the event
 * @data_type: FSNOTIFY_EVENT_*
 * @dir: the directory fsnotify reported it with, or NULL
 * @name: the entry's name in @dir, or NULL
 * @fsid: the filesystem's fsid, as the group's mark found it
 * @types: BIT() of each FSNOTIFY_ITER_TYPE_* where the group's marks
 *	wanted the event
 */
struct fsgate_fid_src {
	const void *data;
	int data_type;
	struct inode *dir;
	const struct qstr *name;
	__kernel_fsid_t fsid;
	u32 types;
};

/**
 * struct fsgate_event - an event waiting to be read
 * @node: entry in the group's queue, under its @queue_lock
 * @mask: FAN_* event bits, as reported
 * @path: the file, pinned; empty for the overflow event and for the
 *	events of groups with FSGATE_REPORT_FID_BITS, which name no file
 * @pid: the process (or thread, with FSGATE_REPORT_TID) that caused it
 * @proc: who caused it, for a group with FSGATE_REPORT_PROC; else NULL
 * @fid: handles and names, for a group with FSGATE_REPORT_FID_BITS, in
 *	the event's own allocation, after it; else NULL
 */
struct fsgate_event {
	struct list_head node;
	u32 mask;
	struct path path;
	struct pid *pid;
	struct fsgate_proc *proc;
	struct fsgate_fid *fid;
};

/**
 * fsgate_event_init() - fill in an event
 * @event: the event
 * @mask: FAN_* bits
 * @path: the file, pinned until fsgate_event_release(); NULL for none
 * @pid: the process it names (see fsgate_event_pid()); referenced
 *
 * Context: any.
 */
static inline void fsgate_event_init(struct fsgate_event *event, u32 mask,
				     const struct path *path, struct pid *pid)
{
	INIT_LIST_HEAD(&event->node);
	event->mask = mask;
	event->path = path ? *path : (struct path){};
	path_get(&event->path);
	event->pid = get_pid(pid);
	event->proc = NULL;
	event->fid = NULL;
}

/**
 * fsgate_event_release() - drop what an event pins
 * @event: from fsgate_event_init()
 *
 * Context: process context.
 */
static inline void fsgate_event_release(struct fsgate_event *event)
{
	path_put(&event->path);
	put_pid(event->pid);
	fsgate_proc_free(event->proc);
}

/**
 * fsgate_is_perm() - whether a queued event is a permission event
 * @event: the event
 *
 * Context: any.
 * Return: true for the @event of a struct fsgate_perm (perm.h).
 */
static inline bool fsgate_is_perm(const struct fsgate_event *event)
{
	return event->mask & FSGATE_PERM_EVENTS;
}

/**
 * struct fsgate_error_event - an %FSGATE_FS_ERROR event, as fanotify's
 *	struct fanotify_error_event
 * @event: the event; its @fid is @fid
 * @error: the filesystem's errno of the first error it stands for
 * @count: the errors it stands for (error_count)
 * @fid: its fsid and the handle of the inode the first error was about;
 *	%FSGATE_ERROR_EVENT_SIZE leaves room for MAX_HANDLE_SZ bytes of it
 *
 * Taken from the group's @error_pool, never allocated anew, so that an
 * error is never lost for want of memory.
 */
struct fsgate_error_event {
	struct fsgate_event event;
	s32 error;
	u32 count;
	struct fsgate_fid fid;
};

#define FSGATE_ERROR_EVENT_SIZE	(sizeof(struct fsgate_error_event) + \
				 MAX_HANDLE_SZ)

u32 fsgate_event_mask(u32 event, u32 marks, u32 ignore);
int fsgate_event_error_reserve(struct fsgate_group *group);
size_t fsgate_event_error_fill(void *buf, const struct fsgate_event *event);
void fsgate_event_queue(struct fsgate_group *group, u32 mask,
			const struct path *path,
			const struct fsgate_fid_src *src);
size_t fsgate_event_len(const struct fsgate_group *group,
			const struct fsgate_event *event);
struct fsgate_event *fsgate_event_dequeue(struct fsgate_group *group,
					  const struct file *file, size_t count);
void fsgate_event_done(struct fsgate_group *group, struct fsgate_event *event);
void fsgate_event_unread(struct fsgate_group *group, struct fsgate_event *event);
__poll_t fsgate_event_poll(struct fsgate_group *group, struct file *file,
			   poll_table *wait);
unsigned int fsgate_event_queued(struct fsgate_group *group);
size_t fsgate_event_queued_bytes(struct fsgate_group *group);
void fsgate_event_flush(struct fsgate_group *group);

#endif /* _FSGATE_EVENT_H */
