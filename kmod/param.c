// SPDX-License-Identifier: GPL-2.0
/*
 * The kinds of module parameter fsgate has (layer 0; calls nothing in
 * the module): every writable number is checked against its range when
 * it is set, so a value out of range is refused with -EINVAL and the
 * old value stays. fsgatectl(8) knows the same ranges.
 */
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/moduleparam.h>

#include "param.h"

static int fsgate_param_set_wait_ms(const char *val,
				    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, FSGATE_WAIT_MS_MAX);
}

/* A bound in ms, 1..FSGATE_WAIT_MS_MAX. */
const struct kernel_param_ops fsgate_param_wait_ms = {
	.set = fsgate_param_set_wait_ms,
	.get = param_get_uint,
};

static int fsgate_param_set_switch(const char *val,
				   const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1);
}

/* 0 or 1, shown as a number, as fsgatectl reads every parameter. */
const struct kernel_param_ops fsgate_param_switch = {
	.set = fsgate_param_set_switch,
	.get = param_get_uint,
};

static int fsgate_param_set_limit(const char *val,
				  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, UINT_MAX);
}

/*
 * A limit on how many of something a group or a user may have, at least
 * 1: a limit of 0 would refuse everything without saying why.
 */
const struct kernel_param_ops fsgate_param_limit = {
	.set = fsgate_param_set_limit,
	.get = param_get_uint,
};
