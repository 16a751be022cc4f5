/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_CACHE_H
#define _FSGATE_CACHE_H

#include <linux/rcupdate.h>
#include <linux/time64.h>
#include <linux/types.h>

struct fsgate_group;
struct fsgate_obj;
struct fsgate_sub;
struct inode;

/**
 * struct fsgate_snap - what a file looked like when a group was asked
 * @ctime: its change time
 * @size: its size
 * @iversion: its i_version where the filesystem keeps one, else 0
 * @gen: its change generation as fsgate saw it (fsgate_cache_changed())
 *
 * A verdict cached for one snapshot is not used once the file differs,
 * and not stored if the file changed while the group decided.
 */
struct fsgate_snap {
	struct timespec64 ctime;
	loff_t size;
	u64 iversion;
	u32 gen;
};

/**
 * struct fsgate_cache - a group's cached verdicts on one file
 * @allow: permission events answered with a cached allow
 * @deny: permission events answered with a cached deny
 * @deny_errno: the negative errno of the deny
 * @snap: the file when the verdicts were made
 * @rcu: for kfree_rcu()
 *
 * Never changed once published: a new verdict publishes a new entry.
 */
struct fsgate_cache {
	u32 allow;
	u32 deny;
	int deny_errno;
	struct fsgate_snap snap;
	struct rcu_head rcu;
};

/* A group's cached verdict on an access, as fsgate_cache_check() finds it. */
enum fsgate_cached {
	FSGATE_CACHED_NONE,
	FSGATE_CACHED_ALLOW,
	FSGATE_CACHED_DENY,
};

void fsgate_snap_take(struct fsgate_snap *snap, struct inode *inode);
bool fsgate_snap_current(const struct fsgate_snap *snap, struct inode *inode);
bool fsgate_cache_allowed(const struct inode *inode);
void fsgate_cache_changed(const struct inode *inode);
enum fsgate_cached fsgate_cache_check(struct fsgate_obj *obj,
				      const struct fsgate_group *group,
				      u32 mask, int *deny_errno);
struct fsgate_cache *fsgate_cache_merge(struct fsgate_sub *sub, u32 mask,
					int verdict,
					const struct fsgate_snap *snap);
void fsgate_cache_replace(struct fsgate_sub *sub, struct fsgate_cache *cache);
void fsgate_cache_drop(struct fsgate_sub *sub);
void fsgate_cache_free(struct fsgate_cache *cache);

#endif /* _FSGATE_CACHE_H */
