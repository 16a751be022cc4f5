// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the pure logic of the decision chain (asking order, tiers,
 * combining verdicts), response validation and mark validation of
 * permission events.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/fanotify.h>

#include "chain.h"
#include "group.h"
#include "mark.h"
#include "perm.h"
#include "user.h"

#define NGROUPS 6

/* Groups are big (lockdep, KASAN): keep them off the stack. */
static struct fsgate_group *alloc_groups(struct kunit *test)
{
	struct fsgate_group *groups;

	groups = kunit_kcalloc(test, NGROUPS, sizeof(*groups), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, groups);
	return groups;
}

static void fill_matches(struct fsgate_group *groups, struct fsgate_match *m,
			 const u32 *prios, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		groups[i].priority = prios[i];
		groups[i].id = i + 1;
		m[i] = (struct fsgate_match){ .group = &groups[i] };
	}
}

static void expect_asking_order(struct kunit *test, struct fsgate_match *m,
				unsigned int n)
{
	unsigned int i;

	for (i = 1; i < n; i++) {
		const struct fsgate_group *a = m[i - 1].group, *b = m[i].group;

		KUNIT_EXPECT_GE(test, a->priority, b->priority);
		if (a->priority == b->priority)
			KUNIT_EXPECT_LT(test, a->id, b->id);
	}
}

static void sort_asks_highest_first_in_every_permutation(struct kunit *test)
{
	static const u32 perms[6][3] = {
		{ 3000, 2000, 1000 }, { 3000, 1000, 2000 }, { 2000, 3000, 1000 },
		{ 2000, 1000, 3000 }, { 1000, 3000, 2000 }, { 1000, 2000, 3000 },
	};
	struct fsgate_group *groups = alloc_groups(test);
	struct fsgate_match m[3];
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(perms); p++) {
		fill_matches(groups, m, perms[p], 3);
		fsgate_matches_sort(m, 3);
		KUNIT_EXPECT_EQ(test, m[0].group->priority, 3000U);
		KUNIT_EXPECT_EQ(test, m[1].group->priority, 2000U);
		KUNIT_EXPECT_EQ(test, m[2].group->priority, 1000U);
	}
}

static void sort_keeps_a_tier_in_creation_order(struct kunit *test)
{
	static const u32 prios[NGROUPS] = { 2000, 65535, 2000, 0, 2000, 65535 };
	struct fsgate_group *groups = alloc_groups(test);
	struct fsgate_match m[NGROUPS];

	fill_matches(groups, m, prios, NGROUPS);
	fsgate_matches_sort(m, NGROUPS);
	expect_asking_order(test, m, NGROUPS);
}

static void tiers_group_equal_priorities(struct kunit *test)
{
	static const u32 prios[NGROUPS] = { 3000, 3000, 2000, 1000, 1000, 1000 };
	struct fsgate_group *groups = alloc_groups(test);
	struct fsgate_match m[NGROUPS];

	fill_matches(groups, m, prios, NGROUPS);
	KUNIT_EXPECT_EQ(test, fsgate_tier_end(m, NGROUPS, 0), 2U);
	KUNIT_EXPECT_EQ(test, fsgate_tier_end(m, NGROUPS, 2), 3U);
	KUNIT_EXPECT_EQ(test, fsgate_tier_end(m, NGROUPS, 3), 6U);
	KUNIT_EXPECT_EQ(test, fsgate_tier_end(m, 1, 0), 1U);
}

static void combine_never_lets_allow_override_deny(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_verdict_combine(0, 0), 0);
	KUNIT_EXPECT_EQ(test, fsgate_verdict_combine(0, -EPERM), -EPERM);
	KUNIT_EXPECT_EQ(test, fsgate_verdict_combine(-EPERM, 0), -EPERM);
	KUNIT_EXPECT_EQ(test, fsgate_verdict_combine(-EACCES, -EIO), -EACCES);
}

static void response_check_takes_allow_and_deny(struct kunit *test)
{
	int v = 1;

	KUNIT_EXPECT_EQ(test, fsgate_response_check(FSGATE_ALLOW, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, fsgate_response_check(FSGATE_DENY, &v), 0);
	KUNIT_EXPECT_EQ(test, v, -EPERM);
	KUNIT_EXPECT_EQ(test, fsgate_response_check(FSGATE_ALLOW | FSGATE_CACHE,
						    &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
}

static void response_check_takes_the_errno_set(struct kunit *test)
{
	static const int ok[] = {
		EPERM, EACCES, EIO, EBUSY, ETXTBSY, EAGAIN, ENOSPC, EDQUOT,
	};
	unsigned int i;
	int v;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		KUNIT_EXPECT_EQ(test,
				fsgate_response_check(FSGATE_DENY_ERRNO(ok[i]) |
						      FSGATE_CACHE, &v), 0);
		KUNIT_EXPECT_EQ(test, v, -ok[i]);
	}
}

static void response_check_rejects_malformed_words(struct kunit *test)
{
	static const u32 bad[] = {
		0, FSGATE_ALLOW | FSGATE_DENY, FSGATE_CACHE, FAN_AUDIT,
		0x40 | FSGATE_ALLOW, 0x4 | FSGATE_ALLOW,
		FSGATE_ALLOW | (EPERM << FSGATE_ERRNO_SHIFT),
		FSGATE_DENY_ERRNO(ENOENT), FSGATE_DENY_ERRNO(EINVAL),
		FSGATE_DENY_ERRNO(255),
	};
	unsigned int i;
	int v = 7;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, fsgate_response_check(bad[i], &v),
				    -EINVAL, "response 0x%x", bad[i]);
		KUNIT_EXPECT_EQ(test, v, 7);
	}
}

static void policy_verdicts(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_policy_verdict(FSGATE_VERDICT_DEFAULT), 0);
	KUNIT_EXPECT_EQ(test, fsgate_policy_verdict(FSGATE_VERDICT_ALLOW), 0);
	KUNIT_EXPECT_EQ(test, fsgate_policy_verdict(FSGATE_VERDICT_DENY),
			-EPERM);
}

static void mark_check_keeps_permissions_from_notifiers(struct kunit *test)
{
	struct fsgate_mark mark = {
		.flags = FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
		.mask = FAN_OPEN_PERM,
	};

	KUNIT_EXPECT_EQ(test, fsgate_mark_check(&mark, FSGATE_CLASS_NOTIF),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fsgate_mark_check(&mark, FSGATE_CLASS_CONTENT), 0);
	KUNIT_EXPECT_EQ(test, fsgate_mark_check(&mark, FSGATE_CLASS_PRE_CONTENT),
			0);
	mark.mask = FAN_OPEN | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM;
	KUNIT_EXPECT_EQ(test, fsgate_mark_check(&mark, FSGATE_CLASS_NOTIF),
			-EINVAL);
	mark.mask = FAN_OPEN;
	KUNIT_EXPECT_EQ(test, fsgate_mark_check(&mark, FSGATE_CLASS_NOTIF), 0);
}

static struct kunit_case fsgate_chain_cases[] = {
	KUNIT_CASE(sort_asks_highest_first_in_every_permutation),
	KUNIT_CASE(sort_keeps_a_tier_in_creation_order),
	KUNIT_CASE(tiers_group_equal_priorities),
	KUNIT_CASE(combine_never_lets_allow_override_deny),
	KUNIT_CASE(response_check_takes_allow_and_deny),
	KUNIT_CASE(response_check_takes_the_errno_set),
	KUNIT_CASE(response_check_rejects_malformed_words),
	KUNIT_CASE(policy_verdicts),
	KUNIT_CASE(mark_check_keeps_permissions_from_notifiers),
	{}
};

static struct kunit_suite fsgate_chain_suite = {
	.name = "fsgate_chain",
	.test_cases = fsgate_chain_cases,
};

kunit_test_suite(fsgate_chain_suite);
