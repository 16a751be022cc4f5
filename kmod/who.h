/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who is accessing (layer 0, inline, calls nothing of fsgate's): the
 * program the current task runs, as muting (mute.c), filters (filter.c)
 * and process records (info.c) all describe it.
 */
#ifndef _FSGATE_WHO_H
#define _FSGATE_WHO_H

#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

/**
 * fsgate_current_exe() - the program file of the current task
 *
 * The exe file is only replaced by exec or prctl(PR_SET_MM_EXE_FILE)
 * and freed after a grace period, so its inode stays while the caller
 * holds rcu_read_lock().
 *
 * Context: rcu_read_lock() held.
 * Return: the program's inode, or NULL for a kernel thread (even one
 * that borrowed an mm) and a process that exited its mm.
 */
static inline struct inode *fsgate_current_exe(void)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	if (!mm || (current->flags & PF_KTHREAD))
		return NULL;
	exe = rcu_dereference(mm->exe_file);
	return exe ? file_inode(exe) : NULL;
}

#endif /* _FSGATE_WHO_H */
