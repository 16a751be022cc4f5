// SPDX-License-Identifier: MIT
/*
 * mkgroups: make one fsgate listener group per argument, hold them until
 * stdin closes or a signal arrives. Each argument is CLASS[:PRIORITY],
 * CLASS one of notif, content, pre-content; without a priority the class
 * default applies. The smallest user of libfsgate: used by `make demo`.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fsgate.h>

#include "parse.h"

static unsigned int parse_class(const char *name)
{
	if (!strcmp(name, "notif"))
		return FSGATE_CLASS_NOTIF;
	if (!strcmp(name, "content"))
		return FSGATE_CLASS_CONTENT;
	if (!strcmp(name, "pre-content"))
		return FSGATE_CLASS_PRE_CONTENT;
	errx(2, "unknown class '%s' (notif, content or pre-content)", name);
}

static unsigned int parse_priority(const char *text)
{
	uint32_t prio;

	if (!text)
		return FSGATE_PRIORITY_DEFAULT;
	if (parse_number(text, FSGATE_PRIORITY_MAX, &prio))
		errx(2, "priority '%s' is not in 0..%d", text,
		     FSGATE_PRIORITY_MAX);
	return prio;
}

int main(int argc, char **argv)
{
	char buf[64];
	int i, fd;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CLASS[:PRIORITY]...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		char *spec = strdup(argv[i]);
		char *colon = strchr(spec, ':');

		if (colon)
			*colon++ = '\0';
		fd = fsgate_init(parse_class(spec) | FSGATE_CLOEXEC, O_RDONLY,
				 parse_priority(colon));
		if (fd < 0)
			err(1, "fsgate_init(%s)", argv[i]);
		printf("group %d: %s\n", i, argv[i]);
		free(spec);
	}
	fflush(stdout);
	/* Hold the groups: they live as long as their fds. */
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	return 0;
}
