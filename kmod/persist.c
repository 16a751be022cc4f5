// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent groups (layer 3, calls mark.c, mute.c, filter.c, event.c,
 * perm.c and group.c): a group that outlives its group fds, the name a
 * daemon attaches to it by, what it does while nobody is attached, and
 * tearing down every group, persistent or not, once nothing may use it.
 *
 * A group's @attached counts its open group fds. When the last one
 * closes, a group that is not persistent is torn down at once, as it
 * always was. A persistent one stays: its marks, mutes, filter, cache
 * and queue are kept, and what the closed fd read and did not answer is
 * queued again (fsgate_perm_requeue()). Its permission events wait with
 * nobody attached until the absent bound passes, then get the absent
 * verdict, as does every access it is asked about until a daemon
 * attaches again; after the linger bound (unless it persists until
 * removed) it is torn down. One delayed work item per group runs both
 * bounds, on fsgate_persist_wq, which module exit drains.
 *
 * Locking: fsgate_groups_lock protects every group's @attached, @torn
 * and @persist, and each struct fsgate_persistence's @removed and
 * @detached_at; a group's @queue_lock, taken inside it here, its
 * @absent. Whoever finds a group with no fd, not to be kept and not
 * @torn sets @torn and tears it down, once; nothing attaches to a @torn
 * group.
 *
 * Lifetime: a persistent group holds a reference to itself and to the
 * module until it is torn down; struct fsgate_persistence is freed with
 * the group.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <linux/workqueue.h>

#include "event.h"
#include "filter.h"
#include "group.h"
#include "mark.h"
#include "mute.h"
#include "param.h"
#include "perm.h"
#include "persist.h"

/**
 * struct fsgate_persistence - what makes a group persistent
 * @name: unique among live groups; never changes
 * @owner: who may attach and remove it besides CAP_SYS_ADMIN
 * @absent_ms: how long permission events wait with nobody attached
 * @absent_verdict: 0 or a negative errno, for @absent_ms past
 * @linger_ms: nobody attached this long: torn down; 0 with @until_removed
 * @until_removed: no linger bound
 * @removed: FSGATE_IOC_REMOVE made it an ordinary group again
 * @detached_at: jiffies when its last fd closed
 * @attaches: FSGATE_IOC_ATTACH calls that gave an fd on it
 * @handovers: those made while another fd was attached
 * @group: the group
 * @work: runs the absent and linger bounds (fsgate_persist_expire())
 *
 * Everything but @removed, @detached_at and the counters is set before
 * the group is made persistent and never changes.
 */
struct fsgate_persistence {
	char name[FSGATE_NAME_MAX];
	kuid_t owner;
	u32 absent_ms;
	int absent_verdict;
	u32 linger_ms;
	bool until_removed;
	bool removed;
	unsigned long detached_at;
	u64 attaches;
	u64 handovers;
	struct fsgate_group *group;
	struct delayed_work work;
};

static unsigned int max_persistent_groups = 32;
module_param_cb(max_persistent_groups, &fsgate_param_limit,
		&max_persistent_groups, 0644);
__MODULE_PARM_TYPE(max_persistent_groups, "uint");
MODULE_PARM_DESC(max_persistent_groups,
		 "Persistent groups there may be at once (32)");

static struct workqueue_struct *fsgate_persist_wq;

/*
 * A name: 1 to FSGATE_NAME_MAX - 1 of [A-Za-z0-9._@:-], a letter or digit
 * first (never an option to a tool, nor /proc/fsgate/groups's "-" for no
 * name), NUL-padded.
 */
static bool fsgate_persist_name_valid(const char *name)
{
	size_t len = strnlen(name, FSGATE_NAME_MAX), i;

	if (!len || len == FSGATE_NAME_MAX || !isalnum(name[0]))
		return false;
	for (i = 1; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._@:-", name[i]))
			return false;
	return !memchr_inv(name + len, 0, FSGATE_NAME_MAX - len);
}

/**
 * fsgate_persist_check() - validate a struct fsgate_persist
 * @req: the request, copied from userspace
 *
 * Context: any.
 * Return: 0, or -EINVAL for unknown flags, a bad name, verdict or errno,
 * a linger bound that %FSGATE_PERSIST_UNTIL_REMOVED does not explain
 * (zero without it, non-zero with it), or non-zero reserved fields.
 */
int fsgate_persist_check(const struct fsgate_persist *req)
{
	bool until_removed = req->flags & FSGATE_PERSIST_UNTIL_REMOVED;

	if (req->flags & ~FSGATE_PERSIST_UNTIL_REMOVED || req->reserved)
		return -EINVAL;
	if (!fsgate_persist_name_valid(req->name))
		return -EINVAL;
	switch (req->absent_verdict) {
	case FSGATE_VERDICT_ALLOW:
		if (req->absent_errno)
			return -EINVAL;
		break;
	case FSGATE_VERDICT_DENY:
		if (req->absent_errno &&
		    !fsgate_deny_errno_valid(req->absent_errno))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (until_removed != !req->linger_ms)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_persist_check);

/* The live persistent group named @name; fsgate_groups_lock held. */
static struct fsgate_group *fsgate_persist_lookup(const char *name)
{
	struct fsgate_group *group;

	lockdep_assert_held(&fsgate_groups_lock);
	list_for_each_entry(group, &fsgate_groups, node)
		if (group->persist && !group->persist->removed &&
		    !group->torn && !strcmp(group->persist->name, name))
			return group;
	return NULL;
}

/* Persistent groups not yet removed; fsgate_groups_lock held. */
static unsigned int fsgate_persist_count(void)
{
	struct fsgate_group *group;
	unsigned int n = 0;

	lockdep_assert_held(&fsgate_groups_lock);
	list_for_each_entry(group, &fsgate_groups, node)
		if (group->persist && !group->persist->removed && !group->torn)
			n++;
	return n;
}

static void fsgate_persist_expire(struct work_struct *work);

/* A struct fsgate_persistence for a checked request, or an ERR_PTR. */
static noinline struct fsgate_persistence *
fsgate_persist_alloc(struct fsgate_group *group,
		     const struct fsgate_persist *req)
{
	struct fsgate_persistence *p;
	kuid_t owner = current_euid();

	if (req->owner != FSGATE_PERSIST_OWNER_SELF) {
		owner = make_kuid(current_user_ns(), req->owner);
		if (!uid_valid(owner))
			return ERR_PTR(-EINVAL);
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	memcpy(p->name, req->name, sizeof(p->name));
	p->owner = owner;
	p->absent_ms = req->absent_ms;
	p->absent_verdict = req->absent_verdict == FSGATE_VERDICT_ALLOW ? 0 :
			    -(int)(req->absent_errno ?: EPERM);
	p->linger_ms = req->linger_ms;
	p->until_removed = req->flags & FSGATE_PERSIST_UNTIL_REMOVED;
	p->group = group;
	INIT_DELAYED_WORK(&p->work, fsgate_persist_expire);
	return p;
}

/**
 * fsgate_persist_set() - FSGATE_IOC_PERSIST: make a group persistent
 * @group: the group of the fd the request came through
 * @req: a request that passed fsgate_persist_check()
 *
 * The group takes a reference to itself and to the module, which
 * fsgate_persist_teardown() drops: the module cannot be unloaded while a
 * persistent group exists.
 *
 * Context: process context, may sleep; takes fsgate_groups_lock. The
 * caller checked CAP_SYS_ADMIN.
 * Return: 0; -EBUSY if the group is persistent already; -EEXIST if
 * another group has the name; -ENOSPC past max_persistent_groups;
 * -EINVAL for an owner with no uid in the caller's user namespace;
 * -ENOMEM.
 */
int fsgate_persist_set(struct fsgate_group *group,
		       const struct fsgate_persist *req)
{
	struct fsgate_persistence *p = fsgate_persist_alloc(group, req);
	int ret = 0;

	if (IS_ERR(p))
		return PTR_ERR(p);
	mutex_lock(&fsgate_groups_lock);
	if (group->persist)
		ret = -EBUSY;
	else if (fsgate_persist_lookup(req->name))
		ret = -EEXIST;
	else if (fsgate_persist_count() >= READ_ONCE(max_persistent_groups))
		ret = -ENOSPC;
	if (!ret) {
		spin_lock(&group->queue_lock);
		group->absent_verdict = p->absent_verdict;
		spin_unlock(&group->queue_lock);
		group->persist = p;
		fsgate_group_get(group);
		__module_get(THIS_MODULE);
	}
	mutex_unlock(&fsgate_groups_lock);
	if (ret)
		kfree(p);
	return ret;
}

/* Whether the current process may attach to or remove @group. */
static bool fsgate_persist_may_manage(const struct fsgate_group *group)
{
	return uid_eq(current_euid(), group->persist->owner) ||
	       capable(CAP_SYS_ADMIN);
}

/*
 * The named group, if the caller may manage it; fsgate_groups_lock held.
 * Another's group is not told apart from none: every user may ask
 * (/dev/fsgate is 0666), and the names of the groups that gate its
 * accesses are for FSGATE_IOC_GROUPS, which needs CAP_SYS_ADMIN.
 */
static struct fsgate_group *fsgate_persist_find(const struct fsgate_attach *req)
{
	struct fsgate_group *group;

	if (strnlen(req->name, FSGATE_NAME_MAX) == FSGATE_NAME_MAX)
		return ERR_PTR(-EINVAL);
	group = fsgate_persist_lookup(req->name);
	if (!group || !fsgate_persist_may_manage(group))
		return ERR_PTR(-ENOENT);
	return group;
}

/**
 * fsgate_persist_attach() - a new fd's hold on a persistent group
 * @req: the request; its @flags are the caller's to check
 *
 * The group counts one more attached fd, and is no longer absent:
 * what it queued meanwhile waits for the new reader. The caller is the
 * process FSGATE_EXCLUDE_SELF leaves out from now on.
 *
 * Context: process context, may sleep; takes fsgate_groups_lock.
 * Return: the group, with a reference for the fd the caller makes (or
 * hands to fsgate_persist_detach() if it cannot); ERR_PTR(-ENOENT) if no
 * live persistent group has the name or the caller is neither its owner
 * nor has CAP_SYS_ADMIN, ERR_PTR(-EINVAL) for a name
 * that is not NUL-terminated, ERR_PTR(-ENOMEM).
 */
struct fsgate_group *fsgate_persist_attach(const struct fsgate_attach *req)
{
	struct fsgate_group *group;
	int ret;

	mutex_lock(&fsgate_groups_lock);
	group = fsgate_persist_find(req);
	if (!IS_ERR(group)) {
		ret = fsgate_group_set_self(group);
		if (ret) {
			group = ERR_PTR(ret);
			goto out_unlock;
		}
		group->persist->attaches++;
		if (group->attached)
			group->persist->handovers++;
		group->attached++;
		fsgate_group_get(group);
		/* Running already, it finds the group attached and stops. */
		cancel_delayed_work(&group->persist->work);
		spin_lock(&group->queue_lock);
		group->absent = false;
		spin_unlock(&group->queue_lock);
	}
out_unlock:
	mutex_unlock(&fsgate_groups_lock);
	return group;
}

/* When, in jiffies, the absent bound of a detached group passes. */
static unsigned long fsgate_persist_absent_at(const struct fsgate_persistence *p)
{
	return p->detached_at + msecs_to_jiffies(p->absent_ms);
}

/* When the linger bound passes; meaningless with @until_removed. */
static unsigned long fsgate_persist_linger_at(const struct fsgate_persistence *p)
{
	return p->detached_at + msecs_to_jiffies(p->linger_ms);
}

/* When the next bound of a group nobody is attached to passes. */
static unsigned long fsgate_persist_next(const struct fsgate_group *group)
{
	const struct fsgate_persistence *p = group->persist;
	unsigned long linger = fsgate_persist_linger_at(p);
	unsigned long absent = fsgate_persist_absent_at(p);

	if (!READ_ONCE(group->absent) && (p->until_removed ||
					  time_before(absent, linger)))
		return absent;
	return linger;
}

/*
 * Make a group nobody is attached to absent: its queued permission
 * events and every access it is asked about get its absent verdict.
 * Return: how many events were resolved, for fsgate_persist_log_absent().
 */
static unsigned int fsgate_persist_go_absent(struct fsgate_group *group)
{
	unsigned int n;

	lockdep_assert_held(&fsgate_groups_lock);
	spin_lock(&group->queue_lock);
	group->absent = true;
	n = fsgate_perm_absent(group, group->absent_verdict);
	spin_unlock(&group->queue_lock);
	return n;
}

static void fsgate_persist_log_absent(struct fsgate_group *group,
				      unsigned int n)
{
	fsgate_group_log(info, group,
			 "\"%s\": nobody attached within %u ms; %u permission events get the absent verdict %s\n",
			 group->persist->name, group->persist->absent_ms, n,
			 fsgate_verdict_name(group->absent_verdict));
}

/* Arm the bounds of a group whose last fd just closed. */
static unsigned int fsgate_persist_start_absence(struct fsgate_group *group)
{
	struct fsgate_persistence *p = group->persist;
	unsigned int n = 0;

	lockdep_assert_held(&fsgate_groups_lock);
	p->detached_at = jiffies;
	if (!p->absent_ms)
		n = fsgate_persist_go_absent(group);
	if (!p->until_removed || !READ_ONCE(group->absent))
		queue_delayed_work(fsgate_persist_wq, &p->work,
				   fsgate_persist_next(group) - jiffies);
	return n;
}

/**
 * fsgate_persist_detach() - a group fd's file is being released
 * @group: its group
 * @file: the file, or NULL for an fd that was never made
 *
 * In a persistent group, what @file read and did not answer is queued
 * again for the group's next reader. If it was the last fd, a persistent
 * group starts waiting for a daemon; any other group is to be torn down.
 * The caller still drops the file's reference.
 *
 * Context: process context, may sleep; takes fsgate_groups_lock.
 * Return: true if the caller must call fsgate_persist_teardown().
 */
bool fsgate_persist_detach(struct fsgate_group *group,
			   const struct file *file)
{
	unsigned int requeued = 0, absent = 0;
	bool teardown = false;

	mutex_lock(&fsgate_groups_lock);
	if (group->persist && file) {
		spin_lock(&group->queue_lock);
		requeued = fsgate_perm_requeue(group, file);
		spin_unlock(&group->queue_lock);
	}
	if (!WARN_ON_ONCE(!group->attached) && !--group->attached &&
	    !group->torn) {
		if (group->persist && !group->persist->removed) {
			absent = fsgate_persist_start_absence(group);
		} else {
			group->torn = true;
			teardown = true;
		}
	}
	mutex_unlock(&fsgate_groups_lock);
	if (requeued)
		wake_up(&group->wq);
	if (absent)
		fsgate_persist_log_absent(group, absent);
	return teardown;
}

/* Tear down, from the work item itself or not. */
static void fsgate_persist_do_teardown(struct fsgate_group *group,
				       bool in_work)
{
	struct fsgate_persistence *p = group->persist;

	fsgate_subs_remove_group(group);
	fsgate_mutes_release(group);
	fsgate_filter_release(group);
	fsgate_event_flush(group);
	fsgate_group_unpublish(group);
	if (!p)
		return;
	fsgate_group_log(info, group, "\"%s\": removed\n", p->name);
	if (!in_work)
		cancel_delayed_work_sync(&p->work);
	fsgate_group_put(group);
	/* fsgate_persist_wq, drained at exit, keeps the module while it runs. */
	module_put(THIS_MODULE);
}

/**
 * fsgate_persist_teardown() - end a group nothing may use any more
 * @group: a group that fsgate_persist_detach() or fsgate_persist_remove()
 *	marked @torn
 *
 * Its marks go, so the event path stops finding it; its mutes and
 * filter are dropped; its queued and pending events are flushed, the
 * permission events among them by its orphan verdict; it leaves the
 * list of groups. A persistent group drops its references to itself and
 * to the module.
 *
 * Context: process context, may sleep; no fsgate locks held.
 */
void fsgate_persist_teardown(struct fsgate_group *group)
{
	fsgate_persist_do_teardown(group, false);
}

/*
 * The bounds of a group nobody is attached to: absent, then torn down
 * past its linger bound, unless a daemon attached or it was torn down
 * meanwhile.
 */
static void fsgate_persist_expire(struct work_struct *work)
{
	struct fsgate_persistence *p = container_of(to_delayed_work(work),
						    struct fsgate_persistence,
						    work);
	struct fsgate_group *group = p->group;
	unsigned long now = jiffies;
	unsigned int absent = 0;
	bool teardown = false;

	mutex_lock(&fsgate_groups_lock);
	if (group->attached || group->torn)
		goto out_unlock;
	if (!p->removed && !READ_ONCE(group->absent) &&
	    !time_before(now, fsgate_persist_absent_at(p)))
		absent = fsgate_persist_go_absent(group);
	if (p->removed || (!p->until_removed &&
			   !time_before(now, fsgate_persist_linger_at(p)))) {
		group->torn = true;
		teardown = true;
	} else if (!READ_ONCE(group->absent) || !p->until_removed) {
		queue_delayed_work(fsgate_persist_wq, &p->work,
				   fsgate_persist_next(group) - now);
	}
out_unlock:
	mutex_unlock(&fsgate_groups_lock);
	if (absent)
		fsgate_persist_log_absent(group, absent);
	if (teardown)
		fsgate_persist_do_teardown(group, true);
}

/**
 * fsgate_persist_remove() - FSGATE_IOC_REMOVE: make a group ordinary again
 * @req: the request, flags checked by the caller
 *
 * A group with no fd is torn down before this returns; one with fds
 * when the last of them closes.
 *
 * Context: process context, may sleep; takes fsgate_groups_lock.
 * Return: 0; -ENOENT or -EINVAL as fsgate_persist_attach().
 */
int fsgate_persist_remove(const struct fsgate_attach *req)
{
	struct fsgate_group *group;
	bool teardown = false;

	mutex_lock(&fsgate_groups_lock);
	group = fsgate_persist_find(req);
	if (!IS_ERR(group)) {
		group->persist->removed = true;
		if (!group->attached) {
			group->torn = true;
			teardown = true;
		}
	}
	mutex_unlock(&fsgate_groups_lock);
	if (IS_ERR(group))
		return PTR_ERR(group);
	if (teardown)
		fsgate_persist_teardown(group);
	return 0;
}

/* Milliseconds from @now until @deadline, 0 once it passed. */
static u32 fsgate_persist_ms_left(unsigned long deadline, unsigned long now)
{
	return time_before(now, deadline) ? jiffies_to_msecs(deadline - now) : 0;
}

/**
 * fsgate_persist_entry_fill() - describe what makes a group persistent
 * @group: a group on fsgate_groups
 * @user_ns: the user namespace its owner's uid is given in
 * @entry: filled by fsgate_group_entry_fill(); its persistent-group
 *	fields are set here
 *
 * A group FSGATE_IOC_REMOVE made ordinary again is described as one that
 * was never persistent: its name is free for another group at once.
 *
 * Context: fsgate_groups_lock held.
 */
void fsgate_persist_entry_fill(const struct fsgate_group *group,
			       struct user_namespace *user_ns,
			       struct fsgate_group_entry *entry)
{
	const struct fsgate_persistence *p = group->persist;
	unsigned long now = jiffies;

	lockdep_assert_held(&fsgate_groups_lock);
	if (!p || p->removed)
		return;
	BUILD_BUG_ON(sizeof(entry->name) != sizeof(p->name));
	memcpy(entry->name, p->name, sizeof(entry->name));
	entry->owner = from_kuid_munged(user_ns, p->owner);
	entry->persist_flags = p->until_removed ?
			       FSGATE_PERSIST_UNTIL_REMOVED : 0;
	entry->absent_ms = p->absent_ms;
	entry->absent_verdict = p->absent_verdict ? FSGATE_VERDICT_DENY :
				FSGATE_VERDICT_ALLOW;
	entry->absent_errno = -p->absent_verdict;
	entry->linger_ms = p->linger_ms;
	entry->attaches = p->attaches;
	entry->handovers = p->handovers;
	if (group->attached)
		return;
	entry->absent_left_ms = READ_ONCE(group->absent) ? 0 :
		fsgate_persist_ms_left(fsgate_persist_absent_at(p), now);
	if (!p->until_removed)
		entry->linger_left_ms =
			fsgate_persist_ms_left(fsgate_persist_linger_at(p), now);
}

/**
 * fsgate_persist_show() - a persistent group's line in its fdinfo
 * @m: the fdinfo
 * @group: the group
 *
 * Context: process context, may sleep; takes fsgate_groups_lock.
 */
void fsgate_persist_show(struct seq_file *m, struct fsgate_group *group)
{
	struct fsgate_persistence *p;

	mutex_lock(&fsgate_groups_lock);
	p = group->persist;
	if (p)
		seq_printf(m, "fsgate-persist name:%s owner:%u absent-ms:%u absent-verdict:%s absent-errno:%d linger-ms:%u attached:%u removed:%u\n",
			   p->name,
			   from_kuid_munged(seq_user_ns(m), p->owner),
			   p->absent_ms, fsgate_verdict_name(p->absent_verdict),
			   -p->absent_verdict, p->linger_ms, group->attached,
			   p->removed);
	mutex_unlock(&fsgate_groups_lock);
}

/**
 * fsgate_persist_init() - make the work queue of the linger bounds
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int fsgate_persist_init(void)
{
	fsgate_persist_wq = alloc_workqueue("fsgate_persist", 0, 0);
	return fsgate_persist_wq ? 0 : -ENOMEM;
}

/**
 * fsgate_persist_exit() - wait for the last work item and free the queue
 *
 * Context: module exit: no persistent group is left, though the work
 * item that tore the last one down may still be returning.
 */
void fsgate_persist_exit(void)
{
	destroy_workqueue(fsgate_persist_wq);
}
