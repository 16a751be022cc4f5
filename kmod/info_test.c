// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which info records an event carries (fsgate_info_len()), how
 * they are laid out (fsgate_info_*_fill()), and how a write()'s
 * responses are parsed into answers (fsgate_responses_parse()).
 */
#include <kunit/test.h>
#include <linux/fanotify.h>
#include <linux/string.h>

#include "info.h"
#include "perm.h"
#include "user.h"

static void info_len_is_zero_without_report_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_info_len(0, FAN_OPEN_PERM), (size_t)0);
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_CLASS_CONTENT, FAN_OPEN),
			(size_t)0);
}

static void info_len_gives_perm_record_to_permission_events_only(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_PERM, FAN_OPEN_PERM),
			sizeof(struct fsgate_info_perm));
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_PERM,
					      FAN_OPEN_EXEC_PERM),
			sizeof(struct fsgate_info_perm));
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_PERM, FAN_OPEN),
			(size_t)0);
}

static void info_len_gives_overflow_no_records(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_INFO,
					      FAN_Q_OVERFLOW), (size_t)0);
}

static void info_len_keeps_events_aligned(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_INFO,
					      FAN_OPEN_PERM) % 8, (size_t)0);
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_INFO,
					      FAN_OPEN) % 8, (size_t)0);
}

static void perm_record_is_framed_as_fanotify(struct kunit *test)
{
	struct fsgate_info_perm rec;

	memset(&rec, 0xa5, sizeof(rec));
	KUNIT_EXPECT_EQ(test, fsgate_info_perm_fill(&rec, 42, 1000, false),
			sizeof(rec));
	KUNIT_EXPECT_EQ(test, rec.hdr.info_type, FSGATE_INFO_PERM);
	KUNIT_EXPECT_EQ(test, rec.hdr.pad, 0);
	KUNIT_EXPECT_EQ(test, rec.hdr.len, FSGATE_INFO_PERM_LEN_V1);
	KUNIT_EXPECT_EQ(test, rec.flags, 0U);
	KUNIT_EXPECT_EQ(test, rec.id, 42ULL);
	KUNIT_EXPECT_EQ(test, rec.deadline_ns, 1000ULL);
}

static void perm_record_of_unbounded_wait_has_no_deadline(struct kunit *test)
{
	struct fsgate_info_perm rec;

	fsgate_info_perm_fill(&rec, 7, 1000, true);
	KUNIT_EXPECT_EQ(test, rec.flags, (u32)FSGATE_INFO_PERM_UNBOUNDED);
	KUNIT_EXPECT_EQ(test, rec.deadline_ns, 0ULL);
}

static void fsgate_type_numbers_are_clear_of_fanotify(struct kunit *test)
{
	KUNIT_EXPECT_GE(test, FSGATE_INFO_PERM, 0x80);
}

static void responses_parse_mixes_both_forms(struct kunit *test)
{
	struct {
		struct fanotify_response a;
		struct fsgate_response b;
		struct fanotify_response c;
	} __packed buf = {
		.a = { .fd = 5, .response = FSGATE_ALLOW },
		.b = { .fd = FAN_NOFD, .id = 99,
		       .response = FSGATE_RESPONSE_ID | FSGATE_DENY_ERRNO(EIO) },
		.c = { .fd = 6, .response = FSGATE_DENY | FSGATE_CACHE },
	};
	struct fsgate_answer ans[4];

	KUNIT_ASSERT_EQ(test, fsgate_responses_parse((u8 *)&buf, sizeof(buf),
						     ans), (ssize_t)3);
	KUNIT_EXPECT_EQ(test, ans[0].id, 0ULL);
	KUNIT_EXPECT_EQ(test, ans[0].fd, 5);
	KUNIT_EXPECT_EQ(test, ans[0].verdict, 0);
	KUNIT_EXPECT_EQ(test, ans[1].id, 99ULL);
	KUNIT_EXPECT_EQ(test, ans[1].verdict, -EIO);
	KUNIT_EXPECT_EQ(test, ans[1].response & FSGATE_RESPONSE_ID, 0U);
	KUNIT_EXPECT_EQ(test, ans[2].fd, 6);
	KUNIT_EXPECT_EQ(test, ans[2].verdict, -EPERM);
	KUNIT_EXPECT_TRUE(test, ans[2].response & FSGATE_CACHE);
}

static void responses_parse_refuses_malformed_id_responses(struct kunit *test)
{
	struct fsgate_response r = {
		.fd = FAN_NOFD, .id = 1,
		.response = FSGATE_RESPONSE_ID | FSGATE_ALLOW,
	};
	struct fsgate_answer ans[3];

	/* Cut short: the id form is 24 bytes. */
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, 16, ans),
			(ssize_t)-EINVAL);
	r.id = 0;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)-EINVAL);
	r.id = 1;
	r.fd = 3;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)-EINVAL);
	r.fd = FAN_NOFD;
	r.reserved = 1;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)-EINVAL);
	r.reserved = 0;
	r.response = FSGATE_RESPONSE_ID;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)-EINVAL);
}

static struct kunit_case fsgate_info_cases[] = {
	KUNIT_CASE(info_len_is_zero_without_report_flags),
	KUNIT_CASE(info_len_gives_perm_record_to_permission_events_only),
	KUNIT_CASE(info_len_gives_overflow_no_records),
	KUNIT_CASE(info_len_keeps_events_aligned),
	KUNIT_CASE(perm_record_is_framed_as_fanotify),
	KUNIT_CASE(perm_record_of_unbounded_wait_has_no_deadline),
	KUNIT_CASE(fsgate_type_numbers_are_clear_of_fanotify),
	KUNIT_CASE(responses_parse_mixes_both_forms),
	KUNIT_CASE(responses_parse_refuses_malformed_id_responses),
	{}
};

static struct kunit_suite fsgate_info_suite = {
	.name = "fsgate_info",
	.test_cases = fsgate_info_cases,
};

kunit_test_suite(fsgate_info_suite);
