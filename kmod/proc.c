// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/fsgate/groups (layer 4, calls group.c): one line per group in asking
 * order, after a header line that names the columns, so tools can find a
 * column by name.
 *
 * Only root may read it (mode 0400): it names every daemon that gates
 * files and counts accesses by every user. Pids are those of the procfs
 * instance's pid namespace, as /proc/PID is (0 for a daemon outside it),
 * and comm has whitespace and backslashes escaped as \ooo, as
 * /proc/self/mountinfo escapes paths, so one field never spans columns.
 *
 * Programs should use FSGATE_IOC_GROUPS (dev.c), which says the same in
 * fixed-width records; both describe a group with fsgate_group_entry_fill().
 */
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "group.h"
#include "persist.h"
#include "proc.h"

static struct proc_dir_entry *fsgate_proc_dir;

static void *fsgate_groups_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&fsgate_groups_lock);
	return seq_list_start_head(&fsgate_groups, *pos);
}

static void *fsgate_groups_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &fsgate_groups, pos);
}

static void fsgate_groups_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&fsgate_groups_lock);
}

/* What seq_escape() writes as \ooo in a field: whitespace and itself. */
#define FSGATE_PROC_ESCAPE	" \t\n\r\v\f\\"

/* " " and a bound's time left, or "-" for one that is not running. */
static void fsgate_proc_ms_left(struct seq_file *m, u32 ms)
{
	if (ms == FSGATE_GROUP_NO_DEADLINE)
		seq_puts(m, " -");
	else
		seq_printf(m, " %u", ms);
}

static int fsgate_groups_show(struct seq_file *m, void *v)
{
	struct pid_namespace *ns = proc_pid_ns(file_inode(m->file)->i_sb);
	const struct fsgate_stats *stats;
	struct fsgate_group_entry entry;
	struct fsgate_group *group;

	if (v == &fsgate_groups) {
		seq_puts(m, "id pid comm class priority marks queued delivered overflows pending asked answered denied timedout orphaned cancelled perm_overflows cached unopened cache_entries cache_evictions cache_flushes muted extended filtered absent rereported attached absent_left_ms linger_left_ms attaches handovers name\n");
		return 0;
	}
	group = list_entry(v, struct fsgate_group, node);
	fsgate_group_entry_fill(group, ns, seq_user_ns(m), &entry);
	fsgate_persist_entry_fill(group, seq_user_ns(m), &entry);
	stats = &entry.stats;
	seq_printf(m, "%llu %d ", entry.id, entry.pid);
	seq_escape(m, entry.comm, FSGATE_PROC_ESCAPE);
	seq_printf(m, " %s %u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %u",
		   fsgate_class_name(entry.flags), entry.priority,
		   stats->marks, stats->queued, stats->delivered,
		   stats->overflows, stats->pending, stats->asked,
		   stats->answered, stats->denied, stats->timedout,
		   stats->orphaned, stats->cancelled, stats->perm_overflows,
		   stats->cached, stats->unopened, stats->cache_entries,
		   stats->cache_evictions, stats->cache_flushes, stats->muted,
		   stats->extended, stats->filtered, stats->absent,
		   stats->rereported, entry.attached);
	fsgate_proc_ms_left(m, entry.absent_left_ms);
	fsgate_proc_ms_left(m, entry.linger_left_ms);
	seq_printf(m, " %llu %llu ", entry.attaches, entry.handovers);
	/* Last, where scripts written before the columns above found it. */
	seq_escape(m, *entry.name ? entry.name : "-", FSGATE_PROC_ESCAPE);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations fsgate_groups_seq_ops = {
	.start	= fsgate_groups_start,
	.next	= fsgate_groups_next,
	.stop	= fsgate_groups_stop,
	.show	= fsgate_groups_show,
};

/**
 * fsgate_proc_init() - create /proc/fsgate and its files
 *
 * Context: module init.
 * Return: 0, or -ENOMEM if procfs entries cannot be made.
 */
int fsgate_proc_init(void)
{
	fsgate_proc_dir = proc_mkdir("fsgate", NULL);
	if (!fsgate_proc_dir)
		return -ENOMEM;
	if (!proc_create_seq("groups", 0400, fsgate_proc_dir,
			     &fsgate_groups_seq_ops)) {
		proc_remove(fsgate_proc_dir);
		return -ENOMEM;
	}
	return 0;
}

/**
 * fsgate_proc_exit() - remove /proc/fsgate
 *
 * Context: module exit.
 */
void fsgate_proc_exit(void)
{
	proc_remove(fsgate_proc_dir);
}
