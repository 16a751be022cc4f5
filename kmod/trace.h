/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsgate's trace events, trace system "fsgate" (tracefs
 * events/fsgate/): a permission event asked of a group and its answer,
 * an access's verdict, a group created, attached to and closed. Defined
 * once, in trace.c; each costs a patched-out branch while disabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fsgate

#if !defined(_FSGATE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FSGATE_TRACE_H

#include <linux/dcache.h>
#include <linux/fanotify.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "group.h"
#include "perm.h"

TRACE_DEFINE_ENUM(FSGATE_SRC_ANSWER);
TRACE_DEFINE_ENUM(FSGATE_SRC_CACHE);
TRACE_DEFINE_ENUM(FSGATE_SRC_CONSENSUS);
TRACE_DEFINE_ENUM(FSGATE_SRC_MUTE);
TRACE_DEFINE_ENUM(FSGATE_SRC_FILTER);
TRACE_DEFINE_ENUM(FSGATE_SRC_TIMEOUT);
TRACE_DEFINE_ENUM(FSGATE_SRC_ORPHAN);
TRACE_DEFINE_ENUM(FSGATE_SRC_ABSENT);
TRACE_DEFINE_ENUM(FSGATE_SRC_CANCEL);
TRACE_DEFINE_ENUM(FSGATE_SRC_UNOPENED);
TRACE_DEFINE_ENUM(FSGATE_SRC_KILLED);
TRACE_DEFINE_ENUM(FSGATE_SRC_NOMEM);
TRACE_DEFINE_ENUM(FSGATE_SRC_NONE);

#define fsgate_show_source(source)					\
	__print_symbolic(source,					\
			 { FSGATE_SRC_ANSWER,	"answer" },		\
			 { FSGATE_SRC_CACHE,	"cache" },		\
			 { FSGATE_SRC_CONSENSUS, "consensus" },		\
			 { FSGATE_SRC_MUTE,	"mute" },		\
			 { FSGATE_SRC_FILTER,	"filter" },		\
			 { FSGATE_SRC_TIMEOUT,	"timeout" },		\
			 { FSGATE_SRC_ORPHAN,	"orphan" },		\
			 { FSGATE_SRC_ABSENT,	"absent" },		\
			 { FSGATE_SRC_CANCEL,	"cancel" },		\
			 { FSGATE_SRC_UNOPENED,	"unopened" },		\
			 { FSGATE_SRC_KILLED,	"killed" },		\
			 { FSGATE_SRC_NOMEM,	"nomem" },		\
			 { FSGATE_SRC_NONE,	"none" })

#define fsgate_show_class(flags)					\
	__print_symbolic((flags) & FSGATE_CLASS_MASK,			\
			 { FSGATE_CLASS_NOTIF,	"notif" },		\
			 { FSGATE_CLASS_CONTENT, "content" },		\
			 { FSGATE_CLASS_PRE_CONTENT, "pre-content" })

#define fsgate_show_mask(mask)						\
	__print_flags(mask, "|",					\
		      { FAN_OPEN_PERM,		"OPEN_PERM" },		\
		      { FAN_ACCESS_PERM,	"ACCESS_PERM" },	\
		      { FAN_OPEN_EXEC_PERM,	"OPEN_EXEC_PERM" })

#ifndef _FSGATE_TRACE_FILE
#define _FSGATE_TRACE_FILE
/* The inode of the file at @path, or NULL without one. */
static inline const struct inode *fsgate_trace_inode(const struct path *path)
{
	return path && path->dentry ? d_inode(path->dentry) : NULL;
}
#endif

/* The device and inode of the file at @file_path, or zeros. */
#define fsgate_trace_file(file_path)					\
	do {								\
		const struct inode *i_ = fsgate_trace_inode(file_path);	\
									\
		__entry->dev = i_ ? i_->i_sb->s_dev : 0;		\
		__entry->ino = i_ ? i_->i_ino : 0;			\
	} while (0)

TRACE_EVENT(fsgate_perm_ask,
	    TP_PROTO(const struct fsgate_perm *perm),
	    TP_ARGS(perm),
	    TP_STRUCT__entry(__field(u64, group)
			     __field(u64, id)
			     __field(u32, priority)
			     __field(u32, flags)
			     __field(pid_t, pid)
			     __field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(u32, mask)
			     __field(u64, deadline_ns)),
	    TP_fast_assign(__entry->group = perm->group->id;
			   __entry->id = perm->id;
			   __entry->priority = perm->group->priority;
			   __entry->flags = perm->group->flags;
			   __entry->pid = task_tgid_nr(perm->waiter);
			   fsgate_trace_file(&perm->event.path);
			   __entry->mask = perm->event.mask;
			   __entry->deadline_ns = perm->deadline_ns;),
	    TP_printk("group=%llu priority=%u class=%s id=%llu pid=%d dev=%u:%u ino=%lu mask=%s deadline_ns=%llu",
		      __entry->group, __entry->priority,
		      fsgate_show_class(__entry->flags), __entry->id, __entry->pid,
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      fsgate_show_mask(__entry->mask), __entry->deadline_ns)
);

TRACE_EVENT(fsgate_perm_answer,
	    TP_PROTO(const struct fsgate_group *group, u64 id,
		     struct task_struct *task, const struct path *path, u32 mask,
		     int verdict, u8 source, u64 asked_ns),
	    TP_ARGS(group, id, task, path, mask, verdict, source, asked_ns),
	    TP_STRUCT__entry(__field(u64, group)
			     __field(u64, id)
			     __field(u32, priority)
			     __field(u32, flags)
			     __field(pid_t, pid)
			     __field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(u32, mask)
			     __field(int, verdict)
			     __field(u8, source)
			     __field(u64, latency_ns)),
	    TP_fast_assign(__entry->group = group->id;
			   __entry->id = id;
			   __entry->priority = group->priority;
			   __entry->flags = group->flags;
			   __entry->pid = task_tgid_nr(task);
			   fsgate_trace_file(path);
			   __entry->mask = mask;
			   __entry->verdict = verdict;
			   __entry->source = source;
			   __entry->latency_ns = asked_ns ? ktime_get_ns() - asked_ns : 0;),
	    TP_printk("group=%llu priority=%u class=%s id=%llu pid=%d dev=%u:%u ino=%lu mask=%s verdict=%s errno=%d by=%s latency_ns=%llu",
		      __entry->group, __entry->priority,
		      fsgate_show_class(__entry->flags), __entry->id, __entry->pid,
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      fsgate_show_mask(__entry->mask),
		      __entry->verdict ? "deny" : "allow", -__entry->verdict,
		      fsgate_show_source(__entry->source), __entry->latency_ns)
);

TRACE_EVENT(fsgate_access_verdict,
	    TP_PROTO(const struct path *path, u32 mask, int verdict,
		     const struct fsgate_by *by, unsigned int groups),
	    TP_ARGS(path, mask, verdict, by, groups),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(u32, mask)
			     __field(int, verdict)
			     __field(u64, group)
			     __field(u8, source)
			     __field(unsigned int, groups)),
	    TP_fast_assign(__entry->pid = task_tgid_nr(current);
			   fsgate_trace_file(path);
			   __entry->mask = mask;
			   __entry->verdict = verdict;
			   __entry->group = by->group;
			   __entry->source = by->source;
			   __entry->groups = groups;),
	    TP_printk("pid=%d dev=%u:%u ino=%lu mask=%s verdict=%s errno=%d group=%llu by=%s groups=%u",
		      __entry->pid, MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->ino, fsgate_show_mask(__entry->mask),
		      __entry->verdict ? "deny" : "allow", -__entry->verdict,
		      __entry->group, fsgate_show_source(__entry->source),
		      __entry->groups)
);

DECLARE_EVENT_CLASS(fsgate_group_class,
		    TP_PROTO(const struct fsgate_group *group, int fd),
		    TP_ARGS(group, fd),
		    TP_STRUCT__entry(__field(u64, group)
				     __field(u32, priority)
				     __field(u32, flags)
				     __field(u32, timeout_ms)
				     __field(pid_t, pid)
				     __field(int, fd)
				     __field(unsigned int, attached)
				     __field(bool, persistent)),
		    TP_fast_assign(__entry->group = group->id;
				   __entry->priority = group->priority;
				   __entry->flags = group->flags;
				   __entry->timeout_ms = group->timeout_ms;
				   __entry->pid = task_tgid_nr(current);
				   __entry->fd = fd;
				   __entry->attached = READ_ONCE(group->attached);
				   __entry->persistent = !!group->persist;),
		    TP_printk("group=%llu priority=%u class=%s flags=0x%x timeout_ms=%u pid=%d fd=%d attached=%u persistent=%d",
			      __entry->group, __entry->priority,
			      fsgate_show_class(__entry->flags), __entry->flags,
			      __entry->timeout_ms, __entry->pid, __entry->fd,
			      __entry->attached, __entry->persistent)
);

DEFINE_EVENT(fsgate_group_class, fsgate_group_create,
	     TP_PROTO(const struct fsgate_group *group, int fd),
	     TP_ARGS(group, fd)
);

DEFINE_EVENT(fsgate_group_class, fsgate_group_attach,
	     TP_PROTO(const struct fsgate_group *group, int fd),
	     TP_ARGS(group, fd)
);

DEFINE_EVENT(fsgate_group_class, fsgate_group_close,
	     TP_PROTO(const struct fsgate_group *group, int fd),
	     TP_ARGS(group, fd)
);

#endif /* _FSGATE_TRACE_H */

/* Out of the kernel's tree: define_trace.h finds this file by -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
