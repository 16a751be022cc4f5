// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which bits a group is told of (fsgate_event_mask()), where an
 * ignore mask applies (fsgate_sub_ignored()) and the union mask an
 * object's mark carries (fsgate_obj_union_mask()).
 */
#include <kunit/test.h>
#include <linux/fanotify.h>

#include "event.h"
#include "mark.h"

static void event_mask_reports_wanted_bits_only(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_OPEN | FS_ACCESS, FAN_OPEN, 0),
			(u32)FAN_OPEN);
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_ACCESS, FAN_OPEN, 0), 0U);
}

static void event_mask_lets_ignore_win(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_OPEN, FAN_OPEN, FAN_OPEN), 0U);
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_OPEN | FS_CLOSE_NOWRITE,
						FAN_OPEN | FAN_CLOSE_NOWRITE,
						FAN_OPEN),
			(u32)FAN_CLOSE_NOWRITE);
}

static void event_mask_needs_ondir_for_directories(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_OPEN | FS_ISDIR, FAN_OPEN, 0),
			0U);
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_OPEN | FS_ISDIR,
						FAN_OPEN | FAN_ONDIR, 0),
			(u32)FAN_OPEN);
}

static void event_mask_never_reports_flags_alone(struct kunit *test)
{
	/* FS_EVENT_ON_CHILD and FS_ISDIR are flags, not events. */
	KUNIT_EXPECT_EQ(test, fsgate_event_mask(FS_EVENT_ON_CHILD | FS_ISDIR,
						FAN_EVENT_ON_CHILD | FAN_ONDIR,
						0),
			0U);
}

static void union_mask_ors_every_sub(struct kunit *test)
{
	struct fsgate_obj obj = { .subs = LIST_HEAD_INIT(obj.subs) };
	struct fsgate_sub a = { .mask = FAN_OPEN }, b = {
		.mask = FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD,
	};

	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj), 0U);
	list_add_tail(&a.obj_node, &obj.subs);
	list_add_tail(&b.obj_node, &obj.subs);
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj),
			(u32)(FAN_OPEN | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD));
	list_del(&b.obj_node);
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj), (u32)FAN_OPEN);
}

static void union_mask_watches_modify_for_fragile_ignores(struct kunit *test)
{
	struct fsgate_obj obj = { .subs = LIST_HEAD_INIT(obj.subs) };
	struct fsgate_sub a = { .ignore = ATOMIC_INIT(FAN_OPEN) };

	list_add_tail(&a.obj_node, &obj.subs);
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj), (u32)FS_MODIFY);
	a.surv_modify = true;
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj), 0U);
}

/* A permission mark hears closes after writing, for the verdict cache. */
static void union_mask_watches_write_closes_for_permission_marks(struct kunit *test)
{
	struct fsgate_obj obj = { .subs = LIST_HEAD_INIT(obj.subs) };
	struct fsgate_sub a = { .mask = FAN_OPEN_PERM | FAN_EVENT_ON_CHILD };

	list_add_tail(&a.obj_node, &obj.subs);
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj),
			(u32)(FAN_OPEN_PERM | FAN_EVENT_ON_CHILD | FS_CLOSE_WRITE));
	a.mask = FAN_OPEN;
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj), (u32)FAN_OPEN);
}

/* A legacy ignore mask: directories always, children with the mark. */
static void legacy_ignore_applies_to_directories_and_watched_children(struct kunit *test)
{
	struct fsgate_sub a = { .ignore = ATOMIC_INIT(FAN_OPEN) };

	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_INODE,
						 FS_OPEN), (u32)FAN_OPEN);
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_INODE,
						 FS_OPEN | FS_ISDIR),
			(u32)FAN_OPEN);
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_PARENT,
						 FS_OPEN), 0U);
	a.mask = FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD;
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_PARENT,
						 FS_OPEN), (u32)FAN_OPEN);
}

/* FSGATE_MARK_IGNORE: the ignore mask's own flags say where it applies. */
static void ignore_flags_choose_directories_and_children(struct kunit *test)
{
	struct fsgate_sub a = {
		.ignore = ATOMIC_INIT(FAN_OPEN), .ignore_flags = true,
		.mask = FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD,
	};

	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_INODE,
						 FS_OPEN), (u32)FAN_OPEN);
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_INODE,
						 FS_OPEN | FS_ISDIR), 0U);
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_PARENT,
						 FS_OPEN), 0U);
	atomic_set(&a.ignore, FAN_OPEN | FAN_ONDIR);
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_INODE,
						 FS_OPEN | FS_ISDIR),
			(u32)(FAN_OPEN | FAN_ONDIR));
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_PARENT,
						 FS_OPEN | FS_ISDIR), 0U);
	atomic_set(&a.ignore, FAN_OPEN | FAN_EVENT_ON_CHILD);
	a.mask = FAN_CLOSE_WRITE;
	KUNIT_EXPECT_EQ(test, fsgate_sub_ignored(&a, FSNOTIFY_ITER_TYPE_PARENT,
						 FS_OPEN),
			(u32)(FAN_OPEN | FAN_EVENT_ON_CHILD));
}

/* A parent's ignore mask for its children must bring their events to it. */
static void union_mask_carries_ignores_of_children(struct kunit *test)
{
	struct fsgate_obj obj = { .subs = LIST_HEAD_INIT(obj.subs) };
	struct fsgate_sub a = {
		.ignore = ATOMIC_INIT(FAN_OPEN | FAN_EVENT_ON_CHILD), .ignore_flags = true,
		.surv_modify = true,
	};

	list_add_tail(&a.obj_node, &obj.subs);
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj),
			(u32)(FAN_OPEN | FAN_EVENT_ON_CHILD));
	atomic_set(&a.ignore, FAN_OPEN | FAN_ONDIR);
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj), 0U);
	a.ignore_flags = false;
	atomic_set(&a.ignore, FAN_OPEN);
	a.mask = FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD;
	KUNIT_EXPECT_EQ(test, fsgate_obj_union_mask(&obj),
			(u32)(FAN_OPEN | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD));
}

static struct kunit_case fsgate_event_cases[] = {
	KUNIT_CASE(event_mask_reports_wanted_bits_only),
	KUNIT_CASE(event_mask_lets_ignore_win),
	KUNIT_CASE(event_mask_needs_ondir_for_directories),
	KUNIT_CASE(event_mask_never_reports_flags_alone),
	KUNIT_CASE(union_mask_ors_every_sub),
	KUNIT_CASE(union_mask_watches_modify_for_fragile_ignores),
	KUNIT_CASE(union_mask_watches_write_closes_for_permission_marks),
	KUNIT_CASE(legacy_ignore_applies_to_directories_and_watched_children),
	KUNIT_CASE(ignore_flags_choose_directories_and_children),
	KUNIT_CASE(union_mask_carries_ignores_of_children),
	{}
};

static struct kunit_suite fsgate_event_suite = {
	.name = "fsgate_event",
	.test_cases = fsgate_event_cases,
};

kunit_test_suite(fsgate_event_suite);
