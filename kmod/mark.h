/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_MARK_H
#define _FSGATE_MARK_H

#include <linux/fsnotify_backend.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/statfs.h>
#include <linux/types.h>

struct fsgate_cache;
struct fsgate_consensus;
struct fsgate_group;
struct fsgate_mark;
struct fsgate_snap;
struct inode;
struct seq_file;
struct vfsmount;

/**
 * struct fsgate_obj - fsgate's one fsnotify mark on an inode or superblock
 * @fsn: the mark; its mask is the union of what @subs need
 * @subs: struct fsgate_sub of every group with a mark on the object;
 *	RCU list, changed under fsgate_mark_mutex
 * @type: FSNOTIFY_OBJ_TYPE_INODE or FSNOTIFY_OBJ_TYPE_SB
 * @detaching: set under fsgate_mark_mutex once fsgate itself destroys @fsn
 * @object: the inode or super_block, to add marks beside @fsn
 * @dead: entry in the list of destroyed objects whose last reference is
 *	dropped once fsgate_mark_mutex is released (mark.c)
 * @consensus: on an inode, what every group its accesses ask allows from
 *	its cache (consensus.c); replaced and cleared with xchg(), read
 *	under RCU
 *
 * Freed by fsnotify's free_mark callback, after an SRCU grace period.
 * @detaching shares a word with @type, so that an object stays in 128
 * bytes on the stock kernels.
 */
struct fsgate_obj {
	struct fsnotify_mark fsn;
	struct list_head subs;
	unsigned int type;
	bool detaching;
	void *object;
	struct list_head dead;
	struct fsgate_consensus __rcu *consensus;
};

/* The object whose fsnotify mark @fsn is; fsgate's group has no other. */
static inline struct fsgate_obj *fsgate_obj_of(struct fsnotify_mark *fsn)
{
	return container_of(fsn, struct fsgate_obj, fsn);
}

/**
 * struct fsgate_sub - one group's mark on one object
 * @obj_node: entry in @obj->subs
 * @group_node: entry in the group's @subs, under fsgate_mark_mutex
 * @group: the group; freed only after an RCU grace period
 * @obj: the object
 * @mnt: for a mount mark, the vfsmount whose events it wants (the
 *	object is its superblock); NULL for inode and filesystem marks.
 *	Only compared, never dereferenced: a mount mark does not pin its
 *	mount, as in fanotify, so the pointer may outlive the mount.
 * @mnt_root: root dentry of @mnt, compared too, so that a new mount that
 *	reuses a freed @mnt only matches if it shows the same tree
 * @mask: events and FAN_ONDIR / FAN_EVENT_ON_CHILD wanted
 * @ignore: events ignored; atomic, since dispatch clears it without
 *	fsgate_mark_mutex while mark requests add and remove bits under it
 * @surv_modify: @ignore survives modification of the file
 * @ignore_flags: FAN_ONDIR and FAN_EVENT_ON_CHILD in @ignore take effect
 *	(FSGATE_MARK_IGNORE; fanotify's FSNOTIFY_MARK_FLAG_HAS_IGNORE_FLAGS);
 *	set before @ignore is, and kept while the sub is a mark
 * @evictable: the mark does not keep its inode in memory
 *	(FSGATE_MARK_EVICTABLE); a request without it clears it, nothing
 *	sets it again while the sub is a mark, as in fanotify
 * @cache_used: a lookup used @cache since the eviction sweep last passed
 *	(mark.c); set locklessly by lookups
 * @fsid: the object's fsid, for a group with FSGATE_REPORT_FID_BITS (as
 *	fanotify keeps it in its connector); set when the sub is made
 * @cache: cached verdicts of the group on this inode (cache.c); replaced
 *	and cleared with xchg(), read under RCU
 * @cache_node: entry in the group's @cache_lru once a verdict was cached
 *	here, under fsgate_mark_mutex; empty otherwise
 * @rcu: for kfree_rcu()
 *
 * The small fields share one word, so that a sub stays in 128 bytes.
 */
struct fsgate_sub {
	struct list_head obj_node;
	struct list_head group_node;
	struct fsgate_group *group;
	struct fsgate_obj *obj;
	const struct vfsmount *mnt;
	const struct dentry *mnt_root;
	u32 mask;
	atomic_t ignore;
	bool surv_modify;
	bool ignore_flags;
	bool evictable;
	bool cache_used;
	__kernel_fsid_t fsid;
	struct fsgate_cache __rcu *cache;
	struct list_head cache_node;
	struct rcu_head rcu;
};

/* Which sub a request is about: the object, and the mount for a mount mark. */
struct fsgate_key {
	unsigned int type;
	void *object;
	const struct vfsmount *mnt;
	const struct dentry *mnt_root;
};

/*
 * What a request adds to or removes from a sub; see fsgate_sub_add().
 * @ignore_flags: @ignore came with FSGATE_MARK_IGNORE.
 * @evictable: the request came with FSGATE_MARK_EVICTABLE.
 * @fsid: the object's fsid, for a sub made by a FID-mode group.
 */
struct fsgate_change {
	u32 mask;
	u32 ignore;
	bool surv_modify;
	bool ignore_flags;
	bool evictable;
	struct fsgate_cache *cache;
	__kernel_fsid_t fsid;
};

/*
 * Whether @sub's ignore mask applies to events on its object's children:
 * a legacy one when the mark watches them, one of FSGATE_MARK_IGNORE when
 * it has FAN_EVENT_ON_CHILD itself.
 */
static inline bool fsgate_sub_ignores_children(const struct fsgate_sub *sub,
					       u32 ignore)
{
	if (READ_ONCE(sub->ignore_flags))
		return ignore & FAN_EVENT_ON_CHILD;
	return sub->mask & FAN_EVENT_ON_CHILD;
}

/**
 * fsgate_sub_ignored() - the events @sub's ignore mask takes from an event
 * @sub: the sub, on an object reported to fsnotify's handler as @type
 * @type: FSNOTIFY_ITER_TYPE_PARENT for an event on a child of the object
 * @event: the fsnotify event bits, FS_ISDIR for a directory's event
 *
 * As fanotify's fsnotify_effective_ignore_mask(): a legacy ignore mask
 * applies to a directory's events always and to children's when the mark
 * watches children; with @sub->ignore_flags, FAN_ONDIR and
 * FAN_EVENT_ON_CHILD in the ignore mask say so instead.
 *
 * Context: any; @sub->ignore is read once.
 * Return: the ignore mask, flags included, or 0 where it does not apply.
 */
static inline u32 fsgate_sub_ignored(const struct fsgate_sub *sub, int type,
				     u32 event)
{
	u32 ignore = atomic_read(&sub->ignore);

	if (!ignore)
		return 0;
	if (type == FSNOTIFY_ITER_TYPE_PARENT &&
	    !fsgate_sub_ignores_children(sub, ignore))
		return 0;
	if ((event & FS_ISDIR) && READ_ONCE(sub->ignore_flags) &&
	    !(ignore & FAN_ONDIR))
		return 0;
	return ignore;
}

u32 fsgate_obj_union_mask(const struct fsgate_obj *obj);
unsigned int fsgate_marks_lock(void);
void fsgate_marks_unlock(unsigned int nofs);
int fsgate_sub_add(struct fsgate_group *group, const struct fsgate_key *key,
		   const struct fsgate_change *change);
int fsgate_sub_remove(struct fsgate_group *group,
		      const struct fsgate_key *key,
		      const struct fsgate_change *change);
void fsgate_subs_flush(struct fsgate_group *group, u32 type);
void fsgate_subs_remove_group(struct fsgate_group *group);
void fsgate_subs_forget_verdicts(struct inode *inode);
void fsgate_sub_cache_verdict(struct fsgate_group *group, struct inode *inode,
			      u32 mask, int verdict, const struct fsgate_snap *snap,
			      u64 cache_gen);
int fsgate_subs_flush_verdicts(struct fsgate_group *group,
			       struct inode *inode);

int fsgate_marks_init(int (*handle_event)(struct fsnotify_group *group,
					  u32 mask, const void *data,
					  int data_type, struct inode *dir,
					  const struct qstr *name, u32 cookie,
					  struct fsnotify_iter_info *iter));
void fsgate_marks_exit(void);

#endif /* _FSGATE_MARK_H */
