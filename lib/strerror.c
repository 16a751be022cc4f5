// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Messages that say what an errno means for the fsgate call that set it.
 * strerror(ENOENT) says "No such file or directory" whether the module
 * is missing, a path to mark is or an answered event is; users need to
 * know which.
 */
#include <errno.h>
#include <string.h>

#include "fsgate.h"

/*
 * Where an operator looks when the module is missing: modprobe says why
 * it cannot load it, dkms whether it was built for the running kernel,
 * mokutil whether Secure Boot refuses a module not signed with an
 * enrolled key.
 */
#define NOT_LOADED(why) "fsgate.ko is not loaded (" why "); to find out why: " \
	"modprobe fsgate (loads it, or says why it cannot), " \
	"dkms status fsgate (is it built for this kernel?), " \
	"mokutil --sb-state (Secure Boot refuses a module not signed with an enrolled key)"

struct message {
	enum fsgate_call call;
	int errnum;
	const char *text;
};

static const struct message messages[] = {
	{ FSGATE_CALL_INIT, ENOENT, NOT_LOADED("no " FSGATE_DEVICE) },
	{ FSGATE_CALL_INIT, ENXIO, NOT_LOADED(FSGATE_DEVICE " has no driver") },
	{ FSGATE_CALL_INIT, ENODEV, NOT_LOADED(FSGATE_DEVICE " has no driver") },
	{ FSGATE_CALL_INIT, EACCES, "no access to " FSGATE_DEVICE " (its mode, or a security module)" },
	{ FSGATE_CALL_INIT, EPERM, "making a group needs CAP_SYS_ADMIN; FSGATE_TIMEOUT_NONE also needs the module's allow_unbounded_waits" },
	{ FSGATE_CALL_INIT, EINVAL, "likely a flag this fsgate.ko does not know: the loaded module is older than the program (a package upgrade does not reload it; compare fsgatectl status with dkms status fsgate); else a class, event_f_flags, priority (0..65535) or verdict out of range, FSGATE_ENABLE_AUDIT on a kernel without audit, or FID reporting flags fanotify_init(2) refuses (a class other than notification, FSGATE_REPORT_NAME without FSGATE_REPORT_DIR_FID, FSGATE_REPORT_TARGET_FID without FID and DFID_NAME)" },
	{ FSGATE_CALL_INIT, EMFILE, "too many groups for this user (max_groups) or too many open files" },
	{ FSGATE_CALL_MARK, EINVAL, "likely an event the group cannot take: permission events (open_perm, access_perm, open_exec_perm) need a content or pre-content group, directory entry events a group reporting file handles and an inode or filesystem mark (FAN_RENAME also FSGATE_REPORT_NAME); else mark flags that conflict (not exactly one of ADD, REMOVE and FLUSH, two mark types, FSGATE_MARK_EVICTABLE on a mount or filesystem) or that this fsgate.ko does not know" },
	{ FSGATE_CALL_MARK, ENOENT, "no such path, or no such mark to remove" },
	{ FSGATE_CALL_MARK, ENOTDIR, "FSGATE_MARK_ONLYDIR, or an ignore mask with directory flags, on something that is not a directory" },
	{ FSGATE_CALL_MARK, EISDIR, "an FSGATE_MARK_IGNORE mask on a directory must be FSGATE_MARK_IGNORE_SURV" },
	{ FSGATE_CALL_MARK, EEXIST, "the mark keeps its inode in memory (FSGATE_MARK_EVICTABLE), or its ignore mask was set with other ignore flags (FSGATE_MARK_IGNORE, FSGATE_MARK_IGNORED_SURV_MODIFY)" },
	{ FSGATE_CALL_MARK, ENODEV, "the filesystem has no fsid to report file handles with (FSGATE_REPORT_FID)" },
	{ FSGATE_CALL_MARK, EXDEV, "the object is on a subvolume whose fsid differs from its filesystem's (FSGATE_REPORT_FID)" },
	{ FSGATE_CALL_MARK, EACCES, "no read permission on the object to mark" },
	{ FSGATE_CALL_MARK, ENOSPC, "too many marks for this group (max_marks)" },
	{ FSGATE_CALL_MARK, EBADF, "not a group fd, or a bad dirfd" },
	{ FSGATE_CALL_MARK, ENOTTY, "not an fsgate group fd" },
	{ FSGATE_CALL_MARK, EOPNOTSUPP, "this fsgate.ko does not support that mark type, or the filesystem cannot give file handles (FSGATE_REPORT_FID)" },
	{ FSGATE_CALL_READ, EINVAL, "the read buffer cannot hold the next event with its info records (file handles, names, process and permission records): read with a larger buffer (4096 bytes or more)" },
	{ FSGATE_CALL_READ, EAGAIN, "no event queued (non-blocking group)" },
	{ FSGATE_CALL_READ, EBADMSG, "malformed event record (truncated, too short or misaligned)" },
	{ FSGATE_CALL_READ, EPROTO, "event record of another fanotify metadata version" },
	{ FSGATE_CALL_RESPOND, ENOENT, "no such pending event (already answered, timed out or withdrawn)" },
	{ FSGATE_CALL_RESPOND, EINVAL, "likely the errno of a deny: only EPERM, EACCES, EIO, EBUSY, ETXTBSY, EAGAIN, ENOSPC and EDQUOT, and none with an allow; else neither or both of FSGATE_ALLOW and FSGATE_DENY, a flag this fsgate.ko does not know, a negative event fd, FSGATE_EXTEND with anything else or 0 ms, or FSGATE_INFO without its audit rule" },
	{ FSGATE_CALL_RESPOND, EIO, "the group fd took part of a response" },
	{ FSGATE_CALL_RESPOND, ENOTUNIQ, "that fd number names events other processes read: answer by id (FSGATE_REPORT_PERM)" },
	{ FSGATE_CALL_STATS, ENOTTY, "not an fsgate group fd" },
	{ FSGATE_CALL_CACHE_FLUSH, EINVAL, "likely a flag this fsgate.ko does not know: the loaded module is older than the program" },
	{ FSGATE_CALL_CACHE_FLUSH, EBADF, "the file to forget verdicts on is not an open fd" },
	{ FSGATE_CALL_MUTE, ESRCH, "no such process to mute" },
	{ FSGATE_CALL_MUTE, ENOENT, "no such program file or cgroup, or no such entry to remove" },
	{ FSGATE_CALL_MUTE, EEXIST, "the group mutes that already" },
	{ FSGATE_CALL_MUTE, ENOSPC, "too many mute entries for this group (max_mutes)" },
	{ FSGATE_CALL_MUTE, EOPNOTSUPP, "this kernel has no cgroups to mute" },
	{ FSGATE_CALL_MUTE, EINVAL, "likely an entry its type cannot take: FSGATE_MUTE_DESCENDANTS on anything but a process, a pid of 0 or above pid_max, a uid with no mapping in the caller's user namespace; else an unknown entry type, operation or mode (FSGATE_MUTE_MODE_MUTE or FSGATE_MUTE_MODE_ONLY)" },
	{ FSGATE_CALL_MUTE, ENOTTY, "not an fsgate group fd, or fsgate.ko without muting" },
	{ FSGATE_CALL_FILTER, EINVAL, "malformed filter: a load outside struct fsgate_filter_data, a packet load, a bad jump or no return" },
	{ FSGATE_CALL_FILTER, ENOTTY, "not an fsgate group fd, or fsgate.ko without filters" },
	{ FSGATE_CALL_CACHE_FLUSH, ENOTTY, "not an fsgate group fd, or fsgate.ko without cache flushes" },
	{ FSGATE_CALL_VERSION, ENOENT, NOT_LOADED("no " FSGATE_DEVICE) },
	{ FSGATE_CALL_VERSION, ENXIO, NOT_LOADED(FSGATE_DEVICE " has no driver") },
	{ FSGATE_CALL_VERSION, ENODEV, NOT_LOADED(FSGATE_DEVICE " has no driver") },
	{ FSGATE_CALL_VERSION, EACCES, "no access to " FSGATE_DEVICE " (its mode, or a security module)" },
	{ FSGATE_CALL_VERSION, ENOTTY, "this fsgate.ko is older than FSGATE_IOC_VERSION" },
	{ FSGATE_CALL_PERSIST, EBUSY, "the group is persistent already" },
	{ FSGATE_CALL_PERSIST, EEXIST, "another group has that name" },
	{ FSGATE_CALL_PERSIST, ENOSPC, "too many persistent groups (max_persistent_groups)" },
	{ FSGATE_CALL_PERSIST, EPERM, "making a group persistent needs CAP_SYS_ADMIN" },
	{ FSGATE_CALL_PERSIST, EINVAL, "likely the name: 1 to 63 of A-Z a-z 0-9 . _ @ : -, a letter or digit first; else an absent verdict neither allow nor deny, an absent errno with an allow or outside the deny errnos (EPERM EACCES EIO EBUSY ETXTBSY EAGAIN ENOSPC EDQUOT), a linger bound of 0 without FSGATE_PERSIST_UNTIL_REMOVED or one with it, or an owner uid with no mapping here" },
	{ FSGATE_CALL_PERSIST, ENOTTY, "not an fsgate group fd, or fsgate.ko without persistent groups" },
	{ FSGATE_CALL_ATTACH, ENOENT, "no persistent group has that name (to a caller neither its owner nor with CAP_SYS_ADMIN, none that is theirs to manage), or fsgate.ko is not loaded (no " FSGATE_DEVICE ")" },
	{ FSGATE_CALL_ATTACH, EINVAL, "likely flags this fsgate.ko does not take: fsgate_attach() takes FSGATE_CLOEXEC and FSGATE_NONBLOCK only, fsgate_remove() none" },
	{ FSGATE_CALL_ATTACH, ENAMETOOLONG, "the name is longer than FSGATE_NAME_MAX - 1" },
	{ FSGATE_CALL_ATTACH, EACCES, "no access to " FSGATE_DEVICE " (its mode, or a security module)" },
	{ FSGATE_CALL_ATTACH, ENOTTY, "fsgate.ko without persistent groups" },
};

const char *fsgate_strerror(enum fsgate_call call, int errnum)
{
	size_t i;

	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		if (messages[i].call == call && messages[i].errnum == errnum)
			return messages[i].text;
	return strerror(errnum);
}
