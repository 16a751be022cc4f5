// SPDX-License-Identifier: GPL-2.0
/*
 * The mark store (layer 1): which groups watch which inode or superblock
 * for what, and fsgate's two fsnotify groups, their callbacks and the
 * count of live marks.
 *
 * fsgate holds one fsnotify mark per object (struct fsgate_obj) in
 * fsgate_fsn_group; its mask is the union of the masks of every group's
 * struct fsgate_sub on that object, so fsnotify's fast paths test exactly
 * what someone wants. fsnotify_recalc_mask() is not exported: a new union
 * mask reaches the object's connector by adding a throw-away mark of
 * fsgate_recalc_group beside ours (fsnotify_add_mark() recalculates) and
 * destroying it. The throw-away marks belong to that other group, so
 * lookups (with or without the mutex) only ever find real objects.
 *
 * Calls go downward only, to cache.c. fsnotify calls dispatch.c through
 * fsgate_fsn_ops.handle_event, which main.c hands to fsgate_marks_init():
 * the group and its ops table are this file's, the callback is not.
 *
 * Lock order, for the whole module (an arrow: taken inside):
 *
 *   fsgate_groups_lock (group.c, mutex): the list of live groups; taken
 *	alone, never with another lock of fsgate's. What is read under it
 *	for userspace goes to a kernel buffer (seq_file, or the entries of
 *	FSGATE_IOC_GROUPS), copied out once it is dropped.
 *   fsgate_mark_mutex (this file, mutex, through fsgate_marks_lock()):
 *	every change to objects and subs: making and destroying objects,
 *	the sub lists of objects and groups, masks, a group's nr_marks, and
 *	publishing verdict cache entries. Allocations under it are GFP_NOFS.
 *	-> fsnotify's group mark_mutex (in fsnotify_add/destroy_mark())
 *	-> a fsnotify mark's lock (spinlock, fsgate_obj_set_mask())
 *   fsgate_mute_mutex (mute.c, mutex) and fsgate_filter_mutex (filter.c,
 *	mutex): replacing a group's mutes or filter; each taken alone.
 *   a group's queue_lock (group.h, spinlock): its queue, pending list and
 *	counters, and the state of each of its permission events (event.c,
 *	perm.c). Only wait queue locks (and the scheduler's, waking a waiter)
 *	are taken inside it, and it is never held with the mutexes above.
 *   rcu_read_lock(): the event path (dispatch.c, cache.c, mute.c,
 *	filter.c) reads objects' subs, masks, cache entries, and groups'
 *	mutes and filters under it, within fsnotify's SRCU read side, which
 *	keeps the objects themselves alive.
 *
 * Lifetimes:
 *
 *   struct fsgate_group: the group fd holds a reference (dropped by its
 *	release, user.c), the event path one for each group it tells or
 *	asks; freed after an RCU grace period, since the event path finds
 *	groups through subs (group.c).
 *   struct fsgate_obj: fsnotify's mark reference count. fsgate's own
 *	reference is dropped once fsgate_mark_mutex is released
 *	(fsgate_dead_objs); fsnotify frees the object through
 *	fsgate_free_mark() after an SRCU grace period, and module exit waits
 *	until every object ever made was freed (fsgate_live_marks).
 *   struct fsgate_sub: on its object's and its group's lists, unlinked
 *	under fsgate_mark_mutex, freed with kfree_rcu().
 *   struct fsgate_cache: immutable once published in a sub; replaced and
 *	cleared with xchg(), freed with kfree_rcu() (cache.c).
 *   struct fsgate_consensus: immutable once published in an inode's
 *	object; replaced and cleared with xchg(), freed with kfree_rcu(),
 *	cleared whenever a cached verdict on the file is dropped or
 *	replaced, so the subs it names outlive it (consensus.c).
 *   struct fsgate_mutes, struct fsgate_filter_prog: immutable once
 *	published in a group, replaced whole, freed by an RCU callback
 *	(pids, the BPF program and a user namespace put there); module
 *	exit waits for those callbacks (main.c).
 *   struct fsgate_event: on one group's queue; freed by whoever takes it
 *	off (the reader in user.c, or the flush in event.c).
 *   struct fsgate_perm: the waiting process holds a reference, a reader
 *	copying it out another, a write() caching its verdict a third; it is
 *	resolved (DONE) under queue_lock by exactly one of an answer, the
 *	timeout, the orphan verdict or the waiter being killed (perm.c).
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "cache.h"
#include "group.h"
#include "mark.h"
#include "param.h"

static unsigned int max_marks = 65536;
module_param_cb(max_marks, &fsgate_param_limit, &max_marks, 0644);
__MODULE_PARM_TYPE(max_marks, "uint");
MODULE_PARM_DESC(max_marks,
		 "Objects one group may mark, unless FSGATE_UNLIMITED_MARKS (65536)");

/* Where fsgate's groups stand among in-tree fanotify's; see compat.h. */
enum fsgate_fanotify_order {
	FSGATE_ORDER_CONTENT,	/* as an in-tree content group, every kernel */
	FSGATE_ORDER_FIRST,	/* ahead of every in-tree group, 6.1 only */
};

static const char *const fsgate_order_names[] = {
	[FSGATE_ORDER_CONTENT] = "content",
	[FSGATE_ORDER_FIRST] = "first",
};

static unsigned int fanotify_order = FSGATE_ORDER_CONTENT;

static int fsgate_order_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(fsgate_order_names, val);

	if (i < 0)
		return -EINVAL;
	/* Not where the kernel has no such place (6.12). */
	if (i == FSGATE_ORDER_FIRST && !FSGATE_FSNOTIFY_PRIO_FIRST)
		return -EINVAL;
	*(unsigned int *)kp->arg = i;
	return 0;
}

static int fsgate_order_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  fsgate_order_names[*(unsigned int *)kp->arg]);
}

static const struct kernel_param_ops fsgate_order_ops = {
	.set = fsgate_order_set,
	.get = fsgate_order_get,
};

/* Read-only once loaded: fsgate's fsnotify group is made at load. */
module_param_cb(fanotify_order, &fsgate_order_ops, &fanotify_order, 0444);
__MODULE_PARM_TYPE(fanotify_order, "string");
MODULE_PARM_DESC(fanotify_order,
		 "Where fsgate's groups are asked among in-tree fanotify groups: content (after pre-content groups, tied with content groups; every kernel) or first (ahead of all; 6.1 only) (content)");

static unsigned int max_cached_verdicts = 16384;
module_param(max_cached_verdicts, uint, 0644);
MODULE_PARM_DESC(max_cached_verdicts,
		 "Files one group may have cached verdicts on, whatever its flags; the least recently used are evicted past it, 0 = no cache (16384)");

/* Serialises all changes to marks; see above. */
static DEFINE_MUTEX(fsgate_mark_mutex);

/* Holds fsgate_obj of every marked object; set at module init. */
static struct fsnotify_group *fsgate_fsn_group __ro_after_init;
/*
 * Owns the throw-away marks that make a connector recalculate its mask.
 * They must not be fsgate_fsn_group's: fsnotify walks a group's marks on
 * an object one by one, and a second mark of fsgate's beside the real one
 * would split one access into two calls, two decision chains.
 */
static struct fsnotify_group *fsgate_recalc_group __ro_after_init;

/*
 * fsnotify may still hold an fsgate mark, and call into fsgate for it,
 * after fsgate let go of it (inode eviction or umount in flight): module
 * exit waits until fsnotify freed every mark fsgate ever made, of both
 * groups.
 */
static atomic_t fsgate_live_marks = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(fsgate_marks_freed);

/*
 * Objects fsgate destroyed, still holding its reference, under
 * fsgate_mark_mutex. The last reference to an inode's last mark may be
 * the inode's last reference, whose iput() may evict it, or, on stacked
 * filesystems, another inode that fsgate marks, and eviction frees marks
 * through fsgate_obj_freeing(), which takes the mutex: so those last
 * puts wait until it is released.
 */
static LIST_HEAD(fsgate_dead_objs);

/**
 * fsgate_marks_lock() - take fsgate_mark_mutex, to change or list subs
 *
 * For the reason fsgate_dead_objs gives, allocations under the mutex must
 * not recurse into filesystem reclaim, which could evict one of fsgate's
 * inodes: they are made GFP_NOFS until fsgate_marks_unlock().
 *
 * Context: process context, may sleep; fsgate_mark_mutex not held.
 * Return: what fsgate_marks_unlock() needs to restore.
 */
unsigned int fsgate_marks_lock(void)
{
	mutex_lock(&fsgate_mark_mutex);
	return memalloc_nofs_save();
}

/**
 * fsgate_marks_unlock() - release fsgate_mark_mutex
 * @nofs: from fsgate_marks_lock()
 *
 * Objects destroyed under the mutex drop their last reference here.
 *
 * Context: process context, may sleep; fsgate_mark_mutex held.
 */
void fsgate_marks_unlock(unsigned int nofs)
{
	struct fsgate_obj *obj, *next;
	LIST_HEAD(dead);

	lockdep_assert_held(&fsgate_mark_mutex);
	list_splice_init(&fsgate_dead_objs, &dead);
	memalloc_nofs_restore(nofs);
	mutex_unlock(&fsgate_mark_mutex);
	list_for_each_entry_safe(obj, next, &dead, dead)
		fsnotify_put_mark(&obj->fsn);
}

/**
 * fsgate_obj_union_mask() - the fsnotify mask an object's subs need
 * @obj: the object, its subs stable (fsgate_mark_mutex held, or private)
 *
 * Events and flags wanted by any sub, plus FS_MODIFY when an ignore mask
 * must be cleared by modification, the events of an ignore mask that
 * applies to children with FS_EVENT_ON_CHILD (fsnotify_parent() passes a
 * child's event to its parent only for what the parent's mask has, as
 * fanotify's fsnotify_calc_mask() says), FS_MODIFY and FS_CLOSE_WRITE when
 * a cached verdict must be, and FS_CLOSE_WRITE for permission marks, so
 * that a file written while its group decides is not cached (cache.c).
 *
 * Context: fsgate_mark_mutex held, or @obj not yet published.
 * Return: the mask for @obj->fsn.
 */
u32 fsgate_obj_union_mask(const struct fsgate_obj *obj)
{
	const struct fsgate_sub *sub;
	u32 mask = 0;

	list_for_each_entry(sub, &obj->subs, obj_node) {
		u32 ignore = atomic_read(&sub->ignore);

		mask |= sub->mask;
		if (ignore && !sub->surv_modify)
			mask |= FS_MODIFY;
		if (ignore && fsgate_sub_ignores_children(sub, ignore))
			mask |= ignore | FS_EVENT_ON_CHILD;
		if (rcu_access_pointer(sub->cache))
			mask |= FS_MODIFY | FS_CLOSE_WRITE;
		if (sub->mask & FSGATE_PERM_EVENTS)
			mask |= FS_CLOSE_WRITE;
	}
	return mask;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_obj_union_mask);

static struct fsgate_obj *fsgate_obj_find(const struct fsgate_key *key)
{
	struct fsnotify_mark *fsn;

	fsn = fsgate_compat_find_mark(key->object, key->type, fsgate_fsn_group);
	return fsn ? fsgate_obj_of(fsn) : NULL;
}

static struct fsgate_sub *fsgate_sub_find(struct fsgate_obj *obj,
					  struct fsgate_group *group,
					  const struct fsgate_key *key)
{
	struct fsgate_sub *sub;

	list_for_each_entry(sub, &obj->subs, obj_node)
		if (sub->group == group && sub->mnt == key->mnt &&
		    sub->mnt_root == key->mnt_root)
			return sub;
	return NULL;
}

/* @group's sub for @key, if any; *@obj is its object, referenced, or NULL. */
static struct fsgate_sub *fsgate_sub_lookup(struct fsgate_group *group,
					    const struct fsgate_key *key,
					struct fsgate_obj **obj)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	*obj = fsgate_obj_find(key);
	return *obj ? fsgate_sub_find(*obj, group, key) : NULL;
}

/* Whether @sub is a mark of the group's, not only a holder of verdicts. */
static bool fsgate_sub_is_mark(const struct fsgate_sub *sub)
{
	return sub->mask || atomic_read(&sub->ignore);
}

/* kmalloc-128 on the stock kernels, whose spinlocks carry no debug state. */
#if !IS_ENABLED(CONFIG_DEBUG_SPINLOCK) && !IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC)
static_assert(sizeof(struct fsgate_obj) <= 128);
#endif

/*
 * The allocation flags of what @change needs: a sub, an object. A change
 * that caches a verdict is made for others' accesses, within
 * fsgate_group_charge(), and is best effort: %FSGATE_GROUP_GFP. A mark
 * request is the caller's own, charged to it, as fanotify's marks are.
 */
static gfp_t fsgate_change_gfp(const struct fsgate_change *change)
{
	return change->cache ? FSGATE_GROUP_GFP : GFP_KERNEL_ACCOUNT;
}

/* Whether @change alters whom accesses ask: a consensus made before lapses. */
static void fsgate_change_seen(const struct fsgate_change *change)
{
	if (change->mask || change->ignore || change->ignore_flags)
		fsgate_interest_changed();
}

/* Whether @group may have one more mark. */
static bool fsgate_marks_room(const struct fsgate_group *group)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	return (group->nr_marks < max_marks ||
		(group->flags & FSGATE_UNLIMITED_MARKS)) &&
	       fsgate_group_user_room(group);
}

static noinline struct fsgate_obj *
fsgate_obj_alloc(unsigned int type, void *object,
		 struct fsnotify_group *group, gfp_t gfp)
{
	struct fsgate_obj *obj = kzalloc(sizeof(*obj), gfp);

	if (!obj)
		return NULL;
	fsnotify_init_mark(&obj->fsn, group);
	/* fsnotify frees it, through fsgate_free_mark(). */
	atomic_inc(&fsgate_live_marks);
	INIT_LIST_HEAD(&obj->subs);
	obj->type = type;
	obj->object = object;
	return obj;
}

/* Drop fsgate's mark on @obj; the caller holds no reference of its own. */
static void fsgate_obj_destroy(struct fsgate_obj *obj)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	obj->detaching = true;
	/* fsnotify_destroy_mark() wants the caller to hold a reference. */
	refcount_inc(&obj->fsn.refcnt);
	fsnotify_destroy_mark(&obj->fsn, obj->fsn.group);
	list_add_tail(&obj->dead, &fsgate_dead_objs);
}

/*
 * Whether @obj's inode may leave memory with its mark: when its subs
 * only keep cached verdicts, which may as well go with it, or are
 * evictable marks.
 */
static bool fsgate_obj_evictable(const struct fsgate_obj *obj)
{
	const struct fsgate_sub *sub;

	if (obj->type != FSNOTIFY_OBJ_TYPE_INODE)
		return false;
	list_for_each_entry(sub, &obj->subs, obj_node)
		if (fsgate_sub_is_mark(sub) && !sub->evictable)
			return false;
	return true;
}

static bool fsgate_mark_evictable(struct fsnotify_mark *fsn)
{
	return fsn->flags & FSNOTIFY_MARK_FLAG_NO_IREF;
}

static void fsgate_obj_set_mask(struct fsgate_obj *obj, u32 mask,
				bool evictable)
{
	spin_lock(&obj->fsn.lock);
	obj->fsn.mask = mask;
	if (evictable)
		obj->fsn.flags |= FSNOTIFY_MARK_FLAG_NO_IREF;
	else
		obj->fsn.flags &= ~FSNOTIFY_MARK_FLAG_NO_IREF;
	spin_unlock(&obj->fsn.lock);
}

/*
 * Give @obj's mark the union mask of its subs, and let its inode go or
 * pin it as fsgate_obj_evictable() says, and make the object's connector
 * see it: fsnotify_add_mark() recalculates both. On failure nothing
 * changed.
 *
 * @held says the caller holds a reference to the object. Without one,
 * nothing is added beside an evictable mark: its inode might be being
 * evicted.
 *
 * The throw-away mark keeps the inode as pinned as it was until
 * fsgate_marks_unlock() drops it: letting go of the pin may be the
 * inode's last iput(), and evicting it takes fsgate_mark_mutex. It is
 * allocated with @gfp.
 */
static int fsgate_obj_update_mask(struct fsgate_obj *obj, bool held,
				  gfp_t gfp)
{
	bool was_evictable = fsgate_mark_evictable(&obj->fsn);
	u32 old = obj->fsn.mask, mask = fsgate_obj_union_mask(obj);
	bool evictable = fsgate_obj_evictable(obj);
	struct fsgate_obj *tmp;
	int ret;

	lockdep_assert_held(&fsgate_mark_mutex);
	if (mask == old && evictable == was_evictable)
		return 0;
	if (!held && was_evictable)
		return 0;
	tmp = fsgate_obj_alloc(obj->type, obj->object, fsgate_recalc_group,
			       gfp);
	if (!tmp)
		return -ENOMEM;
	if (was_evictable)
		tmp->fsn.flags |= FSNOTIFY_MARK_FLAG_NO_IREF;
	fsgate_obj_set_mask(obj, mask, evictable);
	ret = fsgate_compat_add_mark(&tmp->fsn, obj->object, obj->type);
	if (ret)
		fsgate_obj_set_mask(obj, old, was_evictable);
	else
		fsgate_obj_destroy(tmp);
	fsnotify_put_mark(&tmp->fsn);
	return ret;
}

/* Forget @sub's cached verdicts and take it off its group's cache_lru. */
static void fsgate_sub_uncache(struct fsgate_sub *sub)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	if (!list_empty(&sub->cache_node)) {
		list_del_init(&sub->cache_node);
		sub->group->nr_cached--;
	}
	fsgate_cache_drop(sub);
}

/* The FSGATE_MARK_* type of a sub. */
static u32 fsgate_sub_mark_type(const struct fsgate_sub *sub)
{
	if (sub->obj->type == FSNOTIFY_OBJ_TYPE_INODE)
		return FSGATE_MARK_INODE;
	return sub->mnt ? FSGATE_MARK_MOUNT : FSGATE_MARK_FILESYSTEM;
}

/*
 * @sub, one of its group's subs, became a mark (@delta 1) or stopped
 * being one (-1): count it in its group's marks, in all and by type.
 */
static void fsgate_sub_count_mark(struct fsgate_sub *sub, int delta)
{
	struct fsgate_group *group = sub->group;
	unsigned int *by_type;

	lockdep_assert_held(&fsgate_mark_mutex);
	switch (fsgate_sub_mark_type(sub)) {
	case FSGATE_MARK_INODE:
		by_type = &group->nr_inode_marks;
		break;
	case FSGATE_MARK_MOUNT:
		by_type = &group->nr_mount_marks;
		break;
	default:
		by_type = &group->nr_fs_marks;
		break;
	}
	fsgate_group_marks_add(group, delta);
	WRITE_ONCE(*by_type, *by_type + delta);
}

static void fsgate_sub_unlink(struct fsgate_sub *sub)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	list_del_rcu(&sub->obj_node);
	list_del(&sub->group_node);
	if (fsgate_sub_is_mark(sub))
		fsgate_sub_count_mark(sub, -1);
	fsgate_sub_uncache(sub);
	kfree_rcu(sub, rcu);
}

/*
 * Remove @sub and, with its last sub, the object's mark; @held as for
 * fsgate_obj_update_mask(). Passing the object's new mask on may fail
 * (a stale superset is harmless) and must not call the OOM killer: this
 * also runs for the cache's evictions, charged to the group
 * (%FSGATE_GROUP_GFP).
 */
static void fsgate_sub_destroy(struct fsgate_sub *sub, bool held)
{
	struct fsgate_obj *obj = sub->obj;

	lockdep_assert_held(&fsgate_mark_mutex);
	fsgate_sub_unlink(sub);
	if (list_empty(&obj->subs))
		fsgate_obj_destroy(obj);
	else
		fsgate_obj_update_mask(obj, held, FSGATE_GROUP_GFP);
}

static void fsgate_sub_apply(struct fsgate_sub *sub,
			     const struct fsgate_change *change)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	/* A new mark is as evictable as asked; a request may only pin it. */
	if (change->mask || change->ignore) {
		if (!fsgate_sub_is_mark(sub))
			sub->evictable = change->evictable;
		else if (!change->evictable)
			sub->evictable = false;
	}
	sub->mask |= change->mask;
	/* Before the bits it gives a meaning to (lockless readers). */
	if (change->ignore_flags)
		WRITE_ONCE(sub->ignore_flags, true);
	if (change->ignore)
		atomic_or(change->ignore, &sub->ignore);
	if (change->surv_modify)
		sub->surv_modify = true;
	if (change->cache)
		fsgate_cache_replace(sub, change->cache);
}

/*
 * A verdict was just cached in @sub, part of its group's subs: it goes
 * to the tail of the group's cache_lru, the most recently used end.
 */
static void fsgate_sub_cache_track(struct fsgate_sub *sub)
{
	struct fsgate_group *group = sub->group;

	lockdep_assert_held(&fsgate_mark_mutex);
	if (list_empty(&sub->cache_node))
		group->nr_cached++;
	list_move_tail(&sub->cache_node, &group->cache_lru);
	WRITE_ONCE(sub->cache_used, false);
}

/*
 * Remove @change's events from @sub, a mark; returns whether anything is
 * left. A mark that only keeps cached verdicts is no longer counted as
 * one.
 */
static bool fsgate_sub_clear(struct fsgate_sub *sub,
			     const struct fsgate_change *change)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	if (change->ignore)
		atomic_andnot(change->ignore, &sub->ignore);
	else
		sub->mask &= ~change->mask;
	/* Less ignored is more asked. */
	fsgate_interest_changed();
	if (fsgate_sub_is_mark(sub))
		return true;
	/* As fanotify's mark would be, gone: a later mark starts afresh. */
	sub->surv_modify = false;
	WRITE_ONCE(sub->ignore_flags, false);
	sub->evictable = false;
	fsgate_sub_count_mark(sub, -1);
	return !!rcu_access_pointer(sub->cache);
}

/*
 * As fanotify_may_update_existing_mark(): a mark that pins its inode
 * cannot become evictable; a mark whose ignore mask took
 * FSGATE_MARK_IGNORE's meaning cannot go back to the legacy one, and
 * with it, one that survives modification must be asked to again.
 */
static int fsgate_sub_may_change(const struct fsgate_sub *sub,
				 const struct fsgate_change *change)
{
	if (change->evictable && fsgate_sub_is_mark(sub) && !sub->evictable)
		return -EEXIST;
	if (!change->ignore)
		return 0;
	if (!change->ignore_flags && sub->ignore_flags)
		return -EEXIST;
	if (change->ignore_flags && !change->surv_modify && sub->surv_modify)
		return -EEXIST;
	return 0;
}

/*
 * Add @change to an existing sub; on failure the sub is as it was, but
 * without its cache.
 */
static int fsgate_sub_change(struct fsgate_sub *sub,
			     const struct fsgate_change *change)
{
	struct fsgate_sub saved = *sub;
	bool was_mark = fsgate_sub_is_mark(sub);
	int ret;

	lockdep_assert_held(&fsgate_mark_mutex);
	ret = fsgate_sub_may_change(sub, change);
	if (ret) {
		fsgate_cache_free(change->cache);
		return ret;
	}
	/* A sub that held only verdicts becomes a mark: it needs room. */
	if (!was_mark && (change->mask || change->ignore) &&
	    !fsgate_marks_room(sub->group)) {
		fsgate_cache_free(change->cache);
		return -ENOSPC;
	}
	fsgate_sub_apply(sub, change);
	fsgate_change_seen(change);
	ret = fsgate_obj_update_mask(sub->obj, true, fsgate_change_gfp(change));
	if (ret) {
		sub->mask = saved.mask;
		/* Only the bits this change added: dispatch may have cleared all. */
		atomic_andnot(change->ignore & ~atomic_read(&saved.ignore),
			      &sub->ignore);
		sub->surv_modify = saved.surv_modify;
		WRITE_ONCE(sub->ignore_flags, saved.ignore_flags);
		sub->evictable = saved.evictable;
		/* A cache its object does not watch could go stale. */
		if (change->cache)
			fsgate_cache_drop(sub);
		return ret;
	}
	if (!was_mark && fsgate_sub_is_mark(sub))
		fsgate_sub_count_mark(sub, 1);
	if (change->cache)
		fsgate_sub_cache_track(sub);
	return 0;
}

/*
 * Make a new sub with @change for @group; @obj may not exist yet.
 * @change->cache passes to the sub in fsgate_sub_apply(), and a sub that
 * fails goes with it (out_free_sub); before there is a sub, a failure
 * frees the cache where it happens.
 */
static noinline int fsgate_sub_create(struct fsgate_group *group,
				      const struct fsgate_key *key,
				      struct fsgate_obj *obj,
				      const struct fsgate_change *change)
{
	struct fsgate_sub *sub;
	int ret;

	lockdep_assert_held(&fsgate_mark_mutex);
	/* Cached verdicts are bounded apart (fsgate_sub_cache_verdict()). */
	if ((change->mask || change->ignore) && !fsgate_marks_room(group)) {
		fsgate_cache_free(change->cache);
		return -ENOSPC;
	}
	sub = kzalloc(sizeof(*sub), fsgate_change_gfp(change));
	if (!sub) {
		fsgate_cache_free(change->cache);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&sub->cache_node);
	sub->group = group;
	sub->mnt = key->mnt;
	sub->mnt_root = key->mnt_root;
	sub->fsid = change->fsid;
	fsgate_sub_apply(sub, change);
	if (obj) {
		sub->obj = obj;
		list_add_tail_rcu(&sub->obj_node, &obj->subs);
		ret = fsgate_obj_update_mask(obj, true,
					     fsgate_change_gfp(change));
		if (ret) {
			list_del_rcu(&sub->obj_node);
			goto out_free_sub;
		}
	} else {
		ret = -ENOMEM;
		obj = fsgate_obj_alloc(key->type, key->object,
				       fsgate_fsn_group,
				       fsgate_change_gfp(change));
		if (!obj)
			goto out_free_sub;
		sub->obj = obj;
		list_add_tail(&sub->obj_node, &obj->subs);
		fsgate_obj_set_mask(obj, fsgate_obj_union_mask(obj),
				    fsgate_obj_evictable(obj));
		ret = fsgate_compat_add_mark(&obj->fsn, key->object, key->type);
		/* Once added, the object's connector holds the mark. */
		fsnotify_put_mark(&obj->fsn);
		if (ret)
			goto out_free_sub;
	}
	list_add_tail(&sub->group_node, &group->subs);
	fsgate_change_seen(change);
	if (fsgate_sub_is_mark(sub))
		fsgate_sub_count_mark(sub, 1);
	if (change->cache)
		fsgate_sub_cache_track(sub);
	return 0;

out_free_sub:
	fsgate_cache_drop(sub);
	kfree_rcu(sub, rcu);
	return ret;
}

/**
 * fsgate_sub_add() - add events to a group's sub, made if need be
 * @group: the group
 * @key: the object, and the mount for a mount mark
 * @change: what to add; its @cache, if any, is taken over (freed on
 *	failure)
 *
 * Context: process context, may sleep; fsgate_marks_lock() held.
 * Return: 0; -EEXIST for an ignore mask the mark's earlier ones refuse
 * (fsgate_sub_may_change()); -ENOSPC past max_marks (for events or an
 * ignore mask; cached verdicts are bounded by fsgate_sub_cache_verdict());
 * -ENOMEM; or an error from fsnotify adding the object's mark.
 */
int fsgate_sub_add(struct fsgate_group *group,
		   const struct fsgate_key *key,
			   const struct fsgate_change *change)
{
	struct fsgate_obj *obj;
	struct fsgate_sub *sub = fsgate_sub_lookup(group, key, &obj);
	int ret;

	lockdep_assert_held(&fsgate_mark_mutex);
	if (sub)
		ret = fsgate_sub_change(sub, change);
	else
		ret = fsgate_sub_create(group, key, obj, change);
	if (obj)
		fsnotify_put_mark(&obj->fsn);
	return ret;
}

/**
 * fsgate_sub_remove() - remove events from a group's sub
 * @group: the group
 * @key: the object, and the mount for a mount mark
 * @change: the events to remove, from @change->ignore if set, else from
 *	@change->mask
 *
 * The sub goes when nothing is left of it.
 *
 * Context: process context, may sleep; fsgate_marks_lock() held.
 * Return: 0, or -ENOENT when the group has no such sub.
 */
int fsgate_sub_remove(struct fsgate_group *group,
		      const struct fsgate_key *key,
		      const struct fsgate_change *change)
{
	struct fsgate_obj *obj;
	struct fsgate_sub *sub = fsgate_sub_lookup(group, key, &obj);
	int ret = -ENOENT;

	lockdep_assert_held(&fsgate_mark_mutex);
	/* A sub that only holds cached verdicts is no mark of the user's. */
	if (sub && fsgate_sub_is_mark(sub)) {
		if (fsgate_sub_clear(sub, change))
			fsgate_obj_update_mask(obj, true, GFP_KERNEL_ACCOUNT);
		else
			fsgate_sub_destroy(sub, true);
		ret = 0;
	}
	if (obj)
		fsnotify_put_mark(&obj->fsn);
	return ret;
}

/**
 * fsgate_subs_flush() - remove every sub of a group of one mark type
 * @group: the group
 * @type: FSGATE_MARK_INODE, _MOUNT or _FILESYSTEM
 *
 * Context: process context, may sleep; fsgate_marks_lock() held.
 */
void fsgate_subs_flush(struct fsgate_group *group, u32 type)
{
	struct fsgate_sub *sub, *next;

	lockdep_assert_held(&fsgate_mark_mutex);
	list_for_each_entry_safe(sub, next, &group->subs, group_node)
		if (fsgate_sub_mark_type(sub) == type)
			fsgate_sub_destroy(sub, false);
}

/**
 * fsgate_subs_forget_verdicts() - drop every group's cached verdicts on a file
 * @inode: the file
 *
 * For writes that fsnotify does not report and that may fall within the
 * file's timestamp granularity, such as an HSM filling a file through a
 * writable event fd.
 *
 * Context: process context.
 */
void fsgate_subs_forget_verdicts(struct inode *inode)
{
	struct fsgate_key key = {
		.type = FSNOTIFY_OBJ_TYPE_INODE,
		.object = inode,
	};
	struct fsgate_obj *obj;
	struct fsgate_sub *sub;

	/* Verdicts being decided now are not stored either. */
	fsgate_cache_changed(inode);
	obj = fsgate_obj_find(&key);
	if (!obj)
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(sub, &obj->subs, obj_node)
		fsgate_cache_drop(sub);
	rcu_read_unlock();
	fsnotify_put_mark(&obj->fsn);
}

/*
 * Make room in @group's cache for one more file: evict the least recently
 * used entry, by a clock sweep of cache_lru that gives an entry a lookup
 * used since the last sweep a second chance. An evicted sub that is no
 * mark goes, with its object if it was the last.
 */
static void fsgate_cache_evict_one(struct fsgate_group *group)
{
	unsigned int chances = group->nr_cached;
	struct fsgate_sub *sub;

	lockdep_assert_held(&fsgate_mark_mutex);
	while (!list_empty(&group->cache_lru)) {
		sub = list_first_entry(&group->cache_lru, struct fsgate_sub,
				       cache_node);
		if (READ_ONCE(sub->cache_used) && chances--) {
			WRITE_ONCE(sub->cache_used, false);
			list_move_tail(&sub->cache_node, &group->cache_lru);
			continue;
		}
		atomic64_inc(&group->cache_evictions);
		if (fsgate_sub_is_mark(sub))
			fsgate_sub_uncache(sub);
		else
			fsgate_sub_destroy(sub, false);
		return;
	}
}

/* Store a verdict in @group's sub on @key's inode, evicting if need be. */
static void fsgate_cache_store(struct fsgate_group *group,
			       const struct fsgate_key *key, u32 mask,
			       int verdict, const struct fsgate_snap *snap)
{
	struct fsgate_change change = {};
	struct fsgate_obj *obj;
	struct fsgate_sub *sub;
	int ret = -ENOMEM;

	lockdep_assert_held(&fsgate_mark_mutex);
	sub = fsgate_sub_lookup(group, key, &obj);
	if ((!sub || list_empty(&sub->cache_node)) &&
	    group->nr_cached >= READ_ONCE(max_cached_verdicts))
		fsgate_cache_evict_one(group);
	change.cache = fsgate_cache_merge(sub, mask, verdict, snap);
	if (change.cache)
		ret = fsgate_sub_add(group, key, &change);
	if (obj)
		fsnotify_put_mark(&obj->fsn);
	/* A writer may have closed the file meanwhile: see cache.c. */
	if (!ret && !fsgate_snap_current(snap, key->object)) {
		sub = fsgate_sub_lookup(group, key, &obj);
		if (sub)
			fsgate_cache_drop(sub);
		if (obj)
			fsnotify_put_mark(&obj->fsn);
	}
}

/**
 * fsgate_sub_cache_verdict() - remember a group's verdict on a file
 * @group: the group that answered
 * @inode: the file
 * @mask: the permission event the verdict was for
 * @verdict: 0 to allow, or the negative errno of a deny
 * @snap: the file's state when the group was asked
 * @cache_gen: the group's @cache_gen when it was asked
 *
 * Kept in the group's inode mark on the file, made for it if need be
 * and then not counted as a mark; at most max_cached_verdicts files per
 * group, the least recently used evicted first. Best effort: when the
 * file changed since the group was asked or is open for writing, on a
 * filesystem that may change it unseen (fsgate_cache_allowed()), or
 * without memory, the verdict is not cached and the group is asked next
 * time. Memory is charged to the group's memory cgroup, and without room
 * there (%FSGATE_GROUP_GFP) nothing is cached.
 * Neither is it once the group flushed its cache after asking
 * (fsgate_subs_flush_verdicts()): the answer may have been made by the
 * rules the flush retired.
 *
 * Context: process context, may sleep.
 */
void fsgate_sub_cache_verdict(struct fsgate_group *group, struct inode *inode,
			      u32 mask, int verdict, const struct fsgate_snap *snap,
			      u64 cache_gen)
{
	struct fsgate_key key = {
		.type = FSNOTIFY_OBJ_TYPE_INODE,
		.object = inode,
	};
	struct mem_cgroup *memcg;
	unsigned int nofs;

	if (!READ_ONCE(max_cached_verdicts) || !fsgate_cache_allowed(inode) ||
	    !fsgate_snap_current(snap, inode))
		return;
	memcg = fsgate_group_charge(group);
	nofs = fsgate_marks_lock();
	if (group->cache_gen == cache_gen)
		fsgate_cache_store(group, &key, mask, verdict, snap);
	fsgate_marks_unlock(nofs);
	fsgate_group_uncharge(memcg);
}

/*
 * Drop @sub's cached verdicts, and the sub with them when they were all
 * it held; @held as for fsgate_obj_update_mask(). Returns whether it had
 * any.
 */
static bool fsgate_sub_flush_verdicts(struct fsgate_sub *sub, bool held)
{
	lockdep_assert_held(&fsgate_mark_mutex);
	if (!rcu_access_pointer(sub->cache))
		return false;
	if (fsgate_sub_is_mark(sub))
		fsgate_sub_uncache(sub);	/* the union mask may stay a superset */
	else
		fsgate_sub_destroy(sub, held);
	return true;
}

/**
 * fsgate_subs_flush_verdicts() - drop a group's cached verdicts
 * @group: the group
 * @inode: the one file whose verdicts go, or NULL for every file
 *
 * Also bumps the group's @cache_gen, so that no answer to an event
 * asked before is cached after (fsgate_sub_cache_verdict()): once this
 * returns, the group is asked anew about every access it had cached.
 * Subs that held nothing but cached verdicts go.
 *
 * Context: process context, may sleep; fsgate_mark_mutex not held.
 * Return: how many files had cached verdicts of the group.
 */
int fsgate_subs_flush_verdicts(struct fsgate_group *group, struct inode *inode)
{
	struct fsgate_key key = {
		.type = FSNOTIFY_OBJ_TYPE_INODE,
		.object = inode,
	};
	struct fsgate_sub *sub, *next;
	struct fsgate_obj *obj;
	unsigned int nofs;
	int n = 0;

	nofs = fsgate_marks_lock();
	WRITE_ONCE(group->cache_gen, group->cache_gen + 1);
	if (inode) {
		sub = fsgate_sub_lookup(group, &key, &obj);
		if (sub)
			n = fsgate_sub_flush_verdicts(sub, true);
		if (obj)
			fsnotify_put_mark(&obj->fsn);
	} else {
		list_for_each_entry_safe(sub, next, &group->subs, group_node)
			n += fsgate_sub_flush_verdicts(sub, false);
	}
	fsgate_marks_unlock(nofs);
	return n;
}

/**
 * fsgate_subs_remove_group() - remove every mark of a group
 * @group: a group whose fd is being released
 *
 * Context: process context, may sleep.
 */
void fsgate_subs_remove_group(struct fsgate_group *group)
{
	unsigned int nofs;
	struct fsgate_sub *sub, *next;

	nofs = fsgate_marks_lock();
	list_for_each_entry_safe(sub, next, &group->subs, group_node)
		fsgate_sub_destroy(sub, false);
	fsgate_marks_unlock(nofs);
}

/*
 * fsnotify's freeing_mark: fsnotify is destroying an object's mark. When
 * the kernel drops the mark on its own (last unlink, umount), the groups
 * forget their subs on it. When fsgate itself destroys the mark,
 * @obj->detaching is already set and fsgate_mark_mutex may be held by
 * this very thread. Process context, may sleep.
 */
static void fsgate_freeing_mark(struct fsnotify_mark *fsn,
				struct fsnotify_group *group)
{
	struct fsgate_obj *obj = fsgate_obj_of(fsn);
	unsigned int nofs;
	struct fsgate_sub *sub, *next;

	if (READ_ONCE(obj->detaching))
		return;
	nofs = fsgate_marks_lock();
	obj->detaching = true;
	list_for_each_entry_safe(sub, next, &obj->subs, obj_node)
		fsgate_sub_unlink(sub);
	fsgate_marks_unlock(nofs);
}

static void fsgate_free_mark(struct fsnotify_mark *fsn)
{
	struct fsgate_obj *obj = fsgate_obj_of(fsn);

	/* Its subs' caches went first and cleared it (fsgate_cache_drop()). */
	if (WARN_ON_ONCE(rcu_access_pointer(obj->consensus)))
		kfree(unrcu_pointer(obj->consensus));
	kfree(obj);
	if (atomic_dec_and_test(&fsgate_live_marks))
		wake_up(&fsgate_marks_freed);
}

/* The recalculating marks want no events (their mask is 0) and get none. */
static int fsgate_recalc_handle_event(struct fsnotify_group *fsn_group,
				      u32 mask, const void *data,
				      int data_type, struct inode *dir,
				      const struct qstr *name, u32 cookie,
				      struct fsnotify_iter_info *iter)
{
	return 0;
}

static const struct fsnotify_ops fsgate_recalc_ops = {
	.handle_event	= fsgate_recalc_handle_event,
	.free_mark	= fsgate_free_mark,
};

/* handle_event is dispatch.c's, given to fsgate_marks_init(). */
static struct fsnotify_ops fsgate_fsn_ops __ro_after_init = {
	.freeing_mark	= fsgate_freeing_mark,
	.free_mark	= fsgate_free_mark,
};

/**
 * fsgate_marks_init() - allocate fsgate's fsnotify groups
 * @handle_event: the callback that tells fsgate's groups of events
 *	(fsgate_dispatch_event()), passed in so that this file calls
 *	nothing above it
 *
 * Context: module init.
 * Return: 0, or a negative errno from fsnotify_alloc_group().
 */
int fsgate_marks_init(int (*handle_event)(struct fsnotify_group *group,
					  u32 mask, const void *data,
					  int data_type, struct inode *dir,
					  const struct qstr *name, u32 cookie,
					  struct fsnotify_iter_info *iter))
{
	struct fsnotify_group *group;

	fsgate_fsn_ops.handle_event = handle_event;
	group = fsnotify_alloc_group(&fsgate_fsn_ops, FSGATE_FSNOTIFY_NOFS);
	if (IS_ERR(group))
		return PTR_ERR(group);
	group->priority = fanotify_order == FSGATE_ORDER_FIRST ?
			  FSGATE_FSNOTIFY_PRIO_FIRST :
			  FSGATE_FSNOTIFY_PRIO_CONTENT;
	fsgate_fsn_group = group;
	/* Lowest priority, the kzalloc()ed 0: asked last, about nothing. */
	group = fsnotify_alloc_group(&fsgate_recalc_ops,
				     FSNOTIFY_GROUP_DUPS | FSGATE_FSNOTIFY_NOFS);
	if (IS_ERR(group)) {
		fsnotify_put_group(fsgate_fsn_group);
		return PTR_ERR(group);
	}
	fsgate_recalc_group = group;
	return 0;
}

/**
 * fsgate_marks_exit() - drop fsgate's fsnotify groups
 *
 * Every mark was destroyed with its group; wait until fsnotify has freed
 * them, since freeing calls into this module, and until the work that
 * freed the last one is done with fsgate's groups.
 *
 * Context: module exit, after the last fsgate group is gone.
 */
void fsgate_marks_exit(void)
{
	fsnotify_wait_marks_destroyed();
	wait_event(fsgate_marks_freed, !atomic_read(&fsgate_live_marks));
	fsnotify_wait_marks_destroyed();
	fsnotify_put_group(fsgate_recalc_group);
	fsnotify_put_group(fsgate_fsn_group);
}
