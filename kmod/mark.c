// SPDX-License-Identifier: GPL-2.0
/*
 * Marks: which groups watch which inode or superblock for what.
 *
 * fsgate holds one fsnotify mark per object (struct fsgate_obj) in its
 * backend group; the mark's mask is the union of the masks of every
 * group's struct fsgate_sub on that object, so fsnotify's fast paths test
 * exactly what someone wants. fsnotify_recalc_mask() is not exported: a
 * new union mask reaches the object's connector by adding a throw-away
 * mark beside ours (fsnotify_add_mark() recalculates) and destroying it.
 *
 * Locking: fsgate_mark_mutex serialises every change to objects and subs:
 * creating and destroying objects, the sub lists of objects and groups,
 * the masks. Under it, fsgate_find_obj() can only find real objects, never
 * the throw-away marks, which live only inside one locked section. The
 * event path reads an object's subs under rcu_read_lock(); subs and
 * groups are freed after an RCU grace period. Lock order: fsgate_mark_mutex,
 * then fsnotify's group mark_mutex (inside fsnotify_add/destroy_mark).
 */
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "backend.h"
#include "group.h"
#include "mark.h"

static unsigned int max_marks = 65536;
module_param(max_marks, uint, 0644);
MODULE_PARM_DESC(max_marks,
		 "Objects one group may mark, unless FSGATE_UNLIMITED_MARKS (65536)");

/* Serialises all changes to marks; see above. */
static DEFINE_MUTEX(fsgate_mark_mutex);

/**
 * fsgate_obj_union_mask() - the fsnotify mask an object's subs need
 * @obj: the object, its subs stable (fsgate_mark_mutex held, or private)
 *
 * Events and flags wanted by any sub, plus FS_MODIFY when an ignore mask
 * must be cleared by modification.
 *
 * Context: fsgate_mark_mutex held, or @obj not yet published.
 * Return: the mask for @obj->fsn.
 */
u32 fsgate_obj_union_mask(const struct fsgate_obj *obj)
{
	const struct fsgate_sub *sub;
	u32 mask = 0;

	list_for_each_entry(sub, &obj->subs, obj_node) {
		mask |= sub->mask;
		if (sub->ignore && !sub->surv_modify)
			mask |= FS_MODIFY;
	}
	return mask;
}

/**
 * fsgate_mark_check() - validate a struct fsgate_mark from userspace
 * @mark: the request, already copied from userspace
 *
 * Context: any.
 * Return: 0, or -EINVAL for unknown or conflicting flags, unknown or
 * missing event bits, or non-zero reserved fields.
 */
int fsgate_mark_check(const struct fsgate_mark *mark)
{
	u32 action = mark->flags & (FSGATE_MARK_ADD | FSGATE_MARK_REMOVE |
				    FSGATE_MARK_FLUSH);
	u32 type = mark->flags & FSGATE_MARK_TYPES;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mark->reserved); i++)
		if (mark->reserved[i])
			return -EINVAL;
	if (mark->flags & ~FSGATE_MARK_FLAGS)
		return -EINVAL;
	if (hweight32(action) != 1)
		return -EINVAL;
	if (type != FSGATE_MARK_INODE && type != FSGATE_MARK_MOUNT &&
	    type != FSGATE_MARK_FILESYSTEM)
		return -EINVAL;
	if (action == FSGATE_MARK_FLUSH)
		return mark->flags & ~(FSGATE_MARK_FLUSH | FSGATE_MARK_TYPES) ?
		       -EINVAL : 0;
	if (!(mark->mask & FSGATE_NOTIF_EVENTS))
		return -EINVAL;
	if (mark->mask & ~(u64)(FSGATE_NOTIF_EVENTS | FSGATE_MASK_FLAGS))
		return -EINVAL;
	if ((mark->flags & FSGATE_MARK_IGNORED_SURV_MODIFY) &&
	    !(mark->flags & FSGATE_MARK_IGNORED_MASK))
		return -EINVAL;
	return 0;
}

/* Resolve the object of a mark request, as fanotify_mark(2) does. */
static int fsgate_mark_path(const struct fsgate_mark *mark, struct path *path)
{
	const char __user *name = u64_to_user_ptr(mark->pathname);
	unsigned int lookup = 0;
	struct file *file;
	int ret;

	if (!name) {
		file = fget(mark->dirfd);
		if (!file)
			return -EBADF;
		if ((mark->flags & FSGATE_MARK_ONLYDIR) &&
		    !S_ISDIR(file_inode(file)->i_mode)) {
			fput(file);
			return -ENOTDIR;
		}
		*path = file->f_path;
		path_get(path);
		fput(file);
	} else {
		if (!(mark->flags & FSGATE_MARK_DONT_FOLLOW))
			lookup |= LOOKUP_FOLLOW;
		if (mark->flags & FSGATE_MARK_ONLYDIR)
			lookup |= LOOKUP_DIRECTORY;
		ret = user_path_at(mark->dirfd, name, lookup, path);
		if (ret)
			return ret;
	}
	/* Watching an object needs read permission on it. */
	ret = path_permission(path, MAY_READ);
	if (ret)
		path_put(path);
	return ret;
}

static struct fsgate_obj *fsgate_find_obj(unsigned int type, void *object)
{
	struct fsnotify_mark *fsn;

	fsn = fsgate_compat_find_mark(object, type, fsgate_fsn_group);
	return fsn ? container_of(fsn, struct fsgate_obj, fsn) : NULL;
}

static struct fsgate_sub *fsgate_find_sub(struct fsgate_obj *obj,
					  struct fsgate_group *group)
{
	struct fsgate_sub *sub;

	list_for_each_entry(sub, &obj->subs, obj_node)
		if (sub->group == group)
			return sub;
	return NULL;
}

static struct fsgate_obj *fsgate_obj_alloc(unsigned int type, void *object)
{
	struct fsgate_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);

	if (!obj)
		return NULL;
	fsnotify_init_mark(&obj->fsn, fsgate_fsn_group);
	INIT_LIST_HEAD(&obj->subs);
	obj->type = type;
	obj->object = object;
	return obj;
}

/* Drop fsgate's mark on @obj; the caller holds no reference of its own. */
static void fsgate_obj_destroy(struct fsgate_obj *obj)
{
	obj->detaching = true;
	/* fsnotify_destroy_mark() wants the caller to hold a reference. */
	refcount_inc(&obj->fsn.refcnt);
	fsnotify_destroy_mark(&obj->fsn, fsgate_fsn_group);
	fsnotify_put_mark(&obj->fsn);
}

/*
 * Give @obj's mark the union mask of its subs and make the object's
 * connector see it. On failure nothing changed.
 */
static void fsgate_obj_set_mask(struct fsgate_obj *obj, u32 mask)
{
	spin_lock(&obj->fsn.lock);
	obj->fsn.mask = mask;
	spin_unlock(&obj->fsn.lock);
}

static int fsgate_obj_update_mask(struct fsgate_obj *obj)
{
	u32 old = obj->fsn.mask, mask = fsgate_obj_union_mask(obj);
	struct fsgate_obj *tmp;
	int ret;

	if (mask == old)
		return 0;
	tmp = fsgate_obj_alloc(obj->type, obj->object);
	if (!tmp)
		return -ENOMEM;
	tmp->detaching = true;
	fsgate_obj_set_mask(obj, mask);
	ret = fsgate_compat_add_mark(&tmp->fsn, obj->object, obj->type);
	if (ret)
		fsgate_obj_set_mask(obj, old);
	else
		fsgate_obj_destroy(tmp);
	fsnotify_put_mark(&tmp->fsn);
	return ret;
}

static void fsgate_sub_unlink(struct fsgate_sub *sub)
{
	list_del_rcu(&sub->obj_node);
	list_del(&sub->group_node);
	sub->group->nr_marks--;
	kfree_rcu(sub, rcu);
}

/* Remove @sub and, with its last sub, the object's mark. */
static void fsgate_sub_destroy(struct fsgate_sub *sub)
{
	struct fsgate_obj *obj = sub->obj;

	fsgate_sub_unlink(sub);
	if (list_empty(&obj->subs))
		fsgate_obj_destroy(obj);
	else
		fsgate_obj_update_mask(obj);	/* a stale superset is harmless */
}

/* Apply @mark to @sub; returns whether anything is left of the sub. */
static bool fsgate_sub_apply(struct fsgate_sub *sub,
			     const struct fsgate_mark *mark)
{
	u32 bits = mark->mask;
	bool ignore = mark->flags & FSGATE_MARK_IGNORED_MASK;

	if (mark->flags & FSGATE_MARK_ADD) {
		if (ignore) {
			WRITE_ONCE(sub->ignore, sub->ignore | bits);
			if (mark->flags & FSGATE_MARK_IGNORED_SURV_MODIFY)
				sub->surv_modify = true;
		} else {
			sub->mask |= bits;
		}
	} else if (ignore) {
		WRITE_ONCE(sub->ignore, sub->ignore & ~bits);
	} else {
		sub->mask &= ~bits;
	}
	return sub->mask || sub->ignore;
}

static int fsgate_mark_add(struct fsgate_group *group, unsigned int type,
			   void *object, const struct fsgate_mark *mark)
{
	struct fsgate_obj *obj = fsgate_find_obj(type, object);
	struct fsgate_sub *sub = obj ? fsgate_find_sub(obj, group) : NULL;
	struct fsgate_sub saved;
	int ret;

	if (sub) {
		saved = *sub;
		fsgate_sub_apply(sub, mark);
		ret = fsgate_obj_update_mask(obj);
		if (ret) {
			sub->mask = saved.mask;
			sub->ignore = saved.ignore;
			sub->surv_modify = saved.surv_modify;
		}
		goto out_put;
	}

	ret = -ENOSPC;
	if (group->nr_marks >= max_marks &&
	    !(group->flags & FSGATE_UNLIMITED_MARKS))
		goto out_put;
	ret = -ENOMEM;
	sub = kzalloc(sizeof(*sub), GFP_KERNEL_ACCOUNT);
	if (!sub)
		goto out_put;
	sub->group = group;
	fsgate_sub_apply(sub, mark);

	if (obj) {
		sub->obj = obj;
		list_add_tail_rcu(&sub->obj_node, &obj->subs);
		ret = fsgate_obj_update_mask(obj);
		if (ret) {
			list_del_rcu(&sub->obj_node);
			kfree_rcu(sub, rcu);
			goto out_put;
		}
	} else {
		obj = fsgate_obj_alloc(type, object);
		if (!obj) {
			kfree(sub);
			goto out;
		}
		sub->obj = obj;
		list_add_tail(&sub->obj_node, &obj->subs);
		obj->fsn.mask = fsgate_obj_union_mask(obj);
		ret = fsgate_compat_add_mark(&obj->fsn, object, type);
		if (ret) {
			kfree(sub);
			goto out_put;
		}
	}
	list_add_tail(&sub->group_node, &group->subs);
	group->nr_marks++;
	ret = 0;
out_put:
	if (obj)
		fsnotify_put_mark(&obj->fsn);
out:
	return ret;
}

static int fsgate_mark_remove(struct fsgate_group *group, unsigned int type,
			      void *object, const struct fsgate_mark *mark)
{
	struct fsgate_obj *obj = fsgate_find_obj(type, object);
	struct fsgate_sub *sub = obj ? fsgate_find_sub(obj, group) : NULL;
	int ret = -ENOENT;

	if (sub) {
		if (fsgate_sub_apply(sub, mark))
			fsgate_obj_update_mask(obj);
		else
			fsgate_sub_destroy(sub);
		ret = 0;
	}
	if (obj)
		fsnotify_put_mark(&obj->fsn);
	return ret;
}

static void fsgate_mark_flush(struct fsgate_group *group, unsigned int type)
{
	struct fsgate_sub *sub, *next;

	list_for_each_entry_safe(sub, next, &group->subs, group_node)
		if (sub->obj->type == type)
			fsgate_sub_destroy(sub);
}

/**
 * fsgate_ioctl_mark() - FSGATE_IOC_MARK: add, remove or flush marks
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_mark
 *
 * Mount marks are not supported yet and fail with -EOPNOTSUPP.
 *
 * Context: process context, may sleep.
 * Return: 0; -EFAULT; -EINVAL for a bad request (see fsgate_mark_check());
 * -EBADF, -ENOENT, -ENOTDIR, -EACCES and other lookup errors for the
 * object; -ENOENT to remove a mark that does not exist; -ENOSPC past
 * max_marks; -ENOMEM.
 */
long fsgate_ioctl_mark(struct fsgate_group *group, void __user *arg)
{
	struct fsgate_mark mark;
	unsigned int type;
	struct path path;
	void *object;
	long ret;

	if (copy_from_user(&mark, arg, sizeof(mark)))
		return -EFAULT;
	ret = fsgate_mark_check(&mark);
	if (ret)
		return ret;
	if ((mark.flags & FSGATE_MARK_TYPES) == FSGATE_MARK_MOUNT)
		return -EOPNOTSUPP;
	type = (mark.flags & FSGATE_MARK_FILESYSTEM) ? FSNOTIFY_OBJ_TYPE_SB :
						       FSNOTIFY_OBJ_TYPE_INODE;
	if (mark.flags & FSGATE_MARK_FLUSH) {
		mutex_lock(&fsgate_mark_mutex);
		fsgate_mark_flush(group, type);
		mutex_unlock(&fsgate_mark_mutex);
		return 0;
	}

	ret = fsgate_mark_path(&mark, &path);
	if (ret)
		return ret;
	object = type == FSNOTIFY_OBJ_TYPE_SB ? (void *)path.mnt->mnt_sb :
						(void *)d_inode(path.dentry);
	mutex_lock(&fsgate_mark_mutex);
	if (mark.flags & FSGATE_MARK_ADD)
		ret = fsgate_mark_add(group, type, object, &mark);
	else
		ret = fsgate_mark_remove(group, type, object, &mark);
	mutex_unlock(&fsgate_mark_mutex);
	path_put(&path);
	return ret;
}

/**
 * fsgate_marks_remove_group() - remove every mark of a group
 * @group: a group whose fd is being released
 *
 * Context: process context, may sleep.
 */
void fsgate_marks_remove_group(struct fsgate_group *group)
{
	struct fsgate_sub *sub, *next;

	mutex_lock(&fsgate_mark_mutex);
	list_for_each_entry_safe(sub, next, &group->subs, group_node)
		fsgate_sub_destroy(sub);
	mutex_unlock(&fsgate_mark_mutex);
}

/**
 * fsgate_obj_freeing() - fsnotify is destroying an object's mark
 * @obj: the object
 *
 * Called from fsnotify's freeing_mark when the kernel drops the mark on
 * its own (last unlink, umount); the groups forget their subs on it.
 * When fsgate itself destroys the mark, @obj->detaching is already set
 * and fsgate_mark_mutex may be held by this very thread.
 *
 * Context: process context, may sleep.
 */
void fsgate_obj_freeing(struct fsgate_obj *obj)
{
	struct fsgate_sub *sub, *next;

	if (READ_ONCE(obj->detaching))
		return;
	mutex_lock(&fsgate_mark_mutex);
	obj->detaching = true;
	list_for_each_entry_safe(sub, next, &obj->subs, obj_node)
		fsgate_sub_unlink(sub);
	mutex_unlock(&fsgate_mark_mutex);
}

/**
 * fsgate_marks_show_fdinfo() - list a group's marks in its fdinfo
 * @m: the fdinfo file
 * @group: the group
 *
 * Context: process context, may sleep.
 */
void fsgate_marks_show_fdinfo(struct seq_file *m, struct fsgate_group *group)
{
	struct fsgate_sub *sub;
	struct inode *inode;
	struct super_block *sb;

	mutex_lock(&fsgate_mark_mutex);
	list_for_each_entry(sub, &group->subs, group_node) {
		if (sub->obj->type == FSNOTIFY_OBJ_TYPE_INODE) {
			inode = sub->obj->object;
			seq_printf(m, "fsgate-mark inode ino:%lx sdev:%x",
				   inode->i_ino, inode->i_sb->s_dev);
		} else {
			sb = sub->obj->object;
			seq_printf(m, "fsgate-mark sb sdev:%x", sb->s_dev);
		}
		seq_printf(m, " mask:%x ignored_mask:%x\n", sub->mask,
			   READ_ONCE(sub->ignore));
	}
	mutex_unlock(&fsgate_mark_mutex);
}
