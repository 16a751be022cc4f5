// SPDX-License-Identifier: GPL-2.0
/*
 * Muting (layer 0, calls nothing of fsgate's): which accesses a group is
 * neither told of nor asked about, decided before any event is made, so
 * that a scanner's workers and updater, or an allowlisting daemon's
 * helpers, cost no round trip. An entry names a process (and, if asked,
 * what it forks from then on), a program (device and inode: any process
 * running it), an effective uid or a cgroup v2 (and the cgroups below
 * it), or a program run as one effective uid. In FSGATE_MUTE_MODE_ONLY
 * the group sees only what matches.
 *
 * A program entry matches mm->exe_file, which is what the process was
 * started from, not the code it runs (LD_PRELOAD, a command it is told
 * to run, the exec it is in the middle of), and which a user can set in
 * a user namespace of its own (prctl(PR_SET_MM_MAP)). So program
 * entries never hide a FAN_OPEN_EXEC_PERM event: whatever a muted
 * program starts is asked.
 *
 * The same ancestry walk decides FSGATE_EXCLUDE_SELF: the group's
 * creating process and what it forks after making the group
 * (fsgate_current_descends()).
 *
 * Locking: a group's mutes (struct fsgate_mutes) are never changed once
 * published in its @mutes: each change copies them under
 * fsgate_mute_mutex (a mutex, taken alone: see mark.c for the module's
 * lock order), publishes the copy and frees the old one after an RCU
 * grace period, then putting its pids (module exit waits for that:
 * main.c). The event path reads them under rcu_read_lock() and only
 * compares the pids' addresses, which cannot be reused while an entry
 * holds its reference.
 */
#include <linux/bsearch.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "cache.h"
#include "group.h"
#include "mute.h"
#include "param.h"
#include "who.h"

static unsigned int max_mutes = 1024;
module_param_cb(max_mutes, &fsgate_param_limit, &max_mutes, 0644);
__MODULE_PARM_TYPE(max_mutes, "uint");
MODULE_PARM_DESC(max_mutes, "Mute entries one group may have (1024)");

/* Serialises changes to every group's mutes; see above. */
static DEFINE_MUTEX(fsgate_mute_mutex);

/**
 * fsgate_current_descends() - whether the current process is, or was
 * forked by, a given one
 * @tgid: the ancestor process
 * @since: fsgate_clock_past() when the rule was made: children forked
 *	from then on count
 *
 * True for @tgid's own threads, and for a process whose line of parents
 * reaches @tgid through a child that @tgid forked at @since or later (a
 * child forked before, and what that child forks, do not count). A
 * process whose parent died was given to another (init, a subreaper)
 * and no longer descends.
 *
 * Context: rcu_read_lock() held.
 * Return: whether the current process is @tgid or such a descendant.
 */
bool fsgate_current_descends(const struct pid *tgid, u64 since)
{
	struct task_struct *t = current, *parent;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	if (task_tgid(t) == tgid)
		return true;
	/* The first task's own parent is itself. */
	for (; (parent = rcu_dereference(t->real_parent)) != t; t = parent)
		if (task_tgid(parent) == tgid)
			return READ_ONCE(t->group_leader)->start_time >= since;
	return false;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_current_descends);

/* Order of rules: by type, then key, then device, then uid. */
static int fsgate_mute_rule_cmp(const void *a, const void *b)
{
	const struct fsgate_mute_rule *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return 0;
}

static const struct fsgate_mute_rule *
fsgate_mutes_find(const struct fsgate_mutes *mutes, u32 type, u64 key, u64 dev,
		  u32 uid)
{
	const struct fsgate_mute_rule want = {
		.type = type,
		.key = key,
		.dev = dev,
		.uid = uid,
	};

	return bsearch(&want, mutes->rules, mutes->n, sizeof(want),
		       fsgate_mute_rule_cmp);
}

/* The key of a process entry: its struct pid, which is unique while held. */
static u64 fsgate_pid_key(const struct pid *pid)
{
	return (unsigned long)pid;
}

/* Fill in @facts about the current process. */
static void fsgate_facts_get(struct fsgate_facts *facts)
{
	struct inode *exe = fsgate_current_exe();

	facts->tgid = task_tgid(current);
	facts->euid = current_euid();
	facts->has_exe = exe;
	if (exe) {
		facts->exe_dev = exe->i_sb->s_dev;
		facts->exe_ino = exe->i_ino;
	}
	facts->valid = true;
}

/* Whether a process entry with FSGATE_MUTE_DESCENDANTS covers current. */
static bool fsgate_mutes_forked(const struct fsgate_mutes *mutes)
{
	const struct fsgate_mute_rule *rule;
	struct task_struct *t = current, *parent;

	for (; (parent = rcu_dereference(t->real_parent)) != t; t = parent) {
		rule = fsgate_mutes_find(mutes, FSGATE_MUTE_PROCESS,
					 fsgate_pid_key(task_tgid(parent)), 0,
					 0);
		if (rule && (rule->flags & FSGATE_MUTE_DESCENDANTS) &&
		    READ_ONCE(t->group_leader)->start_time >= rule->since)
			return true;
	}
	return false;
}

/* Whether the current process's cgroup v2, or one above it, is muted. */
static bool fsgate_mutes_cgroup(const struct fsgate_mutes *mutes)
{
	struct cgroup *cgrp;

	for (cgrp = fsgate_compat_current_cgroup(); cgrp;
	     cgrp = cgroup_parent(cgrp))
		if (fsgate_mutes_find(mutes, FSGATE_MUTE_CGROUP,
				      cgroup_id(cgrp), 0, 0))
			return true;
	return false;
}

/*
 * Whether an entry of @mutes names the current process; program entries
 * are consulted only if @programs.
 */
static bool fsgate_mutes_match(const struct fsgate_mutes *mutes,
			       struct fsgate_facts *facts, bool programs)
{
	u32 euid;

	if (!facts->valid)
		fsgate_facts_get(facts);
	euid = from_kuid(&init_user_ns, facts->euid);
	if (fsgate_mutes_find(mutes, FSGATE_MUTE_PROCESS,
			      fsgate_pid_key(facts->tgid), 0, 0))
		return true;
	if (mutes->descendants && fsgate_mutes_forked(mutes))
		return true;
	if (fsgate_mutes_find(mutes, FSGATE_MUTE_UID, euid, 0, 0))
		return true;
	if (programs && facts->has_exe &&
	    (fsgate_mutes_find(mutes, FSGATE_MUTE_EXE, facts->exe_ino,
			       facts->exe_dev, 0) ||
	     fsgate_mutes_find(mutes, FSGATE_MUTE_EXE_UID, facts->exe_ino,
			       facts->exe_dev, euid)))
		return true;
	return fsgate_mutes_cgroup(mutes);
}

/**
 * fsgate_mutes_hide() - whether a group's mutes hide the current access
 * @group: the group
 * @facts: about the current process; filled in on first use, so that
 *	an event's groups share them
 * @report: the FAN_* bits the group would be told or asked of
 *
 * Program entries do not hide a %FAN_OPEN_EXEC_PERM event (in
 * %FSGATE_MUTE_MODE_ONLY they show it as any other): during an exec the
 * process still has the program that started it, so a muted program's
 * exec of any other would go unasked.
 *
 * Costs one pointer load for a group without mutes.
 *
 * Context: rcu_read_lock() held, in the accessing process.
 * Return: true when the group must neither be told nor asked.
 */
bool fsgate_mutes_hide(const struct fsgate_group *group,
		       struct fsgate_facts *facts, u32 report)
{
	const struct fsgate_mutes *mutes = rcu_dereference(group->mutes);
	bool programs;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	if (!mutes)
		return false;
	programs = mutes->only || !(report & FAN_OPEN_EXEC_PERM);
	return fsgate_mutes_match(mutes, facts, programs) != mutes->only;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mutes_hide);

static void fsgate_mutes_free_rcu(struct rcu_head *rcu)
{
	struct fsgate_mutes *mutes = container_of(rcu, struct fsgate_mutes,
						  rcu);
	unsigned int i;

	for (i = 0; i < mutes->n; i++)
		put_pid(mutes->rules[i].pid);
	kfree(mutes);
}

static void fsgate_mutes_free(struct fsgate_mutes *mutes)
{
	if (mutes)
		call_rcu(&mutes->rcu, fsgate_mutes_free_rcu);
}

/*
 * An unpublished copy of @old (NULL: none) with room for @extra more
 * rules; NULL without memory.
 */
static noinline struct fsgate_mutes *
fsgate_mutes_copy(const struct fsgate_mutes *old, unsigned int extra)
{
	unsigned int i, n = old ? old->n : 0;
	struct fsgate_mutes *mutes;

	mutes = kzalloc(struct_size(mutes, rules, n + extra),
			GFP_KERNEL_ACCOUNT);
	if (!mutes)
		return NULL;
	if (!old)
		return mutes;
	mutes->only = old->only;
	mutes->descendants = old->descendants;
	mutes->n = n;
	memcpy(mutes->rules, old->rules, n * sizeof(old->rules[0]));
	for (i = 0; i < n; i++)
		get_pid(mutes->rules[i].pid);
	return mutes;
}

/* Publish @mutes (NULL: none) as @group's; the old ones go after a grace period. */
static void fsgate_mutes_publish(struct fsgate_group *group,
				 struct fsgate_mutes *mutes)
{
	struct fsgate_mutes *old;

	lockdep_assert_held(&fsgate_mute_mutex);
	old = rcu_replace_pointer(group->mutes, mutes,
				  lockdep_is_held(&fsgate_mute_mutex));
	/* Whom an access asks depends on it: see consensus.c. */
	fsgate_interest_changed();
	fsgate_mutes_free(old);
}

static struct fsgate_mutes *fsgate_mutes_locked(struct fsgate_group *group)
{
	return rcu_dereference_protected(group->mutes,
					 lockdep_is_held(&fsgate_mute_mutex));
}

/**
 * fsgate_mute_entry_check() - validate an entry from userspace
 * @entry: the entry, copied in
 *
 * Context: any.
 * Return: 0, or -EINVAL for an unknown type or flag, a flag the type
 * does not take, a device for anything but a program, a uid for
 * anything but a program run as a uid, a device that a dev_t cannot
 * hold, or a non-zero reserved field.
 */
int fsgate_mute_entry_check(const struct fsgate_mute_entry *entry)
{
	bool program = entry->type == FSGATE_MUTE_EXE ||
		       entry->type == FSGATE_MUTE_EXE_UID;

	if (entry->reserved || entry->flags & ~FSGATE_MUTE_ENTRY_FLAGS)
		return -EINVAL;
	if (entry->type != FSGATE_MUTE_PROCESS && entry->flags)
		return -EINVAL;
	if (!program && entry->dev)
		return -EINVAL;
	if (entry->type != FSGATE_MUTE_EXE_UID && entry->uid)
		return -EINVAL;
	switch (entry->type) {
	case FSGATE_MUTE_PROCESS:
		return entry->id && entry->id <= PID_MAX_LIMIT ? 0 : -EINVAL;
	case FSGATE_MUTE_EXE:
	case FSGATE_MUTE_EXE_UID:
		return entry->id && entry->dev <= U32_MAX ? 0 : -EINVAL;
	case FSGATE_MUTE_UID:
		return entry->id <= U32_MAX ? 0 : -EINVAL;
	case FSGATE_MUTE_CGROUP:
		return entry->id ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mute_entry_check);

/*
 * Turn a checked entry into a rule (a process referenced), as the
 * caller names things: its pid and user namespaces.
 */
static int fsgate_mute_rule_make(const struct fsgate_mute_entry *entry,
				 struct fsgate_mute_rule *rule)
{
	kuid_t uid;

	*rule = (struct fsgate_mute_rule){
		.type = entry->type,
		.flags = entry->flags,
		.key = entry->id,
	};
	switch (entry->type) {
	case FSGATE_MUTE_PROCESS:
		rule->pid = find_get_pid(entry->id);
		if (!rule->pid)
			return -ESRCH;
		if (!pid_has_task(rule->pid, PIDTYPE_TGID)) {
			put_pid(rule->pid);
			return -ESRCH;
		}
		rule->key = fsgate_pid_key(rule->pid);
		rule->since = fsgate_clock_past(ktime_get_ns);
		return 0;
	case FSGATE_MUTE_EXE_UID:
		uid = make_kuid(current_user_ns(), entry->uid);
		if (!uid_valid(uid))
			return -EINVAL;
		rule->uid = from_kuid(&init_user_ns, uid);
		fallthrough;
	case FSGATE_MUTE_EXE:
		rule->dev = new_decode_dev(entry->dev);
		return 0;
	case FSGATE_MUTE_UID:
		uid = make_kuid(current_user_ns(), entry->id);
		if (!uid_valid(uid))
			return -EINVAL;
		rule->key = from_kuid(&init_user_ns, uid);
		return 0;
	default:
		return fsgate_compat_cgroup_check(entry->id);
	}
}

/* Insert @rule into @mutes, which has room, keeping the order. */
static void fsgate_mutes_insert(struct fsgate_mutes *mutes,
				const struct fsgate_mute_rule *rule)
{
	unsigned int i = mutes->n;

	while (i && fsgate_mute_rule_cmp(&mutes->rules[i - 1], rule) > 0) {
		mutes->rules[i] = mutes->rules[i - 1];
		i--;
	}
	mutes->rules[i] = *rule;
	mutes->n++;
	if (rule->flags & FSGATE_MUTE_DESCENDANTS)
		mutes->descendants++;
}

/**
 * fsgate_mute_add() - add an entry to a group's mutes
 * @group: the group
 * @entry: checked by fsgate_mute_entry_check()
 *
 * Context: process context, may sleep; takes fsgate_mute_mutex.
 * Return: 0; -ESRCH for a process that does not exist; -ENOENT for a
 * cgroup that does not exist (in the caller's cgroup namespace);
 * -EOPNOTSUPP for a cgroup on a kernel without cgroups; -EINVAL for a
 * uid the caller's namespace does not map; -EEXIST for an entry the
 * group has; -ENOSPC past max_mutes; -ENOMEM.
 */
int fsgate_mute_add(struct fsgate_group *group,
		    const struct fsgate_mute_entry *entry)
{
	struct fsgate_mutes *old, *mutes;
	struct fsgate_mute_rule rule;
	int ret;

	ret = fsgate_mute_rule_make(entry, &rule);
	if (ret)
		return ret;
	mutex_lock(&fsgate_mute_mutex);
	old = fsgate_mutes_locked(group);
	ret = -EEXIST;
	if (old && fsgate_mutes_find(old, rule.type, rule.key, rule.dev,
				     rule.uid))
		goto out_unlock;
	ret = -ENOSPC;
	if ((old ? old->n : 0) >= READ_ONCE(max_mutes))
		goto out_unlock;
	ret = -ENOMEM;
	mutes = fsgate_mutes_copy(old, 1);
	if (!mutes)
		goto out_unlock;
	fsgate_mutes_insert(mutes, &rule);
	rule.pid = NULL;	/* the published copy holds it now */
	fsgate_mutes_publish(group, mutes);
	ret = 0;
out_unlock:
	mutex_unlock(&fsgate_mute_mutex);
	put_pid(rule.pid);
	return ret;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mute_add);

/* Whether @rule is what @entry names, as the caller would list it. */
static bool fsgate_mute_rule_is(const struct fsgate_mute_rule *rule,
				const struct fsgate_mute_entry *entry)
{
	if (rule->type != entry->type)
		return false;
	switch (rule->type) {
	case FSGATE_MUTE_PROCESS:
		/* By number: the process may be gone, its number with it. */
		return pid_vnr(rule->pid) == entry->id;
	case FSGATE_MUTE_EXE_UID:
		if (from_kuid(current_user_ns(),
			      make_kuid(&init_user_ns, rule->uid)) != entry->uid)
			return false;
		fallthrough;
	case FSGATE_MUTE_EXE:
		return rule->key == entry->id &&
		       rule->dev == new_decode_dev(entry->dev);
	case FSGATE_MUTE_UID:
		return from_kuid(current_user_ns(),
				 make_kuid(&init_user_ns, rule->key)) == entry->id;
	default:
		return rule->key == entry->id;
	}
}

/**
 * fsgate_mute_remove() - remove an entry from a group's mutes
 * @group: the group
 * @entry: checked by fsgate_mute_entry_check(); its flags are ignored
 *
 * A process entry is found by the number the caller would list, so one
 * whose process is gone can still be removed.
 *
 * Context: process context, may sleep; takes fsgate_mute_mutex.
 * Return: 0, -ENOENT when the group has no such entry, or -ENOMEM.
 */
int fsgate_mute_remove(struct fsgate_group *group,
		       const struct fsgate_mute_entry *entry)
{
	struct fsgate_mutes *old, *mutes;
	unsigned int i, n = 0;
	int ret = -ENOENT;

	mutex_lock(&fsgate_mute_mutex);
	old = fsgate_mutes_locked(group);
	for (i = 0; old && i < old->n; i++)
		n += fsgate_mute_rule_is(&old->rules[i], entry);
	if (!n)
		goto out_unlock;
	ret = -ENOMEM;
	mutes = fsgate_mutes_copy(NULL, old->n - n);
	if (!mutes)
		goto out_unlock;
	mutes->only = old->only;
	for (i = 0; i < old->n; i++) {
		if (fsgate_mute_rule_is(&old->rules[i], entry))
			continue;
		get_pid(old->rules[i].pid);
		fsgate_mutes_insert(mutes, &old->rules[i]);
	}
	fsgate_mutes_publish(group, mutes);
	ret = 0;
out_unlock:
	mutex_unlock(&fsgate_mute_mutex);
	return ret;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mute_remove);

/**
 * fsgate_mute_set_mode() - mute what the entries name, or all but that
 * @group: the group
 * @mode: FSGATE_MUTE_MODE_MUTE or FSGATE_MUTE_MODE_ONLY
 *
 * In FSGATE_MUTE_MODE_ONLY, a group without entries sees nothing.
 *
 * Context: process context, may sleep; takes fsgate_mute_mutex.
 * Return: 0, -EINVAL for an unknown mode, or -ENOMEM.
 */
int fsgate_mute_set_mode(struct fsgate_group *group, u32 mode)
{
	bool only = mode == FSGATE_MUTE_MODE_ONLY;
	struct fsgate_mutes *old, *mutes;
	int ret = 0;

	if (mode != FSGATE_MUTE_MODE_MUTE && !only)
		return -EINVAL;
	mutex_lock(&fsgate_mute_mutex);
	old = fsgate_mutes_locked(group);
	if ((old && old->only) == only)
		goto out_unlock;
	/* Muting nothing is no mutes at all: the event path skips them. */
	if (mode == FSGATE_MUTE_MODE_MUTE && !old->n) {
		fsgate_mutes_publish(group, NULL);
		goto out_unlock;
	}
	ret = -ENOMEM;
	mutes = fsgate_mutes_copy(old, 0);
	if (!mutes)
		goto out_unlock;
	mutes->only = only;
	fsgate_mutes_publish(group, mutes);
	ret = 0;
out_unlock:
	mutex_unlock(&fsgate_mute_mutex);
	return ret;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mute_set_mode);

/**
 * fsgate_mutes_clear() - remove every entry of a group's mutes
 * @group: the group; its mode stays, so in FSGATE_MUTE_MODE_ONLY it then
 *	sees nothing
 *
 * Context: process context, may sleep; takes fsgate_mute_mutex.
 * Return: 0, or -ENOMEM (the entries stay).
 */
int fsgate_mutes_clear(struct fsgate_group *group)
{
	struct fsgate_mutes *old, *mutes = NULL;
	int ret = 0;

	mutex_lock(&fsgate_mute_mutex);
	old = fsgate_mutes_locked(group);
	if (old && old->only) {
		mutes = fsgate_mutes_copy(NULL, 0);
		if (mutes)
			mutes->only = true;
		else
			ret = -ENOMEM;
	}
	if (!ret)
		fsgate_mutes_publish(group, mutes);
	mutex_unlock(&fsgate_mute_mutex);
	return ret;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mutes_clear);

/**
 * fsgate_mutes_release() - drop a group's mutes as it goes away
 * @group: the group, whose fd is being released
 *
 * Context: process context, may sleep; takes fsgate_mute_mutex.
 */
void fsgate_mutes_release(struct fsgate_group *group)
{
	mutex_lock(&fsgate_mute_mutex);
	fsgate_mutes_publish(group, NULL);
	mutex_unlock(&fsgate_mute_mutex);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mutes_release);

/* @rule as the caller names things: its pid and user namespaces. */
static void fsgate_mute_rule_entry(const struct fsgate_mute_rule *rule,
				   struct fsgate_mute_entry *entry)
{
	*entry = (struct fsgate_mute_entry){
		.type = rule->type,
		.flags = rule->flags,
		.id = rule->key,
	};
	switch (rule->type) {
	case FSGATE_MUTE_PROCESS:
		entry->id = pid_vnr(rule->pid);
		break;
	case FSGATE_MUTE_EXE_UID:
		entry->uid = from_kuid_munged(current_user_ns(),
					      make_kuid(&init_user_ns,
							rule->uid));
		fallthrough;
	case FSGATE_MUTE_EXE:
		entry->dev = new_encode_dev(rule->dev);
		break;
	case FSGATE_MUTE_UID:
		entry->id = from_kuid_munged(current_user_ns(),
					     make_kuid(&init_user_ns, rule->key));
		break;
	}
}

/**
 * fsgate_mutes_list() - a group's mutes, as the caller names things
 * @group: the group
 * @entries: filled with up to @room entries, in fsgate's order
 * @room: entries @entries holds
 * @count: set to how many entries the group has
 * @mode: set to the group's FSGATE_MUTE_MODE_*
 *
 * Context: process context, may sleep; takes fsgate_mute_mutex.
 * Return: how many entries were filled in.
 */
int fsgate_mutes_list(struct fsgate_group *group,
		      struct fsgate_mute_entry *entries, u32 room,
		      u32 *count, u32 *mode)
{
	const struct fsgate_mutes *mutes;
	unsigned int i;

	mutex_lock(&fsgate_mute_mutex);
	mutes = fsgate_mutes_locked(group);
	*count = mutes ? mutes->n : 0;
	*mode = mutes && mutes->only ? FSGATE_MUTE_MODE_ONLY :
				       FSGATE_MUTE_MODE_MUTE;
	for (i = 0; i < *count && i < room; i++)
		fsgate_mute_rule_entry(&mutes->rules[i], &entries[i]);
	mutex_unlock(&fsgate_mute_mutex);
	return i;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mutes_list);
