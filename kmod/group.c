// SPDX-License-Identifier: GPL-2.0
/*
 * Listener groups: validation of struct fsgate_init, the group fd and its
 * lifetime, and the list that keeps groups in the order they are asked.
 *
 * Locking: fsgate_groups_lock (a mutex) protects fsgate_groups and every
 * group's @node. A group is published on the list only once it is fully
 * set up and its fd is about to be installed, and taken off the list by
 * the fd's release before it is freed, so whoever holds the lock may read
 * any group on the list.
 */
#include <linux/anon_inodes.h>
#include <linux/atomic.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/fanotify.h>
#include <asm/ioctls.h>

#include "group.h"
#include "mark.h"
#include "perm.h"

LIST_HEAD(fsgate_groups);
/* Protects fsgate_groups and each group's @node; see above. */
DEFINE_MUTEX(fsgate_groups_lock);

static atomic64_t fsgate_next_group_id = ATOMIC64_INIT(0);

static unsigned int max_groups = 128;
module_param(max_groups, uint, 0644);
MODULE_PARM_DESC(max_groups, "Groups one user may have (128, as fanotify)");

/* The open flags fanotify_init(2) accepts in event_f_flags. */
#define FSGATE_EVENT_F_FLAGS	(O_ACCMODE | O_APPEND | O_NONBLOCK | __O_SYNC | \
				 O_DSYNC | O_CLOEXEC | O_LARGEFILE | O_NOATIME)

static bool fsgate_verdict_valid(u32 verdict)
{
	return verdict == FSGATE_VERDICT_DEFAULT ||
	       verdict == FSGATE_VERDICT_ALLOW ||
	       verdict == FSGATE_VERDICT_DENY;
}

/**
 * fsgate_init_check() - validate a struct fsgate_init from userspace
 * @init: the request, already copied from userspace
 *
 * Context: any.
 * Return: 0 if a group can be made from @init, -EINVAL if any flag, open
 * flag, priority, verdict or reserved field is unknown or out of range.
 */
int fsgate_init_check(const struct fsgate_init *init)
{
	unsigned int i;

	if (init->flags & ~FSGATE_INIT_FLAGS)
		return -EINVAL;
	if ((init->flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_MASK)
		return -EINVAL;
	if (init->event_f_flags & ~FSGATE_EVENT_F_FLAGS)
		return -EINVAL;
	if ((init->event_f_flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	if (init->priority > FSGATE_PRIORITY_MAX &&
	    init->priority != FSGATE_PRIORITY_DEFAULT)
		return -EINVAL;
	if (!fsgate_verdict_valid(init->timeout_verdict) ||
	    !fsgate_verdict_valid(init->orphan_verdict))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(init->reserved); i++)
		if (init->reserved[i])
			return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_init_check);

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

static const char *fsgate_verdict_name(u32 verdict)
{
	return verdict == FSGATE_VERDICT_DENY ? "deny" : "allow";
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

/**
 * fsgate_group_put() - drop a reference to a group
 * @group: the group
 *
 * Context: any.
 */
void fsgate_group_put(struct fsgate_group *group)
{
	if (refcount_dec_and_test(&group->ref)) {
		put_pid(group->owner);
		kfree_rcu(group, rcu);
	}
}

static int fsgate_group_release(struct inode *inode, struct file *file)
{
	struct fsgate_group *group = file->private_data;

	fsgate_subs_remove_group(group);
	fsgate_event_flush(group);
	mutex_lock(&fsgate_groups_lock);
	list_del(&group->node);
	mutex_unlock(&fsgate_groups_lock);
	fsgate_group_put(group);
	return 0;
}

static ssize_t fsgate_group_read(struct file *file, char __user *buf,
				 size_t count, loff_t *pos)
{
	return fsgate_event_read(file->private_data, file, buf, count);
}

static ssize_t fsgate_group_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *pos)
{
	return fsgate_perm_write(file->private_data, buf, count);
}

static __poll_t fsgate_group_poll(struct file *file, poll_table *wait)
{
	return fsgate_event_poll(file->private_data, file, wait);
}

/**
 * fsgate_group_stats() - a snapshot of a group's counters
 * @group: the group
 * @stats: filled in; reserved fields zeroed
 *
 * The one source of the counters that FSGATE_IOC_STATS and
 * /proc/fsgate/groups report.
 *
 * Context: any.
 */
void fsgate_group_stats(struct fsgate_group *group, struct fsgate_stats *stats)
{
	*stats = (struct fsgate_stats) {
		.marks = READ_ONCE(group->nr_marks),
		.queued = fsgate_event_queued(group),
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
	};
}

/**
 * fsgate_ioctl_stats() - FSGATE_IOC_STATS: a group's counters
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_stats
 *
 * Context: process context.
 * Return: 0 or -EFAULT.
 */
static long fsgate_ioctl_stats(struct fsgate_group *group, void __user *arg)
{
	struct fsgate_stats stats;

	fsgate_group_stats(group, &stats);
	return copy_to_user(arg, &stats, sizeof(stats)) ? -EFAULT : 0;
}

static long fsgate_group_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct fsgate_group *group = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case FSGATE_IOC_MARK:
		return fsgate_ioctl_mark(group, uarg);
	case FSGATE_IOC_STATS:
		return fsgate_ioctl_stats(group, uarg);
	case FIONREAD:
		/* As fanotify: the bytes a read() would return now. */
		return put_user(fsgate_event_queued(group) *
				FAN_EVENT_METADATA_LEN, (int __user *)uarg);
	default:
		return -ENOTTY;
	}
}

static void fsgate_group_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct fsgate_group *group = file->private_data;

	seq_printf(m, "fsgate-group id:%llu class:%s priority:%u flags:0x%x event-flags:0x%x timeout-ms:%u timeout-verdict:%s orphan-verdict:%s\n",
		   group->id, fsgate_class_name(group->flags), group->priority,
		   group->flags, group->event_f_flags, group->timeout_ms,
		   fsgate_verdict_name(group->timeout_verdict),
		   fsgate_verdict_name(group->orphan_verdict));
	fsgate_subs_show_fdinfo(m, group);
}

static const struct file_operations fsgate_group_fops = {
	.owner		= THIS_MODULE,
	.release	= fsgate_group_release,
	.read		= fsgate_group_read,
	.write		= fsgate_group_write,
	.poll		= fsgate_group_poll,
	.unlocked_ioctl	= fsgate_group_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= fsgate_group_show_fdinfo,
	.llseek		= noop_llseek,
};

static struct fsgate_group *fsgate_group_alloc(const struct fsgate_init *init)
{
	struct fsgate_group *group;

	group = kzalloc(sizeof(*group), GFP_KERNEL_ACCOUNT);
	if (!group)
		return NULL;
	INIT_LIST_HEAD(&group->node);
	refcount_set(&group->ref, 1);
	group->id = atomic64_inc_return(&fsgate_next_group_id);
	group->owner = get_pid(task_tgid(current));
	group->uid = current_uid();
	get_task_comm(group->comm, current);
	group->flags = init->flags;
	/* As fanotify: event fds are large-file capable on 64-bit. */
	group->event_f_flags = init->event_f_flags | O_LARGEFILE;
	group->priority = fsgate_init_priority(init);
	group->timeout_ms = init->timeout_ms;
	group->timeout_verdict = init->timeout_verdict;
	group->orphan_verdict = init->orphan_verdict;
	INIT_LIST_HEAD(&group->subs);
	spin_lock_init(&group->queue_lock);
	INIT_LIST_HEAD(&group->queue);
	INIT_LIST_HEAD(&group->overflow.node);
	group->overflow.mask = FAN_Q_OVERFLOW;
	init_waitqueue_head(&group->wq);
	INIT_LIST_HEAD(&group->pending);
	init_waitqueue_head(&group->perm_wq);
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
 * fsgate_group_create() - make a listener group and an fd for it
 * @init: the request, already copied from userspace
 *
 * Context: process context, may sleep. The caller checked privileges.
 * Return: the new group fd, -EINVAL for a bad request, -EMFILE past
 * max_groups for this user, -ENOMEM, or another negative errno from fd
 * allocation.
 */
int fsgate_group_create(const struct fsgate_init *init)
{
	struct fsgate_group *group;
	struct file *file;
	int f_flags = O_RDWR;
	int fd, ret;

	ret = fsgate_init_check(init);
	if (ret)
		return ret;
	if (init->flags & FSGATE_CLOEXEC)
		f_flags |= O_CLOEXEC;
	if (init->flags & FSGATE_NONBLOCK)
		f_flags |= O_NONBLOCK;

	group = fsgate_group_alloc(init);
	if (!group)
		return -ENOMEM;
	fd = get_unused_fd_flags(f_flags);
	if (fd < 0) {
		ret = fd;
		goto out_free_group;
	}
	file = anon_inode_getfile("[fsgate]", &fsgate_group_fops, group,
				  f_flags);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_put_fd;
	}

	mutex_lock(&fsgate_groups_lock);
	if (!fsgate_group_allowed()) {
		mutex_unlock(&fsgate_groups_lock);
		ret = -EMFILE;
		goto out_put_file;
	}
	fsgate_group_list_insert(&fsgate_groups, group);
	mutex_unlock(&fsgate_groups_lock);
	fd_install(fd, file);
	return fd;

out_put_file:
	/* Its release frees the group, which is on no list yet. */
	fput(file);
	put_unused_fd(fd);
	return ret;
out_put_fd:
	put_unused_fd(fd);
out_free_group:
	fsgate_group_put(group);
	return ret;
}
