/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_MUTE_H
#define _FSGATE_MUTE_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/fsgate.h>

struct fsgate_group;
struct pid;

/**
 * struct fsgate_mute_rule - one entry of a group's mutes, as kept
 * @type: FSGATE_MUTE_*
 * @flags: FSGATE_MUTE_* entry flags
 * @key: what the entry is sorted and found by: the struct pid's address
 *	for a process, the uid, the cgroup id, or the program's inode
 * @dev: the program's device (kernel dev_t) for %FSGATE_MUTE_EXE and
 *	%FSGATE_MUTE_EXE_UID
 * @uid: the effective uid, in the initial user namespace, for
 *	%FSGATE_MUTE_EXE_UID; else 0
 * @since: fsgate_clock_past(ktime_get_ns) when a process entry was
 *	added: with %FSGATE_MUTE_DESCENDANTS, processes forked by it before
 *	then do not match
 * @pid: the process, referenced, for %FSGATE_MUTE_PROCESS
 */
struct fsgate_mute_rule {
	u32 type;
	u32 flags;
	u64 key;
	u64 dev;
	u32 uid;
	u64 since;
	struct pid *pid;
};

/**
 * struct fsgate_mutes - a group's mutes, never changed once published
 * @rcu: freed after a grace period, its pids put then
 * @only: FSGATE_MUTE_MODE_ONLY: the group sees only what matches
 * @descendants: how many process entries have %FSGATE_MUTE_DESCENDANTS
 * @n: entries of @rules
 * @rules: sorted by type, key and dev, to be searched
 */
struct fsgate_mutes {
	struct rcu_head rcu;
	bool only;
	unsigned int descendants;
	unsigned int n;
	struct fsgate_mute_rule rules[];
};

/**
 * struct fsgate_facts - who is accessing, as muting needs it
 * @valid: the other fields are filled in (fsgate_facts_get())
 * @has_exe: @exe_dev and @exe_ino hold its program (a kernel thread, or
 *	a process exiting, has none)
 * @tgid: the accessing process
 * @euid: its effective uid
 * @exe_dev: the program file's device
 * @exe_ino: the program file's inode number
 *
 * Collected once per event, on the first group that has mutes.
 */
struct fsgate_facts {
	bool valid;
	bool has_exe;
	struct pid *tgid;
	kuid_t euid;
	dev_t exe_dev;
	unsigned long exe_ino;
};

bool fsgate_current_descends(const struct pid *tgid, u64 since);
bool fsgate_mutes_hide(const struct fsgate_group *group,
		       struct fsgate_facts *facts, u32 report);
int fsgate_mute_entry_check(const struct fsgate_mute_entry *entry);
int fsgate_mute_add(struct fsgate_group *group,
		    const struct fsgate_mute_entry *entry);
int fsgate_mute_remove(struct fsgate_group *group,
		       const struct fsgate_mute_entry *entry);
int fsgate_mute_set_mode(struct fsgate_group *group, u32 mode);
int fsgate_mutes_clear(struct fsgate_group *group);
void fsgate_mutes_release(struct fsgate_group *group);
int fsgate_mutes_list(struct fsgate_group *group,
		      struct fsgate_mute_entry *entries, u32 room,
		      u32 *count, u32 *mode);

#endif /* _FSGATE_MUTE_H */
