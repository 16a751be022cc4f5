// SPDX-License-Identifier: GPL-2.0
/*
 * Permission events (layer 2), their whole life: asking one group about one
 * access, reporting it to a reader, waiting for the answers of a tier
 * within each group's bound and the access's ceiling, applying answers
 * (user.c parses them from write()), resolving what is left when the
 * group goes away, and caching verdicts. Calls go downward only: to
 * mark.c and cache.c for the verdict cache.
 *
 * Every wait has a bound. fsnotify calls fsgate within its SRCU read
 * side (fsnotify_mark_srcu), which fsgate cannot leave (the helpers are
 * not exported), and every fsnotify mark freed in the system, any
 * inotify or fanotify fd closed, waits for it: so one access's whole
 * chain ends at max_chain_ms, and a group may wait without bound only
 * where an administrator set allow_unbounded_waits.
 *
 * Locking: the group's @queue_lock protects the state of each of its
 * permission events, the lists they are on (queue, then pending) and
 * @nr_perm. Whoever moves an event to %FSGATE_PERM_DONE takes it off its
 * list and wakes @perm_wq in the same locked section; the waiting process
 * then takes the lock once more before it drops its reference, so an
 * event is never freed while a lock holder still looks at it. The lock
 * order and lifetimes of the module are at the top of mark.c.
 */
#include <linux/errno.h>
#include <linux/fanotify.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "group.h"
#include "mark.h"
#include "perm.h"

/* The longest any wait bound may be set to: an hour, in ms. */
#define FSGATE_WAIT_MS_MAX	3600000

static int fsgate_param_set_wait_ms(const char *val,
				    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, FSGATE_WAIT_MS_MAX);
}

/* A bound in ms, 1..FSGATE_WAIT_MS_MAX; anything else is -EINVAL. */
static const struct kernel_param_ops fsgate_wait_ms_ops = {
	.set = fsgate_param_set_wait_ms,
	.get = param_get_uint,
};

static int fsgate_param_set_switch(const char *val,
				   const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1);
}

/* 0 or 1, shown as a number, as fsgatectl reads every parameter. */
static const struct kernel_param_ops fsgate_switch_ops = {
	.set = fsgate_param_set_switch,
	.get = param_get_uint,
};

static unsigned int default_timeout_ms = 10000;
module_param_cb(default_timeout_ms, &fsgate_wait_ms_ops, &default_timeout_ms,
		0644);
__MODULE_PARM_TYPE(default_timeout_ms, "uint");
MODULE_PARM_DESC(default_timeout_ms,
		 "How long an access waits for a group without its own timeout, 1..3600000 (10000)");

/*
 * 30 s: three default group timeouts, so a chain of three silent tiers
 * still gets each its own timeout, and a quarter of the hung task
 * detector's 120 s, which a close() stuck behind fsnotify's SRCU would
 * trip.
 */
static unsigned int max_chain_ms = 30000;
module_param_cb(max_chain_ms, &fsgate_wait_ms_ops, &max_chain_ms, 0644);
__MODULE_PARM_TYPE(max_chain_ms, "uint");
MODULE_PARM_DESC(max_chain_ms,
		 "Ceiling on one access's whole decision chain, every tier included, 1..3600000 (30000)");

static unsigned int allow_unbounded_waits;
module_param_cb(allow_unbounded_waits, &fsgate_switch_ops,
		&allow_unbounded_waits, 0644);
__MODULE_PARM_TYPE(allow_unbounded_waits, "uint");
MODULE_PARM_DESC(allow_unbounded_waits,
		 "1: groups may wait without bound (FSGATE_TIMEOUT_NONE), and their accesses have no ceiling (0)");

static unsigned int max_pending_events = 16384;
module_param(max_pending_events, uint, 0644);
MODULE_PARM_DESC(max_pending_events,
		 "Permission events one group may have unresolved, unless FSGATE_UNLIMITED_QUEUE; past it the timeout verdict applies at once (16384)");

/**
 * fsgate_policy_verdict() - the verdict a timeout or orphan policy gives
 * @policy: FSGATE_VERDICT_*
 *
 * Context: any.
 * Return: 0 to allow, -EPERM to deny.
 */
int fsgate_policy_verdict(u32 policy)
{
	return policy == FSGATE_VERDICT_DENY ? -EPERM : 0;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_policy_verdict);

/**
 * fsgate_verdict_name() - the word for a verdict, in logs and fdinfo
 * @verdict: 0 (allow) or a negative errno (deny); for a policy, as
 *	fsgate_policy_verdict() gives it
 *
 * Context: any.
 * Return: "allow" or "deny".
 */
const char *fsgate_verdict_name(int verdict)
{
	return verdict ? "deny" : "allow";
}

/**
 * fsgate_perm_put() - drop a reference to a permission event
 * @perm: the event
 *
 * Context: process context.
 */
void fsgate_perm_put(struct fsgate_perm *perm)
{
	if (refcount_dec_and_test(&perm->ref)) {
		fsgate_event_release(&perm->event);
		kfree(perm);
	}
}

/**
 * fsgate_max_chain_ms() - the ceiling on one access's whole chain
 *
 * Whatever extends a wait (an answer asking for more time) extends it up
 * to the event's @ceiling, which this ceiling set when the chain began.
 *
 * Context: any.
 * Return: max_chain_ms, in ms.
 */
unsigned int fsgate_max_chain_ms(void)
{
	return READ_ONCE(max_chain_ms);
}

/**
 * fsgate_timeout_check() - whether a group may be made with a timeout
 * @timeout_ms: struct fsgate_init's @timeout_ms
 *
 * Context: any.
 * Return: 0, or -EPERM for %FSGATE_TIMEOUT_NONE unless an administrator
 * set allow_unbounded_waits: such a wait would hold every fsnotify mark
 * teardown in the system for as long as the group pleases.
 */
int fsgate_timeout_check(u32 timeout_ms)
{
	if (timeout_ms == FSGATE_TIMEOUT_NONE && !READ_ONCE(allow_unbounded_waits))
		return -EPERM;
	return 0;
}

/**
 * fsgate_group_unbounded() - whether a group now waits without bound
 * @group: the group
 *
 * Only while allow_unbounded_waits is set: once an administrator clears
 * it, the next accesses put the group under the ceiling.
 *
 * Context: any.
 * Return: true if @group's waits have no deadline.
 */
bool fsgate_group_unbounded(const struct fsgate_group *group)
{
	return group->timeout_ms == FSGATE_TIMEOUT_NONE &&
	       READ_ONCE(allow_unbounded_waits);
}

/**
 * fsgate_asking_start() - begin one access's chain
 * @asking: on the caller's stack
 * @unbounded: some group the access may ask waits without bound
 *	(fsgate_group_unbounded()), so the chain has no ceiling
 *
 * Context: any.
 */
void fsgate_asking_start(struct fsgate_asking *asking, bool unbounded)
{
	asking->first = NULL;
	asking->tail = &asking->first;
	asking->bounded = !unbounded;
	asking->ceiling = jiffies + msecs_to_jiffies(READ_ONCE(max_chain_ms));
}

/* Whether the chain of @asking has passed its ceiling. */
static bool fsgate_asking_late(const struct fsgate_asking *asking)
{
	return asking->bounded && time_after_eq(jiffies, asking->ceiling);
}

/* The group's own bound, cut to the chain's ceiling. */
static void fsgate_perm_set_deadline(struct fsgate_perm *perm,
				     const struct fsgate_asking *asking)
{
	u32 ms = perm->group->timeout_ms;

	if (ms == FSGATE_TIMEOUT_DEFAULT)
		ms = READ_ONCE(default_timeout_ms);
	perm->ceiling = asking->ceiling;
	perm->unbounded = ms == FSGATE_TIMEOUT_NONE && !asking->bounded;
	if (ms == FSGATE_TIMEOUT_NONE) {
		/* Unbounded no longer allowed: the ceiling is its bound. */
		perm->deadline = asking->ceiling;
		return;
	}
	perm->deadline = jiffies + msecs_to_jiffies(ms);
	if (asking->bounded && time_after(perm->deadline, asking->ceiling))
		perm->deadline = asking->ceiling;
}

/* Resolve @perm with @verdict; caller holds @queue_lock, @perm not DONE. */
static void fsgate_perm_resolve(struct fsgate_perm *perm, int verdict)
{
	struct fsgate_group *group = perm->group;

	lockdep_assert_held(&group->queue_lock);
	if (WARN_ON_ONCE(perm->state == FSGATE_PERM_DONE))
		return;
	list_del_init(&perm->event.node);
	if (perm->state == FSGATE_PERM_QUEUED)
		group->queued--;
	group->nr_perm--;
	perm->verdict = verdict;
	/* Pairs with the waiting process's lockless look at the state. */
	smp_store_release(&perm->state, FSGATE_PERM_DONE);
}

/* Too late to ask: the chain passed its ceiling; the timeout verdict. */
static int fsgate_perm_too_late(struct fsgate_group *group)
{
	int verdict = fsgate_policy_verdict(group->timeout_verdict);

	atomic64_inc(&group->perm.timedout);
	fsgate_group_log(warn, group,
			 "not asked: the access reached max_chain_ms; verdict %s\n",
			 fsgate_verdict_name(verdict));
	return verdict;
}

/**
 * fsgate_perm_ask() - ask a group about an access
 * @group: the group, referenced by the caller until fsgate_asking_wait()
 * @mask: FAN_*_PERM bit
 * @path: the file
 * @asking: the access's chain; the event joins its current tier
 * @verdict: set when the group cannot be asked
 *
 * Queues a permission event for the group's reader. A group that is
 * going away gives its orphan verdict at once, a group with too many
 * events pending (or no memory for one more) its timeout verdict, and
 * so does every group once the chain passed its ceiling (not asked,
 * counted as timed out).
 *
 * Context: process context, may sleep; no fsgate locks held.
 * Return: the event, which fsgate_asking_wait() waits for, or NULL with
 * @verdict set.
 */
struct fsgate_perm *fsgate_perm_ask(struct fsgate_group *group, u32 mask,
				    const struct path *path,
				    struct fsgate_asking *asking, int *verdict)
{
	struct fsgate_perm *perm;
	struct mem_cgroup *old;
	bool orphan;

	atomic64_inc(&group->perm.asked);
	if (fsgate_asking_late(asking)) {
		*verdict = fsgate_perm_too_late(group);
		return NULL;
	}
	old = fsgate_group_charge(group);
	perm = kzalloc(sizeof(*perm), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	fsgate_group_uncharge(old);
	if (!perm)
		goto out_overflow;
	fsgate_event_init(&perm->event, mask, path, fsgate_event_pid(group));
	refcount_set(&perm->ref, 1);
	perm->group = group;
	perm->fd = FAN_NOFD;
	fsgate_snap_take(&perm->snap, d_inode(path->dentry));
	perm->cache_gen = READ_ONCE(group->cache_gen);
	fsgate_perm_set_deadline(perm, asking);
	init_waitqueue_entry(&perm->wait, current);

	spin_lock(&group->queue_lock);
	orphan = group->shutdown;
	if (orphan || (group->nr_perm >= READ_ONCE(max_pending_events) &&
		       !(group->flags & FSGATE_UNLIMITED_QUEUE))) {
		spin_unlock(&group->queue_lock);
		fsgate_perm_put(perm);
		if (orphan) {
			atomic64_inc(&group->perm.orphaned);
			*verdict = fsgate_policy_verdict(group->orphan_verdict);
			return NULL;
		}
		goto out_overflow;
	}
	list_add_tail(&perm->event.node, &group->queue);
	group->queued++;
	group->nr_perm++;
	spin_unlock(&group->queue_lock);
	wake_up(&group->wq);
	*asking->tail = perm;
	asking->tail = &perm->tier_next;
	return perm;

out_overflow:
	atomic64_inc(&group->perm.overflows);
	*verdict = fsgate_policy_verdict(group->timeout_verdict);
	fsgate_group_log(warn, group,
			 "has too many permission events pending; verdict %s\n",
			 fsgate_verdict_name(*verdict));
	return NULL;
}

/* Whether @perm is resolved, seen without @queue_lock. */
static bool fsgate_perm_done(struct fsgate_perm *perm)
{
	/* Pairs with smp_store_release() in fsgate_perm_resolve(). */
	return smp_load_acquire(&perm->state) == FSGATE_PERM_DONE;
}

/* The group did not answer by @perm's deadline: its timeout verdict. */
static void fsgate_perm_timeout(struct fsgate_perm *perm)
{
	struct fsgate_group *group = perm->group;
	bool timedout = false;

	spin_lock(&group->queue_lock);
	if (perm->state != FSGATE_PERM_DONE) {
		fsgate_perm_resolve(perm,
				    fsgate_policy_verdict(group->timeout_verdict));
		atomic64_inc(&group->perm.timedout);
		timedout = true;
	}
	spin_unlock(&group->queue_lock);
	if (timedout)
		fsgate_group_log(warn, group, "did not answer %s; verdict %s\n",
				 perm->deadline == perm->ceiling ?
				 "within max_chain_ms" : "in time",
				 fsgate_verdict_name(perm->verdict));
}

/*
 * Look at the events of a tier: give those past their deadline their
 * timeout verdict, and return the first deny among those resolved, or
 * 0. @done and @left: how many were seen resolved and unresolved;
 * @next: the earliest deadline of the unresolved, valid if @bounded (one
 * of them has a deadline).
 */
static int fsgate_asking_look(struct fsgate_asking *asking,
			      unsigned int *done, unsigned int *left,
			      unsigned long *next, bool *bounded)
{
	struct fsgate_perm *perm;
	int verdict = 0;

	*done = 0;
	*left = 0;
	*bounded = false;
	for (perm = asking->first; perm; perm = perm->tier_next) {
		if (!fsgate_perm_done(perm) && !perm->unbounded &&
		    time_after_eq(jiffies, perm->deadline))
			fsgate_perm_timeout(perm);
		if (fsgate_perm_done(perm)) {
			/* A deny wins; of two, the first seen. */
			verdict = verdict ?: perm->verdict;
			(*done)++;
			continue;
		}
		(*left)++;
		if (perm->unbounded)
			continue;
		if (!*bounded || time_before(perm->deadline, *next))
			*next = perm->deadline;
		*bounded = true;
	}
	return verdict;
}

/* How many events of the tier are resolved, seen without locks. */
static unsigned int fsgate_asking_done(struct fsgate_asking *asking)
{
	struct fsgate_perm *perm;
	unsigned int n = 0;

	for (perm = asking->first; perm; perm = perm->tier_next)
		n += fsgate_perm_done(perm);
	return n;
}

/*
 * Sleep until another event of the tier is resolved (@done were when
 * last looked at), @next passes, or a fatal signal comes. Each event's
 * entry is on its group's @perm_wq, which every resolution wakes.
 */
static void fsgate_asking_sleep(struct fsgate_asking *asking,
				unsigned int done, unsigned long next,
				bool bounded)
{
	long timeout = MAX_SCHEDULE_TIMEOUT;

	if (bounded)
		timeout = max(0L, (long)(next - jiffies));
	set_current_state(TASK_KILLABLE);
	/* After the state is set: a resolution from now on wakes us. */
	if (fsgate_asking_done(asking) == done && !fatal_signal_pending(current))
		schedule_timeout(timeout);
	__set_current_state(TASK_RUNNING);
}

static void fsgate_asking_listen(struct fsgate_asking *asking)
{
	struct fsgate_perm *perm;

	for (perm = asking->first; perm; perm = perm->tier_next)
		add_wait_queue(&perm->group->perm_wq, &perm->wait);
}

/*
 * Stop waiting for the tier: withdraw the events still unresolved (the
 * tier was denied, or the waiting process killed), counted as cancelled,
 * and drop the waiting process's references.
 */
static void fsgate_asking_end(struct fsgate_asking *asking, int verdict)
{
	struct fsgate_perm *perm, *next;
	struct fsgate_group *group;

	for (perm = asking->first; perm; perm = next) {
		next = perm->tier_next;
		group = perm->group;
		remove_wait_queue(&group->perm_wq, &perm->wait);
		spin_lock(&group->queue_lock);
		if (perm->state != FSGATE_PERM_DONE) {
			fsgate_perm_resolve(perm, verdict);
			atomic64_inc(&group->perm.cancelled);
		}
		spin_unlock(&group->queue_lock);
		fsgate_perm_put(perm);
	}
	asking->first = NULL;
	asking->tail = &asking->first;
}

/**
 * fsgate_asking_wait() - wait for the answers of a tier
 * @asking: the access's chain, whose current tier fsgate_perm_ask() asked
 * @verdict: the tier's verdict so far, from groups that could not be
 *	asked: a deny ends the tier at once
 *
 * Waits until every group of the tier answered or reached its deadline
 * (its own timeout or the chain's ceiling, whichever comes first: then
 * its timeout verdict applies), but no longer than the first deny: the
 * tier's other events are then withdrawn. A fatal signal withdraws
 * them all and fails the access. The tier's events are released; the
 * next tier can be asked with the same @asking.
 *
 * Context: process context, sleeps; no locks held.
 * Return: 0 if every group of the tier allowed, or the negative errno of
 * the first deny seen (@verdict's if it is one; -EINTR when killed).
 */
int fsgate_asking_wait(struct fsgate_asking *asking, int verdict)
{
	unsigned int left, done;
	unsigned long next;
	bool bounded;

	might_sleep();
	fsgate_asking_listen(asking);
	while (!verdict) {
		verdict = fsgate_asking_look(asking, &done, &left, &next,
					     &bounded);
		if (verdict || !left)
			break;
		if (fatal_signal_pending(current)) {
			verdict = -EINTR;
			break;
		}
		fsgate_asking_sleep(asking, done, next, bounded);
	}
	fsgate_asking_end(asking, verdict);
	return verdict;
}

/**
 * fsgate_perm_report() - a reader took a permission event off the queue
 * @group: the group
 * @perm: the event, just taken off @group's queue
 *
 * It waits on the pending list for its answer; the reader holds a
 * reference until it is done copying it out.
 *
 * Context: @group's @queue_lock held.
 */
void fsgate_perm_report(struct fsgate_group *group, struct fsgate_perm *perm)
{
	lockdep_assert_held(&group->queue_lock);
	WARN_ON_ONCE(perm->state != FSGATE_PERM_QUEUED);
	perm->state = FSGATE_PERM_REPORTED;
	list_add_tail(&perm->event.node, &group->pending);
	refcount_inc(&perm->ref);
}

/**
 * fsgate_perm_set_fd() - note the fd a reader got for a permission event
 * @perm: the event
 * @fd: its fd in the reader's file table, by which it is answered
 *
 * Context: process context; no fsgate locks held.
 */
void fsgate_perm_set_fd(struct fsgate_perm *perm, int fd)
{
	spin_lock(&perm->group->queue_lock);
	perm->fd = fd;
	spin_unlock(&perm->group->queue_lock);
}

/* Resolve a reported event nobody can answer with @verdict; count it. */
static void fsgate_perm_drop(struct fsgate_perm *perm, int verdict,
			     atomic64_t *counter)
{
	struct fsgate_group *group = perm->group;
	bool resolved = false;

	spin_lock(&group->queue_lock);
	if (perm->state == FSGATE_PERM_REPORTED) {
		fsgate_perm_resolve(perm, verdict);
		atomic64_inc(counter);
		resolved = true;
	}
	spin_unlock(&group->queue_lock);
	if (resolved)
		wake_up_all(&group->perm_wq);
}

/**
 * fsgate_perm_unread() - put a permission event a reader failed to copy
 *	out back at the head of its group's queue
 * @group: the group
 * @perm: the event, reported by fsgate_perm_report() and not answerable
 *	yet (the reader never named its fd)
 *
 * The next read() delivers it again; its waiting process goes on waiting
 * within its deadline. An event resolved meanwhile (timeout, killed
 * waiter) has left the lists and stays off them. The reader's reference
 * is not dropped here.
 *
 * Context: @group's @queue_lock held.
 * Return: whether the event is queued again.
 */
bool fsgate_perm_unread(struct fsgate_group *group, struct fsgate_perm *perm)
{
	lockdep_assert_held(&group->queue_lock);
	if (perm->state != FSGATE_PERM_REPORTED)
		return false;
	WARN_ON_ONCE(perm->fd != FAN_NOFD);
	perm->state = FSGATE_PERM_QUEUED;
	list_move(&perm->event.node, &group->queue);
	group->queued++;
	return true;
}

/**
 * fsgate_perm_unopened() - a reader could not open a permission event's fd
 * @perm: the event
 *
 * The group cannot judge the access, so it is denied at once (-EPERM, as
 * fanotify denies it), unless it was resolved meanwhile; counted in the
 * group's @unopened permission events.
 *
 * Context: process context; no fsgate locks held.
 */
void fsgate_perm_unopened(struct fsgate_perm *perm)
{
	fsgate_perm_drop(perm, -EPERM, &perm->group->perm.unopened);
}

/**
 * fsgate_perm_orphan() - resolve every permission event of a closing group
 * @group: the group, already marked @shutdown
 *
 * Each event on the queue or the pending list gets the group's orphan
 * verdict. The caller calls fsgate_perm_wake_orphans() once it drops the lock.
 *
 * Context: @group's @queue_lock held.
 * Return: how many permission events were resolved.
 */
unsigned int fsgate_perm_orphan(struct fsgate_group *group)
{
	int verdict = fsgate_policy_verdict(group->orphan_verdict);
	struct fsgate_event *event, *next;
	unsigned int n = 0;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry_safe(event, next, &group->queue, node) {
		if (!fsgate_is_perm(event))
			continue;
		fsgate_perm_resolve(fsgate_perm_of(event), verdict);
		n++;
	}
	list_for_each_entry_safe(event, next, &group->pending, node) {
		fsgate_perm_resolve(fsgate_perm_of(event), verdict);
		n++;
	}
	atomic64_add(n, &group->perm.orphaned);
	return n;
}

/**
 * fsgate_perm_wake_orphans() - wake and log after fsgate_perm_orphan()
 * @group: the group
 * @n: how many events fsgate_perm_orphan() resolved, not 0
 *
 * Context: process context; @group's @queue_lock not held.
 */
void fsgate_perm_wake_orphans(struct fsgate_group *group, unsigned int n)
{
	wake_up_all(&group->perm_wq);
	fsgate_group_log(info, group,
			 "went away with %u permission events pending; verdict %s\n",
			 n, fsgate_verdict_name(fsgate_policy_verdict(group->orphan_verdict)));
}

/* The pending event a response names, not yet taken by another response. */
static struct fsgate_perm *fsgate_perm_find(struct fsgate_group *group, int fd)
{
	struct fsgate_perm *perm;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry(perm, &group->pending, event.node)
		if (perm->fd == fd && perm->state == FSGATE_PERM_REPORTED)
			return perm;
	return NULL;
}

/*
 * Find the event of every response; all or none. On success each is
 * %FSGATE_PERM_ANSWERING; on failure none is.
 */
static int fsgate_perm_find_all(struct fsgate_group *group,
				const struct fanotify_response *resp,
				struct fsgate_perm **perms, size_t n)
{
	size_t i;

	lockdep_assert_held(&group->queue_lock);
	for (i = 0; i < n; i++) {
		perms[i] = fsgate_perm_find(group, resp[i].fd);
		if (!perms[i])
			goto out_undo;
		perms[i]->state = FSGATE_PERM_ANSWERING;
	}
	return 0;

out_undo:
	while (i--)
		perms[i]->state = FSGATE_PERM_REPORTED;
	return -ENOENT;
}

/* Apply checked answers to their events; returns how many want caching. */
static size_t fsgate_perm_answer(struct fsgate_group *group,
				 const struct fanotify_response *resp,
				 const int *verdicts,
				 struct fsgate_perm **perms, size_t n)
{
	size_t i, cached = 0;

	lockdep_assert_held(&group->queue_lock);
	for (i = 0; i < n; i++) {
		fsgate_perm_resolve(perms[i], verdicts[i]);
		atomic64_inc(&group->perm.answered);
		if (verdicts[i])
			atomic64_inc(&group->perm.denied);
		if (resp[i].response & FSGATE_CACHE) {
			/* Kept alive for fsgate_sub_cache_verdict() after unlock. */
			refcount_inc(&perms[i]->ref);
			perms[cached++] = perms[i];
		}
	}
	return cached;
}

static void fsgate_perm_cache(struct fsgate_group *group,
			      struct fsgate_perm **perms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		fsgate_sub_cache_verdict(group, d_inode(perms[i]->event.path.dentry),
					 perms[i]->event.mask & FSGATE_PERM_EVENTS,
					 perms[i]->verdict, &perms[i]->snap,
					 perms[i]->cache_gen);
		fsgate_perm_put(perms[i]);
	}
}

/**
 * fsgate_perms_answer() - apply a write()'s checked answers, all or none
 * @group: the group
 * @resp: the responses, each naming its event by the fd its read gave
 * @verdicts: each response's verdict, from fsgate_response_check()
 * @perms: room for @n events
 * @n: how many responses
 *
 * Either every response names a pending event and is applied, or none is.
 *
 * Context: process context, may sleep; no fsgate locks held.
 * Return: 0, or -ENOENT when a response names no pending event, or one
 * that another response of the write answers already.
 */
int fsgate_perms_answer(struct fsgate_group *group,
			const struct fanotify_response *resp,
			const int *verdicts, struct fsgate_perm **perms,
			size_t n)
{
	size_t cached = 0;
	int ret;

	spin_lock(&group->queue_lock);
	ret = fsgate_perm_find_all(group, resp, perms, n);
	if (!ret)
		cached = fsgate_perm_answer(group, resp, verdicts, perms, n);
	spin_unlock(&group->queue_lock);
	if (ret)
		return ret;
	wake_up_all(&group->perm_wq);
	fsgate_perm_cache(group, perms, cached);
	return 0;
}
