/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_PARAM_H
#define _FSGATE_PARAM_H

#include <linux/moduleparam.h>

/* The longest any wait bound may be set to: an hour, in ms. */
#define FSGATE_WAIT_MS_MAX	3600000

extern const struct kernel_param_ops fsgate_param_wait_ms;
extern const struct kernel_param_ops fsgate_param_switch;
extern const struct kernel_param_ops fsgate_param_limit;

/*
 * fsgate_param() - a writable unsigned int module parameter in a range
 * @name: the variable, and the parameter's name
 * @ops: fsgate_param_wait_ms, fsgate_param_switch or fsgate_param_limit
 *
 * Shown to modinfo as a uint, as module_param(name, uint, 0644) would.
 */
#define fsgate_param(name, ops)					\
	module_param_cb(name, &(ops), &(name), 0644);		\
	__MODULE_PARM_TYPE(name, "uint")

#endif /* _FSGATE_PARAM_H */
