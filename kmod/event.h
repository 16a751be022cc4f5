/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_EVENT_H
#define _FSGATE_EVENT_H

#include <linux/list.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/types.h>
#include <linux/fsgate.h>

struct fsgate_group;
struct file;
struct pid;

/**
 * struct fsgate_event - an event waiting to be read
 * @node: entry in the group's queue, under its @queue_lock
 * @mask: FAN_* event bits, as reported
 * @path: the file, pinned; empty for the overflow event
 * @pid: the process (or thread, with FSGATE_REPORT_TID) that caused it
 */
struct fsgate_event {
	struct list_head node;
	u32 mask;
	struct path path;
	struct pid *pid;
};

/**
 * fsgate_event_init() - fill in an event
 * @event: the event
 * @mask: FAN_* bits
 * @path: the file; pinned until fsgate_event_release()
 * @pid: the process it names (see fsgate_event_pid()); referenced
 *
 * Context: any.
 */
static inline void fsgate_event_init(struct fsgate_event *event, u32 mask,
				     const struct path *path, struct pid *pid)
{
	INIT_LIST_HEAD(&event->node);
	event->mask = mask;
	event->path = *path;
	path_get(&event->path);
	event->pid = get_pid(pid);
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

u32 fsgate_event_mask(u32 event, u32 marks, u32 ignore);
void fsgate_event_queue(struct fsgate_group *group, u32 mask,
			const struct path *path);
struct fsgate_event *fsgate_event_dequeue(struct fsgate_group *group,
					  size_t count);
void fsgate_event_done(struct fsgate_group *group, struct fsgate_event *event);
void fsgate_event_unread(struct fsgate_group *group, struct fsgate_event *event);
__poll_t fsgate_event_poll(struct fsgate_group *group, struct file *file,
			   poll_table *wait);
unsigned int fsgate_event_queued(struct fsgate_group *group);
void fsgate_event_flush(struct fsgate_group *group);

#endif /* _FSGATE_EVENT_H */
