// SPDX-License-Identifier: GPL-2.0
/*
 * A group's filter (layer 0, calls nothing of fsgate's): a classic BPF
 * program, as seccomp's, run over a fixed struct of an event's facts
 * (struct fsgate_filter_data) before the group is told or asked. It
 * returns ask, skip, allow or deny with an errno, so that a scanner can
 * leave out what it would allow anyway without a round trip.
 *
 * The program cannot read outside its struct: fsgate_filter_check()
 * admits only 32-bit absolute loads at aligned offsets inside it (turned
 * into loads from the context, as seccomp does), the struct's length as
 * an immediate, and loads and stores of the program's scratch memory;
 * everything that reads a packet is refused.
 *
 * Locking: a group's @filter is replaced whole under fsgate_filter_mutex
 * (a mutex, taken alone: see mark.c for the module's lock order) and the
 * old one freed after an RCU grace period; the event path runs it under
 * rcu_read_lock(). Module exit waits for those frees (main.c).
 */
#include <linux/cred.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "cache.h"
#include "compat.h"
#include "filter.h"
#include "group.h"
#include "who.h"

/* Serialises the replacing of every group's filter; see above. */
static DEFINE_MUTEX(fsgate_filter_mutex);

/**
 * fsgate_filter_check() - admit a classic BPF program as a filter
 * @insns: its instructions, already checked by bpf_check_classic();
 *	absolute loads and lengths are rewritten in place
 * @len: how many
 *
 * Context: any.
 * Return: 0, or -EINVAL for a load outside struct fsgate_filter_data or
 * not 32-bit aligned, or any instruction that reads a packet.
 */
int fsgate_filter_check(struct sock_filter *insns, unsigned int len)
{
	unsigned int pc;

	for (pc = 0; pc < len; pc++) {
		struct sock_filter *insn = &insns[pc];

		switch (insn->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			/* A load from the context, which is the struct. */
			insn->code = BPF_LDX | BPF_W | BPF_ABS;
			if (insn->k >= sizeof(struct fsgate_filter_data) ||
			    insn->k & 3)
				return -EINVAL;
			continue;
		case BPF_LD | BPF_W | BPF_LEN:
			insn->code = BPF_LD | BPF_IMM;
			insn->k = sizeof(struct fsgate_filter_data);
			continue;
		case BPF_LDX | BPF_W | BPF_LEN:
			insn->code = BPF_LDX | BPF_IMM;
			insn->k = sizeof(struct fsgate_filter_data);
			continue;
		case BPF_RET | BPF_K:
		case BPF_RET | BPF_A:
		case BPF_ALU | BPF_ADD | BPF_K:
		case BPF_ALU | BPF_ADD | BPF_X:
		case BPF_ALU | BPF_SUB | BPF_K:
		case BPF_ALU | BPF_SUB | BPF_X:
		case BPF_ALU | BPF_MUL | BPF_K:
		case BPF_ALU | BPF_MUL | BPF_X:
		case BPF_ALU | BPF_DIV | BPF_K:
		case BPF_ALU | BPF_DIV | BPF_X:
		case BPF_ALU | BPF_AND | BPF_K:
		case BPF_ALU | BPF_AND | BPF_X:
		case BPF_ALU | BPF_OR | BPF_K:
		case BPF_ALU | BPF_OR | BPF_X:
		case BPF_ALU | BPF_XOR | BPF_K:
		case BPF_ALU | BPF_XOR | BPF_X:
		case BPF_ALU | BPF_LSH | BPF_K:
		case BPF_ALU | BPF_LSH | BPF_X:
		case BPF_ALU | BPF_RSH | BPF_K:
		case BPF_ALU | BPF_RSH | BPF_X:
		case BPF_ALU | BPF_NEG:
		case BPF_LD | BPF_IMM:
		case BPF_LDX | BPF_IMM:
		case BPF_MISC | BPF_TAX:
		case BPF_MISC | BPF_TXA:
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
		case BPF_JMP | BPF_JA:
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JSET | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_X:
			continue;
		default:
			return -EINVAL;
		}
	}
	return 0;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_filter_check);

/* The facts of an event on @inode by the current process. */
static void fsgate_filter_data_fill(struct fsgate_filter_data *data,
				    const struct fsgate_filter_prog *filter,
				    const struct fsgate_group *group, u32 mask,
				    struct inode *inode)
{
	struct cgroup *cgrp = fsgate_compat_current_cgroup();
	struct inode *exe = fsgate_current_exe();
	loff_t size = i_size_read(inode);
	u64 cgroup = cgrp ? cgroup_id(cgrp) : 0;

	*data = (struct fsgate_filter_data){
		.mask = mask,
		.mode = inode->i_mode,
		.size_lo = lower_32_bits(size),
		.size_hi = upper_32_bits(size),
		.ino_lo = lower_32_bits(inode->i_ino),
		.ino_hi = upper_32_bits((u64)inode->i_ino),
		.dev = new_encode_dev(inode->i_sb->s_dev),
		.uid = from_kuid_munged(filter->user_ns, current_euid()),
		.tgid = pid_nr_ns(task_tgid(current), ns_of_pid(group->owner)),
		.flags = (exe ? FSGATE_PROC_EXE : 0) |
			 (cgrp ? FSGATE_PROC_CGROUP : 0),
		.exe_dev = exe ? new_encode_dev(exe->i_sb->s_dev) : 0,
		.exe_ino_lo = exe ? lower_32_bits(exe->i_ino) : 0,
		.exe_ino_hi = exe ? upper_32_bits((u64)exe->i_ino) : 0,
		.cgroup_id_lo = lower_32_bits(cgroup),
		.cgroup_id_hi = upper_32_bits(cgroup),
	};
}

/**
 * fsgate_filter_run() - what a group's filter says of an event
 * @group: the group, referenced by the caller
 * @mask: the FAN_* bits the group would be told or asked of
 * @inode: the object (the child, for an event on a directory's entry)
 * @deny_errno: set to the negative errno for %FSGATE_FILTER_DENY
 *
 * A deny with an errno a response may not carry denies with EPERM; any
 * other unknown value asks the group.
 *
 * Context: rcu_read_lock() held.
 * Return: FSGATE_FILTER_ASK (also for a group without a filter), _SKIP,
 * _ALLOW or _DENY.
 */
u32 fsgate_filter_run(struct fsgate_group *group, u32 mask,
		      struct inode *inode, int *deny_errno)
{
	const struct fsgate_filter_prog *filter;
	/* Filled whole once there is a filter: not zeroed for every event. */
	struct fsgate_filter_data data __uninitialized;
	u32 ret, err;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	filter = rcu_dereference(group->filter);
	if (!filter)
		return FSGATE_FILTER_ASK;
	fsgate_filter_data_fill(&data, filter, group, mask, inode);
	ret = bpf_prog_run_pin_on_cpu(filter->prog, &data);
	err = ret & FSGATE_FILTER_ERRNO;
	switch (ret & FSGATE_FILTER_ACTION) {
	case FSGATE_FILTER_SKIP:
	case FSGATE_FILTER_ALLOW:
		return ret & FSGATE_FILTER_ACTION;
	case FSGATE_FILTER_DENY:
		*deny_errno = err && fsgate_deny_errno_valid(err) ? -err :
								    -EPERM;
		return FSGATE_FILTER_DENY;
	default:
		return FSGATE_FILTER_ASK;
	}
}

static void fsgate_filter_free_rcu(struct rcu_head *rcu)
{
	struct fsgate_filter_prog *filter =
		container_of(rcu, struct fsgate_filter_prog, rcu);

	bpf_prog_destroy(filter->prog);
	put_user_ns(filter->user_ns);
	kfree(filter);
}

/* Make @filter (NULL: none) @group's; the old one goes after a grace period. */
static void fsgate_filter_publish(struct fsgate_group *group,
				  struct fsgate_filter_prog *filter)
{
	struct fsgate_filter_prog *old;

	mutex_lock(&fsgate_filter_mutex);
	old = rcu_replace_pointer(group->filter, filter,
				  lockdep_is_held(&fsgate_filter_mutex));
	/* Whom an access asks depends on it: see consensus.c. */
	fsgate_interest_changed();
	mutex_unlock(&fsgate_filter_mutex);
	if (old)
		call_rcu(&old->rcu, fsgate_filter_free_rcu);
}

/**
 * fsgate_filter_set() - give a group a filter, or take it away
 * @group: the group
 * @len: instructions at @insns, 1..%FSGATE_FILTER_MAX; 0 removes
 * @insns: userspace pointer to @len struct sock_filter
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a malformed program (bad jumps, no return at
 * the end, a load outside struct fsgate_filter_data, a packet load) or
 * a length out of range; -EFAULT; -ENOMEM. Nothing changes on error.
 */
int fsgate_filter_set(struct fsgate_group *group, u32 len, void __user *insns)
{
	struct sock_fprog fprog = { .len = len, .filter = insns };
	struct fsgate_filter_prog *filter;
	int ret;

	if (!len) {
		fsgate_filter_publish(group, NULL);
		return 0;
	}
	if (len > FSGATE_FILTER_MAX)
		return -EINVAL;
	filter = kzalloc(sizeof(*filter), GFP_KERNEL_ACCOUNT);
	if (!filter)
		return -ENOMEM;
	ret = bpf_prog_create_from_user(&filter->prog, &fprog,
					fsgate_filter_check, false);
	if (ret) {
		kfree(filter);
		return ret;
	}
	filter->user_ns = get_user_ns(current_user_ns());
	fsgate_filter_publish(group, filter);
	return 0;
}

/**
 * fsgate_filter_release() - drop a group's filter as it goes away
 * @group: the group, whose fd is being released
 *
 * Context: process context, may sleep.
 */
void fsgate_filter_release(struct fsgate_group *group)
{
	fsgate_filter_publish(group, NULL);
}
