// SPDX-License-Identifier: GPL-2.0
/* Accesses held and their deadlines kept; see hold.h. */
#include <errno.h>
#include <time.h>

#include "hold.h"

/* A module parameter, or @fallback when it cannot be read. */
static unsigned int param(const char *name, unsigned int fallback)
{
	unsigned long long v;

	return fsgate_param_get(name, &v) == 0 && v && v <= UINT32_MAX ?
	       (unsigned int)v : fallback;
}

struct waits waits_of(unsigned int timeout_ms)
{
	struct waits w;
	unsigned int chain = param("max_chain_ms", 30000);

	w.timeout_ms = timeout_ms ? timeout_ms :
		       param("default_timeout_ms", 10000);
	w.hold_ms = param("default_max_wait_ms", 60000);
	if (w.hold_ms < w.timeout_ms)
		w.hold_ms = w.timeout_ms;
	if (w.hold_ms > chain)
		w.hold_ms = chain;
	if (w.timeout_ms > w.hold_ms)
		w.timeout_ms = w.hold_ms;
	return w;
}

uint64_t hold_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void hold_init(struct hold *h, const struct fsgate_info_perm *perm,
	       const struct waits *w)
{
	*h = (struct hold){ 0 };
	if (!perm)
		return;
	h->id = perm->id;
	if (perm->flags & FSGATE_INFO_PERM_UNBOUNDED)
		return;
	h->deadline_ns = perm->deadline_ns;
	if (perm->hdr.len >= FSGATE_INFO_PERM_LEN_V2)
		h->final_ns = perm->latest_ns;
	else	/* An older module: asked timeout_ms before, or earlier. */
		h->final_ns = perm->deadline_ns - w->timeout_ms * 1000000ULL +
			      w->hold_ms * 1000000ULL;
	if (h->final_ns < h->deadline_ns)
		h->final_ns = h->deadline_ns;
}

uint64_t hold_margin_ns(const struct waits *w)
{
	/* The thread that keeps the deadlines may lag. */
	return (w->timeout_ms < 4000 ? w->timeout_ms / 2 : 2000) * 1000000ULL;
}

int hold_wait_ms(uint64_t next, uint64_t now)
{
	if (next == UINT64_MAX || next > now + 1000000000ULL)
		return 1000;
	if (next <= now)
		return 10;
	return (int)((next - now) / 1000000) + 1;
}

int hold_extend(int group, struct hold *h, const struct waits *w,
		uint64_t now)
{
	uint64_t want = now + w->timeout_ms * 1000000ULL;

	if (h->deadline_ns >= h->final_ns) {
		errno = ETIME;
		return -1;
	}
	if (fsgate_extend(group, h->id, w->timeout_ms) < 0)
		return -1;
	h->deadline_ns = want < h->final_ns ? want : h->final_ns;
	return 0;
}
