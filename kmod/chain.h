/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_CHAIN_H
#define _FSGATE_CHAIN_H

#include <linux/types.h>

struct fsgate_by;
struct fsgate_group;
struct fsgate_obj;
struct path;

/**
 * struct fsgate_match - one group's part in one event
 * @group: the group
 * @marks: union of the group's marks that apply
 * @ignore: union of the group's ignore masks on the event's objects
 * @report: the FAN_* bits the group is told or asked of, once resolved
 * @cached: the group's verdict cache allows the access: it is not asked
 * @filtered: 0, or the negative errno with which the group's filter
 *	denied the access: it is not asked, and its tier denies
 * @types: BIT() of each FSNOTIFY_ITER_TYPE_* whose marks of the group
 *	apply (FAN_RENAME's records depend on it)
 * @fsid: the fsid a FID-mode group's marks found (struct fsgate_sub)
 */
struct fsgate_match {
	struct fsgate_group *group;
	u32 marks;
	u32 ignore;
	u32 report;
	bool cached;
	int filtered;
	u32 types;
	__kernel_fsid_t fsid;
};

void fsgate_matches_sort(struct fsgate_match *matches, unsigned int n);
unsigned int fsgate_tier_end(const struct fsgate_match *matches,
			     unsigned int n, unsigned int start);
int fsgate_verdict_combine(int verdict, int other);
bool fsgate_matches_all_cached(const struct fsgate_match *matches,
			       unsigned int n);
int fsgate_decide(struct fsgate_match *matches, unsigned int n,
		  const struct path *path, struct fsgate_obj *inode_obj,
		  struct fsgate_by *by);

#endif /* _FSGATE_CHAIN_H */
