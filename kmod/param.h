/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_PARAM_H
#define _FSGATE_PARAM_H

#include <linux/moduleparam.h>

/* The longest any wait bound may be set to: an hour, in ms. */
#define FSGATE_WAIT_MS_MAX	3600000

/*
 * Each is used as module_param_cb(name, &ops, &name, 0644) followed by
 * __MODULE_PARM_TYPE(name, "uint"), so that modinfo shows a uint as
 * module_param(name, uint, 0644) would.
 */
extern const struct kernel_param_ops fsgate_param_wait_ms;
extern const struct kernel_param_ops fsgate_param_switch;
extern const struct kernel_param_ops fsgate_param_limit;

#endif /* _FSGATE_PARAM_H */
