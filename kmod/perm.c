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
 * permission events, the lists they are on (queue, then pending, and the
 * pending lookups by id and fd) and @nr_perm. Whoever moves an event to
 * %FSGATE_PERM_DONE takes it off its lists and wakes its waiting process
 * in the same locked section (fsgate_perm_resolve()): only that process,
 * not every waiter of the group; the waiting process then takes the lock
 * once more before it drops its reference, so an event is never freed
 * while a lock holder still looks at it. The lock
 * order and lifetimes of the module are at the top of mark.c.
 */
#include <linux/errno.h>
#include <linux/fanotify.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "group.h"
#include "mark.h"
#include "param.h"
#include "perm.h"
#include "trace.h"

static unsigned int default_timeout_ms = 10000;
module_param_cb(default_timeout_ms, &fsgate_param_wait_ms,
		&default_timeout_ms, 0644);
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
module_param_cb(max_chain_ms, &fsgate_param_wait_ms, &max_chain_ms, 0644);
__MODULE_PARM_TYPE(max_chain_ms, "uint");
MODULE_PARM_DESC(max_chain_ms,
		 "Ceiling on one access's whole decision chain, every tier included, 1..3600000 (30000)");

static unsigned int allow_unbounded_waits;
module_param_cb(allow_unbounded_waits, &fsgate_param_switch,
		&allow_unbounded_waits, 0644);
__MODULE_PARM_TYPE(allow_unbounded_waits, "uint");
MODULE_PARM_DESC(allow_unbounded_waits,
		 "1: groups may wait without bound (FSGATE_TIMEOUT_NONE), and their accesses have no ceiling (0)");

static unsigned int default_max_wait_ms = 60000;
module_param_cb(default_max_wait_ms, &fsgate_param_wait_ms,
		&default_max_wait_ms, 0644);
__MODULE_PARM_TYPE(default_max_wait_ms, "uint");
MODULE_PARM_DESC(default_max_wait_ms,
		 "The longest one access may wait for a group that asks for more time, without a max_wait_ms of its own, 1..3600000 (60000)");

static unsigned int max_pending_events = 16384;
module_param_cb(max_pending_events, &fsgate_param_limit,
		&max_pending_events, 0644);
__MODULE_PARM_TYPE(max_pending_events, "uint");
MODULE_PARM_DESC(max_pending_events,
		 "Permission events one group may have unresolved, unless FSGATE_UNLIMITED_QUEUE; past it the timeout verdict applies at once (16384)");

/*
 * The last id given to a permission event. Seeded with the boot clock at
 * load: a module loaded earlier gave out fewer ids than nanoseconds
 * passed since it was loaded, so ids never repeat while the machine is
 * up, even across a reload.
 */
static atomic64_t fsgate_perm_last_id;

/*
 * Permission events come from a cache of their own, as fanotify's do:
 * objects of their exact size rather than kmalloc's next power of two
 * (a struct fsgate_perm of 296 bytes took 512), each zeroed on
 * allocation where the kernel zeroes them all (init_on_alloc).
 */
static struct kmem_cache *fsgate_perm_slab;

/**
 * fsgate_perm_init() - set up permission events: their cache, their ids
 *
 * Context: module init, before any group exists.
 * Return: 0, or -ENOMEM.
 */
int fsgate_perm_init(void)
{
	fsgate_perm_slab = KMEM_CACHE(fsgate_perm, SLAB_ACCOUNT);
	if (!fsgate_perm_slab)
		return -ENOMEM;
	atomic64_set(&fsgate_perm_last_id, ktime_get_boottime_ns());
	return 0;
}

/**
 * fsgate_perm_exit() - tear down what fsgate_perm_init() set up
 *
 * Context: module exit, once every group and so every event is gone.
 */
void fsgate_perm_exit(void)
{
	kmem_cache_destroy(fsgate_perm_slab);
}

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

/* FSGATE_VERDICT_ALLOW or _DENY, as fsgate_policy_verdict() applies @policy. */
static u32 fsgate_policy_resolved(u32 policy)
{
	return fsgate_policy_verdict(policy) ? FSGATE_VERDICT_DENY :
					       FSGATE_VERDICT_ALLOW;
}

/**
 * fsgate_perm_entry_fill() - a group's wait bounds and verdict policies
 * @group: the group
 * @entry: its record; the fields from @timeout_ms to @orphan_errno are set
 *
 * As the waits apply them: the module's defaults resolved as they stand
 * now, a default verdict as the one it gives.
 *
 * Context: any; reads only what never changes and the parameters.
 */
void fsgate_perm_entry_fill(const struct fsgate_group *group,
			    struct fsgate_group_entry *entry)
{
	entry->timeout_ms = group->timeout_ms ?: READ_ONCE(default_timeout_ms);
	entry->max_wait_ms = group->max_wait_ms ?:
			     READ_ONCE(default_max_wait_ms);
	entry->timeout_verdict = fsgate_policy_resolved(group->timeout_verdict);
	entry->timeout_errno = -fsgate_policy_verdict(group->timeout_verdict);
	entry->orphan_verdict = fsgate_policy_resolved(group->orphan_verdict);
	entry->orphan_errno = -fsgate_policy_verdict(group->orphan_verdict);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_perm_entry_fill);

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
		put_pid(perm->reader);
		kmem_cache_free(fsgate_perm_slab, perm);
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
	asking->by = (struct fsgate_by){};
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
	u64 now = ktime_get_ns();

	if (ms == FSGATE_TIMEOUT_DEFAULT)
		ms = READ_ONCE(default_timeout_ms);
	perm->asked_ns = now;
	perm->ceiling = asking->ceiling;
	perm->chain_bounded = asking->bounded;
	perm->unbounded = ms == FSGATE_TIMEOUT_NONE && !asking->bounded;
	if (ms == FSGATE_TIMEOUT_NONE) {
		/* Unbounded no longer allowed: the ceiling is its bound. */
		perm->deadline = asking->ceiling;
	} else {
		perm->deadline = jiffies + msecs_to_jiffies(ms);
		if (asking->bounded && time_after(perm->deadline, asking->ceiling))
			perm->deadline = asking->ceiling;
	}
	/* As reported: the group's own timeout exactly, or the ceiling. */
	if (ms != FSGATE_TIMEOUT_NONE && perm->deadline != asking->ceiling)
		perm->deadline_ns = now + (u64)ms * NSEC_PER_MSEC;
	else
		perm->deadline_ns = now + jiffies_to_nsecs(max(0L,
					(long)(perm->deadline - jiffies)));
}

/*
 * The latest deadline a request for more time may give @perm: the
 * group's max_wait_ms after it was asked (never less than its timeout),
 * and never past the chain's ceiling when the chain has one.
 */
static unsigned long fsgate_perm_latest(const struct fsgate_perm *perm,
					u64 now)
{
	u32 ms = perm->group->max_wait_ms ?: READ_ONCE(default_max_wait_ms);
	u64 latest = max(perm->asked_ns + (u64)ms * NSEC_PER_MSEC,
			 perm->deadline_ns);
	unsigned long at = jiffies + nsecs_to_jiffies(latest - min(latest, now));

	if (perm->chain_bounded && time_after(at, perm->ceiling))
		at = perm->ceiling;
	return at;
}

/**
 * fsgate_perm_latest_ns() - how long a request for more time can hold @perm
 * @perm: a permission event, as it is reported
 *
 * What struct fsgate_info_perm reports as @latest_ns, so that a daemon
 * holding the access knows when only its own answer, not the group's
 * timeout verdict, can still decide it.
 *
 * Context: any; the bounds it reads are fixed when the event is asked.
 * Return: the CLOCK_MONOTONIC ns of fsgate_perm_latest(), not before
 * @perm's deadline as reported.
 */
u64 fsgate_perm_latest_ns(const struct fsgate_perm *perm)
{
	u64 now = ktime_get_ns();
	unsigned long at = fsgate_perm_latest(perm, now);
	u64 latest = now + jiffies_to_nsecs(max(0L, (long)(at - jiffies)));

	return max(latest, READ_ONCE(perm->deadline_ns));
}

/* Give @perm until @ms from now, within its bounds; never less time. */
static void fsgate_perm_extend(struct fsgate_perm *perm, u32 ms)
{
	u64 now = ktime_get_ns();
	unsigned long want = jiffies + msecs_to_jiffies(ms);
	unsigned long latest = fsgate_perm_latest(perm, now);

	lockdep_assert_held(&perm->group->queue_lock);
	if (perm->unbounded)
		return;
	if (time_after(want, latest))
		want = latest;
	if (!time_after(want, perm->deadline))
		return;
	/* The waiter reads it when its old deadline passes. */
	WRITE_ONCE(perm->deadline, want);
	perm->deadline_ns = now + jiffies_to_nsecs(want - jiffies);
}

/**
 * fsgate_audit_response() - the resp an answer's audit record shows
 * @response: the answer's response word
 *
 * As fanotify's: the answer's allow or deny alone. fanotify's records
 * show neither %FSGATE_AUDIT nor %FSGATE_INFO (6.12 keeps only the
 * access bits of an answer with a rule); a deny's errno and
 * %FSGATE_CACHE are fsgate's own.
 *
 * Context: any.
 * Return: the record's resp.
 */
u32 fsgate_audit_response(u32 response)
{
	return response & (FSGATE_ALLOW | FSGATE_DENY);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_audit_response);

/*
 * Resolve @perm with @verdict, which @source gave (enum fsgate_source),
 * and wake its waiting process, that one alone, so 1000 accesses waiting
 * on one group are not all woken by each answer, nor a list of them
 * walked; caller holds @queue_lock, @perm not DONE. The waiter cannot be
 * gone: before it returns it takes this lock to withdraw its events
 * (fsgate_asking_end()).
 */
static void fsgate_perm_resolve(struct fsgate_perm *perm, int verdict,
				u8 source)
{
	struct fsgate_group *group = perm->group;

	lockdep_assert_held(&group->queue_lock);
	if (WARN_ON_ONCE(perm->state == FSGATE_PERM_DONE))
		return;
	list_del_init(&perm->event.node);
	hash_del(&perm->id_node);
	hash_del(&perm->fd_node);
	if (perm->state == FSGATE_PERM_QUEUED)
		group->queued--;
	group->nr_perm--;
	perm->verdict = verdict;
	perm->source = source;
	trace_fsgate_perm_answer(group, perm->id, perm->waiter,
				 &perm->event.path, perm->event.mask, verdict,
				 source, perm->asked_ns);
	/* Pairs with the waiting process's lockless look at the state. */
	smp_store_release(&perm->state, FSGATE_PERM_DONE);
	/* Ordered after the store: pairs with set_current_state() there. */
	wake_up_process(perm->waiter);
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

/* Record who gave an access's first deny (a NULL @group: none). */
static void fsgate_asking_denied(struct fsgate_asking *asking,
				 const struct fsgate_group *group, u8 source)
{
	if (asking->by.source || asking->by.group)
		return;
	asking->by.group = group ? group->id : 0;
	asking->by.source = source;
}

/* @group gave @verdict from @source without being asked: trace it. */
static void fsgate_perm_not_asked(struct fsgate_group *group, u32 mask,
				  const struct path *path,
				  struct fsgate_asking *asking, int verdict,
				  u8 source)
{
	trace_fsgate_perm_answer(group, 0, current, path, mask, verdict,
				 source, 0);
	if (verdict)
		fsgate_asking_denied(asking, group, source);
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
 * going away gives its orphan verdict at once, a persistent group whose
 * daemon stayed away past its absent bound its absent verdict, a group
 * with too many events pending, or no room for one more in its memory
 * cgroup (%FSGATE_GROUP_GFP), its timeout verdict, and so does every
 * group once the chain passed its ceiling (not asked, counted as timed
 * out).
 *
 * Context: process context, may sleep; no fsgate locks held.
 * Return: the event, which fsgate_asking_wait() waits for, or NULL with
 * @verdict set.
 */
struct fsgate_perm *fsgate_perm_ask(struct fsgate_group *group, u32 mask,
				    const struct path *path,
				    struct fsgate_asking *asking, int *verdict)
{
	struct fsgate_proc *proc = NULL;
	struct fsgate_perm *perm;
	struct mem_cgroup *old;
	bool orphan, absent;

	atomic64_inc(&group->perm.asked);
	if (fsgate_asking_late(asking)) {
		*verdict = fsgate_perm_too_late(group);
		fsgate_perm_not_asked(group, mask, path, asking, *verdict,
				      FSGATE_SRC_TIMEOUT);
		return NULL;
	}
	old = fsgate_group_charge(group);
	perm = kmem_cache_zalloc(fsgate_perm_slab, FSGATE_GROUP_GFP);
	if (perm && (group->flags & FSGATE_REPORT_PROC))
		proc = fsgate_proc_take(FSGATE_GROUP_GFP);
	fsgate_group_uncharge(old);
	if (!perm)
		goto out_overflow;
	fsgate_event_init(&perm->event, mask, path, fsgate_event_pid(group));
	refcount_set(&perm->ref, 1);
	perm->event.proc = proc;
	/* Without memory for the process record, as without memory at all. */
	if ((group->flags & FSGATE_REPORT_PROC) && !proc) {
		fsgate_perm_put(perm);
		goto out_overflow;
	}
	perm->group = group;
	perm->id = atomic64_inc_return(&fsgate_perm_last_id);
	perm->fd = FAN_NOFD;
	fsgate_snap_take(&perm->snap, d_inode(path->dentry));
	perm->cache_gen = READ_ONCE(group->cache_gen);
	fsgate_perm_set_deadline(perm, asking);
	perm->waiter = current;

	spin_lock(&group->queue_lock);
	orphan = group->shutdown;
	absent = group->absent;
	*verdict = group->absent_verdict;
	if (orphan || absent ||
	    (group->nr_perm >= READ_ONCE(max_pending_events) &&
	     !(group->flags & FSGATE_UNLIMITED_QUEUE))) {
		spin_unlock(&group->queue_lock);
		fsgate_perm_put(perm);
		if (orphan) {
			atomic64_inc(&group->perm.orphaned);
			*verdict = fsgate_policy_verdict(group->orphan_verdict);
			fsgate_perm_not_asked(group, mask, path, asking,
					      *verdict, FSGATE_SRC_ORPHAN);
			return NULL;
		}
		if (absent) {
			atomic64_inc(&group->perm.absent);
			fsgate_perm_not_asked(group, mask, path, asking,
					      *verdict, FSGATE_SRC_ABSENT);
			return NULL;
		}
		goto out_overflow;
	}
	list_add_tail(&perm->event.node, &group->queue);
	group->queued++;
	group->nr_perm++;
	trace_fsgate_perm_ask(perm);
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
	fsgate_perm_not_asked(group, mask, path, asking, *verdict,
			      FSGATE_SRC_TIMEOUT);
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
	/* Past the deadline still: the group may have asked for more time. */
	if (perm->state != FSGATE_PERM_DONE &&
	    !time_before(jiffies, perm->deadline)) {
		fsgate_perm_resolve(perm,
				    fsgate_policy_verdict(group->timeout_verdict),
				    FSGATE_SRC_TIMEOUT);
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
			if (!verdict && perm->verdict)
				fsgate_asking_denied(asking, perm->group,
						     perm->source);
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
 * resolution wakes its @waiter, this process (fsgate_perm_resolve()).
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

/*
 * Stop waiting for the tier: withdraw the events still unresolved (the
 * tier was denied, or the waiting process killed), counted as cancelled,
 * write the audit records answers asked for (here, in the accessing
 * process, as fanotify does), and drop the waiting process's references.
 */
static void fsgate_asking_end(struct fsgate_asking *asking, int verdict)
{
	struct fsgate_perm *perm, *next;
	struct fsgate_group *group;

	for (perm = asking->first; perm; perm = next) {
		next = perm->tier_next;
		group = perm->group;
		spin_lock(&group->queue_lock);
		if (perm->state != FSGATE_PERM_DONE) {
			fsgate_perm_resolve(perm, verdict, FSGATE_SRC_CANCEL);
			atomic64_inc(&group->perm.cancelled);
		}
		spin_unlock(&group->queue_lock);
		/* DONE for good: @audited and its record stay as answered. */
		if (perm->audited)
			fsgate_compat_audit(perm->audit_response,
					    &perm->audit_rule);
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
 * next tier can be asked with the same @asking. Answers with
 * %FSGATE_AUDIT are recorded in the audit log from here, in the
 * accessing process's audit context.
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
	while (!verdict) {
		verdict = fsgate_asking_look(asking, &done, &left, &next,
					     &bounded);
		if (verdict || !left)
			break;
		if (fatal_signal_pending(current)) {
			verdict = -EINTR;
			fsgate_asking_denied(asking, NULL, FSGATE_SRC_KILLED);
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
 * @file: the group fd's file it is read through
 *
 * It waits on the pending list for its answer; the reader holds a
 * reference until it is done copying it out.
 *
 * Context: @group's @queue_lock held.
 */
void fsgate_perm_report(struct fsgate_group *group, struct fsgate_perm *perm,
			const struct file *file)
{
	lockdep_assert_held(&group->queue_lock);
	WARN_ON_ONCE(perm->state != FSGATE_PERM_QUEUED);
	perm->state = FSGATE_PERM_REPORTED;
	perm->reader_filp = file;
	list_add_tail(&perm->event.node, &group->pending);
	hash_add(group->pending_ids, &perm->id_node, perm->id);
	refcount_inc(&perm->ref);
}

/* Whether @perm's fd is in the current process's file table. */
static bool fsgate_perm_read_here(const struct fsgate_perm *perm)
{
	return perm->reader == task_tgid(current) &&
	       perm->reader_files == current->files;
}

/**
 * fsgate_perm_fd_taken() - whether a pending event holds an fd number
 * @group: the group
 * @fd: a number about to be given to an event the current process reads
 *
 * A pending event keeps its number until it is resolved, even once the
 * reader closed its fd: an answer by that number must still reach it. A
 * reader must not give the number to a second event then, or one answer
 * would name two events.
 *
 * Context: process context; takes @group's @queue_lock.
 * Return: true if a pending event read by the current process (in its
 * file table) has number @fd.
 */
bool fsgate_perm_fd_taken(struct fsgate_group *group, int fd)
{
	struct fsgate_perm *perm;
	bool taken = false;

	spin_lock(&group->queue_lock);
	hash_for_each_possible(group->pending_fds, perm, fd_node, fd) {
		if (perm->fd == fd && fsgate_perm_read_here(perm)) {
			taken = true;
			break;
		}
	}
	spin_unlock(&group->queue_lock);
	return taken;
}

/**
 * fsgate_perm_set_fd() - note the fd a reader got for a permission event
 * @perm: the event
 * @fd: its fd in the current process's file table, by which it is
 *	answered; fsgate_perm_fd_taken() said no pending event holds it
 *
 * Context: process context; no fsgate locks held.
 */
void fsgate_perm_set_fd(struct fsgate_perm *perm, int fd)
{
	struct pid *reader = get_pid(task_tgid(current));

	spin_lock(&perm->group->queue_lock);
	WARN_ON_ONCE(perm->reader);
	perm->fd = fd;
	perm->reader = reader;
	perm->reader_files = current->files;
	/* Unless it was resolved meanwhile, and so left @pending. */
	if (perm->state == FSGATE_PERM_REPORTED)
		hash_add(perm->group->pending_fds, &perm->fd_node, fd);
	spin_unlock(&perm->group->queue_lock);
}

/* Resolve a reported event nobody can answer with @verdict; count it. */
static void fsgate_perm_drop(struct fsgate_perm *perm, int verdict,
			     u8 source, atomic64_t *counter)
{
	struct fsgate_group *group = perm->group;

	spin_lock(&group->queue_lock);
	if (perm->state == FSGATE_PERM_REPORTED) {
		fsgate_perm_resolve(perm, verdict, source);
		atomic64_inc(counter);
	}
	spin_unlock(&group->queue_lock);
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
	hash_del(&perm->id_node);
	group->queued++;
	return true;
}

/* Resolve every permission event on @group's queue (not yet read). */
static unsigned int fsgate_perm_resolve_queued(struct fsgate_group *group,
					       int verdict, u8 source)
{
	struct fsgate_event *event, *next;
	unsigned int n = 0;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry_safe(event, next, &group->queue, node) {
		if (!fsgate_is_perm(event))
			continue;
		fsgate_perm_resolve(fsgate_perm_of(event), verdict, source);
		n++;
	}
	return n;
}

/**
 * fsgate_perm_requeue() - queue again what a closed group fd read and
 *	did not answer
 * @group: a persistent group
 * @file: the group fd's file being released
 *
 * Each event read through @file and not resolved goes back to the head
 * of the queue, in the order it was read, with its id: the next reader
 * gets it with a new fd, and nothing it was asked is lost or answered
 * twice. Its waiting process goes on waiting within its deadline.
 *
 * Context: @group's @queue_lock held.
 * Return: how many events were queued again.
 */
unsigned int fsgate_perm_requeue(struct fsgate_group *group,
				 const struct file *file)
{
	struct fsgate_event *event, *prev;
	struct fsgate_perm *perm;
	unsigned int n = 0;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry_safe_reverse(event, prev, &group->pending, node) {
		perm = fsgate_perm_of(event);
		if (perm->reader_filp != file ||
		    WARN_ON_ONCE(perm->state != FSGATE_PERM_REPORTED))
			continue;
		hash_del(&perm->id_node);
		hash_del(&perm->fd_node);
		put_pid(perm->reader);
		perm->reader = NULL;
		perm->reader_files = NULL;
		perm->reader_filp = NULL;
		perm->fd = FAN_NOFD;
		perm->state = FSGATE_PERM_QUEUED;
		list_move(&event->node, &group->queue);
		group->queued++;
		n++;
	}
	atomic64_add(n, &group->perm.rereported);
	return n;
}

/**
 * fsgate_perm_absent() - resolve the queued permission events of a
 *	persistent group nobody attached to in time
 * @group: the group, whose @absent was just set
 * @verdict: its absent verdict, 0 or a negative errno
 *
 * Context: @group's @queue_lock held.
 * Return: how many permission events were resolved.
 */
unsigned int fsgate_perm_absent(struct fsgate_group *group, int verdict)
{
	unsigned int n = fsgate_perm_resolve_queued(group, verdict,
						    FSGATE_SRC_ABSENT);

	atomic64_add(n, &group->perm.absent);
	return n;
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
	fsgate_perm_drop(perm, -EPERM, FSGATE_SRC_UNOPENED,
			 &perm->group->perm.unopened);
}

/**
 * fsgate_perm_orphan() - resolve every permission event of a closing group
 * @group: the group, already marked @shutdown
 *
 * Each event on the queue or the pending list gets the group's orphan
 * verdict, and its waiting process is woken. The caller calls
 * fsgate_perm_log_orphans() once it drops the lock.
 *
 * Context: @group's @queue_lock held.
 * Return: how many permission events were resolved.
 */
unsigned int fsgate_perm_orphan(struct fsgate_group *group)
{
	int verdict = fsgate_policy_verdict(group->orphan_verdict);
	struct fsgate_event *event, *next;
	unsigned int n = fsgate_perm_resolve_queued(group, verdict,
						    FSGATE_SRC_ORPHAN);

	list_for_each_entry_safe(event, next, &group->pending, node) {
		fsgate_perm_resolve(fsgate_perm_of(event), verdict,
				    FSGATE_SRC_ORPHAN);
		n++;
	}
	atomic64_add(n, &group->perm.orphaned);
	return n;
}

/**
 * fsgate_perm_log_orphans() - log after fsgate_perm_orphan()
 * @group: the group
 * @n: how many events fsgate_perm_orphan() resolved, not 0
 *
 * Context: process context; @group's @queue_lock not held.
 */
void fsgate_perm_log_orphans(struct fsgate_group *group, unsigned int n)
{
	fsgate_group_log(info, group,
			 "went away with %u permission events pending; verdict %s\n",
			 n, fsgate_verdict_name(fsgate_policy_verdict(group->orphan_verdict)));
}

/*
 * The pending event with id @id, if no other response took it and it was
 * read through @file: an event queued again for another reader of a
 * persistent group is that reader's to answer.
 */
static struct fsgate_perm *fsgate_perm_find_id(struct fsgate_group *group,
					       const struct file *file, u64 id)
{
	struct fsgate_perm *perm;

	lockdep_assert_held(&group->queue_lock);
	hash_for_each_possible(group->pending_ids, perm, id_node, id)
		if (perm->id == id)
			return perm->state == FSGATE_PERM_REPORTED &&
			       perm->reader_filp == file ?
			       perm : ERR_PTR(-ENOENT);
	return ERR_PTR(-ENOENT);
}

/*
 * The pending event fd number @fd names, if no other response took it:
 * the one the current process read with that number (there is at most
 * one, see fsgate_perm_fd_taken()), else the only one another process
 * read with it. Numbers of other processes' file tables may repeat
 * (forked readers): two or more of them are -ENOTUNIQ. Only events read
 * through @file count.
 */
static struct fsgate_perm *fsgate_perm_find_fd(struct fsgate_group *group,
					       const struct file *file, int fd)
{
	struct fsgate_perm *perm, *other = NULL;
	unsigned int others = 0;

	lockdep_assert_held(&group->queue_lock);
	hash_for_each_possible(group->pending_fds, perm, fd_node, fd) {
		if (perm->fd != fd || perm->reader_filp != file)
			continue;
		if (fsgate_perm_read_here(perm))
			return perm->state == FSGATE_PERM_REPORTED ?
			       perm : ERR_PTR(-ENOENT);
		other = perm;
		others++;
	}
	if (others > 1)
		return ERR_PTR(-ENOTUNIQ);
	if (!other || other->state != FSGATE_PERM_REPORTED)
		return ERR_PTR(-ENOENT);
	return other;
}

/*
 * Find the event of every answer; all or none. On success each is
 * %FSGATE_PERM_ANSWERING; on failure none is.
 */
static int fsgate_perm_find_all(struct fsgate_group *group,
				const struct file *file,
				struct fsgate_answer *answers, size_t n)
{
	struct fsgate_perm *perm;
	size_t i;

	lockdep_assert_held(&group->queue_lock);
	for (i = 0; i < n; i++) {
		if (answers[i].id)
			perm = fsgate_perm_find_id(group, file, answers[i].id);
		else
			perm = fsgate_perm_find_fd(group, file, answers[i].fd);
		if (IS_ERR(perm))
			goto out_undo;
		perm->state = FSGATE_PERM_ANSWERING;
		answers[i].perm = perm;
	}
	return 0;

out_undo:
	while (i--)
		answers[i].perm->state = FSGATE_PERM_REPORTED;
	return PTR_ERR(perm);
}

/*
 * Keep what the audit record of @answer needs in its event, for the
 * waiting process: fanotify writes the record in the accessing task.
 */
static void fsgate_perm_audit_set(struct fsgate_perm *perm,
				  const struct fsgate_answer *answer)
{
	lockdep_assert_held(&perm->group->queue_lock);
	perm->audited = true;
	perm->audit_response = fsgate_audit_response(answer->response);
	perm->audit_rule = answer->rule;
}

/*
 * Apply checked answers to their events; the ones that want caching keep
 * a reference in @answers[i].perm, the others lose theirs to NULL.
 */
static void fsgate_perm_answer(struct fsgate_group *group,
			       struct fsgate_answer *answers, size_t n)
{
	size_t i;

	lockdep_assert_held(&group->queue_lock);
	for (i = 0; i < n; i++) {
		if (answers[i].extend_ms) {
			fsgate_perm_extend(answers[i].perm, answers[i].extend_ms);
			answers[i].perm->state = FSGATE_PERM_REPORTED;
			answers[i].perm = NULL;
			atomic64_inc(&group->perm.extended);
			continue;
		}
		if (answers[i].response & FSGATE_AUDIT)
			fsgate_perm_audit_set(answers[i].perm, &answers[i]);
		fsgate_perm_resolve(answers[i].perm, answers[i].verdict,
				    FSGATE_SRC_ANSWER);
		atomic64_inc(&group->perm.answered);
		if (answers[i].verdict)
			atomic64_inc(&group->perm.denied);
		if (answers[i].response & FSGATE_CACHE)
			/* Kept alive for fsgate_sub_cache_verdict() after unlock. */
			refcount_inc(&answers[i].perm->ref);
		else
			answers[i].perm = NULL;
	}
}

static void fsgate_perm_cache(struct fsgate_group *group,
			      struct fsgate_answer *answers, size_t n)
{
	struct fsgate_perm *perm;
	size_t i;

	for (i = 0; i < n; i++) {
		perm = answers[i].perm;
		if (!perm)
			continue;
		fsgate_sub_cache_verdict(group, d_inode(perm->event.path.dentry),
					 perm->event.mask & FSGATE_PERM_EVENTS,
					 perm->verdict, &perm->snap,
					 perm->cache_gen);
		fsgate_perm_put(perm);
	}
}

/**
 * fsgate_perms_answer() - apply a write()'s checked answers, all or none
 * @group: the group
 * @file: the group fd's file written to; only events read through it
 *	are answered
 * @answers: the answers, each naming its event by id or by fd number
 *	(see fsgate_perm_find_fd() for how a number is looked up); their
 *	@perm is set here
 * @n: how many
 *
 * Either every answer names a pending event and is applied, or none is.
 * A request for more time (@extend_ms) moves its event's deadline, within
 * the group's bounds, and leaves it pending.
 *
 * Context: process context, may sleep; no fsgate locks held.
 * Return: 0; -ENOENT when an answer names no pending event, or one that
 * another answer of the write takes already; -ENOTUNIQ when an fd number
 * names no event the writing process read and several that others read.
 */
int fsgate_perms_answer(struct fsgate_group *group, const struct file *file,
			struct fsgate_answer *answers, size_t n)
{
	int ret;

	spin_lock(&group->queue_lock);
	ret = fsgate_perm_find_all(group, file, answers, n);
	if (!ret)
		fsgate_perm_answer(group, answers, n);
	spin_unlock(&group->queue_lock);
	if (ret)
		return ret;
	fsgate_perm_cache(group, answers, n);
	return 0;
}
