// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict cache (layer 0, calls nothing of fsgate's): a group that
 * answers with FSGATE_CACHE is not asked again about the same access to
 * the same file until the file changes.
 *
 * A group's cached verdicts on a file live in its sub on the file's inode
 * (mark.c makes one if need be), so they share the inode mark's lifetime
 * and the union mask makes fsnotify report the file's FS_MODIFY and
 * FS_CLOSE_WRITE, which drop them. Writes that fsnotify does not report
 * (through an event fd, whose I/O raises no events) still change the
 * file's ctime or size, and a cached verdict only holds for the snapshot
 * of the file it was made on (ctime, size, and i_version where the
 * filesystem keeps one), and is not used while anyone may write to the
 * file (i_writecount: writers, shared writable mappings, writable event
 * fds). Timestamps are coarse (a jiffy), so fsgate also drops a file's
 * cached verdicts whenever it hands out a writable event fd for it (an
 * HSM about to fill it). What remains is a write by a program's own
 * quiet fd (fanotify's event fds) within one timestamp tick of the
 * snapshot on a filesystem without i_version; README.md lists it under
 * limitations.
 *
 * A verdict is only as good as the file the group looked at: one whose
 * file changed between the question and the answer is not stored. Writes
 * that leave ctime, size and i_version alone (within one tick, or through
 * a shared mapping of a tmpfs file) are caught by a change generation:
 * every close after writing and every modification fsgate hears of
 * (mark.c makes the objects of permission marks hear of closes) bumps a
 * counter of the file's slot in fsgate_change_gen, and a verdict is
 * stored only if its file's slot did not move since the question and
 * the file is not open for writing (a writer still open has not closed
 * yet). Two files sharing a slot only cost a verdict not cached.
 * Filesystems whose files change without the kernel hearing of it
 * (network and cluster filesystems, FUSE: see fsgate_cache_allowed())
 * get no cached verdicts at all.
 *
 * Locking: an entry is immutable once published in @sub->cache. Writers
 * replace or clear the pointer with xchg() (under fsgate_mark_mutex, or
 * from the event path without it) and free the old entry after an RCU
 * grace period; the event path reads it under rcu_read_lock().
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/iversion.h>
#include <linux/slab.h>

#include "cache.h"
#include "group.h"
#include "mark.h"

/* Change generations, by a hash of the inode: see the top of this file. */
#define FSGATE_CHANGE_GEN_BITS	10
static atomic_t fsgate_change_gen[1 << FSGATE_CHANGE_GEN_BITS];

static atomic_t *fsgate_change_slot(const struct inode *inode)
{
	return &fsgate_change_gen[hash_ptr(inode, FSGATE_CHANGE_GEN_BITS)];
}

/**
 * fsgate_cache_changed() - note that a file changed or was closed after
 *	writing
 * @inode: the file
 *
 * A verdict on the file whose question came before this is not stored.
 * Fully ordered, so that a verdict stored meanwhile is either seen by
 * the caller, which drops it after this, or sees this itself
 * (fsgate_snap_current()).
 *
 * Context: any.
 */
void fsgate_cache_changed(const struct inode *inode)
{
	atomic_inc_return(fsgate_change_slot(inode));
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_cache_changed);

/* Bumped by fsgate_interest_changed(); see consensus.c. */
atomic64_t fsgate_interest_gen;

/**
 * fsgate_interest_changed() - note that who an access asks may differ now
 *
 * Called after any change to a sub's events or ignore mask, to a group's
 * mutes or filter: every consensus made before it lapses (consensus.c).
 * Fully ordered, so the change is seen by whoever sees the new value.
 *
 * Context: any.
 */
void fsgate_interest_changed(void)
{
	atomic64_inc_return(&fsgate_interest_gen);
}

/**
 * fsgate_consensus_clear() - forget that every group allows accesses to a
 *	file from its cache
 * @obj: fsgate's object on the file's inode
 *
 * Called after any cached verdict on the file is dropped or replaced.
 *
 * Context: any; safe against concurrent storing and clearing.
 */
void fsgate_consensus_clear(struct fsgate_obj *obj)
{
	struct fsgate_consensus *old;

	if (!rcu_access_pointer(obj->consensus))
		return;
	old = unrcu_pointer(xchg(&obj->consensus, NULL));
	if (old)
		kfree_rcu(old, rcu);
}

/**
 * fsgate_cache_allowed() - whether verdicts on a file may be cached
 * @inode: the file
 *
 * Not on filesystems whose files other machines or a userspace server
 * may change without this kernel hearing of it: FUSE (FS_HAS_SUBTYPE),
 * and those that revalidate names and attributes with a server or a
 * cluster (FS_RENAME_DOES_D_MOVE: NFS, SMB, Ceph, AFS, 9p, OCFS2). Nor on
 * stacked filesystems (overlayfs, ecryptfs: s_stack_depth): a write made
 * in the layer beneath, which a rootless container's user can make in
 * its upper directory, changes neither the stacked inode's ctime, size
 * nor writers, so the check at use would take new content for the old.
 *
 * Context: any.
 * Return: true if a verdict may be cached.
 */
bool fsgate_cache_allowed(const struct inode *inode)
{
	return !(inode->i_sb->s_type->fs_flags &
		 (FS_HAS_SUBTYPE | FS_RENAME_DOES_D_MOVE)) &&
	       !inode->i_sb->s_stack_depth;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_cache_allowed);

/* @snap of @inode now; @query marks i_version read, so the next change bumps it. */
static void fsgate_snap_fill(struct fsgate_snap *snap, struct inode *inode,
			     bool query)
{
	fsgate_snap_now(snap, inode);
	if (query && IS_I_VERSION(inode))
		snap->iversion = inode_query_iversion(inode);
	snap->gen = atomic_read(fsgate_change_slot(inode));
}

/**
 * fsgate_snap_take() - note what a file looks like when a group is asked
 * @snap: filled in
 * @inode: the file
 *
 * Context: any.
 */
void fsgate_snap_take(struct fsgate_snap *snap, struct inode *inode)
{
	fsgate_snap_fill(snap, inode, true);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_snap_take);

/**
 * fsgate_snap_current() - whether a file is still as a group saw it
 * @snap: from fsgate_snap_take() when the group was asked
 * @inode: the file
 *
 * Not if anyone may write to it now, nor if it changed, or was closed
 * after writing, since @snap was taken. Called before a verdict is
 * stored and again after it is published, with a full barrier between
 * the publishing and this, which pairs with fsgate_cache_changed(): a
 * writer that closed the file in between either sees the stored verdict
 * (and drops it) or is seen here. A writer's close bumps the generation
 * before it gives up its write access, so once the file is seen not open
 * for writing, its last writer's bump is seen too.
 *
 * Context: any.
 * Return: true if @snap still describes @inode.
 */
bool fsgate_snap_current(const struct fsgate_snap *snap, struct inode *inode)
{
	struct fsgate_snap now;

	/* Pairs with fsgate_cache_changed(): the verdict published, then this. */
	smp_mb();
	if (inode_is_open_for_write(inode))
		return false;
	/* The writer bumped the generation before it gave up write access. */
	smp_rmb();
	fsgate_snap_fill(&now, inode, false);
	return now.gen == snap->gen && fsgate_snap_equal(snap, &now);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_snap_current);

/* What @sub's cache says of @mask; an entry on an older file is dropped. */
static enum fsgate_cached fsgate_cache_lookup(struct fsgate_sub *sub,
					      struct inode *inode, u32 mask,
					      int *deny_errno)
{
	struct fsgate_cache *cache = rcu_dereference(sub->cache);
	struct fsgate_snap now;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	if (!cache || !((cache->allow | cache->deny) & mask))
		return FSGATE_CACHED_NONE;
	/*
	 * Whoever may write (an open writer, a shared writable mapping, an
	 * HSM's event fd) may change it without a word: ask.
	 */
	if (inode_is_open_for_write(inode))
		return FSGATE_CACHED_NONE;
	fsgate_snap_now(&now, inode);
	if (!fsgate_snap_equal(&cache->snap, &now)) {
		fsgate_cache_drop(sub);
		return FSGATE_CACHED_NONE;
	}
	/* Used: the least recently used entries are evicted first (mark.c). */
	if (!READ_ONCE(sub->cache_used))
		WRITE_ONCE(sub->cache_used, true);
	if (cache->deny & mask) {
		*deny_errno = cache->deny_errno;
		return FSGATE_CACHED_DENY;
	}
	return FSGATE_CACHED_ALLOW;
}

/**
 * fsgate_cache_check() - a group's cached verdict on an access to a file
 * @obj: fsgate's object on the file's inode, or NULL
 * @group: the group
 * @mask: the permission event
 * @deny_errno: set to the negative errno for %FSGATE_CACHED_DENY
 *
 * Context: within fsnotify's handling of the event, whose SRCU read side
 * keeps @obj alive.
 * Return: what the group's cache says of the access.
 */
enum fsgate_cached fsgate_cache_check(struct fsgate_obj *obj,
				      const struct fsgate_group *group,
				      u32 mask, int *deny_errno)
{
	enum fsgate_cached ret = FSGATE_CACHED_NONE;
	struct fsgate_sub *sub;

	if (!obj)
		return ret;
	rcu_read_lock();
	list_for_each_entry_rcu(sub, &obj->subs, obj_node) {
		if (sub->group == group) {
			ret = fsgate_cache_lookup(sub, obj->object, mask,
						  deny_errno);
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/**
 * fsgate_cache_merge() - a new cache entry with one more verdict
 * @sub: the group's sub on the file, or NULL if it has none
 * @mask: the permission event the verdict is for
 * @verdict: 0 to allow, or the negative errno of a deny
 * @snap: the file when the group was asked
 *
 * Verdicts of @sub's entry made on the same snapshot are kept, others
 * dropped. Allocated with %FSGATE_GROUP_GFP, within the group's
 * fsgate_group_charge().
 *
 * Context: process context, may sleep; fsgate_mark_mutex held (mark.c
 * asserts it).
 * Return: an unpublished entry, or NULL without memory.
 */
struct fsgate_cache *fsgate_cache_merge(struct fsgate_sub *sub, u32 mask,
					int verdict,
					const struct fsgate_snap *snap)
{
	struct fsgate_cache *cache, *old;

	cache = kzalloc(sizeof(*cache), FSGATE_GROUP_GFP);
	if (!cache)
		return NULL;
	cache->snap = *snap;
	rcu_read_lock();
	old = sub ? rcu_dereference(sub->cache) : NULL;
	if (old && fsgate_snap_equal(&old->snap, snap)) {
		cache->allow = old->allow;
		cache->deny = old->deny;
		cache->deny_errno = old->deny_errno;
	}
	rcu_read_unlock();
	if (verdict) {
		cache->allow &= ~mask;
		cache->deny |= mask;
		cache->deny_errno = verdict;
	} else {
		cache->deny &= ~mask;
		cache->allow |= mask;
	}
	return cache;
}

/**
 * fsgate_cache_replace() - publish a sub's new cache entry
 * @sub: the sub
 * @cache: from fsgate_cache_merge()
 *
 * Context: fsgate_mark_mutex held (fsgate_sub_apply() asserts it).
 */
void fsgate_cache_replace(struct fsgate_sub *sub, struct fsgate_cache *cache)
{
	struct fsgate_cache *old;

	old = unrcu_pointer(xchg(&sub->cache, RCU_INITIALIZER(cache)));
	if (old) {
		kfree_rcu(old, rcu);
		fsgate_consensus_clear(sub->obj);
	}
}

/**
 * fsgate_cache_drop() - forget a sub's cached verdicts
 * @sub: the sub
 *
 * Context: any; safe against concurrent replacing and dropping.
 */
void fsgate_cache_drop(struct fsgate_sub *sub)
{
	struct fsgate_cache *old;

	if (!rcu_access_pointer(sub->cache))
		return;
	old = unrcu_pointer(xchg(&sub->cache, NULL));
	if (old) {
		kfree_rcu(old, rcu);
		/* A sub that failed to be made has no object. */
		if (sub->obj)
			fsgate_consensus_clear(sub->obj);
	}
}

/**
 * fsgate_cache_allows() - whether a sub's cache allows an access
 * @sub: the sub, on the file's inode
 * @mask: the permission event
 * @snap: the file as it is (fsgate_snap_now())
 *
 * Context: rcu_read_lock() held.
 * Return: true if @sub's cache allows @mask, made on @snap's attributes.
 */
bool fsgate_cache_allows(struct fsgate_sub *sub, u32 mask,
			 const struct fsgate_snap *snap)
{
	const struct fsgate_cache *cache = rcu_dereference(sub->cache);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	return cache && (cache->allow & mask) == mask &&
	       !(cache->deny & mask) && fsgate_snap_equal(&cache->snap, snap);
}

/**
 * fsgate_cache_free() - free an entry that was never published
 * @cache: the entry, or NULL
 *
 * Context: any.
 */
void fsgate_cache_free(struct fsgate_cache *cache)
{
	kfree(cache);
}
