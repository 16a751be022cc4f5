// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/fsgate (layer 4, calls user.c): the misc device through which
 * listener groups are made. Its only operation is FSGATE_IOC_INIT;
 * everything else happens on the group fd it returns.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/fsgate.h>

#include "dev.h"
#include "user.h"

/**
 * fsgate_ioctl_init() - FSGATE_IOC_INIT: create a listener group
 * @arg: userspace pointer to a struct fsgate_init
 *
 * Needs CAP_SYS_ADMIN, as fanotify_init(2) does for permission events.
 *
 * Context: process context, may sleep.
 * Return: the new group fd; -EPERM without CAP_SYS_ADMIN, or for
 * %FSGATE_TIMEOUT_NONE unless allow_unbounded_waits is set; -EFAULT if
 * @arg cannot be read; -EINVAL for unknown flags, a bad priority or
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

static long fsgate_dev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	switch (cmd) {
	case FSGATE_IOC_INIT:
		return fsgate_ioctl_init((void __user *)arg);
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
