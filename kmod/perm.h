/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_PERM_H
#define _FSGATE_PERM_H

#include <linux/kernel.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "cache.h"
#include "event.h"

struct fanotify_response;
struct fsgate_group;
struct path;

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
 * struct fsgate_perm - one group's permission event for one access
 * @event: the event as it is queued and read; @event.node is on the
 *	group's queue, then on its pending list, under its @queue_lock
 * @ref: the waiting process holds one, a reader copying it out another
 * @group: the group asked; the waiting process holds a reference
 * @fd: the event's fd in the reader's table once read, else FAN_NOFD
 * @state: enum fsgate_perm_state, under @queue_lock; %FSGATE_PERM_DONE
 *	is also read locklessly by the waiting process
 * @verdict: 0 or a negative errno, set with %FSGATE_PERM_DONE
 * @deadline: jiffies by which the group must answer: its own timeout,
 *	or the chain's @ceiling if that comes first
 * @ceiling: jiffies by which the access's whole chain ends; no answer is
 *	waited for past it (see struct fsgate_asking)
 * @unbounded: the group waits without a deadline (allow_unbounded_waits)
 * @snap: the file when the group was asked, for the verdict cache
 * @cache_gen: the group's @cache_gen when it was asked: a flush since
 *	then keeps the answer out of the verdict cache
 * @tier_next: the next event of the same access and tier, in asking order
 * @wait: the waiting process's entry on the group's @perm_wq
 */
struct fsgate_perm {
	struct fsgate_event event;
	refcount_t ref;
	struct fsgate_group *group;
	int fd;
	u8 state;
	bool unbounded;
	int verdict;
	unsigned long deadline;
	unsigned long ceiling;
	struct fsgate_snap snap;
	u64 cache_gen;
	struct fsgate_perm *tier_next;
	struct wait_queue_entry wait;
};

/**
 * struct fsgate_asking - one access's questions to the groups of a tier
 * @first: the events asked of the current tier, linked by @tier_next
 * @tail: where the next one is linked
 * @ceiling: jiffies by which the access's whole chain ends (max_chain_ms
 *	from its start)
 * @bounded: @ceiling applies; false only when a group the access may ask
 *	waits without bound, which an administrator allowed
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
};

/* The permission event whose @event this is; see fsgate_is_perm(). */
static inline struct fsgate_perm *fsgate_perm_of(struct fsgate_event *event)
{
	return container_of(event, struct fsgate_perm, event);
}

int fsgate_policy_verdict(u32 policy);
const char *fsgate_verdict_name(int verdict);
unsigned int fsgate_max_chain_ms(void);
int fsgate_timeout_check(u32 timeout_ms);
bool fsgate_group_unbounded(const struct fsgate_group *group);
void fsgate_asking_start(struct fsgate_asking *asking, bool unbounded);
struct fsgate_perm *fsgate_perm_ask(struct fsgate_group *group, u32 mask,
				    const struct path *path,
				    struct fsgate_asking *asking, int *verdict);
int fsgate_asking_wait(struct fsgate_asking *asking, int verdict);
void fsgate_perm_report(struct fsgate_group *group, struct fsgate_perm *perm);
void fsgate_perm_set_fd(struct fsgate_perm *perm, int fd);
bool fsgate_perm_unread(struct fsgate_group *group, struct fsgate_perm *perm);
void fsgate_perm_unopened(struct fsgate_perm *perm);
void fsgate_perm_put(struct fsgate_perm *perm);
unsigned int fsgate_perm_orphan(struct fsgate_group *group);
void fsgate_perm_wake_orphans(struct fsgate_group *group, unsigned int n);
int fsgate_perms_answer(struct fsgate_group *group,
			const struct fanotify_response *resp,
			const int *verdicts, struct fsgate_perm **perms,
			size_t n);

#endif /* _FSGATE_PERM_H */
