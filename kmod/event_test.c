// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which bits a group is told of (fsgate_event_mask()) and the
 * union mask an object's mark carries (fsgate_obj_union_mask()).
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
	struct fsgate_sub a = { .ignore = FAN_OPEN };

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

static struct kunit_case fsgate_event_cases[] = {
	KUNIT_CASE(event_mask_reports_wanted_bits_only),
	KUNIT_CASE(event_mask_lets_ignore_win),
	KUNIT_CASE(event_mask_needs_ondir_for_directories),
	KUNIT_CASE(event_mask_never_reports_flags_alone),
	KUNIT_CASE(union_mask_ors_every_sub),
	KUNIT_CASE(union_mask_watches_modify_for_fragile_ignores),
	KUNIT_CASE(union_mask_watches_write_closes_for_permission_marks),
	{}
};

static struct kunit_suite fsgate_event_suite = {
	.name = "fsgate_event",
	.test_cases = fsgate_event_cases,
};

kunit_test_suite(fsgate_event_suite);
