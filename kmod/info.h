/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_INFO_H
#define _FSGATE_INFO_H

#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/fsgate.h>

struct pid;

/* Bytes of the largest set of info records one event carries. */
#define FSGATE_INFO_MAX_LEN	(sizeof(struct fsgate_info_perm) + \
				 sizeof(struct fsgate_info_proc))

/**
 * struct fsgate_proc - the accessing task, as an event found it
 * @flags: FSGATE_PROC_* flags: which optional fields are set
 * @uid: real uid
 * @gid: real gid
 * @euid: effective uid
 * @egid: effective gid
 * @loginuid: audit login uid
 * @sessionid: audit session id
 * @tgid: its thread group, referenced
 * @tid: the task, referenced
 * @ppid: the thread group of its parent, referenced
 * @start_time_ns: its thread group leader's start, boot-based ns
 * @exe_dev: device of its program
 * @exe_ino: inode number of its program
 * @cgroup_id: its cgroup v2
 */
struct fsgate_proc {
	u32 flags;
	kuid_t uid;
	kgid_t gid;
	kuid_t euid;
	kgid_t egid;
	kuid_t loginuid;
	unsigned int sessionid;
	struct pid *tgid;
	struct pid *tid;
	struct pid *ppid;
	u64 start_time_ns;
	dev_t exe_dev;
	u64 exe_ino;
	u64 cgroup_id;
};

size_t fsgate_info_len(u32 group_flags, u32 mask);
size_t fsgate_info_perm_fill(void *buf, u64 id, u64 deadline_ns,
			     u64 latest_ns, bool unbounded);
struct fsgate_proc *fsgate_proc_take(gfp_t gfp);
void fsgate_proc_free(struct fsgate_proc *proc);
size_t fsgate_info_proc_fill(void *buf, const struct fsgate_proc *proc);

#endif /* _FSGATE_INFO_H */
