/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_PERM_H
#define _FSGATE_PERM_H

#include <linux/kernel.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/fsgate.h>

#include "cache.h"
#include "event.h"

struct file;
struct files_struct;
struct fsgate_group;
struct path;
struct pid;
struct task_struct;

/*
 * Where a permission event is; see struct fsgate_perm. QUEUED ->
 * REPORTED -> DONE, or straight to DONE from QUEUED (timeout, orphan,
 * killed waiter); REPORTED goes back to QUEUED when the reader fails to
 * copy it out (fsgate_perm_unread()). ANSWERING lasts only within the locked section of one
 * write(): its responses take their events, then resolve them all or
 * give them back.
 */
enum fsgate_perm_state {
	FSGATE_PERM_QUEUED,	/* on the group's queue, not read yet */
	FSGATE_PERM_REPORTED,	/* read, on the group's pending list */
	FSGATE_PERM_ANSWERING,	/* taken by a response of a write() */
	FSGATE_PERM_DONE,	/* resolved: @verdict holds */
};

/**
 * enum fsgate_source - what settled a group's part in an access, or the
 *	access, as the trace events report it (trace.h)
 * @FSGATE_SRC_ANSWER: the group answered
 * @FSGATE_SRC_CACHE: the group's verdict cache
 * @FSGATE_SRC_CONSENSUS: the consensus: every group's cache allows
 * @FSGATE_SRC_MUTE: a mute of the group hid the access from it
 * @FSGATE_SRC_FILTER: the group's filter
 * @FSGATE_SRC_TIMEOUT: the group's timeout verdict: it did not answer in
 *	time, the chain passed max_chain_ms, or too many events were pending
 * @FSGATE_SRC_ORPHAN: the group's orphan verdict: it went away
 * @FSGATE_SRC_ABSENT: a persistent group's absent verdict
 * @FSGATE_SRC_CANCEL: the access ended before the group answered: another
 *	group of its tier denied, or the accessing process was killed
 * @FSGATE_SRC_UNOPENED: the reader could not open the event's fd
 * @FSGATE_SRC_KILLED: the accessing process was killed while it waited
 * @FSGATE_SRC_NOMEM: not every group could be collected (no memory)
 * @FSGATE_SRC_NONE: no group was asked (muted, filtered or ignored)
 */
enum fsgate_source {
	FSGATE_SRC_ANSWER,
	FSGATE_SRC_CACHE,
	FSGATE_SRC_CONSENSUS,
	FSGATE_SRC_MUTE,
	FSGATE_SRC_FILTER,
	FSGATE_SRC_TIMEOUT,
	FSGATE_SRC_ORPHAN,
	FSGATE_SRC_ABSENT,
	FSGATE_SRC_CANCEL,
	FSGATE_SRC_UNOPENED,
	FSGATE_SRC_KILLED,
	FSGATE_SRC_NOMEM,
	FSGATE_SRC_NONE,
};

/**
 * struct fsgate_by - who decided an access
 * @group: id of the group whose verdict decided it, 0 for none (an allow,
 *	which every group gave)
 * @source: enum fsgate_source, how
 */
struct fsgate_by {
	u64 group;
	u8 source;
};

/**
 * struct fsgate_perm - one group's permission event for one access
 * @event: the event as it is queued and read; @event.node is on the
 *	group's queue, then on its pending list, under its @queue_lock
 * @ref: the waiting process holds one, a reader copying it out another
 * @group: the group asked; the waiting process holds a reference
 * @id: never 0, never the id of another event in this boot
 * @fd: the event's fd in the reader's table once read, else FAN_NOFD
 * @id_node: on the group's @pending_ids while on @pending
 * @fd_node: on the group's @pending_fds while on @pending with an @fd
 * @reader: thread group whose read gave @fd, referenced; NULL before
 * @reader_files: the file table @fd is in; compared, never dereferenced
 * @reader_filp: the group fd's file it was read through, set when it is
 *	reported; only answers written to that file reach it, and its
 *	release queues the event again (fsgate_perm_requeue()); compared,
 *	never dereferenced
 * @state: enum fsgate_perm_state, under @queue_lock; %FSGATE_PERM_DONE
 *	is also read locklessly by the waiting process
 * @verdict: 0 or a negative errno, set with %FSGATE_PERM_DONE
 * @source: enum fsgate_source, what gave @verdict; set with it
 * @deadline: jiffies by which the group must answer: its own timeout,
 *	or the chain's @ceiling if that comes first
 * @ceiling: jiffies by which the access's whole chain ends; no answer is
 *	waited for past it (see struct fsgate_asking)
 * @deadline_ns: @deadline, CLOCK_MONOTONIC ns, as reported
 * @asked_ns: CLOCK_MONOTONIC ns when the group was asked
 * @unbounded: the group waits without a deadline (allow_unbounded_waits)
 * @chain_bounded: the access's chain has a @ceiling
 * @snap: the file when the group was asked, for the verdict cache
 * @cache_gen: the group's @cache_gen when it was asked: a flush since
 *	then keeps the answer out of the verdict cache
 * @tier_next: the next event of the same access and tier, in asking order
 * @waiter: the accessing process, which waits for the answer; woken by
 *	this event's resolution (fsgate_perm_resolve())
 * @audited: the answer asked for an audit record (%FSGATE_AUDIT), which
 *	the waiting process writes; set with %FSGATE_PERM_DONE
 * @audit_response: the record's resp (see fsgate_audit_response())
 * @audit_rule: the answer's %FSGATE_INFO, or zero
 */
struct fsgate_perm {
	struct fsgate_event event;
	refcount_t ref;
	int fd;
	struct fsgate_group *group;
	u64 id;
	struct hlist_node id_node;
	struct hlist_node fd_node;
	struct pid *reader;
	struct files_struct *reader_files;
	const struct file *reader_filp;
	u8 state;
	bool unbounded;
	bool chain_bounded;
	bool audited;
	u8 source;
	int verdict;
	unsigned long deadline;
	unsigned long ceiling;
	u64 deadline_ns;
	u64 asked_ns;
	struct fsgate_snap snap;
	u64 cache_gen;
	struct fsgate_perm *tier_next;
	struct task_struct *waiter;
	u32 audit_response;
	struct fsgate_response_audit_rule audit_rule;
};

/**
 * struct fsgate_asking - one access's questions to the groups of a tier
 * @first: the events asked of the current tier, linked by @tier_next
 * @tail: where the next one is linked
 * @ceiling: jiffies by which the access's whole chain ends (max_chain_ms
 *	from its start)
 * @bounded: @ceiling applies; false only when a group the access may ask
 *	waits without bound, which an administrator allowed
 * @by: who gave the first deny, once one was seen
 *
 * Lives on the waiting process's stack for one access: fsgate_asking_start(),
 * then for each tier fsgate_perm_ask() for each group and one
 * fsgate_asking_wait().
 */
struct fsgate_asking {
	struct fsgate_perm *first;
	struct fsgate_perm **tail;
	unsigned long ceiling;
	bool bounded;
	struct fsgate_by by;
};

/* The permission event whose @event this is; see fsgate_is_perm(). */
static inline struct fsgate_perm *fsgate_perm_of(struct fsgate_event *event)
{
	return container_of(event, struct fsgate_perm, event);
}

/**
 * struct fsgate_answer - one checked response of a write()
 * @id: the event's id, or 0 when the response names it by @fd
 * @fd: the event's fd number, for @id 0
 * @response: the response word
 * @verdict: 0 or the negative errno of a deny (fsgate_response_check())
 * @extend_ms: not 0 for a request for more time (%FSGATE_EXTEND), which
 *	is no answer: the event stays pending
 * @rule: with %FSGATE_INFO in @response, the rule that follows it
 * @perm: the event it names, once found
 */
struct fsgate_answer {
	u64 id;
	int fd;
	u32 response;
	int verdict;
	u32 extend_ms;
	struct fsgate_response_audit_rule rule;
	struct fsgate_perm *perm;
};

int fsgate_perm_init(void);
void fsgate_perm_exit(void);
u32 fsgate_audit_response(u32 response);
int fsgate_policy_verdict(u32 policy);
void fsgate_perm_entry_fill(const struct fsgate_group *group,
			    struct fsgate_group_entry *entry);
const char *fsgate_verdict_name(int verdict);
unsigned int fsgate_max_chain_ms(void);
int fsgate_timeout_check(u32 timeout_ms);
bool fsgate_group_unbounded(const struct fsgate_group *group);
void fsgate_asking_start(struct fsgate_asking *asking, bool unbounded);
struct fsgate_perm *fsgate_perm_ask(struct fsgate_group *group, u32 mask,
				    const struct path *path,
				    struct fsgate_asking *asking, int *verdict);
int fsgate_asking_wait(struct fsgate_asking *asking, int verdict);
void fsgate_perm_report(struct fsgate_group *group, struct fsgate_perm *perm,
			const struct file *file);
unsigned int fsgate_perm_requeue(struct fsgate_group *group,
				 const struct file *file);
unsigned int fsgate_perm_absent(struct fsgate_group *group, int verdict);
bool fsgate_perm_fd_taken(struct fsgate_group *group, int fd);
void fsgate_perm_set_fd(struct fsgate_perm *perm, int fd);
bool fsgate_perm_unread(struct fsgate_group *group, struct fsgate_perm *perm);
void fsgate_perm_unopened(struct fsgate_perm *perm);
void fsgate_perm_put(struct fsgate_perm *perm);
u64 fsgate_perm_latest_ns(const struct fsgate_perm *perm);
unsigned int fsgate_perm_orphan(struct fsgate_group *group);
void fsgate_perm_log_orphans(struct fsgate_group *group, unsigned int n);
int fsgate_perms_answer(struct fsgate_group *group, const struct file *file,
			struct fsgate_answer *answers, size_t n);

#endif /* _FSGATE_PERM_H */
