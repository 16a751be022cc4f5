// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/fsgate (layer 4, calls user.c): the misc device through which
 * listener groups are made (FSGATE_IOC_INIT), the module says what it
 * offers (FSGATE_IOC_VERSION), lists its groups (FSGATE_IOC_GROUPS,
 * calling group.c), and persistent groups are attached to
 * (FSGATE_IOC_ATTACH, through user.c) and removed (FSGATE_IOC_REMOVE,
 * calling persist.c); everything else happens on a group fd. Every user
 * may open it (mode 0666): what needs a privilege checks it here or on
 * the group (CAP_SYS_ADMIN, or a persistent group's owner).
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/fsgate.h>

#include "dev.h"
#include "group.h"
#include "persist.h"
#include "user.h"

/*
 * As fanotify_init(2) without CAP_SYS_ADMIN: the flags it keeps for
 * CAP_SYS_ADMIN (permission classes, FSGATE_REPORT_TID, unlimited queue
 * or marks, and FSGATE_REPORT_FD_ERROR, as 6.12's fanotify) and fsgate's
 * own that reach beyond the caller's files (FSGATE_EXCLUDE_SELF and the
 * permission and process records). FSGATE_ENABLE_AUDIT is
 * CAP_AUDIT_WRITE's, checked later as fanotify does; unknown flags are
 * fsgate_init_check()'s -EINVAL.
 */
#define FSGATE_ADMIN_INIT_FLAGS	(FSGATE_INIT_FLAGS & \
				 ~(FSGATE_USER_INIT_FLAGS | FSGATE_ENABLE_AUDIT))

/*
 * Whether a caller without CAP_SYS_ADMIN may make the group @init asks
 * for: a notification group reporting file handles, as fanotify's
 * unprivileged groups, with none of fsgate's own settings (an explicit
 * priority, timeouts, verdicts), which order or bound other users'
 * accesses.
 */
static int fsgate_init_unpriv_check(const struct fsgate_init *init)
{
	if ((init->flags & FSGATE_ADMIN_INIT_FLAGS) ||
	    !(init->flags & FSGATE_REPORT_FID_BITS))
		return -EPERM;
	if (init->priority != FSGATE_PRIORITY_DEFAULT || init->timeout_ms ||
	    init->max_wait_ms ||
	    init->timeout_verdict != FSGATE_VERDICT_DEFAULT ||
	    init->orphan_verdict != FSGATE_VERDICT_DEFAULT)
		return -EPERM;
	return 0;
}

/**
 * fsgate_ioctl_init() - FSGATE_IOC_INIT: create a listener group
 * @arg: userspace pointer to a struct fsgate_init
 *
 * Anyone may ask, as anyone may call fanotify_init(2). Without
 * CAP_SYS_ADMIN only an unprivileged group can be had, with fanotify's
 * limits (see fsgate_init_unpriv_check() and struct fsgate_group's
 * @unpriv). %FSGATE_ENABLE_AUDIT needs CAP_AUDIT_WRITE, as
 * FAN_ENABLE_AUDIT does.
 *
 * Context: process context, may sleep.
 * Return: the new group fd; -EPERM without CAP_SYS_ADMIN for anything
 * but a notification group with FID reporting and default priority,
 * timeouts and verdicts, for %FSGATE_ENABLE_AUDIT without
 * CAP_AUDIT_WRITE, or for %FSGATE_TIMEOUT_NONE unless
 * allow_unbounded_waits is set; -EFAULT if @arg cannot be read; -EINVAL
 * for unknown flags (%FSGATE_ENABLE_AUDIT on a kernel without audit), a
 * bad priority or verdict, or non-zero reserved fields; -EMFILE past
 * max_groups for the caller's uid; -ENOMEM.
 */
static long fsgate_ioctl_init(void __user *arg)
{
	struct fsgate_init init;
	bool unpriv = !capable(CAP_SYS_ADMIN);
	int ret;

	if (copy_from_user(&init, arg, sizeof(init)))
		return -EFAULT;
	if (unpriv) {
		ret = fsgate_init_unpriv_check(&init);
		if (ret)
			return ret;
	}
	return fsgate_group_create(&init, unpriv);
}

/**
 * fsgate_ioctl_attach() - FSGATE_IOC_ATTACH: an fd on a persistent group
 * @arg: userspace pointer to a struct fsgate_attach
 *
 * Whoever may open /dev/fsgate may ask; the group's owner or
 * CAP_SYS_ADMIN is needed to attach (fsgate_persist_attach()).
 *
 * Context: process context, may sleep.
 * Return: the new group fd; -EFAULT if @arg cannot be read; what
 * fsgate_group_attach() returns.
 */
static long fsgate_ioctl_attach(void __user *arg)
{
	struct fsgate_attach req;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	return fsgate_group_attach(&req);
}

/**
 * fsgate_ioctl_remove() - FSGATE_IOC_REMOVE: make a persistent group
 *	ordinary, so that it goes with its last fd
 * @arg: userspace pointer to a struct fsgate_attach, @flags zero
 *
 * Whoever may open /dev/fsgate may ask; only the group's owner or a
 * caller with CAP_SYS_ADMIN may remove it (fsgate_persist_remove()).
 *
 * Context: process context, may sleep.
 * Return: 0; -EFAULT if @arg cannot be read; -EINVAL for flags or
 * non-zero reserved fields; what fsgate_persist_remove() returns.
 */
static long fsgate_ioctl_remove(void __user *arg)
{
	struct fsgate_attach req;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved32)
		return -EINVAL;
	return fsgate_persist_remove(&req);
}

/* What this module offers on every kernel; see FSGATE_IOC_VERSION. */
#define FSGATE_FEATURES	(FSGATE_FEATURE_DENY_ERRNO | FSGATE_FEATURE_CACHE | \
			 FSGATE_FEATURE_EXCLUDE_SELF | \
			 FSGATE_FEATURE_MOUNT_MARKS | FSGATE_FEATURE_STATS | \
			 FSGATE_FEATURE_REPORT_PERM | \
			 FSGATE_FEATURE_REPORT_PROC | FSGATE_FEATURE_EXTEND | \
			 FSGATE_FEATURE_VERSION | FSGATE_FEATURE_CACHE_FLUSH | \
			 FSGATE_FEATURE_MUTE | FSGATE_FEATURE_CHAIN_CEILING | \
			 FSGATE_FEATURE_FILTER | FSGATE_FEATURE_GROUPS | \
			 FSGATE_FEATURE_FILTER_PROC | \
			 FSGATE_FEATURE_MARK_IGNORE | \
			 FSGATE_FEATURE_MARK_EVICTABLE | \
			 FSGATE_FEATURE_REPORT_FID | \
			 FSGATE_FEATURE_MUTE_EXE_UID | FSGATE_FEATURE_PERSIST | \
			 FSGATE_FEATURE_GROUPS_PERSIST | \
			 FSGATE_FEATURE_REPORT_FD_ERROR | FSGATE_FEATURE_UNPRIV | \
			 FSGATE_FEATURE_FS_ERROR | \
			 FSGATE_FEATURE_GROUPS_VER2)

/* What it offers on kernels that have it (compat.h). */
#define FSGATE_FEATURES_KERNEL	(FSGATE_FEATURE_AUDIT | FSGATE_FEATURE_AUDIT_RULE)

/* The bits of FSGATE_FEATURES_KERNEL this kernel has. */
static u64 fsgate_kernel_features(void)
{
	u64 features = 0;

	if (FSGATE_COMPAT_AUDIT)
		features |= FSGATE_FEATURE_AUDIT;
	if (FSGATE_COMPAT_AUDIT_RULE)
		features |= FSGATE_FEATURE_AUDIT_RULE;
	return features;
}

/**
 * fsgate_ioctl_version() - FSGATE_IOC_VERSION: the ABI version and features
 * @arg: userspace pointer to a struct fsgate_version
 *
 * Context: process context.
 * Return: 0, or -EFAULT if @arg cannot be written.
 */
static long fsgate_ioctl_version(void __user *arg)
{
	struct fsgate_version v = {
		.abi = FSGATE_ABI_VERSION,
		.features = FSGATE_FEATURES | fsgate_kernel_features(),
	};

	/* A new feature bit needs a review of FSGATE_FEATURES and the docs. */
	BUILD_BUG_ON(hweight64(FSGATE_FEATURES | FSGATE_FEATURES_KERNEL) != 27);
	BUILD_BUG_ON(FSGATE_FEATURES & FSGATE_FEATURES_KERNEL);
	strscpy(v.version, FSGATE_VERSION, sizeof(v.version));
	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

/* Fields appended to struct fsgate_group_entry keep the first ones. */
static_assert(offsetof(struct fsgate_group_entry, name) ==
	      FSGATE_GROUP_ENTRY_SIZE_VER0);
static_assert(offsetof(struct fsgate_group_entry, timeout_ms) ==
	      FSGATE_GROUP_ENTRY_SIZE_VER1);
static_assert(sizeof(struct fsgate_group_entry) == FSGATE_GROUP_ENTRY_SIZE_VER2);
static_assert(sizeof(struct fsgate_group_entry) % 8 == 0);
static_assert(sizeof(struct fsgate_groups) == 40);

/* The largest record FSGATE_IOC_GROUPS takes: a page, as FSGATE_IOC_MUTE. */
#define FSGATE_GROUP_ENTRY_SIZE_MAX	4096

/* Validate a struct fsgate_groups; see fsgate_ioctl_groups(). */
static int fsgate_groups_check(const struct fsgate_groups *req)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(req->reserved); i++)
		if (req->reserved[i])
			return -EINVAL;
	if (req->flags || req->reserved32)
		return -EINVAL;
	if (req->size < FSGATE_GROUP_ENTRY_SIZE_VER0 ||
	    req->size > FSGATE_GROUP_ENTRY_SIZE_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Describe the first @room live groups into @entries, in asking order.
 * Return: how many groups there are, which may be more than @room.
 */
static unsigned int fsgate_groups_describe(struct fsgate_group_entry *entries,
					   unsigned int room,
					   struct pid_namespace *pid_ns,
					   struct user_namespace *user_ns)
{
	struct fsgate_group *group;
	unsigned int n = 0;

	mutex_lock(&fsgate_groups_lock);
	list_for_each_entry(group, &fsgate_groups, node) {
		if (n < room) {
			fsgate_group_entry_fill(group, pid_ns, user_ns,
						&entries[n]);
			fsgate_persist_entry_fill(group, user_ns, &entries[n]);
		}
		n++;
	}
	mutex_unlock(&fsgate_groups_lock);
	return n;
}

/*
 * Copy @n entries out as records of @size bytes each: as much of each
 * entry as the caller's record holds, and zeroes past the entry.
 */
static int fsgate_groups_copy_out(void __user *out, u32 size,
				  const struct fsgate_group_entry *entries,
				  unsigned int n)
{
	size_t part = min_t(size_t, size, sizeof(*entries));
	unsigned int i;

	for (i = 0; i < n; i++, out += size) {
		if (copy_to_user(out, &entries[i], part))
			return -EFAULT;
		if (clear_user(out + part, size - part))
			return -EFAULT;
	}
	return 0;
}

/**
 * fsgate_ioctl_groups() - FSGATE_IOC_GROUPS: every group, in asking order
 * @arg: userspace pointer to a struct fsgate_groups
 *
 * Needs CAP_SYS_ADMIN, as reading /proc/fsgate/groups needs root: the
 * list names every daemon that gates files and counts every user's
 * accesses. Pids are the caller's pid namespace's and uids its user
 * namespace's. The groups are described into a kernel buffer of at most
 * as many entries as there are groups (and the caller has room for) and
 * copied out once fsgate_groups_lock is dropped.
 *
 * Context: process context, may sleep.
 * Return: how many groups there are, of which the first @count were
 * copied out (all, if the return is not above @count); -EPERM without
 * CAP_SYS_ADMIN; -EFAULT if @arg or the records cannot be read or
 * written; -EINVAL for a record size below %FSGATE_GROUP_ENTRY_SIZE_VER0
 * or above a page, flags or non-zero reserved fields; -ENOMEM.
 */
static noinline long fsgate_ioctl_groups(void __user *arg)
{
	struct user_namespace *user_ns = current_user_ns();
	struct pid_namespace *pid_ns = task_active_pid_ns(current);
	struct fsgate_group_entry *entries;
	struct fsgate_groups req;
	unsigned int room, n;
	long ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	ret = fsgate_groups_check(&req);
	if (ret)
		return ret;
	/* Bounded by the groups there are, not by what the caller asks. */
	room = min(req.count, fsgate_groups_describe(NULL, 0, pid_ns, user_ns));
	entries = kvcalloc(room, sizeof(*entries), GFP_KERNEL);
	if (room && !entries)
		return -ENOMEM;
	n = fsgate_groups_describe(entries, room, pid_ns, user_ns);
	ret = fsgate_groups_copy_out(u64_to_user_ptr(req.entries), req.size,
				     entries, min(room, n));
	kvfree(entries);
	return ret ?: n;
}

static long fsgate_dev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	switch (cmd) {
	case FSGATE_IOC_INIT:
		return fsgate_ioctl_init((void __user *)arg);
	case FSGATE_IOC_VERSION:
		return fsgate_ioctl_version((void __user *)arg);
	case FSGATE_IOC_GROUPS:
		return fsgate_ioctl_groups((void __user *)arg);
	case FSGATE_IOC_ATTACH:
		return fsgate_ioctl_attach((void __user *)arg);
	case FSGATE_IOC_REMOVE:
		return fsgate_ioctl_remove((void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations fsgate_dev_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= fsgate_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice fsgate_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "fsgate",
	.fops	= &fsgate_dev_fops,
	/*
	 * Everyone's, as fanotify_init(2) is since Linux 5.13: each ioctl
	 * checks the privilege what it does needs, itself.
	 */
	.mode	= 0666,
};

/**
 * fsgate_dev_init() - register /dev/fsgate
 *
 * Context: module init.
 * Return: 0 or a negative errno from misc_register().
 */
int fsgate_dev_init(void)
{
	return misc_register(&fsgate_miscdev);
}

/**
 * fsgate_dev_exit() - unregister /dev/fsgate
 *
 * Context: module exit.
 */
void fsgate_dev_exit(void)
{
	misc_deregister(&fsgate_miscdev);
}
