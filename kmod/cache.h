/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_CACHE_H
#define _FSGATE_CACHE_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/rcupdate.h>
#include <linux/time64.h>
#include <linux/types.h>

struct dentry;
struct fsgate_group;
struct fsgate_obj;
struct fsgate_sub;
struct inode;
struct vfsmount;

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

/**
 * struct fsgate_consensus - every group an access asks allows it from cache
 * @mask: the permission event, FS_ISDIR included
 * @gen: fsgate_interest_gen when the access's groups were matched
 * @mnt: the mount the access went through (mount marks depend on it);
 *	only compared
 * @mnt_root: its root, compared as mount marks compare it
 * @parent: fsgate's mark on the parent that fsnotify reported, or NULL;
 *	only compared (marks watching children depend on it)
 * @n: entries of @subs
 * @rcu: for kfree_rcu()
 * @subs: the subs on the file whose cached allows answered, one per group
 *
 * Kept in fsgate's object on the file's inode (consensus.c). Immutable
 * once published; cleared whenever one of the file's cached verdicts is
 * dropped or replaced (fsgate_consensus_clear()), so @subs outlive it.
 * The file's snapshot is the one in each sub's cache entry: with one
 * group, a consensus takes 64 bytes.
 */
struct fsgate_consensus {
	u32 mask;
	unsigned int n;
	u64 gen;
	const struct vfsmount *mnt;
	const struct dentry *mnt_root;
	const void *parent;
	struct rcu_head rcu;
	struct fsgate_sub *subs[];
};

/* A group's cached verdict on an access, as fsgate_cache_check() finds it. */
enum fsgate_cached {
	FSGATE_CACHED_NONE,
	FSGATE_CACHED_ALLOW,
	FSGATE_CACHED_DENY,
};

extern atomic64_t fsgate_interest_gen;

/**
 * fsgate_interest_read() - the generation of who an access may ask
 *
 * Read before the subs an access matches: a consensus made from them is
 * used only while this stays the same (consensus.c).
 *
 * Context: any.
 * Return: the current generation.
 */
static inline u64 fsgate_interest_read(void)
{
	return atomic64_read_acquire(&fsgate_interest_gen);
}

/**
 * fsgate_snap_now() - what a file looks like, to compare with a snapshot
 * @snap: filled in
 * @inode: the file
 *
 * As fsgate_snap_take(), without marking i_version read and without the
 * change generation, which fsgate_snap_equal() does not compare: for
 * checking a cached verdict before it is used. Inline, as it runs on
 * every access a consensus allows (consensus.c).
 *
 * Context: any.
 */
static inline void fsgate_snap_now(struct fsgate_snap *snap,
				   struct inode *inode)
{
	snap->ctime = inode_get_ctime(inode);
	snap->size = i_size_read(inode);
	snap->iversion = IS_I_VERSION(inode) ? inode_peek_iversion(inode) : 0;
	snap->gen = 0;
}

/* Whether @a and @b are the same file contents, as far as fsgate can tell. */
static inline bool fsgate_snap_equal(const struct fsgate_snap *a,
				     const struct fsgate_snap *b)
{
	return timespec64_equal(&a->ctime, &b->ctime) && a->size == b->size &&
	       a->iversion == b->iversion;
}

void fsgate_interest_changed(void);
void fsgate_consensus_clear(struct fsgate_obj *obj);
void fsgate_snap_take(struct fsgate_snap *snap, struct inode *inode);
bool fsgate_cache_allows(struct fsgate_sub *sub, u32 mask,
			 const struct fsgate_snap *snap);
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
