/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_EVENT_H
#define _FSGATE_EVENT_H

#include <linux/list.h>
#include <linux/path.h>
#include <linux/poll.h>
#include <linux/types.h>

struct fsgate_group;
struct file;
struct pid;

/**
 * struct fsgate_event - an event waiting to be read
 * @node: entry in the group's queue, under its @queue_lock
 * @mask: FAN_* bits, FAN_ONDIR included
 * @path: the file, pinned; empty for the overflow event
 * @pid: the process (or thread, with FSGATE_REPORT_TID) that caused it
 */
struct fsgate_event {
	struct list_head node;
	u32 mask;
	struct path path;
	struct pid *pid;
};

u32 fsgate_event_mask(u32 event, u32 marks, u32 ignore);
void fsgate_event_init(struct fsgate_event *event, struct fsgate_group *group,
		       u32 mask, const struct path *path);
void fsgate_event_release(struct fsgate_event *event);
void fsgate_event_queue(struct fsgate_group *group, u32 mask,
			const struct path *path);
struct fsgate_event *fsgate_event_dequeue(struct fsgate_group *group,
					  size_t count);
void fsgate_event_done(struct fsgate_group *group, struct fsgate_event *event);
__poll_t fsgate_event_poll(struct fsgate_group *group, struct file *file,
			   poll_table *wait);
unsigned int fsgate_event_queued(struct fsgate_group *group);
void fsgate_event_flush(struct fsgate_group *group);

#endif /* _FSGATE_EVENT_H */
