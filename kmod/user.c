// SPDX-License-Identifier: GPL-2.0
/*
 * The user boundary (layer 4), as fanotify_user.c is fanotify's: everything
 * a group fd does for userspace. Requests are copied in and checked here,
 * and only then handed to the layers below: making a group (FSGATE_IOC_INIT
 * reaches fsgate_group_create() through dev.c), read() copying events out
 * with an fd each, write() parsing answers, the ioctls, fdinfo and the fd's
 * release, attaching to persistent groups. Calls go downward only: to
 * persist.c, group.c, mute.c, filter.c, mark.c, event.c and perm.c.
 */
#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fanotify.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/ioctls.h>

#include "event.h"
#include "fid.h"
#include "filter.h"
#include "group.h"
#include "info.h"
#include "mark.h"
#include "mute.h"
#include "perm.h"
#include "persist.h"
#include "trace.h"
#include "user.h"

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
 * flag, priority, verdict or reserved field is unknown or out of range,
 * for %FSGATE_ENABLE_AUDIT on a kernel without audit, or for FID
 * reporting flags fanotify_init(2) refuses (with a class other than
 * notification, %FSGATE_REPORT_NAME without %FSGATE_REPORT_DIR_FID,
 * %FSGATE_REPORT_TARGET_FID without %FSGATE_REPORT_FID and
 * %FSGATE_REPORT_NAME).
 */
int fsgate_init_check(const struct fsgate_init *init)
{
	unsigned int i;

	if (init->flags & ~FSGATE_INIT_FLAGS)
		return -EINVAL;
	/* A program asking for audit records must not silently get none. */
	if ((init->flags & FSGATE_ENABLE_AUDIT) && !FSGATE_COMPAT_AUDIT)
		return -EINVAL;
	if ((init->flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_MASK)
		return -EINVAL;
	/* fanotify_init()'s rules for FID reporting. */
	if ((init->flags & FSGATE_REPORT_FID_BITS) &&
	    (init->flags & FSGATE_CLASS_MASK) != FSGATE_CLASS_NOTIF)
		return -EINVAL;
	if ((init->flags & FSGATE_REPORT_NAME) &&
	    !(init->flags & FSGATE_REPORT_DIR_FID))
		return -EINVAL;
	if ((init->flags & FSGATE_REPORT_TARGET_FID) &&
	    (!(init->flags & FSGATE_REPORT_NAME) ||
	     !(init->flags & FSGATE_REPORT_FID)))
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
	if (init->reserved32)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(init->reserved); i++)
		if (init->reserved[i])
			return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_init_check);

/*
 * Is @path's file opened by a server in userspace? FUSE (FS_HAS_SUBTYPE:
 * fuse and fuseblk, which any user may mount through fusermount3 or in
 * a user namespace) hands every open, and the permission check of a
 * mount without default_permissions, to its server, which may never
 * answer; nothing bounds that wait. An overlay's file is opened in the
 * layer that holds its data, so that layer's filesystem is the one
 * asked. (virtiofs has no subtype: its server is the host's.)
 */
static bool fsgate_event_user_served(const struct path *path)
{
	const struct inode *real = d_real_inode(path->dentry);

	return real->i_sb->s_type->fs_flags & FS_HAS_SUBTYPE;
}

/*
 * The open flags of an event's fd. Anything but a regular file or a
 * directory (a FIFO, a socket, a device) gets an O_PATH fd: its own open
 * would block (a FIFO without a writer), fail (a socket) or act (a
 * device) on the daemon's behalf, and an O_PATH open runs none of it.
 * So does a file a userspace server opens: the group's reader would wait
 * on a server a local user runs, every access waiting on the group with
 * it. The daemon may open the O_PATH fd itself (/proc/self/fd/N), in a
 * thread it can afford to lose to the server.
 */
static int fsgate_event_f_flags(struct fsgate_group *group,
				const struct path *path)
{
	if ((d_is_reg(path->dentry) || d_is_dir(path->dentry)) &&
	    !fsgate_event_user_served(path))
		return group->event_f_flags;
	return O_PATH | (group->event_f_flags & O_CLOEXEC);
}

/*
 * An unused fd number for an event. A permission event gets none that a
 * pending event read by this process holds (see fsgate_perm_fd_taken()):
 * such numbers stay allocated while looking further, so that the next
 * one tried is another, and are given back after.
 */
static noinline int fsgate_event_get_fd(struct fsgate_group *group,
					struct fsgate_event *event, int flags)
{
	int fd = get_unused_fd_flags(flags);
	unsigned int n = 0, room = 0;
	int *held = NULL, *more;

	while (fd >= 0 && fsgate_is_perm(event) &&
	       fsgate_perm_fd_taken(group, fd)) {
		if (n == room) {
			room = room ? 2 * room : 8;
			more = krealloc_array(held, room, sizeof(*held),
					      GFP_KERNEL);
			if (!more) {
				put_unused_fd(fd);
				fd = -ENOMEM;
				break;
			}
			held = more;
		}
		held[n++] = fd;
		fd = get_unused_fd_flags(flags);
	}
	while (n--)
		put_unused_fd(held[n]);
	kfree(held);
	return fd;
}

/*
 * May the reader have @path opened with @flags? An event's fd is opened
 * in the reader's credentials without open(2)'s permission check, as
 * fanotify's are: fine for a reader with CAP_SYS_ADMIN, which groups
 * whose events carry fds are made with, but a process that inherited the
 * group fd and dropped its privileges would get files it may not open.
 * Such a reader gets only what open(2) would give it: DAC, ACLs and the
 * LSMs decide, in its credentials. An O_PATH fd gives no access.
 */
static int fsgate_event_may_open(const struct path *path, int flags)
{
	int mask = MAY_OPEN;

	if ((flags & O_PATH) || ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN))
		return 0;
	if ((flags & O_ACCMODE) != O_WRONLY)
		mask |= MAY_READ;
	if ((flags & O_ACCMODE) != O_RDONLY)
		mask |= MAY_WRITE;
	return path_permission(path, mask);
}

/*
 * dentry_open() that never waits on a lease. An open breaks conflicting
 * leases (a write lease for any open, a read lease too for one that
 * writes) and waits lease-break-time (45 s by default) for the holder to
 * let go; any local user can hold a lease on a file of its own, and the
 * group's reader would stall that long, every access waiting on the
 * group running into its timeout meanwhile. With O_NONBLOCK the break is
 * started and break_lease() fails with -EWOULDBLOCK instead; the flag is
 * taken off again unless the group asked for it.
 */
static struct file *fsgate_event_dentry_open(const struct path *path,
					     int flags)
{
	struct file *file;

	file = dentry_open(path, flags | O_NONBLOCK | __FMODE_NONOTIFY,
			   current_cred());
	if (IS_ERR(file) || (flags & O_NONBLOCK))
		return file;
	spin_lock(&file->f_lock);
	file->f_flags &= ~O_NONBLOCK;
	spin_unlock(&file->f_lock);
	return file;
}

/*
 * Open the fd an event carries; it raises no events of its own. A file
 * that a lease keeps from being opened now is a permission event's
 * unopened file (denied: the group cannot judge it), while a
 * notification names it with an O_PATH fd, as a special file.
 */
static int fsgate_event_open_fd(struct fsgate_group *group,
				struct fsgate_event *event, struct file **file)
{
	int flags = fsgate_event_f_flags(group, &event->path);
	int fd = fsgate_event_get_fd(group, event, flags);
	int err;

	if (fd < 0)
		return fd;
	err = fsgate_event_may_open(&event->path, flags);
	if (err) {
		put_unused_fd(fd);
		return err;
	}
	*file = fsgate_event_dentry_open(&event->path, flags);
	if (PTR_ERR_OR_ZERO(*file) == -EWOULDBLOCK && !fsgate_is_perm(event)) {
		flags = O_PATH | (flags & O_CLOEXEC);
		*file = fsgate_event_dentry_open(&event->path, flags);
	}
	if (IS_ERR(*file)) {
		err = PTR_ERR(*file);
		/* Read with its error (FSGATE_REPORT_FD_ERROR): no file. */
		*file = NULL;
		put_unused_fd(fd);
		return err;
	}
	/* Writes through it raise no events: decide the file anew. */
	if ((flags & O_ACCMODE) != O_RDONLY && !(flags & O_PATH))
		fsgate_subs_forget_verdicts(d_inode(event->path.dentry));
	return fd;
}

/*
 * An event's fd could not be opened: the group cannot judge the access,
 * so a permission event is denied; the reader goes on to the next event.
 * A group with FSGATE_REPORT_FD_ERROR was told, in the event's fd, and
 * nothing is logged (fanotify too only leaves a debug message).
 */
static void fsgate_event_unopened(struct fsgate_group *group,
				  struct fsgate_event *event, int err)
{
	bool perm = fsgate_is_perm(event);

	if (perm)
		fsgate_perm_unopened(fsgate_perm_of(event));
	if (group->flags & FSGATE_REPORT_FD_ERROR)
		return;
	fsgate_group_log(warn, group,
			 "cannot open an event's fd (error %d)%s\n", err,
			 perm ? "; access denied" : "; event dropped");
}

/* An event as read() copies it out: its metadata, then its records. */
struct fsgate_event_out {
	struct fanotify_event_metadata meta;
	u8 info[FSGATE_INFO_MAX_LEN];
} __aligned(8);

/*
 * Lay out the info records @event carries for @group; return their size.
 * fanotify's FID records come first, as fanotify puts them before its
 * pidfd record, whose place the process record takes (preload/read.c).
 */
static size_t fsgate_event_info(struct fsgate_group *group,
				struct fsgate_event *event, u8 *info)
{
	struct fsgate_perm *perm;
	size_t len = 0;

	if ((group->flags & FSGATE_REPORT_PERM) && fsgate_is_perm(event)) {
		perm = fsgate_perm_of(event);
		len += fsgate_info_perm_fill(info + len, perm->id,
					     perm->deadline_ns,
					     fsgate_perm_latest_ns(perm),
					     perm->unbounded);
	}
	if (event->fid)
		len += fsgate_fid_fill(info + len, event->fid, group->flags,
				       event->mask);
	if (event->proc)
		len += fsgate_info_proc_fill(info + len, event->proc);
	/* Last, as fanotify puts its ERROR record after the pidfd record. */
	if (event->mask & FSGATE_FS_ERROR)
		len += fsgate_event_error_fill(info + len, event);
	return len;
}

/*
 * Copy the first @len bytes of @out to @buf; nonzero if not all went.
 * The common event, the metadata alone, goes with a size the compiler
 * knows: hardened usercopy checks the stack object of a copy of variable
 * size on every call (__check_object_size()), which fanotify's copies of
 * constant size skip; bench/guest's profile part showed it.
 */
static unsigned long fsgate_event_out_copy(char __user *buf,
					   const struct fsgate_event_out *out,
					   size_t len)
{
	if (len == FAN_EVENT_METADATA_LEN)
		return copy_to_user(buf, &out->meta, FAN_EVENT_METADATA_LEN);
	return copy_to_user(buf, out, len);
}

/*
 * The pid an event reports to the reader, in its pid namespace. As
 * fanotify's, an unprivileged group's reader learns only whether the
 * access was its own process's: every other pid reads 0.
 */
static pid_t fsgate_event_pid_nr(const struct fsgate_group *group,
				 const struct fsgate_event *event)
{
	if (!event->pid)
		return 0;
	if (group->unpriv && event->pid != task_tgid(current))
		return 0;
	return pid_vnr(event->pid);
}

/*
 * Copy one event out, with a new fd for its file; return its length, or
 * -ENOMEM when the room for its FID records cannot be had (the event is
 * put back, as for -EFAULT), or the error opening its fd. A group with
 * FSGATE_REPORT_FD_ERROR gets that error in the event's fd instead, and
 * -EBADF for an event with no file to open, as fanotify's fd says then;
 * the event is dropped (a permission event denied) only once it is
 * copied, so one that faults goes back whole.
 */
static noinline ssize_t fsgate_event_copy(struct fsgate_group *group,
					  struct fsgate_event *event,
					  char __user *buf)
{
	bool fd_error = group->flags & FSGATE_REPORT_FD_ERROR;
	struct fsgate_event_out stack_out, *out = &stack_out;
	struct file *file = NULL;
	int fd = -EBADF;
	size_t info_len, len = fsgate_event_len(group, event);
	ssize_t ret;

	/* FID records (handles, names) do not fit on the stack. */
	if (len > sizeof(stack_out)) {
		out = kmalloc(len, GFP_KERNEL);
		if (!out)
			return -ENOMEM;
	}
	out->meta = (struct fanotify_event_metadata){
		.event_len = len,
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = FAN_EVENT_METADATA_LEN,
		/* FAN_EVENT_ON_CHILD stays inside, as in fanotify. */
		.mask = event->mask & ~FAN_EVENT_ON_CHILD,
		.fd = fd_error ? -EBADF : FAN_NOFD,
		.pid = fsgate_event_pid_nr(group, event),
	};
	info_len = fsgate_event_info(group, event, out->info);
	/* The room was counted by fsgate_event_len(): the records fill it. */
	WARN_ON_ONCE(FAN_EVENT_METADATA_LEN + info_len != len);
	/* As fanotify: never an fd for an unprivileged group, FID or not. */
	if (event->path.dentry && !group->unpriv) {
		fd = fsgate_event_open_fd(group, event, &file);
		if (fd < 0 && !fd_error) {
			fsgate_event_unopened(group, event, fd);
			ret = fd;
			goto out_free;
		}
		out->meta.fd = fd;
	}
	if (fsgate_event_out_copy(buf, out, len)) {
		if (file) {
			fput(file);
			put_unused_fd(fd);
		}
		ret = -EFAULT;
		goto out_free;
	}
	if (event->path.dentry && !group->unpriv && fd < 0)
		fsgate_event_unopened(group, event, fd);
	/*
	 * Named by its fd only once it is sure to have it, so no answer can
	 * find it by a number that goes back to the table.
	 */
	if (file && fsgate_is_perm(event))
		fsgate_perm_set_fd(fsgate_perm_of(event), fd);
	if (file)
		fd_install(fd, file);
	atomic64_inc(&group->delivered);
	ret = len;
out_free:
	if (out != &stack_out)
		kfree(out);
	return ret;
}

/**
 * fsgate_read_events() - read() on a group fd
 * @group: the group
 * @file: the group fd's file, for O_NONBLOCK
 * @buf: userspace buffer
 * @count: its size
 *
 * As fanotify: as many whole events as fit, blocking for the first one
 * unless O_NONBLOCK.
 *
 * An event whose fd cannot be opened is dropped (a permission event is
 * denied: see fsgate_event_unopened()) and the read goes on with the
 * next one; its error is returned only if nothing else was read. With
 * FSGATE_REPORT_FD_ERROR it is read instead, its fd the error. An
 * event that cannot be copied out (part of @buf unmapped) goes back to
 * the head of the queue with its fd closed, and the read returns what it
 * copied before it, so every fd the reader got is one it was told of.
 *
 * Context: process context, may sleep.
 * Return: bytes read; -EAGAIN; -EINVAL if @count cannot hold one event;
 * -ERESTARTSYS; -EFAULT if not even the first event could be copied;
 * or, if no event was read, the error opening the first event's fd that
 * could not be opened.
 */
static ssize_t fsgate_read_events(struct fsgate_group *group,
				  struct file *file, char __user *buf,
				  size_t count)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct fsgate_event *event;
	char __user *start = buf;
	ssize_t ret, open_err = 0;

	add_wait_queue(&group->wq, &wait);
	for (;;) {
		event = fsgate_event_dequeue(group, file, count);
		if (IS_ERR(event)) {
			ret = PTR_ERR(event);
			break;
		}
		if (!event) {
			ret = open_err ?: -EAGAIN;
			if (file->f_flags & O_NONBLOCK || start != buf || open_err)
				break;
			ret = -ERESTARTSYS;
			if (signal_pending(current))
				break;
			wait_woken(&wait, TASK_INTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
			continue;
		}
		ret = fsgate_event_copy(group, event, buf);
		if (ret == -EFAULT || ret == -ENOMEM) {
			/* What was copied is read; the rest waits for the next read(). */
			fsgate_event_unread(group, event);
			break;
		}
		fsgate_event_done(group, event);
		if (ret < 0) {
			/* Unopened, denied: go on with the next event. */
			open_err = open_err ?: ret;
			continue;
		}
		buf += ret;
		count -= ret;
	}
	remove_wait_queue(&group->wq, &wait);
	if (start != buf)
		ret = buf - start;
	return ret;
}

/* FSGATE_INFO only where the kernel's audit records show a rule. */
#define FSGATE_RESPONSE_INFO	(FSGATE_COMPAT_AUDIT_RULE ? FSGATE_INFO : 0)
#define FSGATE_RESPONSE_BITS	(FSGATE_ALLOW | FSGATE_DENY | FSGATE_CACHE | \
				 FSGATE_AUDIT | FSGATE_RESPONSE_INFO | \
				 (FSGATE_ERRNO_MASK << FSGATE_ERRNO_SHIFT))

/**
 * fsgate_response_check() - validate the @response word of an answer
 * @response: FSGATE_ALLOW or FSGATE_DENY, FSGATE_CACHE, a deny's errno,
 *	FSGATE_AUDIT, FSGATE_INFO
 * @verdict: set to 0 for an allow, or the negative errno of a deny
 *
 * Whether the group may ask for audit records is the caller's to check.
 *
 * Context: any.
 * Return: 0, or -EINVAL for unknown bits (%FSGATE_INFO on a kernel whose
 * audit records show no rule), neither or both of allow and deny, an
 * errno with an allow, or an errno outside the set.
 */
int fsgate_response_check(u32 response, int *verdict)
{
	int err = FSGATE_RESPONSE_ERRNO(response);

	if (response & ~FSGATE_RESPONSE_BITS)
		return -EINVAL;
	switch (response & (FSGATE_ALLOW | FSGATE_DENY)) {
	case FSGATE_ALLOW:
		if (err)
			return -EINVAL;
		*verdict = 0;
		return 0;
	case FSGATE_DENY:
		if (err && !fsgate_deny_errno_valid(err))
			return -EINVAL;
		*verdict = err ? -err : -EPERM;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_response_check);

/*
 * A struct fanotify_response with FSGATE_INFO and fd FAN_NOFD: checked,
 * taken, and no answer, as fanotify's FAN_INFO probe.
 */
static bool fsgate_answer_is_probe(const struct fsgate_answer *a)
{
	return !a->id && a->fd == FAN_NOFD;
}

/*
 * The struct fsgate_response_audit_rule after a response with
 * FSGATE_INFO, checked as fanotify checks its own. Returns its size, or
 * -EINVAL.
 */
static ssize_t fsgate_rule_parse(const u8 *buf, size_t left,
				 struct fsgate_response_audit_rule *rule)
{
	if (left < sizeof(*rule))
		return -EINVAL;
	memcpy(rule, buf, sizeof(*rule));
	if (rule->type != FSGATE_RESPONSE_INFO_AUDIT_RULE || rule->pad ||
	    rule->len != sizeof(*rule))
		return -EINVAL;
	return sizeof(*rule);
}

/*
 * The response itself, without its rule: a struct fanotify_response
 * naming its event by fd number (or a FAN_NOFD probe with FSGATE_INFO),
 * or with FSGATE_RESPONSE_ID a struct fsgate_response naming it by id.
 * Returns its size, or -EINVAL.
 */
static ssize_t fsgate_response_form_parse(const u8 *buf, size_t left,
					  struct fsgate_answer *a)
{
	struct fsgate_response r = {};

	if (left < sizeof(struct fanotify_response))
		return -EINVAL;
	memcpy(&r, buf, sizeof(struct fanotify_response));
	if (!(r.response & FSGATE_RESPONSE_ID)) {
		*a = (struct fsgate_answer){ .fd = r.fd, .response = r.response };
		if (r.fd < 0 && !(fsgate_answer_is_probe(a) &&
				  (r.response & FSGATE_INFO)))
			return -EINVAL;
		return sizeof(struct fanotify_response);
	}
	if (left < sizeof(r))
		return -EINVAL;
	memcpy(&r, buf, sizeof(r));
	if (r.fd != FAN_NOFD || !r.id || r.reserved)
		return -EINVAL;
	*a = (struct fsgate_answer){
		.id = r.id,
		.fd = FAN_NOFD,
		.response = r.response & ~FSGATE_RESPONSE_ID,
	};
	/* A request for more time is that and nothing else. */
	if (a->response & FSGATE_EXTEND) {
		if (a->response != FSGATE_EXTEND || !r.extend_ms)
			return -EINVAL;
		a->extend_ms = r.extend_ms;
	} else if (r.extend_ms) {
		return -EINVAL;
	}
	return sizeof(r);
}

/*
 * Parse one response at @buf (@left bytes from the end of the write) into
 * @a: a struct fanotify_response naming its event by fd number, or with
 * FSGATE_RESPONSE_ID a struct fsgate_response naming it by id; either
 * followed by its rule with FSGATE_INFO. Returns its size, or -EINVAL.
 */
static ssize_t fsgate_response_parse(const u8 *buf, size_t left,
				     struct fsgate_answer *a)
{
	ssize_t len, rule_len;

	len = fsgate_response_form_parse(buf, left, a);
	if (len < 0 || !(a->response & FSGATE_INFO))
		return len;
	if (!FSGATE_COMPAT_AUDIT_RULE)
		return -EINVAL;
	rule_len = fsgate_rule_parse(buf + len, left - len, &a->rule);
	if (rule_len < 0)
		return rule_len;
	return len + rule_len;
}

/**
 * fsgate_responses_parse() - parse and check a write()'s responses
 * @buf: the write's bytes, copied in
 * @count: their number
 * @answers: room for @count / sizeof(struct fanotify_response) answers
 *
 * Context: any.
 * Return: how many answers @buf holds, or -EINVAL when one is malformed
 * (see fsgate_response_check()), when @buf ends within a response, or for
 * more than FSGATE_RESPONSE_MAX of them.
 */
ssize_t fsgate_responses_parse(const u8 *buf, size_t count,
			       struct fsgate_answer *answers)
{
	size_t off = 0, n = 0;
	ssize_t len;

	while (off < count) {
		if (n == FSGATE_RESPONSE_MAX)
			return -EINVAL;
		len = fsgate_response_parse(buf + off, count - off, &answers[n]);
		if (len < 0)
			return -EINVAL;
		if (!answers[n].extend_ms &&
		    fsgate_response_check(answers[n].response,
					  &answers[n].verdict))
			return -EINVAL;
		off += len;
		n++;
	}
	return n;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_responses_parse);

/* The bytes one write() may carry: FSGATE_RESPONSE_MAX of the largest. */
#define FSGATE_WRITE_MAX	(FSGATE_RESPONSE_MAX * \
				 (sizeof(struct fsgate_response) + \
				  sizeof(struct fsgate_response_audit_rule)))

/* Responses one write() answers without allocating: the common case. */
#define FSGATE_RESPONSE_STACK	8

/* A write()'s bytes and its answers. */
struct fsgate_answers {
	u8 *buf;
	struct fsgate_answer *answers;
	u64 buf_stack[FSGATE_RESPONSE_STACK];
	struct fsgate_answer answers_stack[FSGATE_RESPONSE_STACK];
};

static noinline int fsgate_answers_get(struct fsgate_answers *a,
				       const char __user *buf, size_t count)
{
	size_t most = min_t(size_t, count / sizeof(struct fanotify_response),
			    FSGATE_RESPONSE_MAX);

	if (count <= sizeof(a->buf_stack)) {
		a->buf = (u8 *)a->buf_stack;
		a->answers = a->answers_stack;
	} else {
		a->buf = kmalloc(count, GFP_KERNEL);
		a->answers = kmalloc_array(most, sizeof(*a->answers),
					   GFP_KERNEL);
		if (!a->buf || !a->answers)
			return -ENOMEM;
	}
	/* One fanotify response, the common write: see fsgate_event_out_copy(). */
	if (count == sizeof(struct fanotify_response))
		return copy_from_user(a->buf, buf,
				      sizeof(struct fanotify_response)) ?
		       -EFAULT : 0;
	return copy_from_user(a->buf, buf, count) ? -EFAULT : 0;
}

static void fsgate_answers_put(struct fsgate_answers *a)
{
	if (a->buf == (u8 *)a->buf_stack)
		return;
	kfree(a->answers);
	kfree(a->buf);
}

/* FSGATE_AUDIT only on a group made with FSGATE_ENABLE_AUDIT, as fanotify. */
static int fsgate_answers_audit_check(const struct fsgate_group *group,
				      const struct fsgate_answer *answers,
				      size_t n)
{
	size_t i;

	if (group->flags & FSGATE_ENABLE_AUDIT)
		return 0;
	for (i = 0; i < n; i++)
		if (answers[i].response & FSGATE_AUDIT)
			return -EINVAL;
	return 0;
}

/* Leave out the probes (fsgate_answer_is_probe()); how many answers stay. */
static size_t fsgate_answers_drop_probes(struct fsgate_answer *answers,
					 size_t n)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++)
		if (!fsgate_answer_is_probe(&answers[i]))
			answers[kept++] = answers[i];
	return kept;
}

/**
 * fsgate_write_answers() - write() on a group fd: answers to permission events
 * @group: the group
 * @file: the group fd's file written to
 * @buf: one or more struct fanotify_response and struct fsgate_response,
 *	each with FSGATE_INFO followed by a struct fsgate_response_audit_rule
 * @count: their size in bytes
 *
 * All or nothing: either every response names a pending event (by the fd
 * its read gave, or by its id) and is applied, or none is. A FAN_NOFD
 * response with FSGATE_INFO is checked and answers nothing (fanotify's
 * probe for FAN_INFO).
 *
 * Context: process context, may sleep.
 * Return: @count; -EINVAL for a group that is not asked, a size that is
 * not a whole number of responses (or above FSGATE_RESPONSE_MAX of them),
 * a negative fd, a bad response word, or a bad struct fsgate_response or
 * rule; %FSGATE_AUDIT on a group without %FSGATE_ENABLE_AUDIT;
 * -ENOENT when a response names no pending event, or one that another
 * response of the write answers already; -ENOTUNIQ for an fd number
 * that names no event the writer read and several that others read (see
 * fsgate_perms_answer()); -EFAULT; -ENOMEM.
 */
static ssize_t fsgate_write_answers(struct fsgate_group *group,
				    const struct file *file,
				    const char __user *buf, size_t count)
{
	/*
	 * 464 bytes not zeroed for every write: fsgate_answers_get() sets the
	 * pointers, and only bytes copied from the user and answers parsed
	 * from them are read.
	 */
	struct fsgate_answers a __uninitialized;
	ssize_t ret, n;

	if ((group->flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_NOTIF ||
	    !count || count > FSGATE_WRITE_MAX ||
	    count % sizeof(struct fanotify_response))
		return -EINVAL;
	ret = fsgate_answers_get(&a, buf, count);
	if (ret)
		goto out_put;
	n = fsgate_responses_parse(a.buf, count, a.answers);
	ret = n;
	if (n < 0)
		goto out_put;
	ret = fsgate_answers_audit_check(group, a.answers, n);
	if (ret)
		goto out_put;
	n = fsgate_answers_drop_probes(a.answers, n);

	ret = n ? fsgate_perms_answer(group, file, a.answers, n) : 0;
	if (!ret)
		ret = count;
out_put:
	fsgate_answers_put(&a);
	return ret;
}

/**
 * fsgate_mark_check() - validate a struct fsgate_mark from userspace
 * @mark: the request, already copied from userspace
 * @group_flags: FSGATE_* flags of the group it is for
 *
 * Context: any.
 * Return: 0, or -EINVAL for unknown or conflicting flags (both ignore
 * flags, FSGATE_MARK_IGNORED_SURV_MODIFY without one, or
 * FSGATE_MARK_EVICTABLE on a mount or filesystem), unknown or
 * missing event bits (a removal may name only event flags), permission
 * events for a notification group, FSGATE_DIRENT_EVENTS for a group
 * without FID reporting or on a mount, FSGATE_FS_ERROR for a group
 * without FID reporting or on anything but a filesystem, FAN_RENAME without
 * FSGATE_REPORT_NAME, or non-zero reserved fields.
 */
int fsgate_mark_check(const struct fsgate_mark *mark, u32 group_flags)
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
	/* As fanotify, a removal may name only FAN_ONDIR or FAN_EVENT_ON_CHILD. */
	if (!(mark->mask & (FSGATE_EVENTS | FSGATE_DIRENT_EVENTS |
			    FSGATE_FS_ERROR)) &&
	    !(action == FSGATE_MARK_REMOVE && mark->mask))
		return -EINVAL;
	if (mark->mask & ~(u64)(FSGATE_EVENTS | FSGATE_DIRENT_EVENTS |
				FSGATE_FS_ERROR | FSGATE_MASK_FLAGS))
		return -EINVAL;
	/* As fanotify: only groups that decide may ask to decide. */
	if ((mark->mask & FSGATE_PERM_EVENTS) &&
	    (group_flags & FSGATE_CLASS_MASK) == FSGATE_CLASS_NOTIF)
		return -EINVAL;
	/*
	 * As fanotify: events without a file to open need file handles to
	 * report, and are no mount's, having no path to tell mounts apart.
	 */
	if ((mark->mask & FSGATE_DIRENT_EVENTS) &&
	    (!(group_flags & FSGATE_REPORT_FID_BITS) ||
	     type == FSGATE_MARK_MOUNT))
		return -EINVAL;
	/* As fanotify: a filesystem's errors, on its filesystem mark only. */
	if ((mark->mask & FSGATE_FS_ERROR) &&
	    (type != FSGATE_MARK_FILESYSTEM ||
	     !(group_flags & FSGATE_REPORT_FID_BITS)))
		return -EINVAL;
	/* FAN_RENAME's records name both sides: fanotify has it with names only. */
	if ((mark->mask & FAN_RENAME) && !(group_flags & FSGATE_REPORT_NAME))
		return -EINVAL;
	if ((mark->flags & FSGATE_MARK_IGNORED_SURV_MODIFY) &&
	    !(mark->flags & (FSGATE_MARK_IGNORED_MASK | FSGATE_MARK_IGNORE)))
		return -EINVAL;
	if ((mark->flags & FSGATE_MARK_IGNORED_MASK) &&
	    (mark->flags & FSGATE_MARK_IGNORE))
		return -EINVAL;
	/* Only an inode leaves memory. */
	if ((mark->flags & FSGATE_MARK_EVICTABLE) && type != FSGATE_MARK_INODE)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_mark_check);

/*
 * Resolve the object of a mark request, as fanotify_mark(2) says (the
 * kernel's fanotify gives EBADF for AT_FDCWD without a pathname). A
 * request that names an open file by its fd alone gets it in *@via,
 * referenced, for the caller to fput().
 */
static int fsgate_mark_path(const struct fsgate_mark *mark, struct path *path,
			    struct file **via)
{
	const char __user *name = u64_to_user_ptr(mark->pathname);
	unsigned int lookup = 0;
	struct file *file;
	int ret;

	*via = NULL;
	if (!name && mark->dirfd == AT_FDCWD) {
		/* fanotify_mark(2): AT_FDCWD alone is the current directory. */
		get_fs_pwd(current->fs, path);
	} else if (!name) {
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
		*via = file;
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
	if (ret) {
		path_put(path);
		if (*via)
			fput(*via);
	}
	return ret;
}

/* fanotify's FANOTIFY_DIRONLY_EVENT_BITS. */
#define FSGATE_DIRONLY_BITS	(FAN_MOVE | FAN_CREATE | FAN_DELETE | \
				 FAN_RENAME | FSGATE_MASK_FLAGS)

/*
 * The objects fanotify refuses to mark: permission events on filesystems
 * whose opens take unusual locks (procfs: FS_DISALLOW_NOTIFY_PERM), and
 * kernel-internal filesystems (SB_NOUSER: pipefs, the anon-inode mount),
 * whose mount or filesystem mark would gate every pipe or anon-inode fd,
 * the group's own included. fsgate refuses inode marks there too: an
 * anon inode is shared by every fd of its kind.
 *
 * As fanotify's fanotify_events_supported(), the newer interfaces
 * (FSGATE_MARK_IGNORE, FAN_RENAME, a group with FSGATE_REPORT_TARGET_FID)
 * refuse directory events and flags on a file (-ENOTDIR).
 */
static int fsgate_mark_supported(const struct fsgate_mark *mark,
				 const struct path *path, u32 group_flags)
{
	struct super_block *sb = path->mnt->mnt_sb;
	u32 type = mark->flags & FSGATE_MARK_TYPES;
	bool strict = (group_flags & FSGATE_REPORT_TARGET_FID) ||
		      (mark->mask & FAN_RENAME) ||
		      (mark->flags & FSGATE_MARK_IGNORE);

	if ((mark->mask & FSGATE_PERM_EVENTS) &&
	    (sb->s_type->fs_flags & FS_DISALLOW_NOTIFY_PERM))
		return -EINVAL;
	if (sb->s_flags & SB_NOUSER)
		return -EINVAL;
	if (strict && type == FSGATE_MARK_INODE && !d_is_dir(path->dentry) &&
	    (mark->mask & FSGATE_DIRONLY_BITS))
		return -ENOTDIR;
	return 0;
}

/*
 * As fanotify, the ignore masks of FSGATE_MARK_IGNORE it refuses: one
 * that a modification would clear on a directory (-EISDIR) or a mount or
 * filesystem (-EINVAL), where modifications of what is inside would.
 */
static int fsgate_mark_ignore_supported(const struct fsgate_mark *mark,
					const struct path *path)
{
	bool dir = d_is_dir(path->dentry);
	u32 type = mark->flags & FSGATE_MARK_TYPES;

	if (!(mark->flags & FSGATE_MARK_IGNORE))
		return 0;
	if (!(mark->flags & FSGATE_MARK_IGNORED_SURV_MODIFY) &&
	    (type != FSGATE_MARK_INODE || dir))
		return type == FSGATE_MARK_INODE ? -EISDIR : -EINVAL;
	return 0;
}

/*
 * What a mark request changes, as fanotify_mark() reads it: a legacy
 * ignore mask takes no event flags, and FAN_EVENT_ON_CHILD means nothing
 * but on a directory's inode mark, except that a group reporting
 * directory handles gets it on every other mark it adds events to, so
 * that fsnotify reports a file's events with its parent and name.
 */
static void fsgate_mark_change(const struct fsgate_mark *mark,
			       const struct path *path, u32 group_flags,
			       struct fsgate_change *change)
{
	u32 mask = mark->mask;

	if ((mark->flags & FSGATE_MARK_TYPES) != FSGATE_MARK_INODE ||
	    !d_is_dir(path->dentry)) {
		mask &= ~FAN_EVENT_ON_CHILD;
		if ((group_flags & FSGATE_REPORT_DIR_FID) &&
		    (mark->flags & FSGATE_MARK_ADD) &&
		    !(mark->flags & (FSGATE_MARK_IGNORED_MASK |
				     FSGATE_MARK_IGNORE)))
			mask |= FAN_EVENT_ON_CHILD;
	}
	if (mark->flags & FSGATE_MARK_IGNORED_MASK)
		mask &= ~FSGATE_MASK_FLAGS;
	change->evictable = (mark->flags & FSGATE_MARK_EVICTABLE) &&
			    (mark->flags & FSGATE_MARK_ADD);
	if (!(mark->flags & (FSGATE_MARK_IGNORED_MASK | FSGATE_MARK_IGNORE))) {
		change->mask = mask;
		return;
	}
	change->ignore = mask;
	change->surv_modify = mark->flags & FSGATE_MARK_IGNORED_SURV_MODIFY;
	change->ignore_flags = mark->flags & FSGATE_MARK_IGNORE;
}

/*
 * As fanotify_add_inode_mark(): an ignore mask that modification would
 * clear is not added to a file someone has open for write, who could
 * change it unseen (through a shared mapping) while the mask hides it.
 * The request succeeds and changes nothing.
 *
 * Unlike fanotify, the writable file the request names the object by
 * (@via) does not count: an HSM restores a file through its event fd and
 * ignores the file through that fd before closing it, and what it writes
 * is its own doing. fanotify would drop that ignore mask silently.
 */
static bool fsgate_mark_ignore_is_moot(const struct fsgate_mark *mark,
				       const struct path *path,
				       const struct file *via)
{
	int own = via && (via->f_mode & FMODE_WRITER);

	return (mark->flags & (FSGATE_MARK_IGNORED_MASK | FSGATE_MARK_IGNORE)) &&
	       !(mark->flags & FSGATE_MARK_IGNORED_SURV_MODIFY) &&
	       (mark->flags & FSGATE_MARK_TYPES) == FSGATE_MARK_INODE &&
	       atomic_read(&d_inode(path->dentry)->i_writecount) > own;
}

static void fsgate_mark_key(struct fsgate_key *key, u32 type,
			    const struct path *path)
{
	*key = (struct fsgate_key) {
		.type = FSNOTIFY_OBJ_TYPE_SB,
		.object = path->mnt->mnt_sb,
	};
	if (type == FSGATE_MARK_INODE) {
		key->type = FSNOTIFY_OBJ_TYPE_INODE;
		key->object = d_inode(path->dentry);
	} else if (type == FSGATE_MARK_MOUNT) {
		key->mnt = path->mnt;
		key->mnt_root = path->mnt->mnt_root;
	}
}

/**
 * fsgate_ioctl_mark() - FSGATE_IOC_MARK: add, remove or flush marks
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_mark
 *
 * A mount mark is kept on the superblock and matches events whose path
 * goes through that vfsmount, so a bind mount and its original are told
 * apart.
 *
 * Context: process context, may sleep.
 * Return: 0; -EFAULT; -EINVAL for a bad request (see fsgate_mark_check())
 * or an object fanotify refuses to mark (see fsgate_mark_supported(),
 * which also gives -ENOTDIR and -EISDIR for ignore masks); -EEXIST for
 * an ignore mask the mark's earlier ones refuse (see fsgate_sub_add());
 * -EPERM without CAP_SYS_ADMIN for a mount or filesystem mark, or to add
 * any mark to a group whose events carry fds (no FID reporting), and for
 * a mount or filesystem mark of an unprivileged group, whoever asks; -EBADF,
 * -ENOENT, -ENOTDIR, -EACCES (no read permission on the object) and
 * other lookup errors for the object; -ENOENT to remove a mark that does
 * not exist; -ENOSPC past max_marks; -ENOMEM (also for the reserve of a
 * group's first FSGATE_FS_ERROR mark).
 */
static long fsgate_ioctl_mark(struct fsgate_group *group, void __user *arg)
{
	unsigned int nofs;
	struct fsgate_change change = {};
	struct fsgate_mark mark;
	struct file *via;
	struct fsgate_key key;
	struct path path;
	u32 type;
	long ret;

	if (copy_from_user(&mark, arg, sizeof(mark)))
		return -EFAULT;
	ret = fsgate_mark_check(&mark, group->flags);
	if (ret)
		return ret;
	type = mark.flags & FSGATE_MARK_TYPES;
	/*
	 * As fanotify: mount and filesystem marks need CAP_SYS_ADMIN of the
	 * caller, not only of the group's maker, whose fd may have been
	 * inherited by an unprivileged process; an unprivileged group has
	 * none, whoever asks.
	 */
	if (type != FSGATE_MARK_INODE &&
	    (!capable(CAP_SYS_ADMIN) || group->unpriv))
		return -EPERM;
	/*
	 * Unlike fanotify: a group whose events carry fds (every group
	 * without FID reporting, every permission group) gets no new mark
	 * from a caller without CAP_SYS_ADMIN either. Such a holder could
	 * otherwise aim the group at files it may not open, or make it
	 * decide accesses of others; fsgate_event_may_open() is the check
	 * for marks made before the holder dropped its privileges.
	 */
	if ((mark.flags & FSGATE_MARK_ADD) &&
	    !(group->flags & FSGATE_REPORT_FID_BITS) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (mark.flags & FSGATE_MARK_FLUSH) {
		nofs = fsgate_marks_lock();
		fsgate_subs_flush(group, type);
		fsgate_marks_unlock(nofs);
		return 0;
	}

	ret = fsgate_mark_path(&mark, &path, &via);
	if (ret)
		return ret;
	/* In fanotify_mark()'s order, for its errno where several apply. */
	if (mark.flags & FSGATE_MARK_ADD)
		ret = fsgate_mark_supported(&mark, &path, group->flags);
	if (!ret && (group->flags & FSGATE_REPORT_FID_BITS))
		ret = fsgate_fid_check_object(path.dentry,
					      type == FSGATE_MARK_INODE,
					      &change.fsid);
	if (!ret && (mark.flags & FSGATE_MARK_ADD))
		ret = fsgate_mark_ignore_supported(&mark, &path);
	if (ret || ((mark.flags & FSGATE_MARK_ADD) &&
		    fsgate_mark_ignore_is_moot(&mark, &path, via)))
		goto out_put_path;
	fsgate_mark_key(&key, type, &path);
	fsgate_mark_change(&mark, &path, group->flags, &change);
	nofs = fsgate_marks_lock();
	if (!(mark.flags & FSGATE_MARK_ADD))
		ret = fsgate_sub_remove(group, &key, &change);
	/* As fanotify_add_mark(): error events are set aside first. */
	else if (change.mask & FSGATE_FS_ERROR)
		ret = fsgate_event_error_reserve(group) ?:
		      fsgate_sub_add(group, &key, &change);
	else
		ret = fsgate_sub_add(group, &key, &change);
	fsgate_marks_unlock(nofs);
out_put_path:
	path_put(&path);
	if (via)
		fput(via);
	return ret;
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

/* Validate a struct fsgate_cache_flush; see fsgate_ioctl_flush_cache(). */
static int fsgate_cache_flush_check(const struct fsgate_cache_flush *req)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(req->reserved); i++)
		if (req->reserved[i])
			return -EINVAL;
	if (req->flags & ~FSGATE_FLUSH_FLAGS)
		return -EINVAL;
	if (!(req->flags & FSGATE_FLUSH_FILE) && req->fd)
		return -EINVAL;
	return 0;
}

/**
 * fsgate_ioctl_flush_cache() - FSGATE_IOC_FLUSH_CACHE: forget cached verdicts
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_cache_flush
 *
 * For a signature update or a policy reload: the group is asked again
 * about every access it had a verdict cached for (all of them, or those
 * on one file), and answers to events asked before are not cached.
 * Counted in the group's @cache_flushes.
 *
 * Context: process context, may sleep.
 * Return: how many files had verdicts of the group cached; -EFAULT;
 * -EINVAL for unknown flags, an fd without %FSGATE_FLUSH_FILE or
 * non-zero reserved fields; -EBADF for an fd that is not open. Nothing
 * changes on error.
 */
static long fsgate_ioctl_flush_cache(struct fsgate_group *group,
				     void __user *arg)
{
	struct fsgate_cache_flush req;
	struct file *file = NULL;
	long ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	ret = fsgate_cache_flush_check(&req);
	if (ret)
		return ret;
	if (req.flags & FSGATE_FLUSH_FILE) {
		file = fget_raw(req.fd);
		if (!file)
			return -EBADF;
	}
	ret = fsgate_subs_flush_verdicts(group, file ? file_inode(file) : NULL);
	atomic64_inc(&group->cache_flushes);
	if (file)
		fput(file);
	return ret;
}

/* Whether the fields @op does not take are zero; see fsgate_ioctl_mute(). */
/*
 * Copy in a struct versioned by the u32 @size it begins with, as
 * copy_struct_from_user() intends: at least @ver0 bytes, at most a page.
 */
static long fsgate_copy_sized(void *dst, size_t dsize,
			      const void __user *arg, u32 ver0)
{
	u32 size;

	if (get_user(size, (const u32 __user *)arg))
		return -EFAULT;
	if (size < ver0 || size > PAGE_SIZE)
		return -EINVAL;
	return copy_struct_from_user(dst, dsize, arg, size);
}

static bool fsgate_mute_unused_zero(const struct fsgate_mute *req)
{
	static const struct fsgate_mute_entry none;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(req->reserved); i++)
		if (req->reserved[i])
			return false;
	if (req->op != FSGATE_MUTE_ADD && req->op != FSGATE_MUTE_REMOVE &&
	    memcmp(&req->entry, &none, sizeof(none)))
		return false;
	if (req->op != FSGATE_MUTE_LIST && (req->count || req->entries))
		return false;
	return req->op == FSGATE_MUTE_SET_MODE || !req->mode;
}

/* FSGATE_MUTE_LIST: copy a group's entries and its mode out. */
static noinline long fsgate_mute_list(struct fsgate_group *group,
				      struct fsgate_mute __user *uarg,
				      const struct fsgate_mute *req)
{
	struct fsgate_mute_entry __user *out = u64_to_user_ptr(req->entries);
	struct fsgate_mute_entry *entries;
	u32 room, count, mode;
	int n;
	long ret = 0;

	fsgate_mutes_list(group, NULL, 0, &count, &mode);
	room = min(req->count, count);
	entries = kvcalloc(room, sizeof(*entries), GFP_KERNEL);
	if (room && !entries)
		return -ENOMEM;
	n = fsgate_mutes_list(group, entries, room, &count, &mode);
	if (copy_to_user(out, entries, n * sizeof(*entries)) ||
	    put_user(count, &uarg->count) || put_user(mode, &uarg->mode))
		ret = -EFAULT;
	kvfree(entries);
	return ret;
}

/**
 * fsgate_ioctl_mute() - FSGATE_IOC_MUTE: what the group does not hear of
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_mute, of the size its
 *	@size says (%FSGATE_MUTE_SIZE_VER0 or more)
 *
 * Adds, removes, clears or lists the group's mute entries, or sets
 * whether they are muted or the only ones seen. Fields an operation does
 * not take must be zero, so that they can be given meanings later.
 *
 * Context: process context, may sleep.
 * Return: 0; -EFAULT; -EINVAL for a size below %FSGATE_MUTE_SIZE_VER0
 * or above a page, an unknown operation or mode, a bad entry (see
 * fsgate_mute_entry_check()) or a non-zero field the operation does not
 * take; -E2BIG for a longer struct whose bytes fsgate does not know are
 * not zero; and what fsgate_mute_add() and fsgate_mute_remove() return.
 * Nothing changes on error.
 */
static long fsgate_ioctl_mute(struct fsgate_group *group,
			      struct fsgate_mute __user *arg)
{
	struct fsgate_mute req;
	long ret;

	ret = fsgate_copy_sized(&req, sizeof(req), arg, FSGATE_MUTE_SIZE_VER0);
	if (ret)
		return ret;
	if (!fsgate_mute_unused_zero(&req))
		return -EINVAL;
	switch (req.op) {
	case FSGATE_MUTE_ADD:
		ret = fsgate_mute_entry_check(&req.entry);
		return ret ?: fsgate_mute_add(group, &req.entry);
	case FSGATE_MUTE_REMOVE:
		ret = fsgate_mute_entry_check(&req.entry);
		return ret ?: fsgate_mute_remove(group, &req.entry);
	case FSGATE_MUTE_CLEAR:
		return fsgate_mutes_clear(group);
	case FSGATE_MUTE_LIST:
		return fsgate_mute_list(group, arg, &req);
	case FSGATE_MUTE_SET_MODE:
		return fsgate_mute_set_mode(group, req.mode);
	default:
		return -EINVAL;
	}
}

/**
 * fsgate_ioctl_persist() - FSGATE_IOC_PERSIST: make a group persistent
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_persist, whose @size says
 *	how long it is (%FSGATE_PERSIST_SIZE_VER0 or more)
 *
 * From now on the group outlives its fds: see fsgate_persist_detach().
 *
 * Context: process context, may sleep.
 * Return: 0; -EPERM without CAP_SYS_ADMIN; -EFAULT; -EINVAL for a bad
 * request (fsgate_persist_check()) or a size below
 * %FSGATE_PERSIST_SIZE_VER0 or above a page; -E2BIG for a longer struct
 * whose bytes fsgate does not know are not zero; and what
 * fsgate_persist_set() returns. Nothing changes on error.
 */
static long fsgate_ioctl_persist(struct fsgate_group *group,
				 struct fsgate_persist __user *arg)
{
	struct fsgate_persist req;
	long ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = fsgate_copy_sized(&req, sizeof(req), arg,
				FSGATE_PERSIST_SIZE_VER0);
	if (ret)
		return ret;
	ret = fsgate_persist_check(&req);
	return ret ?: fsgate_persist_set(group, &req);
}

/**
 * fsgate_ioctl_set_filter() - FSGATE_IOC_SET_FILTER: a group's filter
 * @group: the group of the fd the ioctl came on
 * @arg: userspace pointer to a struct fsgate_filter
 *
 * Replaces the group's classic BPF filter, or removes it (@len 0).
 *
 * Context: process context, may sleep.
 * Return: 0; -EFAULT; -EINVAL for flags, reserved fields, a length out
 * of range, instructions without a length, or a malformed program (see
 * fsgate_filter_set()); -ENOMEM. Nothing changes on error.
 */
static long fsgate_ioctl_set_filter(struct fsgate_group *group,
				    void __user *arg)
{
	struct fsgate_filter req;
	unsigned int i;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(req.reserved); i++)
		if (req.reserved[i])
			return -EINVAL;
	if (req.flags || (!req.len && req.insns))
		return -EINVAL;
	return fsgate_filter_set(group, req.len, u64_to_user_ptr(req.insns));
}

/*
 * The ioctls of a group fd that fanotify has no counterpart of and that
 * act beyond the group's own events: muting, filtering (whose programs
 * read other processes' ids), the verdict cache and persistence. An
 * unprivileged group (@unpriv) gets -EPERM for them, whoever asks, as
 * fanotify refuses it mount marks; its marks, stats, FIONREAD and fdinfo
 * are its own.
 */
static bool fsgate_ioctl_privileged(unsigned int cmd)
{
	switch (cmd) {
	case FSGATE_IOC_FLUSH_CACHE:
	case FSGATE_IOC_MUTE:
	case FSGATE_IOC_SET_FILTER:
	case FSGATE_IOC_PERSIST:
		return true;
	default:
		return false;
	}
}

/**
 * fsgate_group_ioctl() - the ioctls of a group fd
 * @file: the group fd's file
 * @cmd: FSGATE_IOC_* or FIONREAD
 * @arg: the ioctl's userspace argument
 *
 * Context: process context, may sleep.
 * Return: what the ioctl returns; -EPERM for an ioctl of
 * fsgate_ioctl_privileged() on an unprivileged group; -ENOTTY for an
 * unknown @cmd.
 */
static long fsgate_group_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct fsgate_group *group = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (group->unpriv && fsgate_ioctl_privileged(cmd))
		return -EPERM;
	switch (cmd) {
	case FSGATE_IOC_MARK:
		return fsgate_ioctl_mark(group, uarg);
	case FSGATE_IOC_STATS:
		return fsgate_ioctl_stats(group, uarg);
	case FSGATE_IOC_FLUSH_CACHE:
		return fsgate_ioctl_flush_cache(group, uarg);
	case FSGATE_IOC_MUTE:
		return fsgate_ioctl_mute(group, uarg);
	case FSGATE_IOC_SET_FILTER:
		return fsgate_ioctl_set_filter(group, uarg);
	case FSGATE_IOC_PERSIST:
		return fsgate_ioctl_persist(group, uarg);
	case FIONREAD:
		/* As fanotify: the bytes a read() would return now. */
		return put_user(fsgate_event_queued_bytes(group),
				(int __user *)uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * fdinfo: fanotify's lines exactly as fs/notify/fdinfo.c prints them, so
 * that what parses fanotify's fdinfo (CRIU, scripts) reads fsgate's, and
 * fsgate's own facts on lines that begin "fsgate-". One difference must
 * stay: a mount mark's mnt_id is 0, since a mount's id is inside struct
 * mount, which no exported function reveals.
 */

/* fanotify's mflags. */
static unsigned int fsgate_sub_mflags(const struct fsgate_sub *sub)
{
	unsigned int mflags = 0;

	if (sub->evictable)
		mflags |= FSGATE_MARK_EVICTABLE;
	if (sub->surv_modify)
		mflags |= FAN_MARK_IGNORED_SURV_MODIFY;
	if (READ_ONCE(sub->ignore_flags))
		mflags |= FSGATE_MARK_IGNORE;
	return mflags;
}

/* As fanotify's show_mark_fhandle(): the inode's handle, if it has one. */
static void fsgate_show_fhandle(struct seq_file *m, struct inode *inode)
{
	u32 fh[MAX_HANDLE_SZ / sizeof(u32)];
	int words = ARRAY_SIZE(fh);
	int type, i;
	u8 *bytes = (u8 *)fh;

	type = fsgate_compat_encode_fid(inode, (struct fid *)fh, &words);
	if (type == FILEID_INVALID || type < 0)
		return;
	seq_printf(m, "fhandle-bytes:%x fhandle-type:%x f_handle:",
		   (unsigned int)(words * sizeof(u32)), type);
	for (i = 0; i < words * (int)sizeof(u32); i++)
		seq_printf(m, "%02x", bytes[i]);
}

/**
 * struct fsgate_sub_view - what fdinfo shows of one mark
 * @inode: an inode mark's inode, referenced so that its handle can be
 *	encoded with no fsgate lock held; NULL for other marks, and for an
 *	inode being evicted (no handle then: tmpfs would hash it again)
 * @ino: an inode mark's inode number
 * @sdev: the filesystem's device
 * @type: the object's FSNOTIFY_OBJ_TYPE_*
 * @mnt: a mount mark
 * @fanotify: a mark of the user's, shown on fanotify's line too; not a
 *	sub that only holds cached verdicts, where fanotify has no mark
 * @mflags: fanotify's mflags
 * @mask: the mark's mask
 * @ignore: its ignore mask
 * @fsn_mask: the object's union mask, which the kernel reports to
 */
struct fsgate_sub_view {
	struct inode *inode;
	unsigned long ino;
	dev_t sdev;
	unsigned int type;
	bool mnt;
	bool fanotify;
	unsigned int mflags;
	u32 mask;
	u32 ignore;
	u32 fsn_mask;
};

/* A mark as fdinfo shows it, taken under fsgate_mark_mutex. */
static void fsgate_sub_view_take(struct fsgate_sub_view *v,
				 const struct fsgate_sub *sub)
{
	struct inode *inode = NULL;
	struct super_block *sb;

	if (sub->obj->type == FSNOTIFY_OBJ_TYPE_INODE) {
		inode = sub->obj->object;
		sb = inode->i_sb;
	} else {
		sb = sub->obj->object;
	}
	*v = (struct fsgate_sub_view) {
		.inode = inode ? igrab(inode) : NULL,
		.ino = inode ? inode->i_ino : 0,
		.sdev = sb->s_dev,
		.type = sub->obj->type,
		.mnt = sub->mnt,
		.fanotify = sub->mask || atomic_read(&sub->ignore),
		.mflags = fsgate_sub_mflags(sub),
		.mask = sub->mask,
		.ignore = atomic_read(&sub->ignore),
		.fsn_mask = READ_ONCE(sub->obj->fsn.mask),
	};
}

/* One mark on fanotify's line, then on fsgate's own. */
static void fsgate_sub_view_show(struct seq_file *m,
				 const struct fsgate_sub_view *v)
{
	if (v->type == FSNOTIFY_OBJ_TYPE_INODE) {
		if (v->fanotify && v->inode) {
			seq_printf(m, "fanotify ino:%lx sdev:%x mflags:%x mask:%x ignored_mask:%x ",
				   v->ino, v->sdev, v->mflags, v->mask,
				   v->ignore);
			fsgate_show_fhandle(m, v->inode);
			seq_putc(m, '\n');
		}
		seq_printf(m, "fsgate-mark inode ino:%lx sdev:%x", v->ino,
			   v->sdev);
	} else if (v->mnt) {
		if (v->fanotify)
			seq_printf(m, "fanotify mnt_id:%x mflags:%x mask:%x ignored_mask:%x\n",
				   0, v->mflags, v->mask, v->ignore);
		seq_printf(m, "fsgate-mark mount sdev:%x", v->sdev);
	} else {
		if (v->fanotify)
			seq_printf(m, "fanotify sdev:%x mflags:%x mask:%x ignored_mask:%x\n",
				   v->sdev, v->mflags, v->mask, v->ignore);
		seq_printf(m, "fsgate-mark sb sdev:%x", v->sdev);
	}
	/* The object's union mask shows what the kernel reports. */
	seq_printf(m, " mask:%x ignored_mask:%x fsnotify_mask:%x\n",
		   v->mask, v->ignore, v->fsn_mask);
}

/*
 * A group's marks, newest first as fanotify lists them. They are taken
 * under fsgate_mark_mutex and shown after it is dropped: encoding a
 * handle may wait (an overlay exported over NFS copies a directory up,
 * which writes its upper layer and reads its lower one, perhaps a
 * user's FUSE server), and no wait of a reader's may hold the mutex
 * every mark ioctl, close and eviction takes. The inodes' references
 * are dropped last, also unlocked: the last iput() may evict the inode,
 * and eviction takes the mutex. Without memory for the views, no marks.
 */
static noinline void fsgate_subs_show_fdinfo(struct seq_file *m,
					     struct fsgate_group *group)
{
	unsigned int nofs, room = 0, n = 0, i;
	struct fsgate_sub_view *views;
	struct fsgate_sub *sub;

	nofs = fsgate_marks_lock();
	list_for_each_entry(sub, &group->subs, group_node)
		room++;
	/* GFP_NOFS in effect: see fsgate_marks_lock(). */
	views = kvmalloc_array(room, sizeof(*views), GFP_KERNEL_ACCOUNT);
	if (views)
		list_for_each_entry_reverse(sub, &group->subs, group_node)
			fsgate_sub_view_take(&views[n++], sub);
	fsgate_marks_unlock(nofs);
	for (i = 0; i < n && !seq_has_overflowed(m); i++)
		fsgate_sub_view_show(m, &views[i]);
	for (i = 0; i < n; i++)
		iput(views[i].inode);
	kvfree(views);
}

/* The FSGATE_* group flags that are fanotify's FAN_* flags too. */
#define FSGATE_FANOTIFY_INIT_FLAGS	(FSGATE_INIT_FLAGS & ~FSGATE_EXCLUDE_SELF)

static void fsgate_group_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct fsgate_group *group = file->private_data;

	seq_printf(m, "fanotify flags:%x event-flags:%x\n",
		   group->flags & FSGATE_FANOTIFY_INIT_FLAGS,
		   group->event_f_flags);
	seq_printf(m, "fsgate-group id:%llu class:%s priority:%u flags:0x%x event-flags:0x%x timeout-ms:%u timeout-verdict:%s orphan-verdict:%s\n",
		   group->id, fsgate_class_name(group->flags), group->priority,
		   group->flags, group->event_f_flags, group->timeout_ms,
		   fsgate_verdict_name(fsgate_policy_verdict(group->timeout_verdict)),
		   fsgate_verdict_name(fsgate_policy_verdict(group->orphan_verdict)));
	fsgate_persist_show(m, group);
	fsgate_subs_show_fdinfo(m, group);
}

static int fsgate_group_release(struct inode *inode, struct file *file)
{
	struct fsgate_group *group = file->private_data;

	bool teardown = fsgate_persist_detach(group, file);

	trace_fsgate_group_close(group, -1);
	if (teardown)
		fsgate_persist_teardown(group);
	fsgate_group_put(group);
	return 0;
}

static ssize_t fsgate_group_read(struct file *file, char __user *buf,
				 size_t count, loff_t *pos)
{
	return fsgate_read_events(file->private_data, file, buf, count);
}

static ssize_t fsgate_group_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *pos)
{
	return fsgate_write_answers(file->private_data, file, buf, count);
}

static __poll_t fsgate_group_poll(struct file *file, poll_table *wait)
{
	return fsgate_event_poll(file->private_data, file, wait);
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

/* The group fd's open flags for FSGATE_CLOEXEC and FSGATE_NONBLOCK. */
static int fsgate_group_f_flags(u32 flags)
{
	int f_flags = O_RDWR;

	if (flags & FSGATE_CLOEXEC)
		f_flags |= O_CLOEXEC;
	if (flags & FSGATE_NONBLOCK)
		f_flags |= O_NONBLOCK;
	return f_flags;
}

/**
 * fsgate_group_attach() - FSGATE_IOC_ATTACH: a new fd on a persistent group
 * @req: the request, copied from userspace
 *
 * Context: process context, may sleep.
 * Return: the new group fd; -EINVAL for flags other than %FSGATE_CLOEXEC
 * and %FSGATE_NONBLOCK or non-zero reserved fields; what
 * fsgate_persist_attach() returns; or a negative errno from fd
 * allocation.
 */
int fsgate_group_attach(const struct fsgate_attach *req)
{
	int f_flags = fsgate_group_f_flags(req->flags);
	struct fsgate_group *group;
	struct file *file;
	int fd;

	if (req->flags & ~(FSGATE_CLOEXEC | FSGATE_NONBLOCK) || req->reserved32)
		return -EINVAL;
	fd = get_unused_fd_flags(f_flags);
	if (fd < 0)
		return fd;
	group = fsgate_persist_attach(req);
	if (IS_ERR(group)) {
		put_unused_fd(fd);
		return PTR_ERR(group);
	}
	file = anon_inode_getfile("[fsgate]", &fsgate_group_fops, group,
				  f_flags);
	if (IS_ERR(file))
		goto out_detach;
	trace_fsgate_group_attach(group, fd);
	fd_install(fd, file);
	return fd;

out_detach:
	put_unused_fd(fd);
	if (fsgate_persist_detach(group, NULL))
		fsgate_persist_teardown(group);
	fsgate_group_put(group);
	return PTR_ERR(file);
}

/**
 * fsgate_group_create() - make a listener group and an fd for it
 * @init: the request, already copied from userspace
 * @unpriv: made without CAP_SYS_ADMIN (struct fsgate_group's @unpriv)
 *
 * Context: process context, may sleep. The caller checked privileges.
 * Return: the new group fd, -EINVAL for a bad request, -EPERM for
 * %FSGATE_ENABLE_AUDIT without CAP_AUDIT_WRITE or for
 * %FSGATE_TIMEOUT_NONE unless the module's allow_unbounded_waits is set,
 * -EMFILE past max_groups for this user, -ENOMEM, or another negative
 * errno from fd allocation.
 */
int fsgate_group_create(const struct fsgate_init *init, bool unpriv)
{
	int f_flags = fsgate_group_f_flags(init->flags);
	struct fsgate_init req;
	struct fsgate_group *group;
	struct file *file;
	int fd, ret;

	ret = fsgate_init_check(init);
	if (ret)
		return ret;
	/* As fanotify_init(2): records in the audit log are a privilege. */
	if ((init->flags & FSGATE_ENABLE_AUDIT) && !capable(CAP_AUDIT_WRITE))
		return -EPERM;
	ret = fsgate_timeout_check(init->timeout_ms);
	if (ret)
		return ret;
	/* As fanotify_init(2): event fds are large-file fds where longs are. */
	req = *init;
	if (force_o_largefile())
		req.event_f_flags |= O_LARGEFILE;

	group = fsgate_group_alloc(&req);
	if (!group)
		return -ENOMEM;
	if (unpriv) {
		ret = fsgate_group_set_unpriv(group);
		if (ret)
			goto out_free_group;
	}
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

	ret = fsgate_group_publish(group);
	if (ret)
		goto out_put_file;
	trace_fsgate_group_create(group, fd);
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
