// SPDX-License-Identifier: GPL-2.0
/*
 * Consensus (layer 2, calls cache.c): an access that every group it asks
 * answered from its verdict cache is remembered in fsgate's object on the
 * file's inode, so that the next such access is allowed without matching
 * the groups again: one lookup instead of walking the subs, resolving
 * each group's mutes and filter and running the chain (dispatch.c).
 *
 * A consensus holds for as long as the access would ask the same groups
 * and each of them would answer from its cache:
 *
 * - the same groups: it was made from the subs of the objects fsnotify
 *   reported (the inode, its parent, the filesystem), through one mount.
 *   It is used only for the same event through the same mount with the
 *   same parent mark, and only while fsgate_interest_gen, which every
 *   change to a sub's events or ignore mask and to a group's mutes or
 *   filter bumps, is what it was before those subs were read. It is made
 *   only when no group was left out by its mutes, its FSGATE_EXCLUDE_SELF
 *   or its filter (another process may be asked), and for no group with a
 *   filter (which may deny another process).
 * - each from its cache: it is made only after every group's cached allow
 *   was found valid, and cleared whenever one of the file's cached
 *   verdicts is dropped or replaced (fsgate_consensus_clear(): the file
 *   changed, the cache was flushed or evicted, the sub went). A use checks
 *   what a cached verdict's use checks: the file is not open for writing
 *   and its ctime, size and i_version are as each group's entry has them.
 *
 * Locking: a consensus is immutable once published. It is replaced and
 * cleared with xchg() and freed with kfree_rcu(); lookups run under
 * rcu_read_lock() within fsnotify's handling of an event, which keeps
 * the object alive. A consensus being stored while one of its verdicts is
 * dropped is either cleared by the dropper or seen stale by the storer,
 * which takes it back: both sides publish, then read the other's pointer,
 * each xchg() a full barrier.
 */
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/overflow.h>
#include <linux/path.h>
#include <linux/slab.h>

#include "cache.h"
#include "chain.h"
#include "consensus.h"
#include "group.h"
#include "mark.h"

/* Most groups a consensus holds; more ask through the chain. */
#define FSGATE_CONSENSUS_MAX	4

/* Whether every sub of @c still allows its access from its cache. */
static bool fsgate_consensus_holds(const struct fsgate_consensus *c,
				   const struct fsgate_snap *now)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (!fsgate_cache_allows(c->subs[i], c->mask & FSGATE_PERM_EVENTS,
					 now))
			return false;
	return true;
}

/* Whether @c was made for @mask on @obj's file through @path and @parent. */
static bool fsgate_consensus_fits(const struct fsgate_consensus *c,
				  struct fsgate_obj *obj, u32 mask,
				  const struct path *path, const void *parent)
{
	struct inode *inode = obj->object;
	struct fsgate_snap now;

	if (c->mask != mask || c->gen != fsgate_interest_read() ||
	    c->mnt != path->mnt || c->mnt_root != path->mnt->mnt_root ||
	    c->parent != parent || inode_is_open_for_write(inode))
		return false;
	fsgate_snap_now(&now, inode);
	return fsgate_consensus_holds(c, &now);
}

/**
 * fsgate_consensus_allows() - whether every group's cache allows an access
 * @obj: fsgate's object on the file's inode, or NULL
 * @mask: the permission event, FS_ISDIR included
 * @path: the file
 * @parent: fsgate's mark on the parent that fsnotify reported, or NULL
 *
 * On success each group's cached answer is counted as the chain would
 * count it.
 *
 * Context: within fsnotify's handling of the event, which keeps @obj
 * alive.
 * Return: true if the access is allowed without asking.
 */
bool fsgate_consensus_allows(struct fsgate_obj *obj, u32 mask,
			     const struct path *path, const void *parent)
{
	const struct fsgate_consensus *c;
	struct fsgate_sub *sub;
	bool fits = false;
	unsigned int i;

	if (!obj || !path)
		return false;
	rcu_read_lock();
	c = rcu_dereference(obj->consensus);
	if (c && fsgate_consensus_fits(c, obj, mask, path, parent)) {
		for (i = 0; i < c->n; i++) {
			sub = c->subs[i];
			atomic64_inc(&sub->group->perm.cached);
			/* Used: see fsgate_cache_lookup(). */
			if (!READ_ONCE(sub->cache_used))
				WRITE_ONCE(sub->cache_used, true);
		}
		fits = true;
	}
	rcu_read_unlock();
	return fits;
}

/* @group's sub on @obj whose cache allows @mask on @snap, or NULL. */
static struct fsgate_sub *fsgate_consensus_sub(struct fsgate_obj *obj,
					       const struct fsgate_group *group,
					       u32 mask,
					       const struct fsgate_snap *snap)
{
	struct fsgate_sub *sub;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	list_for_each_entry_rcu(sub, &obj->subs, obj_node)
		if (sub->group == group)
			return fsgate_cache_allows(sub, mask, snap) ? sub : NULL;
	return NULL;
}

/* Fill @c's subs from @matches; returns whether each group's cache allows. */
static bool fsgate_consensus_fill(struct fsgate_consensus *c,
				  struct fsgate_obj *obj,
				  const struct fsgate_match *matches,
				  unsigned int n, const struct fsgate_snap *now)
{
	unsigned int i;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	for (i = 0; i < n; i++) {
		/* A filter may deny another process what it allowed this one. */
		if (!matches[i].cached || rcu_access_pointer(matches[i].group->filter))
			return false;
		c->subs[i] = fsgate_consensus_sub(obj, matches[i].group,
						  c->mask & FSGATE_PERM_EVENTS,
						  now);
		if (!c->subs[i])
			return false;
	}
	c->n = n;
	return true;
}

/**
 * fsgate_consensus_store() - remember that every group's cache allowed an
 *	access
 * @obj: fsgate's object on the file's inode, or NULL
 * @matches: every group the access asked, none left out, each answered
 *	from its cache (@cached)
 * @n: their number
 * @mask: the permission event, FS_ISDIR included
 * @path: the file
 * @parent: fsgate's mark on the parent that fsnotify reported, or NULL
 * @gen: fsgate_interest_read() from before @matches were collected
 *
 * Best effort: without memory, or when a verdict lapsed meanwhile,
 * nothing is stored. The memory is charged to the first group's memory
 * cgroup, as its cached verdicts are, with %FSGATE_GROUP_GFP.
 *
 * Context: process context, may sleep; within fsnotify's handling of the
 * event, which keeps @obj alive.
 */
void fsgate_consensus_store(struct fsgate_obj *obj,
			    const struct fsgate_match *matches, unsigned int n,
			    u32 mask, const struct path *path,
			    const void *parent, u64 gen)
{
	struct fsgate_consensus *c, *old;
	struct fsgate_snap now;
	struct mem_cgroup *memcg;
	struct inode *inode;

	if (!obj || !path || !n || n > FSGATE_CONSENSUS_MAX)
		return;
	inode = obj->object;
	memcg = fsgate_group_charge(matches[0].group);
	c = kmalloc(struct_size(c, subs, n), FSGATE_GROUP_GFP);
	fsgate_group_uncharge(memcg);
	if (!c)
		return;
	c->mask = mask;
	c->gen = gen;
	c->mnt = path->mnt;
	c->mnt_root = path->mnt->mnt_root;
	c->parent = parent;
	fsgate_snap_now(&now, inode);
	rcu_read_lock();
	if (inode_is_open_for_write(inode) ||
	    !fsgate_consensus_fill(c, obj, matches, n, &now)) {
		rcu_read_unlock();
		kfree(c);
		return;
	}
	old = unrcu_pointer(xchg(&obj->consensus, RCU_INITIALIZER(c)));
	if (old)
		kfree_rcu(old, rcu);
	/* A verdict dropped before the dropper could see @c: take it back. */
	if (!fsgate_consensus_holds(c, &now) &&
	    cmpxchg(&obj->consensus, RCU_INITIALIZER(c), NULL) ==
	    RCU_INITIALIZER(c))
		kfree_rcu(c, rcu);
	rcu_read_unlock();
}
