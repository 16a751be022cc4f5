// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The one parser of numbers and verdicts; see parse.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fsgate.h>

#include "parse.h"

int parse_number(const char *s, unsigned long max, uint32_t *out)
{
	unsigned long n;
	char *end;

	/* strtoul() would take leading space, a sign, and wrap "-1". */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max || n > UINT32_MAX)
		return -1;
	*out = n;
	return 0;
}

int parse_verdict(const char *s, uint32_t *out)
{
	if (s && !strcmp(s, "allow"))
		*out = FSGATE_VERDICT_ALLOW;
	else if (s && !strcmp(s, "deny"))
		*out = FSGATE_VERDICT_DENY;
	else
		return -1;
	return 0;
}
