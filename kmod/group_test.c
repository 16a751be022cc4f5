// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: validation of struct fsgate_init, class default priorities and
 * the order groups are kept in. Part of fsgate_kunit.ko (kunit.c).
 */
#include <kunit/test.h>
#include <linux/fcntl.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/string.h>
#include <linux/user_namespace.h>

#include "group.h"
#include "persist.h"
#include "user.h"

static struct fsgate_init valid_init(void)
{
	return (struct fsgate_init) {
		.flags = FSGATE_CLASS_CONTENT,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
}

static void init_check_accepts_every_class(struct kunit *test)
{
	static const u32 classes[] = {
		FSGATE_CLASS_NOTIF, FSGATE_CLASS_CONTENT,
		FSGATE_CLASS_PRE_CONTENT,
	};
	struct fsgate_init init = valid_init();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(classes); i++) {
		init.flags = classes[i] | (FSGATE_INIT_FLAGS & ~FSGATE_CLASS_MASK);
		/* Audit is the kernel's to offer: see the test below. */
		if (!FSGATE_COMPAT_AUDIT)
			init.flags &= ~FSGATE_ENABLE_AUDIT;
		/* FID reporting is for notification groups: see below. */
		if (classes[i] != FSGATE_CLASS_NOTIF)
			init.flags &= ~FSGATE_REPORT_FID_BITS;
		KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), 0);
	}
}

/* fanotify_init()'s rules for FID reporting flags, as 6.1 has them. */
static void init_check_follows_fanotify_fid_rules(struct kunit *test)
{
	static const struct {
		u32 flags;
		int ret;
	} cases[] = {
		{ FSGATE_REPORT_FID, 0 },
		{ FSGATE_REPORT_DIR_FID, 0 },
		{ FSGATE_REPORT_DFID_NAME, 0 },
		{ FSGATE_REPORT_FID_BITS, 0 },
		{ FSGATE_REPORT_NAME, -EINVAL },
		{ FSGATE_REPORT_FID | FSGATE_REPORT_NAME, -EINVAL },
		{ FSGATE_REPORT_TARGET_FID | FSGATE_REPORT_DFID_NAME, -EINVAL },
		{ FSGATE_REPORT_TARGET_FID | FSGATE_REPORT_FID |
		  FSGATE_REPORT_DIR_FID, -EINVAL },
		{ FSGATE_REPORT_FID | FSGATE_CLASS_CONTENT, -EINVAL },
		{ FSGATE_REPORT_DIR_FID | FSGATE_CLASS_PRE_CONTENT, -EINVAL },
	};
	struct fsgate_init init = valid_init();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		init.flags = cases[i].flags;
		KUNIT_EXPECT_EQ_MSG(test, fsgate_init_check(&init),
				    cases[i].ret, "flags %#x", cases[i].flags);
	}
}

/*
 * Linux 6.13's FAN_REPORT_FD_ERROR, as 6.12's fanotify_init() takes it:
 * with every class, and with FID reporting (whose events say -EBADF).
 */
static void init_check_takes_fd_error_with_every_class_and_fid(struct kunit *test)
{
	static const u32 flags[] = {
		FSGATE_CLASS_NOTIF, FSGATE_CLASS_CONTENT,
		FSGATE_CLASS_PRE_CONTENT, FSGATE_REPORT_FID,
		FSGATE_REPORT_FID_BITS,
	};
	struct fsgate_init init = valid_init();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		init.flags = flags[i] | FSGATE_REPORT_FD_ERROR;
		KUNIT_EXPECT_EQ_MSG(test, fsgate_init_check(&init), 0,
				    "flags %#x", init.flags);
	}
}

static void init_check_takes_enable_audit_where_the_kernel_audits(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.flags |= FSGATE_ENABLE_AUDIT;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init),
			FSGATE_COMPAT_AUDIT ? 0 : -EINVAL);
}

static void init_check_rejects_two_classes(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.flags = FSGATE_CLASS_MASK;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
}

static void init_check_rejects_each_unknown_flag(struct kunit *test)
{
	struct fsgate_init init = valid_init();
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if (BIT(bit) & FSGATE_INIT_FLAGS)
			continue;
		init.flags = FSGATE_CLASS_CONTENT | BIT(bit);
		KUNIT_EXPECT_EQ_MSG(test, fsgate_init_check(&init), -EINVAL,
				    "flag bit %u", bit);
	}
}

static void init_check_rejects_each_reserved_word(struct kunit *test)
{
	struct fsgate_init init = valid_init();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(init.reserved); i++) {
		init.reserved[i] = 1ULL << 63;
		KUNIT_EXPECT_EQ_MSG(test, fsgate_init_check(&init), -EINVAL,
				    "reserved[%u]", i);
		init.reserved[i] = 0;
	}
	init.reserved32 = 1;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
}

static void init_check_bounds_priority(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.priority = 0;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), 0);
	init.priority = FSGATE_PRIORITY_MAX;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), 0);
	init.priority = FSGATE_PRIORITY_MAX + 1;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
	init.priority = FSGATE_PRIORITY_DEFAULT - 1;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
}

static void init_check_rejects_bad_verdicts(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.timeout_verdict = FSGATE_VERDICT_DENY;
	init.orphan_verdict = FSGATE_VERDICT_ALLOW;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), 0);
	init.timeout_verdict = FSGATE_VERDICT_DENY + 1;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
	init.timeout_verdict = FSGATE_VERDICT_DEFAULT;
	init.orphan_verdict = FSGATE_VERDICT_DENY + 1;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
}

static void init_check_follows_fanotify_event_f_flags(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.event_f_flags = O_RDWR | O_LARGEFILE | O_CLOEXEC | O_NOATIME;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), 0);
	init.event_f_flags = O_ACCMODE;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
	init.event_f_flags = O_RDONLY | O_CREAT;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
	init.event_f_flags = O_RDONLY | O_TRUNC;
	KUNIT_EXPECT_EQ(test, fsgate_init_check(&init), -EINVAL);
}

static void init_priority_defaults_by_class(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.flags = FSGATE_CLASS_PRE_CONTENT;
	KUNIT_EXPECT_EQ(test, fsgate_init_priority(&init),
			FSGATE_PRIORITY_PRE_CONTENT);
	init.flags = FSGATE_CLASS_CONTENT;
	KUNIT_EXPECT_EQ(test, fsgate_init_priority(&init),
			FSGATE_PRIORITY_CONTENT);
	init.flags = FSGATE_CLASS_NOTIF;
	KUNIT_EXPECT_EQ(test, fsgate_init_priority(&init),
			FSGATE_PRIORITY_NOTIF);
}

static void init_priority_explicit_overrides_class(struct kunit *test)
{
	struct fsgate_init init = valid_init();

	init.flags = FSGATE_CLASS_NOTIF;
	init.priority = 5000;
	KUNIT_EXPECT_EQ(test, fsgate_init_priority(&init), 5000U);
	init.flags = FSGATE_CLASS_PRE_CONTENT;
	init.priority = 0;
	KUNIT_EXPECT_EQ(test, fsgate_init_priority(&init), 0U);
}

/* Inserts groups with @prios in the given order and checks the result. */
static void expect_list_order(struct kunit *test, const u32 *prios,
			      unsigned int n)
{
	struct fsgate_group *groups, *pos, *prev = NULL;
	LIST_HEAD(head);
	unsigned int i, seen = 0;

	groups = kunit_kcalloc(test, n, sizeof(*groups), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, groups);
	for (i = 0; i < n; i++) {
		groups[i].id = i;
		groups[i].priority = prios[i];
		fsgate_group_list_insert(&head, &groups[i]);
	}
	list_for_each_entry(pos, &head, node) {
		if (prev) {
			KUNIT_EXPECT_GE(test, prev->priority, pos->priority);
			if (prev->priority == pos->priority)
				KUNIT_EXPECT_LT(test, prev->id, pos->id);
		}
		prev = pos;
		seen++;
	}
	KUNIT_EXPECT_EQ(test, seen, n);
}

static void list_insert_orders_every_permutation(struct kunit *test)
{
	static const u32 perms[6][3] = {
		{ 3000, 2000, 1000 }, { 3000, 1000, 2000 },
		{ 2000, 3000, 1000 }, { 2000, 1000, 3000 },
		{ 1000, 3000, 2000 }, { 1000, 2000, 3000 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(perms); i++)
		expect_list_order(test, perms[i], 3);
}

static void list_insert_keeps_equal_priorities_by_age(struct kunit *test)
{
	static const u32 prios[] = { 2000, 3000, 2000, 0, 2000, 65535, 0 };

	expect_list_order(test, prios, ARRAY_SIZE(prios));
}

/* A clock that moves once in four readings, as jiffies does in a tick. */
static u64 coarse_clock_reads;

static u64 coarse_clock(void)
{
	return ++coarse_clock_reads / 4;
}

static void clock_past_is_later_than_earlier_readings(struct kunit *test)
{
	u64 before, past;

	coarse_clock_reads = 0;
	before = coarse_clock();
	past = fsgate_clock_past(coarse_clock);
	KUNIT_EXPECT_GT(test, past, before);
	/* ... and no later than the clock's next step. */
	KUNIT_EXPECT_EQ(test, past, before + 1);
	KUNIT_EXPECT_GE(test, coarse_clock(), past);
}

/* A group as fsgate_group_alloc() leaves it, with a few counters moved. */
static struct fsgate_group *entry_test_group(struct kunit *test)
{
	struct fsgate_group *group;

	group = kunit_kzalloc(test, sizeof(*group), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, group);
	group->id = 41;
	group->uid = GLOBAL_ROOT_UID;
	strscpy(group->comm, "entry-test", sizeof(group->comm));
	group->flags = FSGATE_CLASS_PRE_CONTENT | FSGATE_REPORT_TID;
	group->priority = 3001;
	group->nr_marks = 3;
	group->attached = 2;
	atomic64_set(&group->perm.asked, 7);
	atomic64_set(&group->perm.rereported, 4);
	atomic64_set(&group->filtered, 5);
	return group;
}

static void entry_fill_describes_the_group(struct kunit *test)
{
	struct fsgate_group *group = entry_test_group(test);
	struct fsgate_group_entry entry;
	struct fsgate_stats stats;

	group->owner = get_pid(task_tgid(current));
	/* Whatever the caller's buffer held, nothing of it survives. */
	memset(&entry, 0xa5, sizeof(entry));
	fsgate_group_entry_fill(group, &init_pid_ns, &init_user_ns, &entry);
	put_pid(group->owner);
	fsgate_group_stats(group, &stats);
	KUNIT_EXPECT_EQ(test, entry.id, 41);
	KUNIT_EXPECT_EQ(test, entry.pid, task_tgid_nr(current));
	KUNIT_EXPECT_EQ(test, entry.uid, 0);
	KUNIT_EXPECT_STREQ(test, entry.comm, "entry-test");
	KUNIT_EXPECT_EQ(test, entry.group_class, FSGATE_CLASS_PRE_CONTENT);
	KUNIT_EXPECT_EQ(test, entry.flags,
			FSGATE_CLASS_PRE_CONTENT | FSGATE_REPORT_TID);
	KUNIT_EXPECT_EQ(test, entry.priority, 3001);
	KUNIT_EXPECT_EQ(test, entry.stats.marks, 3);
	KUNIT_EXPECT_EQ(test, entry.stats.asked, 7);
	KUNIT_EXPECT_EQ(test, entry.stats.filtered, 5);
	KUNIT_EXPECT_EQ(test, memcmp(&entry.stats, &stats, sizeof(stats)), 0);
	KUNIT_EXPECT_EQ(test, entry.attached, 2);
	KUNIT_EXPECT_EQ(test, entry.stats.rereported, 4);
	KUNIT_EXPECT_EQ(test, entry.reserved[0] | entry.reserved[1] |
			entry.reserved[2] | entry.reserved[3], 0);
	/* Described as a group that is not persistent. */
	KUNIT_EXPECT_STREQ(test, entry.name, "");
	KUNIT_EXPECT_EQ(test, entry.owner | entry.persist_flags |
			entry.absent_ms | entry.absent_verdict |
			entry.absent_errno | entry.linger_ms, 0);
	KUNIT_EXPECT_EQ(test, entry.absent_left_ms, FSGATE_GROUP_NO_DEADLINE);
	KUNIT_EXPECT_EQ(test, entry.linger_left_ms, FSGATE_GROUP_NO_DEADLINE);
	KUNIT_EXPECT_EQ(test, entry.attaches | entry.handovers, 0);
}

/* A group whose creator has no pid in the namespace asked about: 0. */
static void entry_fill_gives_pid_0_without_one(struct kunit *test)
{
	struct fsgate_group *group = entry_test_group(test);
	struct fsgate_group_entry entry;

	group->owner = NULL;
	fsgate_group_entry_fill(group, &init_pid_ns, &init_user_ns, &entry);
	KUNIT_EXPECT_EQ(test, entry.pid, 0);
}

static struct fsgate_persist valid_persist(void)
{
	return (struct fsgate_persist){
		.size = sizeof(struct fsgate_persist),
		.name = "hsm@srv:1.0_a-b",
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.absent_ms = 1000,
		.absent_verdict = FSGATE_VERDICT_DENY,
		.absent_errno = EIO,
		.linger_ms = 60000,
	};
}

/* Names: 1 to 63 of [A-Za-z0-9._@:-], alphanumeric first, NUL-padded. */
static void persist_check_names(struct kunit *test)
{
	struct fsgate_persist req = valid_persist();

	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), 0);
	memset(req.name, 'a', sizeof(req.name) - 1);
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), 0);
	req.name[sizeof(req.name) - 1] = 'a';
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req = valid_persist();
	req.name[0] = '\0';
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req = valid_persist();
	req.name[2] = '/';
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	/* "-" is /proc/fsgate/groups's "no name"; "-x" reads as an option. */
	req = valid_persist();
	strscpy_pad(req.name, "-", sizeof(req.name));
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	strscpy_pad(req.name, ".x", sizeof(req.name));
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	strscpy_pad(req.name, "x-", sizeof(req.name));
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), 0);
	req = valid_persist();
	/* A byte after the NUL: not one name only. */
	req.name[sizeof(req.name) - 1] = 'x';
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
}

/* The absent verdict: allow (no errno) or deny with a deny errno. */
static void persist_check_verdicts(struct kunit *test)
{
	struct fsgate_persist req = valid_persist();

	req.absent_errno = 0;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), 0);
	req.absent_errno = ENOENT;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req.absent_verdict = FSGATE_VERDICT_ALLOW;
	req.absent_errno = 0;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), 0);
	req.absent_errno = EPERM;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req.absent_errno = 0;
	req.absent_verdict = FSGATE_VERDICT_DEFAULT;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req.absent_verdict = 3;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
}

/* A linger bound, or FSGATE_PERSIST_UNTIL_REMOVED, never both nor none. */
static void persist_check_linger(struct kunit *test)
{
	struct fsgate_persist req = valid_persist();

	req.flags = FSGATE_PERSIST_UNTIL_REMOVED;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req.linger_ms = 0;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), 0);
	req.flags = 0;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req = valid_persist();
	req.flags = 2;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
	req = valid_persist();
	req.reserved = 1;
	KUNIT_EXPECT_EQ(test, fsgate_persist_check(&req), -EINVAL);
}

static struct kunit_case fsgate_group_cases[] = {
	KUNIT_CASE(init_check_accepts_every_class),
	KUNIT_CASE(init_check_follows_fanotify_fid_rules),
	KUNIT_CASE(init_check_takes_fd_error_with_every_class_and_fid),
	KUNIT_CASE(init_check_takes_enable_audit_where_the_kernel_audits),
	KUNIT_CASE(init_check_rejects_two_classes),
	KUNIT_CASE(init_check_rejects_each_unknown_flag),
	KUNIT_CASE(init_check_rejects_each_reserved_word),
	KUNIT_CASE(init_check_bounds_priority),
	KUNIT_CASE(init_check_rejects_bad_verdicts),
	KUNIT_CASE(init_check_follows_fanotify_event_f_flags),
	KUNIT_CASE(init_priority_defaults_by_class),
	KUNIT_CASE(init_priority_explicit_overrides_class),
	KUNIT_CASE(list_insert_orders_every_permutation),
	KUNIT_CASE(list_insert_keeps_equal_priorities_by_age),
	KUNIT_CASE(clock_past_is_later_than_earlier_readings),
	KUNIT_CASE(entry_fill_describes_the_group),
	KUNIT_CASE(entry_fill_gives_pid_0_without_one),
	KUNIT_CASE(persist_check_names),
	KUNIT_CASE(persist_check_verdicts),
	KUNIT_CASE(persist_check_linger),
	{}
};

static struct kunit_suite fsgate_group_suite = {
	.name = "fsgate_group",
	.test_cases = fsgate_group_cases,
};

kunit_test_suite(fsgate_group_suite);
