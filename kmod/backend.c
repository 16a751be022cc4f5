// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate's one fsnotify group. Every fsgate listener group shares it: the
 * fsnotify mark on an object carries the union of their subscriptions, and
 * fsgate orders and asks its own groups itself, so the kernel sees a
 * single backend at the top fsnotify priority.
 */
#include <linux/err.h>
#include <linux/fsnotify_backend.h>

#include "backend.h"

/* Set once in fsgate_backend_init(), read-only until fsgate_backend_exit(). */
static struct fsnotify_group *fsgate_fsn_group;

static int fsgate_handle_event(struct fsnotify_group *group, u32 mask,
			       const void *data, int data_type,
			       struct inode *dir, const struct qstr *name,
			       u32 cookie, struct fsnotify_iter_info *iter)
{
	/* No marks exist yet, so fsnotify never calls this. */
	return 0;
}

static const struct fsnotify_ops fsgate_fsn_ops = {
	.handle_event = fsgate_handle_event,
};

/**
 * fsgate_backend_init() - allocate fsgate's fsnotify group
 *
 * Context: module init.
 * Return: 0, or a negative errno from fsnotify_alloc_group().
 */
int fsgate_backend_init(void)
{
	struct fsnotify_group *group;

	group = fsnotify_alloc_group(&fsgate_fsn_ops, FSNOTIFY_GROUP_DUPS);
	if (IS_ERR(group))
		return PTR_ERR(group);
	group->priority = FSGATE_FSNOTIFY_PRIO;
	fsgate_fsn_group = group;
	return 0;
}

/**
 * fsgate_backend_exit() - drop fsgate's fsnotify group
 *
 * Context: module exit, after the last fsgate group is gone.
 */
void fsgate_backend_exit(void)
{
	fsnotify_put_group(fsgate_fsn_group);
}
