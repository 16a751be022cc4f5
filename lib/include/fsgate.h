/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libfsgate: the userspace side of fsgate.
 *
 * Functions return -1 and set errno on failure, as libc does.
 */
#ifndef FSGATE_H
#define FSGATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/fsgate.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The device groups are made through. */
#define FSGATE_DEVICE "/dev/fsgate"

/* The release of fsgate this header belongs to (the file VERSION). */
#define FSGATE_VERSION_MAJOR 0
#define FSGATE_VERSION_MINOR 1
#define FSGATE_VERSION_PATCH 0
#define FSGATE_VERSION_STRING "0.1.0"
/* A release as one comparable number: FSGATE_VERSION_CODE(0, 1, 0). */
#define FSGATE_VERSION_CODE(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define FSGATE_VERSION_NUMBER FSGATE_VERSION_CODE(FSGATE_VERSION_MAJOR, \
						  FSGATE_VERSION_MINOR, \
						  FSGATE_VERSION_PATCH)

/**
 * fsgate_init() - make a listener group, as fanotify_init() was proposed
 * @flags: an FSGATE_CLASS_* ored with FSGATE_* group flags
 * @event_f_flags: open flags of the fds events carry (O_RDONLY, ...)
 * @priority: 0..FSGATE_PRIORITY_MAX, higher asked first, or
 *	FSGATE_PRIORITY_DEFAULT for the class default
 *
 * Return: the group fd, or -1 with errno set: ENOENT when fsgate.ko is
 * not loaded, EACCES/EPERM without privilege, EINVAL for bad arguments.
 */
int fsgate_init(unsigned int flags, unsigned int event_f_flags,
		unsigned int priority);

/**
 * fsgate_init_ext() - make a listener group from a full struct fsgate_init
 * @init: every field, timeouts and verdict policies included; reserved
 *	fields must be zero
 *
 * Return: as fsgate_init().
 */
int fsgate_init_ext(const struct fsgate_init *init);

/**
 * fsgate_persist() - make a group outlive its fds (FSGATE_IOC_PERSIST)
 * @fd: the group fd
 * @req: the name, owner, absent bound and verdict, linger bound; @size
 *	is set by the library
 *
 * Needs CAP_SYS_ADMIN. Once the last fd of the group closes, its marks
 * and queue stay, and fsgate_attach() gives a daemon a new fd on it.
 *
 * Return: 0, or -1 with errno: EBUSY (persistent already), EEXIST (the
 * name is taken), ENOSPC (max_persistent_groups), EINVAL, EPERM.
 */
int fsgate_persist(int fd, const struct fsgate_persist *req);

/**
 * fsgate_attach() - a group fd on a persistent group (FSGATE_IOC_ATTACH)
 * @name: the group's name
 * @flags: FSGATE_CLOEXEC, FSGATE_NONBLOCK
 *
 * Events an earlier fd read and did not answer are read again through
 * the new fd, with their ids; each event is answered through the fd it
 * was read through.
 *
 * Return: the group fd, or -1 with errno: ENOENT (no such group), EPERM
 * (neither its owner nor CAP_SYS_ADMIN), ENAMETOOLONG, EINVAL.
 */
int fsgate_attach(const char *name, unsigned int flags);

/**
 * fsgate_remove() - make a persistent group ordinary (FSGATE_IOC_REMOVE)
 * @name: the group's name
 *
 * It goes at once if no fd is attached, else with its last fd.
 *
 * Return: 0, or -1 with errno as fsgate_attach().
 */
int fsgate_remove(const char *name);

/**
 * fsgate_version() - what the loaded module offers
 * @version: filled with its ABI version (FSGATE_ABI_VERSION of the module,
 *	which may be older or newer than this header's), its
 *	FSGATE_FEATURE_* bits and its release, NUL-terminated
 *
 * Test features with the bits, not by the version number.
 *
 * Return: 0, or -1 with errno set: ENOENT when fsgate.ko is not loaded,
 * EACCES without access to the device, ENOTTY for a module older than
 * the ioctl (it offers what ABI version 0 had: every FSGATE_FEATURE_*
 * below FSGATE_FEATURE_REPORT_PERM).
 */
int fsgate_version(struct fsgate_version *version);

/**
 * fsgate_mark() - add, remove or flush marks, as fanotify_mark(2)
 * @fd: a group fd
 * @flags: FSGATE_MARK_* flags
 * @mask: FAN_* events, with FAN_ONDIR and FAN_EVENT_ON_CHILD
 * @dirfd: as in openat(2), or the object itself when @pathname is NULL
 * @pathname: path of the object, or NULL
 *
 * Return: 0, or -1 with errno set as fanotify_mark(2) would set it.
 */
int fsgate_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
		const char *pathname);

/**
 * fsgate_stats() - read a group's counters
 * @fd: a group fd
 * @stats: filled in
 *
 * Return: 0, or -1 with errno set.
 */
int fsgate_stats(int fd, struct fsgate_stats *stats);

/**
 * struct fsgate_events - a cursor over the records of one read()
 * @buf: the buffer read() filled
 * @len: what read() returned; a negative value is taken as no records
 * @off: where the next record starts
 * @error: 0 while the records are sound; once fsgate_event_next() has
 *	returned NULL, 0 for the end of the buffer or the errno of the
 *	first record it refused
 *
 * The fields are set by fsgate_events_init() and read by
 * fsgate_event_next(); callers only read @error.
 */
struct fsgate_events {
	const unsigned char *buf;
	size_t len;
	size_t off;
	int error;
};

/**
 * fsgate_events_init() - start iterating over a read() buffer
 * @it: the cursor
 * @buf: the buffer given to read(); it must stay valid while iterating
 * @len: read()'s return value
 */
void fsgate_events_init(struct fsgate_events *it, const void *buf,
			ssize_t len);

/**
 * fsgate_event_next() - the next whole record, checked
 * @it: a cursor from fsgate_events_init()
 *
 * Unlike FAN_EVENT_OK() and FAN_EVENT_NEXT(), a record is returned only
 * if it lies wholly inside the buffer, is at least
 * FAN_EVENT_METADATA_LEN long, is suitably aligned and has version
 * FANOTIFY_METADATA_VERSION, so that a short read or a corrupt length
 * can neither loop for ever nor run past the buffer.
 *
 * Return: the record, or NULL: at the end of the buffer with @it->error
 * 0, or at the first record refused with errno and @it->error set to
 * EBADMSG (truncated, too short or misaligned) or EPROTO (another
 * metadata version). Iteration stops there.
 */
const struct fanotify_event_metadata *
fsgate_event_next(struct fsgate_events *it);

/*
 * Called by fsgate_events_drain() for each record, overflow records
 * (FAN_Q_OVERFLOW, fd FAN_NOFD) included; it owns @ev->fd and closes it
 * once done (for a permission event, after answering). Return 0 to go
 * on, anything else to stop.
 */
typedef int (*fsgate_event_fn)(const struct fanotify_event_metadata *ev,
			       void *arg);

/**
 * fsgate_events_drain() - read a group until nothing is queued
 * @fd: a group fd made with FSGATE_NONBLOCK (with a blocking fd the read
 *	after the last event waits for the next)
 * @buf: a buffer aligned as struct fanotify_event_metadata
 * @len: its size, at least FAN_EVENT_METADATA_LEN
 * @fn: called for each record, checked as fsgate_event_next() does
 * @arg: passed to @fn
 *
 * Reads until read() says EAGAIN and hands out every record. When @fn
 * asks to stop, the rest of that read's records are not handed out and
 * their fds are closed (an unanswered permission event among them gets
 * the group's timeout verdict once its wait runs out).
 *
 * Return: how many records @fn was given, or -1 with errno set: the
 * read's errno, or EBADMSG or EPROTO for a record fsgate_event_next()
 * refuses (reading stops there).
 */
ssize_t fsgate_events_drain(int fd, void *buf, size_t len,
			    fsgate_event_fn fn, void *arg);

/**
 * fsgate_respond() - answer one permission event
 * @fd: the group fd the event was read from
 * @event_fd: the event's fd
 * @response: FSGATE_ALLOW or FSGATE_DENY, or FSGATE_DENY_ERRNO(err) to
 *	fail the access with err; ored with FSGATE_CACHE to have fsgate
 *	remember the verdict for this file until it is modified, and with
 *	FSGATE_AUDIT to have the answer recorded in the kernel's audit log
 *	(a group made with FSGATE_ENABLE_AUDIT)
 *
 * The caller still closes @event_fd.
 *
 * Return: 0, or -1 with errno set: ENOENT when the event is no longer
 * pending (answered, timed out, withdrawn), EINVAL for a malformed
 * response.
 */
int fsgate_respond(int fd, int event_fd, uint32_t response);

/**
 * fsgate_respond_rule() - answer one permission event, with the rule
 *	its audit record names (FAN_INFO)
 * @fd: the group fd the event was read from
 * @event_fd: the event's fd
 * @response: as for fsgate_respond(), with FSGATE_AUDIT for a record
 *	(the group then needs FSGATE_ENABLE_AUDIT); FSGATE_INFO is added
 * @rule: type FSGATE_RESPONSE_INFO_AUDIT_RULE, pad 0, len its size, and
 *	the rule number and trust values the record shows
 *
 * Works on in-tree fanotify fds too (Linux 6.3 and later). With
 * @event_fd FAN_NOFD it answers nothing and only says whether the
 * kernel takes rules, as fanotify's probe does.
 *
 * Return: 0, or -1 with errno set: EINVAL for a malformed response or
 * rule, for FSGATE_AUDIT on a group without FSGATE_ENABLE_AUDIT, or
 * where audit records have no rule (FSGATE_FEATURE_AUDIT_RULE absent);
 * ENOENT as for fsgate_respond().
 */
int fsgate_respond_rule(int fd, int event_fd, uint32_t response,
			const struct fsgate_response_audit_rule *rule);

/**
 * fsgate_respond_batch() - answer several permission events at once
 * @fd: the group fd
 * @responses: @count struct fanotify_response
 * @count: how many
 * @done: if not NULL, set to how many responses were accepted
 *
 * Writes up to FSGATE_RESPONSE_MAX responses per write(). fsgate takes or
 * refuses each write as a whole, so on failure the responses from
 * *@done on were not applied, and the one that is wrong is among the
 * next FSGATE_RESPONSE_MAX. A group fd that takes fewer responses per
 * write() (in-tree fanotify takes one) is given the rest in later writes.
 *
 * Return: 0 when all were accepted, or -1 with errno set as for
 * fsgate_respond().
 */
int fsgate_respond_batch(int fd, const struct fanotify_response *responses,
			 size_t count, size_t *done);

/**
 * fsgate_cache_flush() - forget verdicts the group cached (FSGATE_CACHE)
 * @fd: a group fd
 * @file_fd: an open fd of the one file whose verdicts go, or -1 for
 *	every file (a signature update, a policy reload)
 *
 * Once it returns, the group is asked again about each access it had a
 * verdict cached for, and answers to events asked before are not cached.
 *
 * Return: how many files had verdicts cached, or -1 with errno set:
 * EBADF when @file_fd is not an open fd, ENOTTY for a module without
 * the call.
 */
int fsgate_cache_flush(int fd, int file_fd);

/**
 * fsgate_mute_add() - stop the group hearing of what an entry names
 * @fd: a group fd
 * @entry: FSGATE_MUTE_PROCESS (a tgid, with FSGATE_MUTE_DESCENDANTS also
 *	what it forks from now on), FSGATE_MUTE_EXE (a program's st_dev
 *	and st_ino), FSGATE_MUTE_UID (an effective uid) or
 *	FSGATE_MUTE_CGROUP (a cgroup v2 id, its directory's st_ino, and
 *	the cgroups below it)
 *
 * The group is then neither told of nor asked about those accesses;
 * fsgate decides before any event is made (in FSGATE_MUTE_MODE_ONLY it
 * sees only them). See fsgate_mute(3).
 *
 * Return: 0, or -1 with errno set: EINVAL for a bad entry, ESRCH for a
 * process that does not exist, ENOENT for a cgroup that does not,
 * EOPNOTSUPP for a cgroup on a kernel without cgroups, EEXIST for an
 * entry the group has, ENOSPC past the module's max_mutes.
 */
int fsgate_mute_add(int fd, const struct fsgate_mute_entry *entry);

/**
 * fsgate_mute_exe() - mute a program: fsgate_mute_add() of its file
 * @fd: a group fd
 * @path: the program (a symbolic link is followed)
 *
 * Return: as fsgate_mute_add(), or -1 with stat(2)'s errno.
 */
int fsgate_mute_exe(int fd, const char *path);

/**
 * fsgate_mute_remove() - remove an entry that fsgate_mute_add() added
 * @fd: a group fd
 * @entry: as listed by fsgate_mute_list() (its flags are ignored)
 *
 * Return: 0, or -1 with errno set: ENOENT when the group has no such
 * entry, EINVAL for a bad entry.
 */
int fsgate_mute_remove(int fd, const struct fsgate_mute_entry *entry);

/**
 * fsgate_mute_clear() - remove every entry; the mode stays
 * @fd: a group fd
 *
 * Return: 0, or -1 with errno set.
 */
int fsgate_mute_clear(int fd);

/**
 * fsgate_mute_set_mode() - whether the entries are muted or the only
 *	ones seen
 * @fd: a group fd
 * @mode: FSGATE_MUTE_MODE_MUTE (the default) or FSGATE_MUTE_MODE_ONLY
 *	(a group without entries then sees nothing)
 *
 * Return: 0, or -1 with errno set (EINVAL for an unknown mode).
 */
int fsgate_mute_set_mode(int fd, unsigned int mode);

/**
 * fsgate_mute_list() - the group's entries and mode
 * @fd: a group fd
 * @entries: room for @room entries, filled in
 * @room: how many fit (0 to ask how many there are)
 * @mode: if not NULL, set to the group's FSGATE_MUTE_MODE_*
 *
 * Return: how many entries the group has (only @room of them copied if
 * there are more), or -1 with errno set.
 */
ssize_t fsgate_mute_list(int fd, struct fsgate_mute_entry *entries,
			 size_t room, unsigned int *mode);

/**
 * fsgate_respond_id() - answer one permission event by its id
 * @fd: the group fd the event was read from, made with FSGATE_REPORT_PERM
 * @id: the event's id, from its struct fsgate_info_perm
 *	(fsgate_info_perm())
 * @response: as for fsgate_respond()
 *
 * An id names one event only, so an answer by id can never reach another
 * event: not one a forked worker read with the same fd number, nor one
 * read after the event's fd was closed and its number given again.
 *
 * Return: 0, or -1 with errno set: ENOENT when no pending event has that
 * id (answered, timed out, withdrawn, or never read), EINVAL for a
 * malformed response or id 0.
 */
int fsgate_respond_id(int fd, uint64_t id, uint32_t response);

/**
 * fsgate_extend() - ask for more time to answer a permission event
 * @fd: the group fd the event was read from, made with FSGATE_REPORT_PERM
 * @id: the event's id
 * @ms: how long from now the group needs, at least 1
 *
 * The event's deadline moves to @ms from now, but never past the group's
 * max_wait_ms (struct fsgate_init) after the access began, and never
 * earlier than it was. The event stays pending; answer it as usual.
 *
 * Return: 0, or -1 with errno set: ENOENT when no pending event has that
 * id, EINVAL for @ms 0 or id 0.
 */
int fsgate_extend(int fd, uint64_t id, uint32_t ms);

/**
 * struct fsgate_infos - a cursor over the info records of one event
 * @next: where the next record starts
 * @end: where the event ends
 * @error: 0 while the records are sound; once fsgate_info_next() has
 *	returned NULL, 0 for the end of the event or EBADMSG
 *
 * Set by fsgate_infos_init(); callers only read @error.
 */
struct fsgate_infos {
	const unsigned char *next;
	const unsigned char *end;
	int error;
};

/**
 * fsgate_infos_init() - start iterating over an event's info records
 * @it: the cursor
 * @ev: an event from fsgate_event_next(), which checked that its
 *	@event_len lies inside the buffer
 */
void fsgate_infos_init(struct fsgate_infos *it,
		       const struct fanotify_event_metadata *ev);

/**
 * fsgate_info_next() - the next whole info record of an event, checked
 * @it: a cursor from fsgate_infos_init()
 *
 * Records are framed by struct fanotify_event_info_header, fanotify's
 * and fsgate's (FSGATE_INFO_*) alike; a record of an unknown type is
 * handed out too, for the caller to skip.
 *
 * Return: the record's header, or NULL: at the end of the event with
 * @it->error 0, or with errno and @it->error set to EBADMSG for a record
 * that is truncated, shorter than its header, longer than what is left
 * of the event, or misaligned. Iteration stops there.
 */
const struct fanotify_event_info_header *
fsgate_info_next(struct fsgate_infos *it);

/**
 * fsgate_info_perm() - a permission event's id and deadline
 * @ev: an event from fsgate_event_next(), read from a group made with
 *	FSGATE_REPORT_PERM
 *
 * Return: its struct fsgate_info_perm, at least FSGATE_INFO_PERM_LEN_V1
 * bytes long, or NULL with errno set: ENOENT when the event has none
 * (not a permission event, or the group did not ask), EBADMSG for a
 * malformed record.
 */
const struct fsgate_info_perm *
fsgate_info_perm(const struct fanotify_event_metadata *ev);

/**
 * fsgate_info_proc() - who caused an event
 * @ev: an event from fsgate_event_next(), read from a group made with
 *	FSGATE_REPORT_PROC
 *
 * Return: its struct fsgate_info_proc, at least FSGATE_INFO_PROC_LEN_V1
 * bytes long, or NULL with errno set: ENOENT when the event has none
 * (an overflow, or the group did not ask), EBADMSG for a malformed
 * record.
 */
const struct fsgate_info_proc *
fsgate_info_proc(const struct fanotify_event_metadata *ev);
struct sock_filter;

/**
 * fsgate_set_filter() - give the group a classic BPF filter, or remove it
 * @fd: a group fd
 * @insns: @len instructions (struct sock_filter, <linux/filter.h>) run
 *	over struct fsgate_filter_data before the group is told or asked
 * @len: 1..FSGATE_FILTER_MAX, or 0 (with @insns NULL) to remove it
 *
 * The program returns FSGATE_FILTER_ASK, FSGATE_FILTER_SKIP,
 * FSGATE_FILTER_ALLOW or FSGATE_FILTER_DENY ored with an errno; see
 * fsgate_set_filter(3).
 *
 * Return: 0, or -1 with errno set: EINVAL for a malformed program (a
 * load outside the struct, a packet load, no return at the end, bad
 * jumps) or length, ENOMEM.
 */
int fsgate_set_filter(int fd, const struct sock_filter *insns,
		      unsigned int len);

/* The call an errno came from, for fsgate_strerror(). */
enum fsgate_call {
	FSGATE_CALL_INIT,	/* fsgate_init(), fsgate_init_ext() */
	FSGATE_CALL_MARK,	/* fsgate_mark() */
	FSGATE_CALL_READ,	/* read() and fsgate_event_next() */
	FSGATE_CALL_RESPOND,	/* fsgate_respond(), fsgate_respond_batch(),
				 * fsgate_respond_id(), fsgate_respond_rule(),
				 * fsgate_extend() */
	FSGATE_CALL_STATS,	/* fsgate_stats() */
	FSGATE_CALL_CACHE_FLUSH, /* fsgate_cache_flush() */
	FSGATE_CALL_MUTE,	/* fsgate_mute_*() */
	FSGATE_CALL_VERSION,	/* fsgate_version() */
	FSGATE_CALL_FILTER,	/* fsgate_set_filter() */
	FSGATE_CALL_PERSIST,	/* fsgate_persist() */
	FSGATE_CALL_ATTACH,	/* fsgate_attach(), fsgate_remove() */
};

/**
 * fsgate_strerror() - what an errno means for one fsgate call
 * @call: the call that failed
 * @errnum: the errno it set
 *
 * Return: a static sentence that says what went wrong in fsgate's terms
 * ("fsgate.ko is not loaded" for ENOENT from fsgate_init()), or
 * strerror(@errnum) for an errno the call has no special meaning for.
 */
const char *fsgate_strerror(enum fsgate_call call, int errnum);

/**
 * fsgate_mask_parse() - an event mask from names
 * @text: comma-separated names, case ignored: access, modify,
 *	close_write, close_nowrite, open, open_exec, open_perm, access_perm,
 *	open_exec_perm, attrib, moved_from, moved_to, create, delete,
 *	delete_self, move_self, rename, ondir, q_overflow, and the sets
 *	close (both closes), notif or all (every notification event) and perm (every permission
 *	event)
 * @mask: set to the union of the named events on success
 * @bad: if not NULL, set on failure to the offset in @text of the name
 *	that is not known (or of the empty name)
 *
 * Return: 0, or -1 with errno EINVAL; @mask is left alone then.
 */
int fsgate_mask_parse(const char *text, uint64_t *mask, size_t *bad);

/**
 * fsgate_mask_format() - the names of a mask's events
 * @mask: events, as an event record's mask
 * @buf: where the names go, upper case and comma-separated
 *	("OPEN,CLOSE_NOWRITE"), in a fixed order; bits without a name are
 *	left out
 * @len: size of @buf
 *
 * Return: the length of the whole text, as snprintf(); when it is @len or
 * more, @buf holds the empty string.
 */
size_t fsgate_mask_format(uint64_t mask, char *buf, size_t len);

/**
 * fsgate_deny_errno_parse() - the errno a deny may carry, from its name
 * @name: EPERM, EACCES, EIO, EBUSY, ETXTBSY, EAGAIN, ENOSPC or EDQUOT,
 *	case ignored
 *
 * Return: the errno, for FSGATE_DENY_ERRNO(), or -1 with errno EINVAL for
 * a name fsgate does not take in a response.
 */
int fsgate_deny_errno_parse(const char *name);

/**
 * fsgate_deny_errno_name() - the name of an errno a deny may carry
 * @errnum: an errno
 *
 * Return: "EPERM" and so on, or NULL when a deny cannot carry @errnum.
 */
const char *fsgate_deny_errno_name(int errnum);

/**
 * fsgate_fd_path() - the path of the file an event fd refers to
 * @fd: an event's fd (or any fd)
 * @buf: where the path goes, NUL-terminated
 * @len: size of @buf
 *
 * The path is the one /proc/self/fd shows: of the mount the file was
 * opened through, with " (deleted)" appended once it has been unlinked.
 *
 * Return: 0, or -1 with errno set (ENAMETOOLONG when @buf is too small).
 */
int fsgate_fd_path(int fd, char *buf, size_t len);

/**
 * fsgate_pid_comm() - the command name of a process
 * @pid: an event's pid
 * @buf: where the name goes (16 bytes hold any)
 * @len: size of @buf
 *
 * A notification event may be read after its process has exited.
 *
 * Return: 0, or -1 with errno set (ENOENT or ESRCH once it is gone).
 */
int fsgate_pid_comm(pid_t pid, char *buf, size_t len);

/**
 * fsgate_pid_uid() - the real user id of a process
 * @pid: an event's pid
 * @uid: set to its real uid
 *
 * Return: 0, or -1 with errno set (ENOENT or ESRCH once it is gone).
 */
int fsgate_pid_uid(pid_t pid, uid_t *uid);

/* Where the module lists its groups and keeps its parameters. */
#define FSGATE_GROUPS_FILE "/proc/fsgate/groups"
#define FSGATE_PARAMS_DIR "/sys/module/fsgate/parameters"

/**
 * struct fsgate_group_info - one group, as the module lists it
 * @id: the group's id, unique while the module is loaded
 * @pid: the process that made it
 * @comm: that process's command name
 * @class_name: "notif", "content" or "pre-content"
 * @priority: its priority; groups are listed highest first
 * @stats: its counters, as fsgate_stats() gives them to the group itself
 * @attached: group fds open on it (0: a persistent group that waits)
 * @name: a persistent group's name; "" for any other group
 * @owner: a persistent group's owner
 * @persist_flags: FSGATE_PERSIST_* flags it was made persistent with
 * @absent_ms: its absent bound
 * @absent_verdict: FSGATE_VERDICT_ALLOW or FSGATE_VERDICT_DENY
 * @absent_errno: with FSGATE_VERDICT_DENY, the errno accesses get
 * @linger_ms: its linger bound; 0 if it persists until removed
 * @absent_left_ms: with nobody attached, milliseconds until its absent
 *	verdict decides, 0 once it does; FSGATE_GROUP_NO_DEADLINE otherwise
 * @linger_left_ms: with nobody attached, milliseconds until it is torn
 *	down; FSGATE_GROUP_NO_DEADLINE otherwise
 * @attaches: fsgate_attach() calls that gave an fd on it
 * @handovers: those made while another fd was attached
 * @timeout_ms: how long an access waits for its answer, the module's
 *	default resolved; FSGATE_TIMEOUT_NONE: without bound
 * @max_wait_ms: the longest an access may wait for it when it asks for
 *	more time, the module's default resolved
 * @timeout_verdict: FSGATE_VERDICT_ALLOW or FSGATE_VERDICT_DENY, what a
 *	timeout gives; 0 where the module does not say (before
 *	FSGATE_FEATURE_GROUPS_VER2, or from FSGATE_GROUPS_FILE): then
 *	every field from @timeout_ms on is 0
 * @timeout_errno: with FSGATE_VERDICT_DENY, the errno accesses get
 * @orphan_verdict: what its pending events get when it goes away
 * @orphan_errno: with FSGATE_VERDICT_DENY, the errno accesses get
 * @inode_marks: of @stats.marks, the inode marks
 * @mount_marks: the mount marks
 * @filesystem_marks: the filesystem marks
 *
 * The fields from @attached to @handovers are FSGATE_0.6's, those from
 * @timeout_ms on FSGATE_0.7's; the module fills those of persistent
 * groups where it has FSGATE_FEATURE_GROUPS_PERSIST. Programs built
 * with an older <fsgate.h> get the fields they know.
 */
struct fsgate_group_info {
	uint64_t id;
	pid_t pid;
	char comm[17];
	char class_name[16];
	unsigned int priority;
	struct fsgate_stats stats;
	unsigned int attached;
	char name[FSGATE_NAME_MAX];
	uid_t owner;
	unsigned int persist_flags;
	unsigned int absent_ms;
	unsigned int absent_verdict;
	unsigned int absent_errno;
	unsigned int linger_ms;
	unsigned int absent_left_ms;
	unsigned int linger_left_ms;
	uint64_t attaches;
	uint64_t handovers;
	unsigned int timeout_ms;
	unsigned int max_wait_ms;
	unsigned int timeout_verdict;
	unsigned int timeout_errno;
	unsigned int orphan_verdict;
	unsigned int orphan_errno;
	unsigned int inode_marks;
	unsigned int mount_marks;
	unsigned int filesystem_marks;
};

/**
 * fsgate_groups_list() - every group, in asking order
 * @path: NULL for the loaded module's list, or a file in the format of
 *	FSGATE_GROUPS_FILE to read instead
 * @groups: set to a malloc()ed array of records of @size bytes each, which
 *	the caller frees; NULL for none
 * @size: sizeof(struct fsgate_group_info) as the caller knows it, at
 *	least the size FSGATE_0.2 had (up to @stats)
 *
 * With @path NULL the list comes from FSGATE_IOC_GROUPS where the module
 * offers it (FSGATE_FEATURE_GROUPS), and from FSGATE_GROUPS_FILE where it
 * does not. In the file, columns are found by the names in its header
 * line: a column a later module adds is skipped, one an older module
 * lacks reads as 0 ("-" for a name or a time left that does not apply).
 * Call it as fsgate_groups_read(), which passes the size.
 *
 * Return: how many groups, or -1 with errno set: ENOENT when fsgate.ko
 * is not loaded, EPERM (ioctl) or EACCES (file) without privilege,
 * EBADMSG for a file that is not a group list, EAGAIN if groups kept
 * coming faster than the list could be read, EINVAL for a @size below
 * FSGATE_0.2's.
 *
 * FSGATE_0.7's entry point: fsgate_groups_list(), FSGATE_0.6's, fills
 * no field past @handovers.
 */
ssize_t fsgate_groups_get(const char *path, struct fsgate_group_info **groups,
			  size_t size);
ssize_t fsgate_groups_list(const char *path, struct fsgate_group_info **groups,
			   size_t size);

/*
 * fsgate_groups_read(path, groups): fsgate_groups_get() with the size of
 * the struct fsgate_group_info this header declares. (Programs built
 * before FSGATE_0.6 call a function of that name, which fills the
 * fields up to @stats; those built before FSGATE_0.7 call
 * fsgate_groups_list(), which fills them up to @handovers.)
 */
#define fsgate_groups_read(path, groups) \
	fsgate_groups_get((path), (groups), sizeof(**(groups)))

/**
 * fsgate_param_get() - read a module parameter
 * @name: its name, as in FSGATE_PARAMS_DIR (max_groups, ...)
 * @value: set to its value
 *
 * Return: 0, or -1 with errno set: ENOENT for a module that is not
 * loaded or has no such parameter, EINVAL for a name with a '/'.
 */
int fsgate_param_get(const char *name, unsigned long long *value);

/**
 * fsgate_param_set() - change a module parameter (root only)
 * @name: its name
 * @value: the new value; the module checks only that it fits its type
 *
 * Return: 0, or -1 with errno set as fsgate_param_get(), EACCES without
 * privilege, EINVAL when the module refuses the value.
 */
int fsgate_param_set(const char *name, unsigned long long value);

#ifdef __cplusplus
}
#endif

#endif /* FSGATE_H */
