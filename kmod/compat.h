/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels fsgate builds against lives here
 * (Debian 12's 6.1 and 6.12 and the 6.1 debug kernel). Force-included into
 * each file by Kbuild, so no other file tests a kernel version.
 */
#ifndef _FSGATE_COMPAT_H
#define _FSGATE_COMPAT_H

#include <linux/fsnotify_backend.h>

/*
 * Where fsgate's fsnotify group for its marks (fsgate_fsn_group, mark.c)
 * stands among the kernel's groups.
 *
 * 6.1 orders groups by a plain unsigned priority (fanotify uses 0..2), so
 * fsgate takes the top and is asked before every in-tree group.
 *
 * 6.12 uses the priority to index per-priority watcher counters, so only
 * the enum's values are valid, and the value has effects beyond order:
 * a superblock with CONTENT watchers gives files opened on it permission
 * hooks, and one with PRE_CONTENT watchers puts them in HSM mode, which
 * also stops denying writes to running executables. fsgate does not do
 * pre-content events, so it stays at CONTENT: after fanotify's
 * pre-content groups, and tied with its content groups (ties are ordered
 * by group address). Kbuild probes the headers for the enum and defines
 * FSGATE_HAVE_FSNOTIFY_PRIO_ENUM.
 */
#ifdef FSGATE_HAVE_FSNOTIFY_PRIO_ENUM
#define FSGATE_FSNOTIFY_PRIO	FSNOTIFY_PRIO_CONTENT
#else
#define FSGATE_FSNOTIFY_PRIO	UINT_MAX
#endif

/*
 * Evictable marks (FSNOTIFY_MARK_FLAG_NO_IREF) may be freed from inode
 * reclaim, so the group's mark lock must not recurse into it: 6.1 does
 * that for groups that ask with FSNOTIFY_GROUP_NOFS, 6.12 for every group
 * and has no such flag.
 */
#ifdef FSNOTIFY_GROUP_NOFS
#define FSGATE_FSNOTIFY_NOFS	FSNOTIFY_GROUP_NOFS
#else
#define FSGATE_FSNOTIFY_NOFS	0
#endif

/*
 * The kernels without FSNOTIFY_GROUP_NOFS are those that index counters
 * by group priority; a failed probe there would leave fsgate_fsn_group at
 * an invalid priority, never asked (a silent fail-open).
 */
#if !defined(FSNOTIFY_GROUP_NOFS) && !defined(FSGATE_HAVE_FSNOTIFY_PRIO_ENUM)
#error "fsnotify priority levels expected but not found by Kbuild's probe"
#endif

/*
 * Adding and finding marks: 6.12 takes the object and its type, 6.1 the
 * object's connector pointer. Kbuild defines FSGATE_HAVE_FSNOTIFY_OBJ_API
 * when the headers take the object.
 */
#ifdef FSGATE_HAVE_FSNOTIFY_OBJ_API
static inline int fsgate_compat_add_mark(struct fsnotify_mark *mark,
					 void *object, unsigned int type)
{
	return fsnotify_add_mark(mark, object, type, 0);
}

static inline struct fsnotify_mark *
fsgate_compat_find_mark(void *object, unsigned int type,
			struct fsnotify_group *group)
{
	return fsnotify_find_mark(object, type, group);
}
#else
#include <linux/fs.h>

static inline fsnotify_connp_t *fsgate_compat_connp(void *object,
						    unsigned int type)
{
	if (type == FSNOTIFY_OBJ_TYPE_SB)
		return &((struct super_block *)object)->s_fsnotify_marks;
	return &((struct inode *)object)->i_fsnotify_marks;
}

static inline int fsgate_compat_add_mark(struct fsnotify_mark *mark,
					 void *object, unsigned int type)
{
	return fsnotify_add_mark(mark, fsgate_compat_connp(object, type),
				 type, 0, NULL);
}

static inline struct fsnotify_mark *
fsgate_compat_find_mark(void *object, unsigned int type,
			struct fsnotify_group *group)
{
	return fsnotify_find_mark(fsgate_compat_connp(object, type), group);
}
#endif

/*
 * Muting by cgroup (mute.c) needs the cgroup v2 of the current process;
 * the debug kernel is built without cgroups, and cgroup.h then has no
 * task_dfl_cgroup() and no cgroup_get_from_id().
 */
#include <linux/cgroup.h>
#include <linux/err.h>

#ifdef CONFIG_CGROUPS
/* The current process's cgroup v2; rcu_read_lock() held. */
static inline struct cgroup *fsgate_compat_current_cgroup(void)
{
	return task_dfl_cgroup(current);
}

/* 0 when the cgroup v2 @id exists in the caller's namespace, else -ENOENT. */
static inline int fsgate_compat_cgroup_check(u64 id)
{
	struct cgroup *cgrp = cgroup_get_from_id(id);

	if (IS_ERR(cgrp))
		return -ENOENT;
	cgroup_put(cgrp);
	return 0;
}
#else
static inline struct cgroup *fsgate_compat_current_cgroup(void)
{
	return NULL;
}

static inline int fsgate_compat_cgroup_check(u64 id)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * The KUnit suites are a module of their own, fsgate_kunit.ko, built only
 * when asked (see Kbuild). What they test is exported to them, in the
 * FSGATE_KUNIT namespace, by an fsgate.ko built beside them (Kbuild then
 * defines FSGATE_KUNIT_BUILD); any other fsgate.ko exports nothing.
 * 6.13 names namespaces with strings; Kbuild's probe defines
 * FSGATE_HAVE_STRING_NS there.
 */
#include <linux/export.h>

#ifdef FSGATE_HAVE_STRING_NS
#define FSGATE_KUNIT_NS		"FSGATE_KUNIT"
#else
#define FSGATE_KUNIT_NS		FSGATE_KUNIT
#endif

#ifdef FSGATE_KUNIT_BUILD
#define EXPORT_SYMBOL_FOR_FSGATE_KUNIT(sym) \
	EXPORT_SYMBOL_NS_GPL(sym, FSGATE_KUNIT_NS)
#else
#define EXPORT_SYMBOL_FOR_FSGATE_KUNIT(sym)
#endif

#endif /* _FSGATE_COMPAT_H */
