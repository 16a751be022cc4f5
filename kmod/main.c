// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate: a file access gate whose listener groups are asked in an
 * explicit priority order. Module init and exit only (the top layer): it
 * hands dispatch.c's callback to the fsnotify group mark.c makes. See
 * README.md, "Layout", for the layers and the other files.
 */
#include <linux/module.h>

#include "dev.h"
#include "dispatch.h"
#include "mark.h"
#include "perm.h"
#include "persist.h"
#include "proc.h"

static int __init fsgate_init(void)
{
	int ret;

	ret = fsgate_perm_init();
	if (ret)
		return ret;
	ret = fsgate_marks_init(fsgate_dispatch_event);
	if (ret)
		goto out_perm;
	ret = fsgate_proc_init();
	if (ret)
		goto out_marks;
	ret = fsgate_persist_init();
	if (ret)
		goto out_proc;
	/* Last: once /dev/fsgate exists, groups can be made. */
	ret = fsgate_dev_init();
	if (ret)
		goto out_persist;
	pr_info("loaded\n");
	return 0;

out_persist:
	fsgate_persist_exit();
out_proc:
	fsgate_proc_exit();
out_marks:
	fsgate_marks_exit();
out_perm:
	fsgate_perm_exit();
	return ret;
}

/*
 * Every group fd, and every persistent group, holds a reference on the
 * module, so exit runs only once the last group is gone.
 */
static void __exit fsgate_exit(void)
{
	fsgate_dev_exit();
	fsgate_persist_exit();
	fsgate_proc_exit();
	fsgate_marks_exit();
	fsgate_perm_exit();
	/* Mutes and filters are freed by RCU callbacks of this module. */
	rcu_barrier();
}

module_init(fsgate_init);
module_exit(fsgate_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("File access gate with explicitly ordered listener groups");
MODULE_AUTHOR("The fsgate developers");
MODULE_VERSION(FSGATE_VERSION);
