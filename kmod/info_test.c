// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which info records an event carries (fsgate_info_len()), how
 * they are laid out (fsgate_info_*_fill()), how a write()'s responses
 * are parsed into answers (fsgate_responses_parse()), audit rules and
 * probes included, and what an audit record says of an answer.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fanotify.h>
#include <linux/pid.h>
#include <linux/sched.h>
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
	KUNIT_EXPECT_EQ(test,
			fsgate_info_perm_fill(&rec, 42, 1000, 3000, false),
			sizeof(rec));
	KUNIT_EXPECT_EQ(test, rec.hdr.info_type, FSGATE_INFO_PERM);
	KUNIT_EXPECT_EQ(test, rec.hdr.pad, 0);
	KUNIT_EXPECT_EQ(test, rec.hdr.len, FSGATE_INFO_PERM_LEN_V2);
	KUNIT_EXPECT_EQ(test, rec.flags, 0U);
	KUNIT_EXPECT_EQ(test, rec.id, 42ULL);
	KUNIT_EXPECT_EQ(test, rec.deadline_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, rec.latest_ns, 3000ULL);
}

static void perm_record_of_unbounded_wait_has_no_deadline(struct kunit *test)
{
	struct fsgate_info_perm rec;

	fsgate_info_perm_fill(&rec, 7, 1000, 3000, true);
	KUNIT_EXPECT_EQ(test, rec.flags, (u32)FSGATE_INFO_PERM_UNBOUNDED);
	KUNIT_EXPECT_EQ(test, rec.deadline_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.latest_ns, 0ULL);
}

static void info_len_gives_proc_record_to_every_event(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_PROC, FAN_OPEN),
			sizeof(struct fsgate_info_proc));
	KUNIT_EXPECT_EQ(test, fsgate_info_len(FSGATE_REPORT_INFO, FAN_OPEN_PERM),
			FSGATE_INFO_MAX_LEN);
}

static void proc_record_describes_the_current_task(struct kunit *test)
{
	struct fsgate_proc *proc = fsgate_proc_take(GFP_KERNEL);
	struct fsgate_info_proc rec;

	KUNIT_ASSERT_NOT_NULL(test, proc);
	memset(&rec, 0xa5, sizeof(rec));
	KUNIT_EXPECT_EQ(test, fsgate_info_proc_fill(&rec, proc), sizeof(rec));
	KUNIT_EXPECT_EQ(test, rec.hdr.info_type, FSGATE_INFO_PROC);
	KUNIT_EXPECT_EQ(test, rec.hdr.pad, 0);
	KUNIT_EXPECT_EQ(test, rec.hdr.len, FSGATE_INFO_PROC_LEN_V1);
	KUNIT_EXPECT_EQ(test, rec.reserved, 0U);
	KUNIT_EXPECT_EQ(test, rec.uid,
			from_kuid_munged(current_user_ns(), current_uid()));
	KUNIT_EXPECT_EQ(test, rec.euid,
			from_kuid_munged(current_user_ns(), current_euid()));
	KUNIT_EXPECT_EQ(test, rec.tgid, task_tgid_vnr(current));
	KUNIT_EXPECT_EQ(test, rec.tid, task_pid_vnr(current));
	KUNIT_EXPECT_EQ(test, rec.start_time_ns,
			current->group_leader->start_boottime);
	/* KUnit runs in a kernel thread: no program. */
	KUNIT_EXPECT_FALSE(test, rec.flags & FSGATE_PROC_EXE);
	KUNIT_EXPECT_EQ(test, rec.exe_ino, 0ULL);
	if (!(rec.flags & FSGATE_PROC_LOGINUID))
		KUNIT_EXPECT_EQ(test, rec.loginuid, (u32)-1);
	fsgate_proc_free(proc);
}

/*
 * After FID records, padded to 4 bytes as fanotify's, the record may
 * start 4 bytes off an 8-byte boundary: the same bytes land there.
 */
static void proc_record_fills_a_4_byte_aligned_place(struct kunit *test)
{
	struct fsgate_proc *proc = fsgate_proc_take(GFP_KERNEL);
	struct fsgate_info_proc rec;
	u64 buf[sizeof(rec) / 8 + 1];

	KUNIT_ASSERT_NOT_NULL(test, proc);
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, fsgate_info_proc_fill((u8 *)buf + 4, proc),
			sizeof(rec));
	fsgate_info_proc_fill(&rec, proc);
	KUNIT_EXPECT_EQ(test, memcmp((u8 *)buf + 4, &rec, sizeof(rec)), 0);
	fsgate_proc_free(proc);
}

static void fsgate_type_numbers_are_clear_of_fanotify(struct kunit *test)
{
	KUNIT_EXPECT_GE(test, FSGATE_INFO_PERM, 0x80);
	KUNIT_EXPECT_GE(test, FSGATE_INFO_PROC, 0x80);
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
	/* Time with an answer. */
	r.response = FSGATE_RESPONSE_ID | FSGATE_ALLOW;
	r.extend_ms = 10;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)-EINVAL);
	/* A request for no time. */
	r.response = FSGATE_RESPONSE_ID | FSGATE_EXTEND;
	r.extend_ms = 0;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)-EINVAL);
}

static void responses_parse_takes_a_request_for_time(struct kunit *test)
{
	struct fsgate_response r = {
		.fd = FAN_NOFD, .id = 5, .extend_ms = 1500,
		.response = FSGATE_RESPONSE_ID | FSGATE_EXTEND,
	};
	struct fsgate_answer ans[3];

	KUNIT_ASSERT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)1);
	KUNIT_EXPECT_EQ(test, ans[0].id, 5ULL);
	KUNIT_EXPECT_EQ(test, ans[0].extend_ms, 1500U);
	KUNIT_EXPECT_EQ(test, ans[0].response, (u32)FSGATE_EXTEND);
}

static void responses_parse_takes_the_audit_flag(struct kunit *test)
{
	struct fanotify_response r = {
		.fd = 4, .response = FSGATE_DENY | FSGATE_AUDIT,
	};
	struct fsgate_answer ans[1];

	KUNIT_ASSERT_EQ(test, fsgate_responses_parse((u8 *)&r, sizeof(r), ans),
			(ssize_t)1);
	KUNIT_EXPECT_EQ(test, ans[0].verdict, -EPERM);
	KUNIT_EXPECT_TRUE(test, ans[0].response & FSGATE_AUDIT);
}

static void audit_response_is_fanotify_resp(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_audit_response(FSGATE_DENY_ERRNO(EIO) |
						    FSGATE_AUDIT | FSGATE_CACHE),
			(u32)FSGATE_DENY);
	KUNIT_EXPECT_EQ(test, fsgate_audit_response(FSGATE_ALLOW | FSGATE_AUDIT |
						    FSGATE_INFO),
			(u32)FSGATE_ALLOW);
	KUNIT_EXPECT_EQ(test, FSGATE_AUDIT, FAN_AUDIT);
}

static void response_check_takes_info_where_records_show_rules(struct kunit *test)
{
	int v;

	KUNIT_EXPECT_EQ(test, fsgate_response_check(FSGATE_ALLOW | FSGATE_AUDIT, &v),
			0);
	KUNIT_EXPECT_EQ(test, fsgate_response_check(FSGATE_DENY | FSGATE_INFO, &v),
			FSGATE_COMPAT_AUDIT_RULE ? 0 : -EINVAL);
	KUNIT_EXPECT_EQ(test, FSGATE_ENABLE_AUDIT, FAN_ENABLE_AUDIT);
}

/* A response with FSGATE_INFO, then its rule, as fanotify lays them out. */
struct response_with_rule {
	struct fanotify_response r;
	struct fsgate_response_audit_rule rule;
} __packed;

static const struct response_with_rule good_rule = {
	.r = { .fd = 4, .response = FSGATE_DENY | FSGATE_AUDIT | FSGATE_INFO },
	.rule = { .type = FSGATE_RESPONSE_INFO_AUDIT_RULE, .len = 16,
		  .rule_number = 0x3137, .subj_trust = 1, .obj_trust = 2 },
};

static void responses_parse_takes_a_rule_where_records_show_it(struct kunit *test)
{
	struct response_with_rule w = good_rule;
	struct fsgate_answer ans[2];

	if (!FSGATE_COMPAT_AUDIT_RULE) {
		KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w),
							     ans),
				(ssize_t)-EINVAL);
		kunit_skip(test, "this kernel's audit records have no rule");
	}
	KUNIT_ASSERT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w), ans),
			(ssize_t)1);
	KUNIT_EXPECT_EQ(test, ans[0].fd, 4);
	KUNIT_EXPECT_EQ(test, ans[0].verdict, -EPERM);
	KUNIT_EXPECT_EQ(test, ans[0].rule.rule_number, 0x3137U);
	KUNIT_EXPECT_EQ(test, ans[0].rule.obj_trust, 2U);
	/* fanotify's probe: FAN_NOFD with a rule is taken and names nothing. */
	w.r.fd = FAN_NOFD;
	KUNIT_ASSERT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w), ans),
			(ssize_t)1);
	KUNIT_EXPECT_EQ(test, ans[0].fd, FAN_NOFD);
	KUNIT_EXPECT_EQ(test, ans[0].id, 0ULL);
}

static void responses_parse_refuses_bad_rules(struct kunit *test)
{
	struct response_with_rule w = good_rule;
	struct fsgate_answer ans[2];

	/* Cut short. */
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&w, 16, ans),
			(ssize_t)-EINVAL);
	w.rule.type = FSGATE_RESPONSE_INFO_NONE;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w), ans),
			(ssize_t)-EINVAL);
	w.rule.type = FSGATE_RESPONSE_INFO_AUDIT_RULE;
	w.rule.pad = 1;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w), ans),
			(ssize_t)-EINVAL);
	w.rule.pad = 0;
	w.rule.len = 12;
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w), ans),
			(ssize_t)-EINVAL);
	/* A negative fd is a probe only with a rule. */
	w.r = (struct fanotify_response){ .fd = FAN_NOFD,
					  .response = FSGATE_ALLOW };
	KUNIT_EXPECT_EQ(test, fsgate_responses_parse((u8 *)&w, sizeof(w.r), ans),
			(ssize_t)-EINVAL);
}

static struct kunit_case fsgate_info_cases[] = {
	KUNIT_CASE(info_len_is_zero_without_report_flags),
	KUNIT_CASE(info_len_gives_perm_record_to_permission_events_only),
	KUNIT_CASE(info_len_gives_overflow_no_records),
	KUNIT_CASE(info_len_keeps_events_aligned),
	KUNIT_CASE(perm_record_is_framed_as_fanotify),
	KUNIT_CASE(perm_record_of_unbounded_wait_has_no_deadline),
	KUNIT_CASE(info_len_gives_proc_record_to_every_event),
	KUNIT_CASE(proc_record_describes_the_current_task),
	KUNIT_CASE(proc_record_fills_a_4_byte_aligned_place),
	KUNIT_CASE(fsgate_type_numbers_are_clear_of_fanotify),
	KUNIT_CASE(responses_parse_mixes_both_forms),
	KUNIT_CASE(responses_parse_refuses_malformed_id_responses),
	KUNIT_CASE(responses_parse_takes_a_request_for_time),
	KUNIT_CASE(responses_parse_takes_the_audit_flag),
	KUNIT_CASE(audit_response_is_fanotify_resp),
	KUNIT_CASE(response_check_takes_info_where_records_show_rules),
	KUNIT_CASE(responses_parse_takes_a_rule_where_records_show_it),
	KUNIT_CASE(responses_parse_refuses_bad_rules),
	{}
};

static struct kunit_suite fsgate_info_suite = {
	.name = "fsgate_info",
	.test_cases = fsgate_info_cases,
};

kunit_test_suite(fsgate_info_suite);
