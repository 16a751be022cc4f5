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

#include <stddef.h>
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

/*
 * A persistent group's absent verdict: "allow", "deny" or "deny:ERRNO",
 * the errno's name checked by @deny_errno (fsgate_deny_errno_parse(),
 * which returns the errno or -1). Returns 0 with @verdict and @err set
 * (@err 0 for allow and plain deny), or -1 with both untouched.
 */
int parse_absent(const char *s, int (*deny_errno)(const char *name),
		 uint32_t *verdict, uint32_t *err);

/*
 * A persistent group's name as FSGATE_IOC_PERSIST takes it, the @len
 * bytes at @s: 1 to 63 of [A-Za-z0-9._@:-], a letter or digit first (so
 * that it is never taken for an option, nor for the "-" of
 * /proc/fsgate/groups). Returns 0 with @name (FSGATE_NAME_MAX bytes)
 * set, NUL-padded, or -1 with @name untouched.
 */
int parse_persist_name(const char *s, size_t len, char *name);

struct fsgate_persist;

/*
 * "NAME[,absent=VERDICT][,absent-ms=MS][,linger-ms=MS]", as fsgate-run's
 * --persist and the layer's FSGATE_PERSIST take it: NAME as
 * FSGATE_IOC_PERSIST takes it, VERDICT as parse_absent(); defaults deny
 * (EPERM) after 30000 ms, kept until removed. Fills @out whole (@size
 * too). Returns 0, or -1 with @out untouched.
 */
int parse_persist(const char *s, int (*deny_errno)(const char *name),
		  struct fsgate_persist *out);

#endif /* FSGATE_PARSE_H */
