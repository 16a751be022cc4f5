/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_GROUP_H
#define _FSGATE_GROUP_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/fsgate.h>

struct pid;
struct seq_file;

/**
 * struct fsgate_group - one listener group, owned by its group fd
 * @node: entry in fsgate_groups; see the locking note in group.c
 * @id: unique for the module's lifetime, never reused
 * @owner: thread group that created the group
 * @comm: command name of the creator, for /proc/fsgate/groups
 * @flags: FSGATE_* flags from struct fsgate_init, class included
 * @event_f_flags: open flags of the fds that events carry
 * @priority: effective priority, the class default resolved
 * @timeout_ms: as given in struct fsgate_init
 * @timeout_verdict: FSGATE_VERDICT_*, as given
 * @orphan_verdict: FSGATE_VERDICT_*, as given
 *
 * Everything but @node is set before the group is published and never
 * changes, so readers need no lock for it.
 */
struct fsgate_group {
	struct list_head node;
	u64 id;
	struct pid *owner;
	char comm[TASK_COMM_LEN];
	u32 flags;
	u32 event_f_flags;
	u32 priority;
	u32 timeout_ms;
	u32 timeout_verdict;
	u32 orphan_verdict;
};

/* All live groups, highest priority first; equal priorities by age. */
extern struct list_head fsgate_groups;
extern struct mutex fsgate_groups_lock;

int fsgate_init_check(const struct fsgate_init *init);
u32 fsgate_init_priority(const struct fsgate_init *init);
const char *fsgate_class_name(u32 flags);
void fsgate_group_list_insert(struct list_head *head,
			      struct fsgate_group *group);
int fsgate_group_create(const struct fsgate_init *init);

#endif /* _FSGATE_GROUP_H */
