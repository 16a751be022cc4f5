// SPDX-License-Identifier: GPL-2.0
/*
 * Listener groups (layer 0, calls nothing of fsgate's): the object, its
 * references, its counters, and the list that keeps groups in the order
 * they are asked. The group fd that owns a group is user.c's.
 *
 * Locking: fsgate_groups_lock (a mutex) protects fsgate_groups and every
 * group's @node. A group is published on the list only once it is fully
 * set up and its fd is about to be installed, and taken off the list by
 * the fd's release before it is freed, so whoever holds the lock may read
 * any group on the list. The lock order of the module is at the top of
 * mark.c.
 */
#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/fanotify.h>
#include <linux/fcntl.h>
#include <linux/memcontrol.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "group.h"
#include "param.h"
#include "perm.h"

LIST_HEAD(fsgate_groups);
/* Protects fsgate_groups and each group's @node; see above. */
DEFINE_MUTEX(fsgate_groups_lock);

static atomic64_t fsgate_next_group_id = ATOMIC64_INIT(0);

static unsigned int max_groups = 128;
module_param_cb(max_groups, &fsgate_param_limit, &max_groups, 0644);
__MODULE_PARM_TYPE(max_groups, "uint");
MODULE_PARM_DESC(max_groups, "Groups one user may have (128, as fanotify)");

static unsigned int max_user_marks = 65536;
module_param_cb(max_user_marks, &fsgate_param_limit, &max_user_marks, 0644);
__MODULE_PARM_TYPE(max_user_marks, "uint");
MODULE_PARM_DESC(max_user_marks,
		 "Marks the unprivileged groups of one user may hold together (65536)");

/* The users that have unprivileged groups (struct fsgate_user). */
static LIST_HEAD(fsgate_users);
/* Protects fsgate_users; taken with interrupts off, alone. */
static DEFINE_SPINLOCK(fsgate_users_lock);

/**
 * fsgate_init_priority() - the priority a valid request gives its group
 * @init: a request that passed fsgate_init_check()
 *
 * Context: any.
 * Return: the explicit priority, or the class default for
 * %FSGATE_PRIORITY_DEFAULT.
 */
u32 fsgate_init_priority(const struct fsgate_init *init)
{
	if (init->priority != FSGATE_PRIORITY_DEFAULT)
		return init->priority;
	switch (init->flags & FSGATE_CLASS_MASK) {
	case FSGATE_CLASS_PRE_CONTENT:
		return FSGATE_PRIORITY_PRE_CONTENT;
	case FSGATE_CLASS_CONTENT:
		return FSGATE_PRIORITY_CONTENT;
	default:
		return FSGATE_PRIORITY_NOTIF;
	}
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_init_priority);

/**
 * fsgate_clock_past() - a reading of a clock later than any taken before
 * @clock: ktime_get_ns(), or a coarse fake in KUnit
 *
 * A process's start_time is ktime_get_ns() at its fork, and "forked at or
 * after" a group or a mute counts a process as the daemon's own. Where
 * the clock is coarse (the kernel falls back to jiffies when it marks the
 * TSC unstable, as a loaded hypervisor makes it do), a process forked
 * just before reads the same time as the call, and would count as forked
 * after it. Waiting until the clock moves past its first reading makes
 * the order strict: what forked before the call has a start_time below
 * the value returned, what forks after has one at or above it. On a
 * nanosecond clock the second reading already differs; on jiffies this
 * waits one tick.
 *
 * Context: process context, may sleep.
 * Return: a reading of @clock greater than its first one in this call.
 */
u64 fsgate_clock_past(u64 (*clock)(void))
{
	u64 first = clock();
	u64 now;

	while ((now = clock()) <= first)
		schedule_timeout_uninterruptible(1);
	return now;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_clock_past);

/**
 * fsgate_class_name() - name of the class in a group's flags
 * @flags: FSGATE_* flags of a valid group
 *
 * Context: any.
 * Return: "notif", "content" or "pre-content".
 */
const char *fsgate_class_name(u32 flags)
{
	switch (flags & FSGATE_CLASS_MASK) {
	case FSGATE_CLASS_PRE_CONTENT:
		return "pre-content";
	case FSGATE_CLASS_CONTENT:
		return "content";
	default:
		return "notif";
	}
}

/**
 * fsgate_group_list_insert() - add a group to a list in asking order
 * @head: list of groups, highest priority first
 * @group: group to add, not on any list
 *
 * The group goes after every group of higher or equal priority, so groups
 * of equal priority stay in creation order.
 *
 * Context: the caller serialises all changes to @head.
 */
void fsgate_group_list_insert(struct list_head *head,
			      struct fsgate_group *group)
{
	struct fsgate_group *pos;

	list_for_each_entry(pos, head, node) {
		if (pos->priority < group->priority) {
			list_add_tail(&group->node, &pos->node);
			return;
		}
	}
	list_add_tail(&group->node, head);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_group_list_insert);

static void fsgate_self_free_rcu(struct rcu_head *rcu)
{
	struct fsgate_self *self = container_of(rcu, struct fsgate_self, rcu);

	put_pid(self->tgid);
	kfree(self);
}

/**
 * fsgate_group_set_self() - make the current process the one that
 *	FSGATE_EXCLUDE_SELF leaves out
 * @group: a group being made, or a persistent group being attached to
 *
 * A daemon that attaches to a persistent group must not wait on its own
 * accesses, as the one that made it did not; the process it replaces
 * (a daemon handing over to its successor) is asked like any other,
 * and answered by its successor.
 *
 * Context: process context, may sleep; fsgate_groups_lock held for a
 * published group. Module exit's rcu_barrier() waits for the old one.
 * Return: 0 or -ENOMEM.
 */
int fsgate_group_set_self(struct fsgate_group *group)
{
	struct fsgate_self *self, *old;

	self = kmalloc(sizeof(*self), GFP_KERNEL_ACCOUNT);
	if (!self)
		return -ENOMEM;
	self->tgid = get_pid(task_tgid(current));
	self->since = fsgate_clock_past(ktime_get_ns);
	old = rcu_replace_pointer(group->self, self,
				  lockdep_is_held(&fsgate_groups_lock) ||
				  list_empty(&group->node));
	if (old)
		call_rcu(&old->rcu, fsgate_self_free_rcu);
	return 0;
}

static void fsgate_user_put(struct fsgate_user *user)
{
	unsigned long flags;

	if (!user)
		return;
	spin_lock_irqsave(&fsgate_users_lock, flags);
	if (!refcount_dec_and_test(&user->ref)) {
		spin_unlock_irqrestore(&fsgate_users_lock, flags);
		return;
	}
	list_del(&user->node);
	spin_unlock_irqrestore(&fsgate_users_lock, flags);
	WARN_ON_ONCE(atomic_read(&user->marks));
	kfree(user);
}

/**
 * fsgate_group_set_unpriv() - make a group being made an unprivileged one
 * @group: from fsgate_group_alloc(), not yet published
 *
 * Sets @unpriv and ties the group to its user's count of marks, which
 * max_user_marks bounds, as fanotify's max_user_marks does.
 *
 * Context: process context, may sleep; takes fsgate_users_lock.
 * Return: 0, or -ENOMEM.
 */
int fsgate_group_set_unpriv(struct fsgate_group *group)
{
	struct fsgate_user *user, *new;
	unsigned long flags;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	spin_lock_irqsave(&fsgate_users_lock, flags);
	list_for_each_entry(user, &fsgate_users, node) {
		if (uid_eq(user->uid, group->uid)) {
			refcount_inc(&user->ref);
			goto out_unlock;
		}
	}
	user = new;
	new = NULL;
	user->uid = group->uid;
	refcount_set(&user->ref, 1);
	atomic_set(&user->marks, 0);
	list_add(&user->node, &fsgate_users);
out_unlock:
	spin_unlock_irqrestore(&fsgate_users_lock, flags);
	kfree(new);
	group->unpriv = true;
	group->user = user;
	return 0;
}

/**
 * fsgate_group_user_room() - whether a group's user may have one more mark
 * @group: the group
 *
 * Context: fsgate_mark_mutex held (mark.c), which orders every change.
 * Return: true for a privileged group, or an unprivileged one whose
 * user's groups hold fewer than max_user_marks marks.
 */
bool fsgate_group_user_room(const struct fsgate_group *group)
{
	return !group->user ||
	       (unsigned int)atomic_read(&group->user->marks) <
	       READ_ONCE(max_user_marks);
}

/**
 * fsgate_group_marks_add() - count marks a group gained (or lost)
 * @group: the group
 * @n: 1 for a new mark, -1 for one gone
 *
 * Context: fsgate_mark_mutex held (mark.c).
 */
void fsgate_group_marks_add(struct fsgate_group *group, int n)
{
	/* Read without the mutex by the group listings. */
	WRITE_ONCE(group->nr_marks, group->nr_marks + n);
	if (group->user)
		atomic_add(n, &group->user->marks);
}

/**
 * fsgate_group_put() - drop a reference to a group
 * @group: the group
 *
 * Context: any.
 */
void fsgate_group_put(struct fsgate_group *group)
{
	struct fsgate_self *self;

	if (refcount_dec_and_test(&group->ref)) {
		/* Its marks went before it: the count holds none of them. */
		fsgate_user_put(group->user);
		/* persist.c's, whose work item ended before this last put. */
		kfree(group->persist);
		/* Its events went with the queue, flushed before this put. */
		if (mempool_initialized(&group->error_pool))
			mempool_exit(&group->error_pool);
		/* The event path may still read it, as it may the group. */
		self = rcu_dereference_protected(group->self, true);
		if (self)
			call_rcu(&self->rcu, fsgate_self_free_rcu);
		mem_cgroup_put(group->memcg);
		put_pid(group->owner);
		kfree_rcu(group, rcu);
	}
}

/**
 * fsgate_group_stats() - a snapshot of a group's counters
 * @group: the group
 * @stats: filled in; reserved fields zeroed
 *
 * The one source of the counters that FSGATE_IOC_STATS, FSGATE_IOC_GROUPS
 * and /proc/fsgate/groups report.
 *
 * Context: any.
 */
void fsgate_group_stats(struct fsgate_group *group, struct fsgate_stats *stats)
{
	*stats = (struct fsgate_stats) {
		.marks = READ_ONCE(group->nr_marks),
		.queued = READ_ONCE(group->queued),
		.delivered = atomic64_read(&group->delivered),
		.overflows = atomic64_read(&group->overflows),
		.pending = READ_ONCE(group->nr_perm),
		.asked = atomic64_read(&group->perm.asked),
		.answered = atomic64_read(&group->perm.answered),
		.denied = atomic64_read(&group->perm.denied),
		.timedout = atomic64_read(&group->perm.timedout),
		.orphaned = atomic64_read(&group->perm.orphaned),
		.cancelled = atomic64_read(&group->perm.cancelled),
		.perm_overflows = atomic64_read(&group->perm.overflows),
		.cached = atomic64_read(&group->perm.cached),
		.unopened = atomic64_read(&group->perm.unopened),
		.cache_entries = READ_ONCE(group->nr_cached),
		.cache_evictions = atomic64_read(&group->cache_evictions),
		.cache_flushes = atomic64_read(&group->cache_flushes),
		.muted = atomic64_read(&group->muted),
		.extended = atomic64_read(&group->perm.extended),
		.filtered = atomic64_read(&group->filtered),
		.absent = atomic64_read(&group->perm.absent),
		.rereported = atomic64_read(&group->perm.rereported),
	};
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_group_stats);

/**
 * fsgate_group_entry_fill() - describe a group as FSGATE_IOC_GROUPS does
 * @group: the group
 * @pid_ns: the pid namespace its owner's pid is given in
 * @user_ns: the user namespace its creator's uid is given in
 * @entry: filled in; reserved fields zeroed
 *
 * The one description of a group that FSGATE_IOC_GROUPS copies out and
 * /proc/fsgate/groups prints, but for what makes a group persistent:
 * described as a group that is not.
 *
 * Context: any; reads only what never changes and the counters.
 */
void fsgate_group_entry_fill(struct fsgate_group *group,
			     struct pid_namespace *pid_ns,
			     struct user_namespace *user_ns,
			     struct fsgate_group_entry *entry)
{
	BUILD_BUG_ON(sizeof(entry->comm) < sizeof(group->comm));
	*entry = (struct fsgate_group_entry) {
		.id = group->id,
		.pid = pid_nr_ns(group->owner, pid_ns),
		.uid = from_kuid_munged(user_ns, group->uid),
		.group_class = group->flags & FSGATE_CLASS_MASK,
		.priority = group->priority,
		.flags = group->flags,
		.attached = READ_ONCE(group->attached),
		/* fsgate_persist_entry_fill() says more of a persistent one. */
		.absent_left_ms = FSGATE_GROUP_NO_DEADLINE,
		.linger_left_ms = FSGATE_GROUP_NO_DEADLINE,
	};
	strscpy(entry->comm, group->comm, sizeof(entry->comm));
	fsgate_group_stats(group, &entry->stats);
	fsgate_perm_entry_fill(group, entry);
	entry->inode_marks = READ_ONCE(group->nr_inode_marks);
	entry->mount_marks = READ_ONCE(group->nr_mount_marks);
	entry->filesystem_marks = READ_ONCE(group->nr_fs_marks);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_group_entry_fill);

/**
 * fsgate_group_alloc() - make a group, not yet published
 * @init: a request that passed fsgate_init_check()
 *
 * Its one reference, and its one attached fd, are the group fd's, which
 * the caller makes.
 *
 * Context: process context, may sleep.
 * Return: the group, or NULL without memory.
 */
struct fsgate_group *fsgate_group_alloc(const struct fsgate_init *init)
{
	struct fsgate_group *group;

	group = kzalloc(sizeof(*group), GFP_KERNEL_ACCOUNT);
	if (!group)
		return NULL;
	INIT_LIST_HEAD(&group->node);
	refcount_set(&group->ref, 1);
	group->attached = 1;
	group->id = atomic64_inc_return(&fsgate_next_group_id);
	group->owner = get_pid(task_tgid(current));
	if (fsgate_group_set_self(group)) {
		put_pid(group->owner);
		kfree(group);
		return NULL;
	}
	/* Exported (get) and inline (put) on every kernel fsgate builds for. */
	group->memcg = get_mem_cgroup_from_mm(current->mm);
	group->uid = current_uid();
	get_task_comm(group->comm, current);
	group->flags = init->flags;
	/* As fanotify: event fds are large-file capable on 64-bit. */
	group->event_f_flags = init->event_f_flags | O_LARGEFILE;
	group->priority = fsgate_init_priority(init);
	group->timeout_ms = init->timeout_ms;
	group->max_wait_ms = init->max_wait_ms;
	group->timeout_verdict = init->timeout_verdict;
	group->orphan_verdict = init->orphan_verdict;
	INIT_LIST_HEAD(&group->subs);
	INIT_LIST_HEAD(&group->cache_lru);
	spin_lock_init(&group->queue_lock);
	INIT_LIST_HEAD(&group->queue);
	INIT_LIST_HEAD(&group->overflow.node);
	group->overflow.mask = FAN_Q_OVERFLOW;
	init_waitqueue_head(&group->wq);
	INIT_LIST_HEAD(&group->pending);
	hash_init(group->pending_ids);
	hash_init(group->pending_fds);
	/* kzalloc() zeroed the counters. */
	return group;
}

/* Whether the current user may have one more group. */
static bool fsgate_group_allowed(void)
{
	struct fsgate_group *pos;
	unsigned int n = 0;

	lockdep_assert_held(&fsgate_groups_lock);
	list_for_each_entry(pos, &fsgate_groups, node)
		if (uid_eq(pos->uid, current_uid()))
			n++;
	return n < max_groups;
}

/**
 * fsgate_group_publish() - put a new group on the list of live groups
 * @group: from fsgate_group_alloc(), fully set up
 *
 * Context: process context, may sleep; takes fsgate_groups_lock.
 * Return: 0, or -EMFILE when the current user has max_groups groups.
 */
int fsgate_group_publish(struct fsgate_group *group)
{
	int ret = -EMFILE;

	mutex_lock(&fsgate_groups_lock);
	if (fsgate_group_allowed()) {
		fsgate_group_list_insert(&fsgate_groups, group);
		ret = 0;
	}
	mutex_unlock(&fsgate_groups_lock);
	return ret;
}

/**
 * fsgate_group_unpublish() - take a group off the list of live groups
 * @group: a published group whose fd is being released
 *
 * Context: process context, may sleep; takes fsgate_groups_lock.
 */
void fsgate_group_unpublish(struct fsgate_group *group)
{
	mutex_lock(&fsgate_groups_lock);
	list_del(&group->node);
	mutex_unlock(&fsgate_groups_lock);
}
