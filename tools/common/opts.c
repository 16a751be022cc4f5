// SPDX-License-Identifier: GPL-2.0
/* The command-line options every tool takes the same way; see opts.h. */
#include <stdlib.h>

#include <fsgate.h>

#include "conf.h"
#include "opts.h"

void opts_exit(int opt, const char *prog, const char *version,
	       void (*usage)(FILE *f), int usage_status)
{
	switch (opt) {
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("%s %s\n", prog, version);
		exit(0);
	default:
		fprintf(stderr, "Try '%s --help'.\n", prog);
		exit(usage_status);
	}
}

int opts_priority(const char *arg, long *out)
{
	unsigned long n;

	if (conf_uint(arg, FSGATE_PRIORITY_MAX, &n) < 0)
		return -1;
	*out = (long)n;
	return 0;
}
