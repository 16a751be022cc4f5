// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: muting's logic: entry validation, what a group's mutes hide from
 * the current task in either mode, the order entries are kept and listed
 * in, and the ancestry rule of FSGATE_MUTE_DESCENDANTS and
 * FSGATE_EXCLUDE_SELF. Part of fsgate_kunit.ko (kunit.c). The test runs
 * in a kernel thread, forked by kthreadd, as root.
 */
#include <kunit/test.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "group.h"
#include "mute.h"

/* Groups are big (lockdep, KASAN): keep them off the stack. */
static struct fsgate_group *alloc_group(struct kunit *test)
{
	struct fsgate_group *group;

	group = kunit_kzalloc(test, sizeof(*group), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, group);
	return group;
}

static bool hides(struct fsgate_group *group)
{
	struct fsgate_facts facts = {};
	bool ret;

	rcu_read_lock();
	ret = fsgate_mutes_hide(group, &facts, FAN_OPEN_PERM);
	rcu_read_unlock();
	return ret;
}

static struct fsgate_mute_entry uid_entry(u64 uid)
{
	return (struct fsgate_mute_entry){ .type = FSGATE_MUTE_UID, .id = uid };
}

static void entry_check_takes_each_type(struct kunit *test)
{
	struct fsgate_mute_entry e = { .type = FSGATE_MUTE_PROCESS, .id = 1,
				       .flags = FSGATE_MUTE_DESCENDANTS };

	KUNIT_EXPECT_EQ(test, fsgate_mute_entry_check(&e), 0);
	e = (struct fsgate_mute_entry){ .type = FSGATE_MUTE_EXE, .id = 12,
					.dev = 0x803 };
	KUNIT_EXPECT_EQ(test, fsgate_mute_entry_check(&e), 0);
	e.type = FSGATE_MUTE_EXE_UID;
	e.uid = 1000;
	KUNIT_EXPECT_EQ(test, fsgate_mute_entry_check(&e), 0);
	e = uid_entry(0);
	KUNIT_EXPECT_EQ(test, fsgate_mute_entry_check(&e), 0);
	e = (struct fsgate_mute_entry){ .type = FSGATE_MUTE_CGROUP, .id = 1 };
	KUNIT_EXPECT_EQ(test, fsgate_mute_entry_check(&e), 0);
}

static void entry_check_rejects_what_a_type_does_not_take(struct kunit *test)
{
	static const struct fsgate_mute_entry bad[] = {
		{ .type = 0, .id = 1 },
		{ .type = FSGATE_MUTE_EXE_UID + 1, .id = 1 },
		{ .type = FSGATE_MUTE_PROCESS, .id = 0 },
		{ .type = FSGATE_MUTE_PROCESS, .id = 1, .dev = 1 },
		{ .type = FSGATE_MUTE_PROCESS, .id = 1, .flags = 2 },
		{ .type = FSGATE_MUTE_PROCESS, .id = 1, .reserved = 1 },
		{ .type = FSGATE_MUTE_EXE, .id = 0, .dev = 1 },
		{ .type = FSGATE_MUTE_EXE, .id = 1, .dev = 1ULL << 32 },
		{ .type = FSGATE_MUTE_EXE, .id = 1,
		  .flags = FSGATE_MUTE_DESCENDANTS },
		{ .type = FSGATE_MUTE_UID, .id = 1ULL << 32 },
		{ .type = FSGATE_MUTE_UID, .id = 1, .dev = 1 },
		{ .type = FSGATE_MUTE_UID, .id = 1, .uid = 1 },
		{ .type = FSGATE_MUTE_EXE, .id = 1, .uid = 1 },
		{ .type = FSGATE_MUTE_EXE_UID, .id = 0, .uid = 1 },
		{ .type = FSGATE_MUTE_EXE_UID, .id = 1, .reserved = 1 },
		{ .type = FSGATE_MUTE_CGROUP, .id = 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, fsgate_mute_entry_check(&bad[i]),
				    -EINVAL, "entry %u", i);
}

static void no_mutes_hide_nothing(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, hides(alloc_group(test)));
}

static void a_muted_process_is_hidden_and_only_mode_inverts(struct kunit *test)
{
	struct fsgate_group *group = alloc_group(test);
	struct fsgate_mute_entry e = {
		.type = FSGATE_MUTE_PROCESS,
		.id = task_tgid_vnr(current),
	};

	KUNIT_ASSERT_EQ(test, fsgate_mute_add(group, &e), 0);
	KUNIT_EXPECT_EQ(test, fsgate_mute_add(group, &e), -EEXIST);
	KUNIT_EXPECT_TRUE(test, hides(group));
	KUNIT_ASSERT_EQ(test, fsgate_mute_set_mode(group, FSGATE_MUTE_MODE_ONLY), 0);
	KUNIT_EXPECT_FALSE(test, hides(group));
	KUNIT_ASSERT_EQ(test, fsgate_mute_remove(group, &e), 0);
	KUNIT_EXPECT_TRUE(test, hides(group));
	KUNIT_EXPECT_EQ(test, fsgate_mute_remove(group, &e), -ENOENT);
	KUNIT_EXPECT_EQ(test, fsgate_mute_set_mode(group, 2), -EINVAL);
	KUNIT_ASSERT_EQ(test, fsgate_mute_set_mode(group, FSGATE_MUTE_MODE_MUTE), 0);
	KUNIT_EXPECT_FALSE(test, hides(group));
	/* Muting nothing keeps no mutes at all. */
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(group->mutes));
	fsgate_mutes_release(group);
}

static void a_muted_uid_is_hidden(struct kunit *test)
{
	struct fsgate_group *group = alloc_group(test);
	struct fsgate_mute_entry e = uid_entry(1000);

	KUNIT_ASSERT_EQ(test, fsgate_mute_add(group, &e), 0);
	KUNIT_EXPECT_FALSE(test, hides(group));
	e = uid_entry(0);	/* the test runs as root */
	KUNIT_ASSERT_EQ(test, fsgate_mute_add(group, &e), 0);
	KUNIT_EXPECT_TRUE(test, hides(group));
	KUNIT_ASSERT_EQ(test, fsgate_mutes_clear(group), 0);
	KUNIT_EXPECT_FALSE(test, hides(group));
	fsgate_mutes_release(group);
}

static void entries_are_listed_in_order(struct kunit *test)
{
	static const u64 uids[] = { 7, 3, 9, 1, 5 };
	struct fsgate_group *group = alloc_group(test);
	struct fsgate_mute_entry e, out[ARRAY_SIZE(uids)];
	u32 count, mode;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uids); i++) {
		e = uid_entry(uids[i]);
		KUNIT_ASSERT_EQ(test, fsgate_mute_add(group, &e), 0);
	}
	KUNIT_EXPECT_EQ(test, fsgate_mutes_list(group, out, 2, &count, &mode), 2);
	KUNIT_EXPECT_EQ(test, count, 5U);
	KUNIT_EXPECT_EQ(test, mode, FSGATE_MUTE_MODE_MUTE);
	KUNIT_ASSERT_EQ(test, fsgate_mutes_list(group, out, 5, &count, &mode), 5);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, out[i].id, (u64)(2 * i + 1));
	fsgate_mutes_release(group);
}

static void descends_from_itself_and_its_forker(struct kunit *test)
{
	struct pid *parent;
	bool yes, late;

	rcu_read_lock();
	parent = task_tgid(rcu_dereference(current->real_parent));
	KUNIT_EXPECT_TRUE(test, fsgate_current_descends(task_tgid(current),
							U64_MAX));
	yes = fsgate_current_descends(parent, 0);
	/* Forked before the moment given: not a later child. */
	late = fsgate_current_descends(parent, U64_MAX);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, yes);
	KUNIT_EXPECT_FALSE(test, late);
}

static void a_process_with_descendants_hides_its_later_children(struct kunit *test)
{
	struct fsgate_group *group = alloc_group(test);
	struct fsgate_mute_entry e = {
		.type = FSGATE_MUTE_PROCESS,
		.flags = FSGATE_MUTE_DESCENDANTS,
	};
	pid_t kthreadd;

	rcu_read_lock();
	kthreadd = task_tgid_vnr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	e.id = kthreadd;
	/* Added now: the test's thread was forked before, so not hidden. */
	KUNIT_ASSERT_EQ(test, fsgate_mute_add(group, &e), 0);
	KUNIT_EXPECT_FALSE(test, hides(group));
	fsgate_mutes_release(group);
}

static struct kunit_case fsgate_mute_cases[] = {
	KUNIT_CASE(entry_check_takes_each_type),
	KUNIT_CASE(entry_check_rejects_what_a_type_does_not_take),
	KUNIT_CASE(no_mutes_hide_nothing),
	KUNIT_CASE(a_muted_process_is_hidden_and_only_mode_inverts),
	KUNIT_CASE(a_muted_uid_is_hidden),
	KUNIT_CASE(entries_are_listed_in_order),
	KUNIT_CASE(descends_from_itself_and_its_forker),
	KUNIT_CASE(a_process_with_descendants_hides_its_later_children),
	{}
};

static struct kunit_suite fsgate_mute_suite = {
	.name = "fsgate_mute",
	.test_cases = fsgate_mute_cases,
};

kunit_test_suite(fsgate_mute_suite);
