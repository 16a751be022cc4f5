// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch (layer 3): fsnotify's callback for fsgate's marks. Every fsgate
 * listener group shares one fsnotify group for its marks (mark.c): the
 * fsnotify mark on an object carries the union of their subscriptions, and
 * each event is matched here against every group's subscriptions on the
 * objects involved, so fsgate decides itself which groups hear of it and in
 * which order. Notification events go to the groups' queues (event.c),
 * permission events to the decision chain (chain.c). Calls go downward only;
 * fsnotify reaches this file through the ops table of mark.c.
 */
#include <linux/err.h>
#include <linux/fsnotify_backend.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "dispatch.h"
#include "cache.h"
#include "chain.h"
#include "consensus.h"
#include "event.h"
#include "fid.h"
#include "filter.h"
#include "group.h"
#include "mark.h"
#include "mute.h"
#include "trace.h"

/* Groups matched on the stack before falling back to an allocation. */
#define FSGATE_MATCH_STACK	16
/* Counts and collections fsgate_dispatch_matched() tries past the stack. */
#define FSGATE_COLLECT_TRIES	3

static struct fsgate_match *fsgate_match_slot(struct fsgate_match *matches,
					      unsigned int *n, unsigned int max,
					      struct fsgate_group *group)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (matches[i].group == group)
			return &matches[i];
	if (*n == max)
		return NULL;
	matches[*n] = (struct fsgate_match){ .group = group };
	return &matches[(*n)++];
}

/* Whether an event on @path (NULL: none) went through @sub's mount, if any. */
static bool fsgate_sub_through(const struct fsgate_sub *sub,
			       const struct path *path)
{
	return !sub->mnt || (path && sub->mnt == path->mnt &&
			     sub->mnt_root == path->mnt->mnt_root);
}

/* Whether @sub on an object reported as @type applies to an event on @path. */
static bool fsgate_sub_applies(const struct fsgate_sub *sub, int type,
			       const struct path *path)
{
	/*
	 * A directory's mark covers its children only if asked to, for its
	 * events or its ignore mask.
	 */
	if (type == FSNOTIFY_ITER_TYPE_PARENT)
		return (sub->mask & FS_EVENT_ON_CHILD) ||
		       fsgate_sub_ignored(sub, type, 0);
	/* A mount mark sees only what goes through its vfsmount. */
	return fsgate_sub_through(sub, path);
}

/*
 * What an event changes in a sub before it is matched. @path may be NULL
 * (truncation).
 */
static void fsgate_sub_see(struct fsgate_sub *sub, int type, u32 mask,
			   const struct path *path)
{
	/*
	 * As fsnotify's send_to_group() on 6.1 and 6.12: modification clears
	 * the ignore masks of the marks the event is reported to, a mount
	 * mark's only when it went through that mount, and a directory's
	 * only when the mark watches children
	 * (fsnotify_iter_select_report_types()): a legacy ignore mask that
	 * applies to the directory's own events alone outlives a child's
	 * modification, even when another mark brings it to the directory.
	 */
	if ((mask & FS_MODIFY) && !sub->surv_modify &&
	    atomic_read(&sub->ignore) && fsgate_sub_applies(sub, type, path) &&
	    atomic_xchg(&sub->ignore, 0))
		fsgate_interest_changed();
	/* A changed file is decided anew. */
	if ((mask & (FS_MODIFY | FS_CLOSE_WRITE)) &&
	    type == FSNOTIFY_ITER_TYPE_INODE)
		fsgate_cache_drop(sub);
}

/*
 * Apply what the event changes to every sub on its objects (see
 * fsgate_sub_see()), whether or not anyone is told of it: truncation's
 * FS_MODIFY comes from notify_change() without a path.
 */
static void fsgate_see(struct fsnotify_iter_info *iter, u32 mask,
		       const struct path *path)
{
	struct fsnotify_mark *fsn;
	struct fsgate_sub *sub;
	int type;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	/* Most events change nothing: no walk over the subs for them. */
	if (!(mask & (FS_MODIFY | FS_CLOSE_WRITE)))
		return;
	fsnotify_foreach_iter_mark_type(iter, fsn, type)
		list_for_each_entry_rcu(sub, &fsgate_obj_of(fsn)->subs, obj_node)
			fsgate_sub_see(sub, type, mask, path);
}

/* How many subs apply to an event on @path: a bound on its groups. */
static unsigned int fsgate_count(struct fsnotify_iter_info *iter,
				 const struct path *path)
{
	struct fsnotify_mark *fsn;
	struct fsgate_sub *sub;
	unsigned int n = 0;
	int type;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	fsnotify_foreach_iter_mark_type(iter, fsn, type)
		list_for_each_entry_rcu(sub, &fsgate_obj_of(fsn)->subs, obj_node)
			if (fsgate_sub_applies(sub, type, path))
				n++;
	return n;
}

/*
 * Collect, for every group with subs that apply to an event on @path, the
 * union of its marks and ignore masks; returns how many groups, at most
 * @max. @full is set if a group found no slot left (then some are
 * missing), cleared otherwise. As fanotify, a mark without FAN_ONDIR
 * adds nothing to a directory's event (@mask has FS_ISDIR), whatever the
 * group's other marks ask, nor one without FAN_EVENT_ON_CHILD to a
 * child's; ignore masks apply as fsgate_sub_ignored() says.
 */
static unsigned int fsgate_collect(struct fsnotify_iter_info *iter,
				   const struct path *path, u32 mask,
				   struct fsgate_match *matches,
				   unsigned int max, bool *full)
{
	struct fsnotify_mark *fsn;
	struct fsgate_match *m;
	struct fsgate_sub *sub;
	unsigned int n = 0;
	int type;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	*full = false;
	fsnotify_foreach_iter_mark_type(iter, fsn, type)
		list_for_each_entry_rcu(sub, &fsgate_obj_of(fsn)->subs, obj_node) {
			if (!fsgate_sub_applies(sub, type, path))
				continue;
			m = fsgate_match_slot(matches, &n, max, sub->group);
			if (!m) {
				*full = true;
				return n;
			}
			if ((!(mask & FS_ISDIR) || (sub->mask & FAN_ONDIR)) &&
			    (type != FSNOTIFY_ITER_TYPE_PARENT ||
			     (sub->mask & FS_EVENT_ON_CHILD))) {
				m->marks |= sub->mask;
				m->types |= BIT(type);
			}
			m->ignore |= fsgate_sub_ignored(sub, type, mask);
			m->fsid = sub->fsid;
		}
	return n;
}

/*
 * Whether @group hears of an access by the current process, of which it
 * would be told or asked @report: not with FSGATE_EXCLUDE_SELF when its
 * creator (or the daemon that attached to it last) or what that process
 * forked since accesses (a daemon's workers would wait on themselves),
 * nor when its mutes hide the access (counted; for a permission event on
 * @path traced as the group's allow).
 */
static bool fsgate_group_hears_current(struct fsgate_group *group,
				       struct fsgate_facts *facts, u32 report,
				       const struct path *path)
{
	const struct fsgate_self *self;

	if (group->flags & FSGATE_EXCLUDE_SELF) {
		self = rcu_dereference(group->self);
		if (fsgate_current_descends(self->tgid, self->since))
			return false;
	}
	if (fsgate_mutes_hide(group, facts, report)) {
		atomic64_inc(&group->muted);
		if (report & FSGATE_PERM_EVENTS)
			trace_fsgate_perm_answer(group, 0, current, path,
						 report & FSGATE_PERM_EVENTS, 0,
						 FSGATE_SRC_MUTE, 0);
		return false;
	}
	return true;
}

/*
 * Run @m's group's filter over @inode (NULL: none to run it over):
 * returns whether the group is still told or asked. A filter's deny of a
 * permission event stays in @m, to settle its tier when the tier's turn
 * comes (chain.c); its pass of one is traced as the group's allow.
 */
static bool fsgate_match_filter(struct fsgate_match *m, u32 mask,
				const struct path *path, struct inode *inode)
{
	int err = 0;

	if (!inode)
		return true;
	switch (fsgate_filter_run(m->group, m->report, inode, &err)) {
	case FSGATE_FILTER_ASK:
		return true;
	case FSGATE_FILTER_DENY:
		atomic64_inc(&m->group->filtered);
		m->filtered = err;
		return mask & FSGATE_PERM_EVENTS;
	default:
		atomic64_inc(&m->group->filtered);
		if (m->report & FSGATE_PERM_EVENTS)
			trace_fsgate_perm_answer(m->group, 0, current, path,
						 m->report & FSGATE_PERM_EVENTS,
						 0, FSGATE_SRC_FILTER, 0);
		return false;
	}
}

/*
 * What @m's group is told of an event: only FID-mode groups hear of
 * events without a file (@path NULL), and they as fanotify tells them
 * (fsgate_fid_event_mask()); a FID-mode group's sub made before its fsid
 * was known (a race fanotify has too) hears nothing.
 */
static u32 fsgate_match_report(const struct fsgate_match *m, u32 mask,
			       const struct path *path, const struct inode *dir)
{
	u32 flags = m->group->flags;

	if (likely(!(flags & FSGATE_REPORT_FID_BITS)))
		return path ? fsgate_event_mask(mask, m->marks, m->ignore) : 0;
	if (!m->fsid.val[0] && !m->fsid.val[1])
		return 0;
	return fsgate_fid_event_mask(flags, mask, m->marks, m->ignore, dir);
}

/*
 * Resolve @matches to the groups that are told or asked, each with a
 * reference; returns how many are left at the front of @matches, and
 * sets *@left_out if a group the event is for was left out (its mutes,
 * FSGATE_EXCLUDE_SELF or filter).
 */
static unsigned int fsgate_matches_resolve(struct fsgate_match *matches,
					   unsigned int n, u32 mask,
					   const struct path *path,
					   struct inode *inode,
					   const struct inode *dir,
					   bool *left_out)
{
	struct fsgate_facts facts = {};
	struct fsgate_match *m;
	unsigned int i, told = 0;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	for (i = 0; i < n; i++) {
		m = &matches[i];
		m->report = fsgate_match_report(m, mask, path, dir);
		if (!m->report)
			continue;
		if (!fsgate_group_hears_current(m->group, &facts, m->report,
						path) ||
		    !refcount_inc_not_zero(&m->group->ref)) {
			*left_out = true;
			continue;
		}
		/* Referenced first: the filter reads the group's owner. */
		if (!fsgate_match_filter(m, mask, path, inode)) {
			fsgate_group_put(m->group);
			*left_out = true;
			continue;
		}
		matches[told++] = *m;
	}
	return told;
}

/* Queue a notification for each of @matches' groups. */
static void fsgate_matches_queue(const struct fsgate_match *matches,
				 unsigned int n, const struct path *path,
				 const void *data, int data_type,
				 struct inode *dir, const struct qstr *name)
{
	struct fsgate_fid_src src = {
		.data = data,
		.data_type = data_type,
		.dir = dir,
		.name = name,
	};
	unsigned int i;

	for (i = 0; i < n; i++) {
		src.fsid = matches[i].fsid;
		src.types = matches[i].types;
		fsgate_event_queue(matches[i].group, matches[i].report, path,
				   &src);
	}
}

/* fsgate's object on the event's inode, if it has one. */
static struct fsgate_obj *fsgate_inode_obj(struct fsnotify_iter_info *iter)
{
	struct fsnotify_mark *fsn = fsnotify_iter_inode_mark(iter);

	return fsn ? fsgate_obj_of(fsn) : NULL;
}

/*
 * Everything fsgate_dispatch_event() does for an event no consensus
 * allows: kept out of line, so that an access the consensus allows does
 * not pay for this frame (its 640 bytes of matches, six saved registers).
 * @gen is fsgate_interest_read() from before the subs are read.
 */
static noinline int fsgate_dispatch_matched(u32 mask, const void *data,
					    int data_type, struct inode *dir,
					    const struct qstr *name,
					    struct fsnotify_iter_info *iter,
					    u64 gen)
{
	const struct path *path = fsnotify_data_path(data, data_type);
	struct inode *inode = fsnotify_data_inode(data, data_type);
	/*
	 * Not zeroed for every event (640 bytes): fsgate_match_slot() writes
	 * each slot it hands out, and only those are read.
	 */
	struct fsgate_match stack[FSGATE_MATCH_STACK] __uninitialized;
	struct fsgate_match *matches = stack, *heap = NULL;
	unsigned int i, n, max, tries;
	bool partial, left_out = false;
	int ret = 0;

	/* Before fsgate_see() drops cached verdicts: see fsgate_snap_current(). */
	if ((mask & (FS_MODIFY | FS_CLOSE_WRITE)) && inode)
		fsgate_cache_changed(inode);
	rcu_read_lock();
	fsgate_see(iter, mask, path);
	/*
	 * Events without a file (directory entries, attributes, truncation)
	 * are told to FID-mode groups only (fsgate_match_report()); path
	 * events go on as before.
	 */
	n = fsgate_collect(iter, path, mask, stack, FSGATE_MATCH_STACK,
			   &partial);
	/*
	 * Many groups: count them all, then collect again on the heap. A
	 * sub added in between (RCU lists grow under a reader) can leave a
	 * group without a slot again: count anew, a few times, then give
	 * up as when there is no memory, never asking fewer groups than
	 * match (the stack's matches, all full, serve notifications).
	 */
	for (tries = 0; partial && tries < FSGATE_COLLECT_TRIES; tries++) {
		kfree(heap);
		max = fsgate_count(iter, path);
		heap = kmalloc_array(max, sizeof(*heap), GFP_ATOMIC);
		if (!heap)
			break;
		n = fsgate_collect(iter, path, mask, heap, max, &partial);
	}
	if (!partial && heap) {
		matches = heap;
	} else if (partial) {
		kfree(heap);
		n = FSGATE_MATCH_STACK;
	}
	n = fsgate_matches_resolve(matches, n, mask, path, inode, dir,
				   &left_out);
	rcu_read_unlock();

	if (mask & FSGATE_PERM_EVENTS) {
		struct fsgate_by by = { .source = FSGATE_SRC_NONE };

		/* Never decide without every group that wants to be asked. */
		if (partial) {
			ret = -ENOMEM;
			by.source = FSGATE_SRC_NOMEM;
		/* None asked (muted, filtered, ignored): no chain to start. */
		} else if (n) {
			ret = fsgate_decide(matches, n, path,
					    fsgate_inode_obj(iter), &by);
		}
		trace_fsgate_access_verdict(path, mask & FSGATE_PERM_EVENTS,
					    ret, &by, n);
		if (!ret && !partial && !left_out &&
		    fsgate_matches_all_cached(matches, n))
			fsgate_consensus_store(fsgate_inode_obj(iter), matches,
					       n, mask, path,
					       fsnotify_iter_parent_mark(iter),
					       gen);
	} else {
		fsgate_matches_queue(matches, n, path, data, data_type, dir,
				     name);
	}
	for (i = 0; i < n; i++)
		fsgate_group_put(matches[i].group);
	if (matches != stack)
		kfree(matches);
	return ret;
}

/**
 * fsgate_dispatch_event() - fsnotify's handle_event for fsgate's marks
 * @fsn_group: fsgate's fsnotify group (mark.c)
 * @mask: the event
 * @data: what it is about, as @data_type says
 * @data_type: FSNOTIFY_EVENT_*
 * @dir: the parent directory, for events on a child
 * @name: the child's name
 * @cookie: for renames
 * @iter: fsgate's marks on the event's objects
 *
 * Tells every group that wants the event, or for a permission event asks
 * them in the decision chain (chain.c), unless every group it would ask
 * allows it from its cache (consensus.c).
 *
 * Context: process context, within fsnotify's SRCU read side; may sleep
 * for permission events.
 * Return: 0, or for a permission event the negative errno that denies it.
 */
int fsgate_dispatch_event(struct fsnotify_group *fsn_group, u32 mask,
			  const void *data, int data_type, struct inode *dir,
			  const struct qstr *name, u32 cookie,
			  struct fsnotify_iter_info *iter)
{
	static const struct fsgate_by consensus = {
		.source = FSGATE_SRC_CONSENSUS,
	};
	u64 gen = 0;

	if (mask & FSGATE_PERM_EVENTS) {
		const struct path *path = fsnotify_data_path(data, data_type);

		if (fsgate_consensus_allows(fsgate_inode_obj(iter), mask, path,
					    fsnotify_iter_parent_mark(iter))) {
			trace_fsgate_access_verdict(path,
						    mask & FSGATE_PERM_EVENTS,
						    0, &consensus, 0);
			return 0;
		}
		/* Before the subs are read: see consensus.c. */
		gen = fsgate_interest_read();
	}
	return fsgate_dispatch_matched(mask, data, data_type, dir, name, iter,
				       gen);
}
