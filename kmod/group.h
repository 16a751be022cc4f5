/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_GROUP_H
#define _FSGATE_GROUP_H

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/fsgate.h>

#include "event.h"

struct fsgate_filter_prog;
struct mem_cgroup;
struct fsgate_mutes;
struct fsgate_persistence;
struct pid;
struct pid_namespace;
struct seq_file;
struct user_namespace;

/*
 * Buckets of a group's pending-event lookups (1 KiB a group for both):
 * an answer walks one bucket, 16 events with 1000 waiting, instead of
 * the whole pending list.
 */
#define FSGATE_PENDING_HASH_BITS	6

/**
 * struct fsgate_self - the process FSGATE_EXCLUDE_SELF leaves out
 * @tgid: the process, referenced
 * @since: fsgate_clock_past(ktime_get_ns) when it made or attached to
 *	the group: what it forks from then on is left out too, and nothing
 *	it forked before
 * @rcu: freed after a grace period: the event path reads it under RCU
 */
struct fsgate_self {
	struct pid *tgid;
	u64 since;
	struct rcu_head rcu;
};

/**
 * struct fsgate_user - what one user's unprivileged groups hold together
 * @node: entry in group.c's list of users, under its lock
 * @uid: the user's real uid, as a group's @uid
 * @ref: one for each of the user's unprivileged groups
 * @marks: marks of those groups, for max_user_marks; changed under
 *	fsgate_mark_mutex (mark.c), read locklessly
 */
struct fsgate_user {
	struct list_head node;
	kuid_t uid;
	refcount_t ref;
	atomic_t marks;
};

/**
 * struct fsgate_group - one listener group, owned by its group fds
 * @node: entry in fsgate_groups, under fsgate_groups_lock
 * @ref: each group fd's file holds one, a persistent group one more
 *	until it is torn down (persist.c); the event path holds one while
 *	it queues
 * @rcu: the group is freed after an RCU grace period, because the event
 *	path finds it through RCU-protected subs
 * @id: unique for the module's lifetime, never reused
 * @owner: thread group that created the group
 * @self: who FSGATE_EXCLUDE_SELF leaves out: @owner, or the process that
 *	attached to the persistent group last; RCU, replaced whole under
 *	fsgate_groups_lock (fsgate_group_set_self())
 * @uid: real uid of the creator, for the max_groups limit
 * @comm: command name of the creator, for /proc/fsgate/groups
 * @flags: FSGATE_* flags from struct fsgate_init, class included
 * @event_f_flags: open flags of the fds that events carry
 * @priority: effective priority, the class default resolved
 * @timeout_ms: as given in struct fsgate_init
 * @max_wait_ms: as given in struct fsgate_init
 * @timeout_verdict: FSGATE_VERDICT_*, as given
 * @orphan_verdict: FSGATE_VERDICT_*, as given
 * @unpriv: made without CAP_SYS_ADMIN, as fanotify's FANOTIFY_UNPRIV:
 *	inode marks only, no fds in its events, no pid but the reader's
 *	own, none of fsgate's ioctls beyond fanotify's (user.c)
 * @user: an unprivileged group's count of its user's marks, else NULL
 * @subs: the group's struct fsgate_sub, under fsgate_mark_mutex (mark.c)
 * @nr_marks: entries of @subs that are marks (events or an ignore mask),
 *	under fsgate_mark_mutex; read locklessly
 * @nr_inode_marks: of @nr_marks, inode marks; as @nr_marks
 * @nr_mount_marks: of @nr_marks, mount marks; as @nr_marks
 * @nr_fs_marks: of @nr_marks, filesystem marks; as @nr_marks
 * @cache_lru: subs with cached verdicts, least recently used first,
 *	under fsgate_mark_mutex (mark.c)
 * @nr_cached: entries of @cache_lru, under fsgate_mark_mutex; read
 *	locklessly
 * @memcg: memory cgroup of the creator, charged for the group's events,
 *	permission events and cached verdicts, as fanotify charges its own
 * @cache_gen: bumped under fsgate_mark_mutex by each flush of the
 *	group's verdict cache; an answer to an event asked under an older
 *	value is not cached (mark.c)
 * @queue_lock: protects @queue, @queued, @overflow_queued, @shutdown,
 *	@pending, @pending_ids, @pending_fds, @nr_perm and the state of
 *	every permission event of the group (perm.c)
 * @queue: struct fsgate_event waiting to be read, permission events too
 * @queued: entries of @queue
 * @overflow: the one overflow event, queued at most once
 * @overflow_queued: @overflow is on @queue
 * @shutdown: the fd is being released; nothing more is queued
 * @wq: readers and pollers wait here for events
 * @pending: permission events read and not yet answered
 * @pending_ids: @pending by event id, where answers by id find them
 * @pending_fds: @pending by fd number, once the reader installed one
 * @nr_perm: permission events on @queue or @pending
 * @delivered: events read
 * @overflows: times the queue overflowed
 * @perm: permission event counters, as struct fsgate_stats names them
 * @cache_evictions: cached verdicts evicted to make room for others
 * @cache_flushes: FSGATE_IOC_FLUSH_CACHE requests
 * @mutes: what the group does not hear of (mute.c); RCU, replaced whole
 * @muted: events hidden from the group by @mutes
 * @filter: the group's classic BPF filter (filter.c); RCU, replaced whole
 * @filtered: events @filter decided without the group
 * @persist: what makes the group persistent (persist.c), or NULL; set
 *	once under fsgate_groups_lock, freed with the group
 * @attached: group fds open on the group, under fsgate_groups_lock
 * @torn: the group is being or was torn down (its marks removed, its
 *	events flushed): no fd attaches any more; under fsgate_groups_lock
 * @absent: a persistent group nobody attached to within its absent
 *	bound: it is not asked, @absent_verdict decides; under @queue_lock
 * @absent_verdict: 0 or a negative errno, set before @absent
 * @error_pool: the group's FSGATE_FS_ERROR events, allocated ahead as
 *	fanotify's (event.c); set up by the first mark that asks for them,
 *	under fsgate_mark_mutex, and torn down with the group
 *
 * Everything from @id to @user but @self is set before the
 * group is published and never changes, so readers need no lock for it.
 */
struct fsgate_group {
	struct list_head node;
	refcount_t ref;
	struct rcu_head rcu;
	u64 id;
	struct pid *owner;
	struct fsgate_self __rcu *self;
	kuid_t uid;
	char comm[TASK_COMM_LEN];
	u32 flags;
	u32 event_f_flags;
	u32 priority;
	u32 timeout_ms;
	u32 max_wait_ms;
	u32 timeout_verdict;
	u32 orphan_verdict;
	bool unpriv;
	struct fsgate_user *user;

	struct list_head subs;
	unsigned int nr_marks;
	unsigned int nr_inode_marks;
	unsigned int nr_mount_marks;
	unsigned int nr_fs_marks;
	struct list_head cache_lru;
	unsigned int nr_cached;
	struct mem_cgroup *memcg;
	u64 cache_gen;

	spinlock_t queue_lock;	/* see @queue_lock above */
	struct list_head queue;
	unsigned int queued;
	struct fsgate_event overflow;
	bool overflow_queued;
	bool shutdown;
	wait_queue_head_t wq;
	struct list_head pending;
	DECLARE_HASHTABLE(pending_ids, FSGATE_PENDING_HASH_BITS);
	DECLARE_HASHTABLE(pending_fds, FSGATE_PENDING_HASH_BITS);
	unsigned int nr_perm;

	atomic64_t delivered;
	atomic64_t overflows;
	struct {
		atomic64_t asked;
		atomic64_t answered;
		atomic64_t denied;
		atomic64_t timedout;
		atomic64_t orphaned;
		atomic64_t cancelled;
		atomic64_t overflows;
		atomic64_t cached;
		atomic64_t unopened;
		atomic64_t extended;
		atomic64_t absent;
		atomic64_t rereported;
	} perm;
	atomic64_t cache_evictions;
	atomic64_t cache_flushes;
	struct fsgate_mutes __rcu *mutes;
	atomic64_t muted;
	struct fsgate_filter_prog __rcu *filter;
	atomic64_t filtered;

	struct fsgate_persistence *persist;
	unsigned int attached;
	bool torn;
	bool absent;
	int absent_verdict;
	mempool_t error_pool;
};

/*
 * Allocation flags for what others' accesses make a group hold (events,
 * permission events, process records, cached verdicts, consensus), within
 * fsgate_group_charge(). As fanotify's for its bounded queues: a cgroup
 * without room fails the allocation (an event is lost, an access gets the
 * timeout verdict, a verdict is not cached) rather than call its OOM
 * killer, which would let any user whose accesses a group hears of kill
 * the group's daemon, and hand every access waiting on it to the orphan
 * verdict.
 */
#define FSGATE_GROUP_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
				 __GFP_NOWARN)

/**
 * fsgate_group_charge() - charge allocations to a group's memory cgroup
 * @group: the group
 *
 * As fanotify does: what a group holds is the group's to pay for, not
 * the accessing process's, until fsgate_group_uncharge(). Allocations
 * made on others' behalf take %FSGATE_GROUP_GFP.
 *
 * Context: process context.
 * Return: what fsgate_group_uncharge() restores.
 */
static inline struct mem_cgroup *
fsgate_group_charge(const struct fsgate_group *group)
{
	return set_active_memcg(group->memcg);
}

/**
 * fsgate_group_uncharge() - end fsgate_group_charge()
 * @old: its return value
 *
 * Context: process context.
 */
static inline void fsgate_group_uncharge(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

/* The pid an event of @group names: the thread, or its thread group. */
static inline struct pid *fsgate_event_pid(const struct fsgate_group *group)
{
	return group->flags & FSGATE_REPORT_TID ? task_pid(current) :
						  task_tgid(current);
}

/**
 * fsgate_deny_errno_valid() - whether a deny may carry an errno
 * @err: a positive errno, from a response (user.c) or a filter (filter.c)
 *
 * Linux 6.13's FAN_DENY_ERRNO set, and EACCES.
 *
 * Context: any.
 * Return: true for EPERM, EACCES, EIO, EBUSY, ETXTBSY, EAGAIN, ENOSPC
 * and EDQUOT.
 */
static inline bool fsgate_deny_errno_valid(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
	case EIO:
	case EBUSY:
	case ETXTBSY:
	case EAGAIN:
	case ENOSPC:
	case EDQUOT:
		return true;
	default:
		return false;
	}
}

/*
 * Log about @group, rate limited per call site, with the prefix that
 * names a group in every message: "group ID (COMM[PID]) ".
 */
#define fsgate_group_log(level, group, fmt, ...)			\
do {									\
	const struct fsgate_group *__g = (group);			\
									\
	pr_##level##_ratelimited("group %llu (%s[%d]) " fmt, __g->id,	\
				 __g->comm, pid_nr(__g->owner),		\
				 ##__VA_ARGS__);			\
} while (0)

/* The one reference a new group holds: its first fd's. */
static inline void fsgate_group_get(struct fsgate_group *group)
{
	refcount_inc(&group->ref);
}

/* All live groups, highest priority first; equal priorities by age. */
extern struct list_head fsgate_groups;
extern struct mutex fsgate_groups_lock;

u32 fsgate_init_priority(const struct fsgate_init *init);
u64 fsgate_clock_past(u64 (*clock)(void));
const char *fsgate_class_name(u32 flags);
void fsgate_group_list_insert(struct list_head *head,
			      struct fsgate_group *group);
struct fsgate_group *fsgate_group_alloc(const struct fsgate_init *init);
int fsgate_group_publish(struct fsgate_group *group);
void fsgate_group_unpublish(struct fsgate_group *group);
void fsgate_group_put(struct fsgate_group *group);
int fsgate_group_set_unpriv(struct fsgate_group *group);
bool fsgate_group_user_room(const struct fsgate_group *group);
void fsgate_group_marks_add(struct fsgate_group *group, int n);
int fsgate_group_set_self(struct fsgate_group *group);
void fsgate_group_stats(struct fsgate_group *group, struct fsgate_stats *stats);
void fsgate_group_entry_fill(struct fsgate_group *group,
			     struct pid_namespace *pid_ns,
			     struct user_namespace *user_ns,
			     struct fsgate_group_entry *entry);

#endif /* _FSGATE_GROUP_H */
