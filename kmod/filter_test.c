// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what a group's classic BPF filter may do (fsgate_filter_check()):
 * aligned 32-bit loads inside struct fsgate_filter_data, turned into
 * context loads; nothing that reads a packet. Part of fsgate_kunit.ko
 * (kunit.c).
 */
#include <kunit/test.h>
#include <linux/filter.h>
#include <linux/fsgate.h>

#include "filter.h"

/* Check a load of @code at @k followed by a return. */
static int check_one(u16 code, u32 k)
{
	struct sock_filter prog[2] = {
		BPF_STMT(code, k),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};

	return fsgate_filter_check(prog, 2);
}

static void loads_inside_the_struct_become_context_loads(struct kunit *test)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 sizeof(struct fsgate_filter_data) - 4),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};

	KUNIT_ASSERT_EQ(test, fsgate_filter_check(prog, 3), 0);
	KUNIT_EXPECT_EQ(test, prog[0].code, BPF_LDX | BPF_W | BPF_ABS);
	KUNIT_EXPECT_EQ(test, prog[1].code, BPF_LDX | BPF_W | BPF_ABS);
}

static void the_length_is_the_struct_s(struct kunit *test)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};

	KUNIT_ASSERT_EQ(test, fsgate_filter_check(prog, 2), 0);
	KUNIT_EXPECT_EQ(test, prog[0].code, BPF_LD | BPF_IMM);
	KUNIT_EXPECT_EQ(test, prog[0].k, (u32)sizeof(struct fsgate_filter_data));
}

static void loads_outside_or_unaligned_are_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_one(BPF_LD | BPF_W | BPF_ABS,
					sizeof(struct fsgate_filter_data)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, check_one(BPF_LD | BPF_W | BPF_ABS, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, check_one(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF),
			-EINVAL);
}

static void packet_loads_are_refused(struct kunit *test)
{
	static const u16 codes[] = {
		BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS,
		BPF_LD | BPF_W | BPF_IND, BPF_LD | BPF_H | BPF_IND,
		BPF_LD | BPF_B | BPF_IND, BPF_LDX | BPF_B | BPF_MSH,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		KUNIT_EXPECT_EQ_MSG(test, check_one(codes[i], 0), -EINVAL,
				    "code %#x", codes[i]);
}

static void arithmetic_jumps_and_scratch_are_taken(struct kunit *test)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 7),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LDX | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 10, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_SKIP),
		BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK),
	};

	KUNIT_EXPECT_EQ(test, fsgate_filter_check(prog, ARRAY_SIZE(prog)), 0);
}

static struct kunit_case fsgate_filter_cases[] = {
	KUNIT_CASE(loads_inside_the_struct_become_context_loads),
	KUNIT_CASE(the_length_is_the_struct_s),
	KUNIT_CASE(loads_outside_or_unaligned_are_refused),
	KUNIT_CASE(packet_loads_are_refused),
	KUNIT_CASE(arithmetic_jumps_and_scratch_are_taken),
	{}
};

static struct kunit_suite fsgate_filter_suite = {
	.name = "fsgate_filter",
	.test_cases = fsgate_filter_cases,
};

kunit_test_suite(fsgate_filter_suite);
