/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_PERSIST_H
#define _FSGATE_PERSIST_H

#include <linux/types.h>
#include <linux/fsgate.h>

struct file;
struct fsgate_group;
struct seq_file;
struct user_namespace;

int fsgate_persist_check(const struct fsgate_persist *req);
int fsgate_persist_set(struct fsgate_group *group,
		       const struct fsgate_persist *req);
struct fsgate_group *fsgate_persist_attach(const struct fsgate_attach *req);
bool fsgate_persist_detach(struct fsgate_group *group,
			   const struct file *file);
void fsgate_persist_teardown(struct fsgate_group *group);
int fsgate_persist_remove(const struct fsgate_attach *req);
void fsgate_persist_show(struct seq_file *m, struct fsgate_group *group);
void fsgate_persist_entry_fill(const struct fsgate_group *group,
			       struct user_namespace *user_ns,
			       struct fsgate_group_entry *entry);
int fsgate_persist_init(void);
void fsgate_persist_exit(void);

#endif /* _FSGATE_PERSIST_H */
