/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Accesses a daemon holds while it works on them (a scan, a restore):
 * how long the kernel lets them wait, and their deadlines kept with
 * FSGATE_EXTEND so that the group's timeout verdict never decides one
 * the daemon is still working on. Needs a group made with
 * FSGATE_REPORT_PERM (each event's id and deadline).
 */
#ifndef FSGATE_TOOLS_HOLD_H
#define FSGATE_TOOLS_HOLD_H

#include <stdint.h>

#include <fsgate.h>

/*
 * How long the kernel lets an access wait for the group: @timeout_ms at
 * first, more on request (FSGATE_EXTEND) up to @hold_ms after it was
 * asked at most. Each event's record says exactly how long (its
 * latest_ns: the access's max_chain_ms ceiling may come first); @hold_ms
 * stands in for it only with an older module, whose records lack it.
 */
struct waits {
	unsigned int timeout_ms;
	unsigned int hold_ms;
};

/*
 * The waits of a group of timeout @timeout_ms (0: the module's
 * default_timeout_ms): more time up to the module's
 * default_max_wait_ms, never less than the timeout, never past its
 * max_chain_ms.
 */
struct waits waits_of(unsigned int timeout_ms);

/* CLOCK_MONOTONIC in nanoseconds, the clock of the kernel's deadlines. */
uint64_t hold_now_ns(void);

/* One access held. */
struct hold {
	uint64_t id;			/* 0: no struct fsgate_info_perm */
	uint64_t deadline_ns;		/* the kernel's, as last set; 0: none */
	uint64_t final_ns;		/* the latest it can be extended to */
};

/* @h for the event of @perm (NULL: an event without an id). */
void hold_init(struct hold *h, const struct fsgate_info_perm *perm,
	       const struct waits *w);

/* How long before its deadline an access is given more time. */
uint64_t hold_margin_ns(const struct waits *w);

/*
 * Milliseconds to wait from @now until @next, when the next deadline
 * needs more time (UINT64_MAX: none soon): at most a second, 10 when it
 * is due already.
 */
int hold_wait_ms(uint64_t next, uint64_t now);

/*
 * More time for @h, whose deadline is near: @w's timeout from @now, up
 * to its final deadline. 0, or -1 with errno: ETIME when it can have no
 * more, ENOENT when it was decided already (the kernel's timeout
 * verdict, or the process was killed), else fsgate_extend()'s.
 */
int hold_extend(int group, struct hold *h, const struct waits *w,
		uint64_t now);

#endif /* FSGATE_TOOLS_HOLD_H */
