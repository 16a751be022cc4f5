// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/fsgate (layer 4, calls user.c): the misc device through which
 * listener groups are made (FSGATE_IOC_INIT) and the module says what it
 * offers (FSGATE_IOC_VERSION); everything else happens on the group fd
 * FSGATE_IOC_INIT returns.
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/fsgate.h>

#include "dev.h"
#include "user.h"

/**
 * fsgate_ioctl_init() - FSGATE_IOC_INIT: create a listener group
 * @arg: userspace pointer to a struct fsgate_init
 *
 * Needs CAP_SYS_ADMIN, as fanotify_init(2) does for permission events,
 * and CAP_AUDIT_WRITE for %FSGATE_ENABLE_AUDIT, as it does for
 * FAN_ENABLE_AUDIT.
 *
 * Context: process context, may sleep.
 * Return: the new group fd; -EPERM without CAP_SYS_ADMIN, for
 * %FSGATE_ENABLE_AUDIT without CAP_AUDIT_WRITE, or for
 * %FSGATE_TIMEOUT_NONE unless allow_unbounded_waits is set; -EFAULT if
 * @arg cannot be read; -EINVAL for unknown flags (%FSGATE_ENABLE_AUDIT
 * on a kernel without audit), a bad priority or
 * verdict, or non-zero reserved fields; -ENOMEM; -EMFILE.
 */
static long fsgate_ioctl_init(void __user *arg)
{
	struct fsgate_init init;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&init, arg, sizeof(init)))
		return -EFAULT;
	return fsgate_group_create(&init);
}

/* What this module offers on every kernel; see FSGATE_IOC_VERSION. */
#define FSGATE_FEATURES	(FSGATE_FEATURE_DENY_ERRNO | FSGATE_FEATURE_CACHE | \
			 FSGATE_FEATURE_EXCLUDE_SELF | \
			 FSGATE_FEATURE_MOUNT_MARKS | FSGATE_FEATURE_STATS | \
			 FSGATE_FEATURE_REPORT_PERM | \
			 FSGATE_FEATURE_REPORT_PROC | FSGATE_FEATURE_EXTEND | \
			 FSGATE_FEATURE_VERSION | FSGATE_FEATURE_CACHE_FLUSH | \
			 FSGATE_FEATURE_MUTE | FSGATE_FEATURE_CHAIN_CEILING | \
			 FSGATE_FEATURE_FILTER)

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
	BUILD_BUG_ON(hweight64(FSGATE_FEATURES | FSGATE_FEATURES_KERNEL) != 15);
	BUILD_BUG_ON(FSGATE_FEATURES & FSGATE_FEATURES_KERNEL);
	strscpy(v.version, FSGATE_VERSION, sizeof(v.version));
	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long fsgate_dev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	switch (cmd) {
	case FSGATE_IOC_INIT:
		return fsgate_ioctl_init((void __user *)arg);
	case FSGATE_IOC_VERSION:
		return fsgate_ioctl_version((void __user *)arg);
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
	.mode	= 0600,
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
