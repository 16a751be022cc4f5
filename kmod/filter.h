/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_FILTER_H
#define _FSGATE_FILTER_H

#include <linux/rcupdate.h>
#include <linux/types.h>

struct bpf_prog;
struct fsgate_group;
struct inode;
struct path;
struct sock_filter;
struct user_namespace;

/**
 * struct fsgate_filter_prog - a group's classic BPF filter, as run
 * @rcu: freed after a grace period
 * @prog: the program, checked and translated
 * @user_ns: the namespace uids are given in: its setter's, referenced
 */
struct fsgate_filter_prog {
	struct rcu_head rcu;
	struct bpf_prog *prog;
	struct user_namespace *user_ns;
};

int fsgate_filter_check(struct sock_filter *insns, unsigned int len);
u32 fsgate_filter_run(struct fsgate_group *group, u32 mask,
		      struct inode *inode, int *deny_errno);
int fsgate_filter_set(struct fsgate_group *group, u32 len,
		      void __user *insns);
void fsgate_filter_release(struct fsgate_group *group);

#endif /* _FSGATE_FILTER_H */
