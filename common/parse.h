/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The one parser of the numbers and verdicts users give fsgate's
 * programs: in variables (the LD_PRELOAD layer, preload/env.c), in
 * options (fsgate-run, the examples). Strict everywhere, so that a typo
 * never quietly gives a scanner the default priority or a fail-open
 * timeout.
 */
#ifndef FSGATE_PARSE_H
#define FSGATE_PARSE_H

#include <stdint.h>

/*
 * A decimal number in 0..@max (at most UINT32_MAX): digits only, no sign,
 * space or anything after them. Returns 0, or -1 with @out untouched.
 */
int parse_number(const char *s, unsigned long max, uint32_t *out);

/*
 * "allow" or "deny", exactly: FSGATE_VERDICT_ALLOW or FSGATE_VERDICT_DENY.
 * Returns 0, or -1 with @out untouched.
 */
int parse_verdict(const char *s, uint32_t *out);

#endif /* FSGATE_PARSE_H */
