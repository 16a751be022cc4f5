// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate_kunit.ko: the KUnit suites of *_test.c, run as the module loads.
 * It needs the fsgate.ko built beside it, which exports what the suites
 * test (see compat.h).
 */
#include <linux/module.h>

MODULE_IMPORT_NS(FSGATE_KUNIT_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites of fsgate");
MODULE_AUTHOR("The fsgate developers");
MODULE_VERSION(FSGATE_VERSION);
