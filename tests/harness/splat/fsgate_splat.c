// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate_splat: make the kernel print a splat on purpose, so that the
 * harness's own tests can check that tests/vm counts it as a failure.
 * Each load does what "mode" names and fails (or, for "bug", dies):
 *
 *   warn   WARN(): "------------[ cut here ]------------", "WARNING: ..."
 *   bug    BUG(): "kernel BUG at ...", "invalid opcode: 0000 [#1]"
 *          (6.12 prefixes the latter with "Oops: "); insmod is killed
 *   kasan  a read one byte past a kmalloc()ed buffer: "BUG: KASAN: ..."
 *   leak   a kmalloc()ed buffer nobody frees: "unreferenced object ..."
 *          once kmemleak scans
 *
 * Built by tests/harness/crash.sh into build/harness/, never shipped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "warn, bug, kasan or leak");

static void *leaked;

static noinline int read_past_end(void)
{
	char *buf = kmalloc(16, GFP_KERNEL);
	int c;

	if (!buf)
		return -ENOMEM;
	/* Hidden from the compiler, which would see the overflow. */
	OPTIMIZER_HIDE_VAR(buf);
	c = READ_ONCE(buf[16]);
	kfree(buf);
	return c;
}

static int __init fsgate_splat_init(void)
{
	pr_info("mode %s\n", mode);
	if (!strcmp(mode, "warn")) {
		WARN(1, "fsgate_splat: a warning on purpose\n");
	} else if (!strcmp(mode, "bug")) {
		BUG();
	} else if (!strcmp(mode, "kasan")) {
		pr_info("read %d\n", read_past_end());
	} else if (!strcmp(mode, "leak")) {
		/* The pointer is dropped: kmemleak finds no reference. */
		leaked = kmalloc(64, GFP_KERNEL);
		pr_info("leaking 64 bytes at %p\n", leaked);
		WRITE_ONCE(leaked, NULL);
	} else {
		return -EINVAL;
	}
	return -ECANCELED;
}
module_init(fsgate_splat_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Prints a kernel splat on purpose: fsgate harness tests only");
