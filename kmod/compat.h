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
 * stands among the kernel's groups; the module's fanotify_order chooses.
 * fsnotify asks groups in priority order, highest first, and breaks ties
 * by group address (fixed for a boot, not chosen by anyone).
 *
 * FSGATE_FSNOTIFY_PRIO_CONTENT, the rule on every kernel: the priority
 * of in-tree fanotify's FAN_CLASS_CONTENT groups, so after its
 * pre-content groups (an HSM fills a file before fsgate's scanners read
 * it), before its notification groups, and tied with its content groups.
 * 6.1 calls it FS_PRIO_1; 6.12 FSNOTIFY_PRIO_CONTENT, where the value
 * also gives files on a watched superblock their permission hooks.
 *
 * FSGATE_FSNOTIFY_PRIO_FIRST, ahead of every in-tree group: 6.1 orders
 * by a plain unsigned priority, so the top is UINT_MAX. 6.12 indexes
 * per-priority counters with it, so only the enum's values are valid,
 * and its top, PRE_CONTENT, puts files in HSM mode, which also stops
 * denying writes to running executables: there is no such place (0).
 *
 * Kbuild probes the headers for the enum and defines
 * FSGATE_HAVE_FSNOTIFY_PRIO_ENUM.
 */
#ifdef FSGATE_HAVE_FSNOTIFY_PRIO_ENUM
#define FSGATE_FSNOTIFY_PRIO_CONTENT	FSNOTIFY_PRIO_CONTENT
#define FSGATE_FSNOTIFY_PRIO_FIRST	0
#else
#define FSGATE_FSNOTIFY_PRIO_CONTENT	FS_PRIO_1
#define FSGATE_FSNOTIFY_PRIO_FIRST	UINT_MAX
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
 * An inode's file handle, as fanotify's fdinfo shows it: 6.5 and later
 * encode one even where the filesystem cannot decode it
 * (exportfs_encode_fid(), EXPORT_FH_FID), 6.1 only a decodable one.
 * Kbuild defines FSGATE_HAVE_EXPORTFS_ENCODE_FID when the headers have
 * it. Without CONFIG_EXPORTFS there is none, as in fanotify.
 */
#include <linux/exportfs.h>

static inline int fsgate_compat_encode_fid(struct inode *inode,
					   struct fid *fid, int *max_len)
{
#if !IS_ENABLED(CONFIG_EXPORTFS)
	return FILEID_INVALID;
#elif defined(FSGATE_HAVE_EXPORTFS_ENCODE_FID)
	return exportfs_encode_fid(inode, fid, max_len);
#else
	return exportfs_encode_inode_fh(inode, fid, max_len, NULL);
#endif
}

/*
 * Which file handles a FID-mode group's mark needs on the object's
 * filesystem, as the running kernel's fanotify_test_fid() decides: 6.1
 * asks for handles that decode (fh_to_dentry) on every mark; from 6.5
 * on, where fanotify reports handles that need not decode
 * (EXPORT_FH_FID), an inode mark needs only handles that encode (an
 * overlayfs without nfs_export, a filesystem without export operations,
 * whose generic handles encode), a mount or filesystem mark still
 * decodable ones. Kbuild defines FSGATE_HAVE_EXPORTFS_CAN_ENCODE_FID
 * when <linux/exportfs.h> has exportfs_can_encode_fid().
 */
static inline bool
fsgate_compat_fid_handles_ok(const struct export_operations *nop,
			     bool inode_mark)
{
#ifdef FSGATE_HAVE_EXPORTFS_CAN_ENCODE_FID
	if (inode_mark)
		return exportfs_can_encode_fid(nop);
	return exportfs_can_decode_fh(nop);
#else
	return nop && nop->fh_to_dentry;
#endif
}

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
 * Audit records of answers (FSGATE_AUDIT), written as the kernel's own
 * fanotify writes them: __audit_fanotify() (kernel/auditsc.c, not
 * exported) is an audit_log() of an AUDIT_FANOTIFY record in the current
 * task's audit context, which fanotify calls in the accessing task, and
 * only when that task's system call is audited (audit_fanotify()'s
 * audit_dummy_context() test). 6.1 records "resp=%u"; kernels whose
 * audit_fanotify() takes a struct fanotify_response_info_audit_rule add
 * the rule's fields (Kbuild's probe of <linux/audit.h> defines
 * FSGATE_HAVE_AUDIT_RULE), and fsgate then takes FSGATE_INFO. Without
 * CONFIG_AUDITSYSCALL (the debug kernel) tasks have no audit context:
 * fsgate offers no audit there.
 */
#include <linux/audit.h>
#include <linux/fsgate.h>

#ifdef CONFIG_AUDITSYSCALL
#define FSGATE_COMPAT_AUDIT		1
#ifdef FSGATE_HAVE_AUDIT_RULE
#define FSGATE_COMPAT_AUDIT_RULE	1
#else
#define FSGATE_COMPAT_AUDIT_RULE	0
#endif
#else
#define FSGATE_COMPAT_AUDIT		0
#define FSGATE_COMPAT_AUDIT_RULE	0
#endif

/* Record an audited answer: @response as fanotify's, @rule its FAN_INFO. */
static inline void
fsgate_compat_audit(u32 response, const struct fsgate_response_audit_rule *rule)
{
#if FSGATE_COMPAT_AUDIT
	if (audit_dummy_context())
		return;
#if FSGATE_COMPAT_AUDIT_RULE
	if (rule->type == FSGATE_RESPONSE_INFO_AUDIT_RULE)
		audit_log(audit_context(), GFP_KERNEL, AUDIT_FANOTIFY,
			  "resp=%u fan_type=%u fan_info=%X subj_trust=%u obj_trust=%u",
			  response, rule->type, rule->rule_number,
			  rule->subj_trust, rule->obj_trust);
	else
		audit_log(audit_context(), GFP_KERNEL, AUDIT_FANOTIFY,
			  "resp=%u fan_type=%u fan_info=0 subj_trust=2 obj_trust=2",
			  response, FSGATE_RESPONSE_INFO_NONE);
#else
	audit_log(audit_context(), GFP_KERNEL, AUDIT_FANOTIFY, "resp=%u",
		  response);
#endif
#endif
}

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
