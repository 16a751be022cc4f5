/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_DISPATCH_H
#define _FSGATE_DISPATCH_H

#include <linux/types.h>

struct fsnotify_group;
struct fsnotify_iter_info;
struct inode;
struct qstr;

int fsgate_dispatch_event(struct fsnotify_group *fsn_group, u32 mask,
			  const void *data, int data_type, struct inode *dir,
			  const struct qstr *name, u32 cookie,
			  struct fsnotify_iter_info *iter);

#endif /* _FSGATE_DISPATCH_H */
