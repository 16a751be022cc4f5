// SPDX-License-Identifier: GPL-2.0
/*
 * Permission events (layer 2), their whole life: asking one group about one
 * access, reporting it to a reader, waiting for its answer within the
 * group's bound, applying answers (user.c parses them from write()),
 * resolving what is left when the group goes away, and caching verdicts.
 * Calls go downward only: to mark.c and cache.c for the verdict cache.
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
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "group.h"
#include "mark.h"
#include "perm.h"

static unsigned int default_timeout_ms = 10000;
module_param(default_timeout_ms, uint, 0644);
MODULE_PARM_DESC(default_timeout_ms,
		 "How long an access waits for a group without its own timeout, 0 = no bound (10000)");

static unsigned int default_max_wait_ms = 60000;
module_param(default_max_wait_ms, uint, 0644);
MODULE_PARM_DESC(default_max_wait_ms,
		 "The longest one access may wait for a group that asks for more time, without a max_wait_ms of its own (60000)");

static unsigned int max_pending_events = 16384;
module_param(max_pending_events, uint, 0644);
MODULE_PARM_DESC(max_pending_events,
		 "Permission events one group may have unresolved, unless FSGATE_UNLIMITED_QUEUE; past it the timeout verdict applies at once (16384)");

/*
 * The last id given to a permission event. Seeded with the boot clock at
 * load: a module loaded earlier gave out fewer ids than nanoseconds
 * passed since it was loaded, so ids never repeat while the machine is
 * up, even across a reload.
 */
static atomic64_t fsgate_perm_last_id;

/**
 * fsgate_perm_ids_init() - seed permission event ids
 *
 * Context: module init, before any group exists.
 */
void fsgate_perm_ids_init(void)
{
	atomic64_set(&fsgate_perm_last_id, ktime_get_boottime_ns());
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
		kfree(perm);
	}
}

static void fsgate_perm_set_deadline(struct fsgate_perm *perm)
{
	u32 ms = perm->group->timeout_ms;

	if (ms == FSGATE_TIMEOUT_DEFAULT)
		ms = READ_ONCE(default_timeout_ms);
	perm->unbounded = ms == FSGATE_TIMEOUT_NONE || !ms;
	perm->deadline = jiffies + msecs_to_jiffies(ms);
	perm->asked_ns = ktime_get_ns();
	perm->deadline_ns = perm->asked_ns + (u64)ms * NSEC_PER_MSEC;
}

/*
 * The latest deadline a request for more time may give @perm: the
 * group's max_wait_ms after it was asked, never less than its timeout.
 * Hook: the module-wide ceiling on one access's whole chain, once there
 * is one, bounds it here too.
 */
static u64 fsgate_perm_latest_ns(const struct fsgate_perm *perm)
{
	u32 ms = perm->group->max_wait_ms ?: READ_ONCE(default_max_wait_ms);

	return max(perm->asked_ns + (u64)ms * NSEC_PER_MSEC, perm->deadline_ns);
}

/* Give @perm until @ms from now, within its bounds; never less time. */
static void fsgate_perm_extend(struct fsgate_perm *perm, u32 ms)
{
	u64 now = ktime_get_ns();
	u64 want = min(now + (u64)ms * NSEC_PER_MSEC, fsgate_perm_latest_ns(perm));

	lockdep_assert_held(&perm->group->queue_lock);
	if (perm->unbounded || want <= perm->deadline_ns)
		return;
	perm->deadline_ns = want;
	/* The waiter reads it when its old deadline passes. */
	WRITE_ONCE(perm->deadline, jiffies + nsecs_to_jiffies(want - now));
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

/**
 * fsgate_perm_ask() - ask a group about an access
 * @group: the group, referenced by the caller until fsgate_perm_wait()
 * @mask: FAN_*_PERM bit
 * @path: the file
 * @verdict: set when the group cannot be asked
 *
 * Queues a permission event for the group's reader. A group that is
 * going away gives its orphan verdict at once, a group with too many
 * events pending (or no memory for one more) its timeout verdict.
 *
 * Context: process context, may sleep; no fsgate locks held.
 * Return: the event, to pass to fsgate_perm_wait(), or NULL with
 * @verdict set.
 */
struct fsgate_perm *fsgate_perm_ask(struct fsgate_group *group, u32 mask,
				    const struct path *path, int *verdict)
{
	struct fsgate_perm *perm;
	bool orphan;

	atomic64_inc(&group->perm.asked);
	perm = kzalloc(sizeof(*perm), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!perm)
		goto out_overflow;
	fsgate_event_init(&perm->event, mask, path, fsgate_event_pid(group));
	refcount_set(&perm->ref, 1);
	if (group->flags & FSGATE_REPORT_PROC) {
		perm->event.proc = fsgate_proc_take();
		if (!perm->event.proc) {
			fsgate_perm_put(perm);
			goto out_overflow;
		}
	}
	perm->group = group;
	perm->id = atomic64_inc_return(&fsgate_perm_last_id);
	perm->fd = FAN_NOFD;
	fsgate_snap_take(&perm->snap, d_inode(path->dentry));
	fsgate_perm_set_deadline(perm);

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

/**
 * fsgate_perm_wait() - wait for a group's answer about an access
 * @perm: from fsgate_perm_ask(); its reference is dropped
 *
 * Waits until the group answers, goes away, or its deadline passes, or
 * until the waiting process is killed.
 *
 * Context: process context, sleeps; no locks held.
 * Return: 0 to allow, or the negative errno that denies the access.
 */
int fsgate_perm_wait(struct fsgate_perm *perm)
{
	struct fsgate_group *group = perm->group;
	long timeout = MAX_SCHEDULE_TIMEOUT;
	bool timedout = false;
	long ret;
	int verdict;

	for (;;) {
		if (!perm->unbounded)
			timeout = max(0L, (long)(READ_ONCE(perm->deadline) -
						 jiffies));
		ret = wait_event_killable_timeout(group->perm_wq,
						  fsgate_perm_done(perm),
						  timeout);
		spin_lock(&group->queue_lock);
		if (perm->state == FSGATE_PERM_DONE || ret ||
		    !time_before(jiffies, perm->deadline))
			break;
		/* The group asked for more time (fsgate_perm_extend()). */
		spin_unlock(&group->queue_lock);
	}
	if (perm->state == FSGATE_PERM_DONE) {
		verdict = perm->verdict;
	} else if (ret < 0) {
		/* Killed: the access fails, whatever the group would say. */
		fsgate_perm_resolve(perm, -EINTR);
		atomic64_inc(&group->perm.cancelled);
		verdict = -EINTR;
	} else {
		fsgate_perm_resolve(perm,
				    fsgate_policy_verdict(group->timeout_verdict));
		atomic64_inc(&group->perm.timedout);
		verdict = perm->verdict;
		timedout = true;
	}
	spin_unlock(&group->queue_lock);
	if (timedout)
		fsgate_group_log(warn, group,
				 "did not answer in time; verdict %s\n",
				 fsgate_verdict_name(verdict));
	fsgate_perm_put(perm);
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
	list_for_each_entry(perm, &group->pending, event.node) {
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
 * fsgate_perm_unreport() - a reader failed to copy a permission event out
 * @perm: the event
 *
 * Nobody can answer it now, so the group's timeout verdict applies at
 * once, unless it was resolved meanwhile.
 *
 * Context: process context; no fsgate locks held.
 */
void fsgate_perm_unreport(struct fsgate_perm *perm)
{
	struct fsgate_group *group = perm->group;

	fsgate_perm_drop(perm, fsgate_policy_verdict(group->timeout_verdict),
			 &group->perm.timedout);
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

/* The pending event with id @id, if no other response took it. */
static struct fsgate_perm *fsgate_perm_find_id(struct fsgate_group *group,
					       u64 id)
{
	struct fsgate_perm *perm;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry(perm, &group->pending, event.node)
		if (perm->id == id)
			return perm->state == FSGATE_PERM_REPORTED ?
			       perm : ERR_PTR(-ENOENT);
	return ERR_PTR(-ENOENT);
}

/*
 * The pending event fd number @fd names, if no other response took it:
 * the one the current process read with that number (there is at most
 * one, see fsgate_perm_fd_taken()), else the only one another process
 * read with it. Numbers of other processes' file tables may repeat
 * (forked readers): two or more of them are -ENOTUNIQ.
 */
static struct fsgate_perm *fsgate_perm_find_fd(struct fsgate_group *group,
					       int fd)
{
	struct fsgate_perm *perm, *other = NULL;
	unsigned int others = 0;

	lockdep_assert_held(&group->queue_lock);
	list_for_each_entry(perm, &group->pending, event.node) {
		if (perm->fd != fd)
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
				struct fsgate_answer *answers, size_t n)
{
	struct fsgate_perm *perm;
	size_t i;

	lockdep_assert_held(&group->queue_lock);
	for (i = 0; i < n; i++) {
		if (answers[i].id)
			perm = fsgate_perm_find_id(group, answers[i].id);
		else
			perm = fsgate_perm_find_fd(group, answers[i].fd);
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
		fsgate_perm_resolve(answers[i].perm, answers[i].verdict);
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
					 perm->verdict, &perm->snap);
		fsgate_perm_put(perm);
	}
}

/**
 * fsgate_perms_answer() - apply a write()'s checked answers, all or none
 * @group: the group
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
int fsgate_perms_answer(struct fsgate_group *group,
			struct fsgate_answer *answers, size_t n)
{
	int ret;

	spin_lock(&group->queue_lock);
	ret = fsgate_perm_find_all(group, answers, n);
	if (!ret)
		fsgate_perm_answer(group, answers, n);
	spin_unlock(&group->queue_lock);
	if (ret)
		return ret;
	wake_up_all(&group->perm_wq);
	fsgate_perm_cache(group, answers, n);
	return 0;
}
