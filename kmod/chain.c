// SPDX-License-Identifier: GPL-2.0
/*
 * The decision chain (layer 3, calls perm.c and cache.c): the groups that
 * want a permission event are asked in priority order, highest first.
 * Groups of equal priority form a tier and are asked at once; a tier
 * denies if any member denies; the first deny ends the chain, so no lower
 * tier hears of the access. One group's allow never overrides another's
 * deny. A tier ends at its first deny, without waiting for its other
 * members; the whole chain ends at the ceiling perm.c keeps
 * (max_chain_ms), and the groups it leaves unasked give their timeout
 * verdicts.
 */
#include <linux/sort.h>

#include "cache.h"
#include "chain.h"
#include "group.h"
#include "perm.h"
#include "trace.h"

/* Higher priority first; equal priorities in creation order. */
static int fsgate_match_cmp(const void *a, const void *b)
{
	const struct fsgate_group *ga = ((const struct fsgate_match *)a)->group;
	const struct fsgate_group *gb = ((const struct fsgate_match *)b)->group;

	if (ga->priority != gb->priority)
		return ga->priority > gb->priority ? -1 : 1;
	if (ga->id != gb->id)
		return ga->id < gb->id ? -1 : 1;
	return 0;
}

/**
 * fsgate_matches_sort() - put an event's groups in asking order
 * @matches: one entry per group
 * @n: their number
 *
 * Context: any.
 */
void fsgate_matches_sort(struct fsgate_match *matches, unsigned int n)
{
	/* One group, the usual case, is in order: no call into lib/sort.c. */
	if (n > 1)
		sort(matches, n, sizeof(*matches), fsgate_match_cmp, NULL);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_matches_sort);

/**
 * fsgate_tier_end() - where the tier that starts at @start ends
 * @matches: sorted by fsgate_matches_sort()
 * @n: their number
 * @start: first entry of the tier, below @n
 *
 * Context: any.
 * Return: the index after the last group of @start's priority.
 */
unsigned int fsgate_tier_end(const struct fsgate_match *matches,
			     unsigned int n, unsigned int start)
{
	unsigned int end = start + 1;

	while (end < n &&
	       matches[end].group->priority == matches[start].group->priority)
		end++;
	return end;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_tier_end);

/**
 * fsgate_verdict_combine() - the verdict of two answers to one access
 * @verdict: 0 (allow) or a negative errno (deny), the earlier answer
 * @other: the same, a later answer
 *
 * A deny always wins; of two denies, the earlier one's errno is kept.
 *
 * Context: any.
 * Return: the combined verdict.
 */
int fsgate_verdict_combine(int verdict, int other)
{
	return verdict ? verdict : other;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_verdict_combine);

/* A group of @m decided without being asked: trace it, and a deny's @by. */
static void fsgate_match_decided(const struct fsgate_match *m,
				 const struct path *path, int verdict,
				 u8 source, struct fsgate_by *by)
{
	trace_fsgate_perm_answer(m->group, 0, current, path,
				 m->report & FSGATE_PERM_EVENTS, verdict,
				 source, 0);
	if (verdict) {
		by->group = m->group->id;
		by->source = source;
	}
}

/*
 * Consult the filters' denies and the verdict caches of a tier's groups:
 * either kind of deny settles the tier (@by says whose), a cached allow
 * spares its group the question. Caches are looked up only when the
 * tier's turn comes, since a higher tier may have changed the file.
 */
static int fsgate_tier_cached(struct fsgate_match *tier, unsigned int n,
			      const struct path *path,
			      struct fsgate_obj *inode_obj,
			      struct fsgate_by *by)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++)
		if (tier[i].filtered) {
			fsgate_match_decided(&tier[i], path, tier[i].filtered,
					     FSGATE_SRC_FILTER, by);
			return tier[i].filtered;
		}
	for (i = 0; i < n; i++) {
		switch (fsgate_cache_check(inode_obj, tier[i].group,
					   tier[i].report & FSGATE_PERM_EVENTS,
					   &err)) {
		case FSGATE_CACHED_DENY:
			atomic64_inc(&tier[i].group->perm.cached);
			fsgate_match_decided(&tier[i], path, err,
					     FSGATE_SRC_CACHE, by);
			return err;
		case FSGATE_CACHED_ALLOW:
			atomic64_inc(&tier[i].group->perm.cached);
			tier[i].cached = true;
			fsgate_match_decided(&tier[i], path, 0,
					     FSGATE_SRC_CACHE, by);
			break;
		case FSGATE_CACHED_NONE:
			break;
		}
	}
	return 0;
}

/**
 * fsgate_matches_all_cached() - whether every group was answered from its
 *	cache
 * @matches: the groups, after fsgate_decide() or a tier of them
 * @n: their number
 *
 * Context: any.
 * Return: true if each of @matches has @cached set.
 */
bool fsgate_matches_all_cached(const struct fsgate_match *matches,
			       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!matches[i].cached)
			return false;
	return true;
}

/*
 * Ask every group of a tier that its cache did not answer at once, then
 * wait for them: for all of them, or until the first deny.
 */
static int fsgate_ask_tier(struct fsgate_match *tier, unsigned int n,
			   const struct path *path,
			   struct fsgate_asking *asking)
{
	int verdict = 0, now;
	unsigned int i;

	/* A group that cannot be asked may deny at once: ask no more. */
	for (i = 0; i < n && !verdict; i++) {
		if (tier[i].cached)
			continue;
		if (!fsgate_perm_ask(tier[i].group, tier[i].report, path,
				     asking, &now))
			verdict = now;
	}
	return fsgate_asking_wait(asking, verdict);
}

/* Whether any of the groups waits without bound: then no ceiling. */
static bool fsgate_matches_unbounded(const struct fsgate_match *matches,
				     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fsgate_group_unbounded(matches[i].group))
			return true;
	return false;
}

/**
 * fsgate_decide() - run the decision chain for one access
 * @matches: the groups to ask, each referenced, with the bits to ask
 * @n: their number
 * @path: the file
 * @inode_obj: fsgate's object on the file's inode, where verdict caches
 *	are, or NULL
 * @by: set to who decided: for a deny the group whose verdict it is and
 *	how it gave it; for an allow no group, and %FSGATE_SRC_CACHE if
 *	every group's cache gave it, else %FSGATE_SRC_ANSWER
 *
 * The whole chain ends within max_chain_ms of its start, its first
 * question, unless a group it may ask waits without bound (allowed by an
 * administrator). An access every group's cache answers starts no chain.
 *
 * Context: process context, sleeps while groups decide; no locks held;
 * within fsnotify's handling of the event, which keeps @inode_obj alive.
 * Return: 0 to allow the access, or the negative errno that denies it.
 */
int fsgate_decide(struct fsgate_match *matches, unsigned int n,
		  const struct path *path, struct fsgate_obj *inode_obj,
		  struct fsgate_by *by)
{
	struct fsgate_asking asking;
	unsigned int start, end;
	bool asking_started = false;
	int verdict = 0;

	might_sleep();
	fsgate_matches_sort(matches, n);
	for (start = 0; start < n && !verdict; start = end) {
		end = fsgate_tier_end(matches, n, start);
		verdict = fsgate_tier_cached(matches + start, end - start,
					     path, inode_obj, by);
		if (verdict || fsgate_matches_all_cached(matches + start,
							 end - start))
			continue;
		if (!asking_started) {
			fsgate_asking_start(&asking,
					    fsgate_matches_unbounded(matches, n));
			asking_started = true;
		}
		verdict = fsgate_ask_tier(matches + start, end - start, path,
					  &asking);
		if (verdict)
			*by = asking.by;
	}
	if (!verdict)
		*by = (struct fsgate_by){
			.source = fsgate_matches_all_cached(matches, n) ?
				  FSGATE_SRC_CACHE : FSGATE_SRC_ANSWER,
		};
	return verdict;
}
