// SPDX-License-Identifier: MIT
/*
 * monitor: print who opened what on the filesystem of PATH. A
 * notification group: it is told of an open only once the open has
 * happened, after every permission group allowed it, so a denied open
 * never shows here.
 *
 *   monitor PATH
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>

#include "daemon.h"

static const char *prog = "monitor";

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [OPTION]... PATH\n"
		"Print one line for each file opened on the filesystem of PATH: the\n"
		"pid, the command name (\"already exited\" if it is gone by then) and\n"
		"the path.\n"
		"\n"
		"  -p, --priority N  fsgate priority, 0..65535 (default 1000)\n"
		"  -h, --help        show this help and exit\n"
		"  -V, --version     show the version and exit\n"
		"\n"
		"Exit status: 1 if fsgate fails, 2 for bad usage.\n",
		prog);
	exit(status);
}

static void handle(int group, const struct fanotify_event_metadata *ev,
		   void *arg)
{
	char path[PATH_MAX], comm[32];

	(void)group;
	(void)arg;
	printf("%s: pid %d (%s) opened %s\n", prog, ev->pid,
	       pid_comm(ev->pid, comm, sizeof(comm)),
	       fd_path(ev->fd, path, sizeof(path)));
	close(ev->fd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { COMMON_OPTIONS };
	struct fsgate_init init = {
		/* Its own reads of /proc are not worth reporting. */
		.flags = FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC | FSGATE_EXCLUDE_SELF,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_NOTIF,
	};
	int opt, g;

	while ((opt = getopt_long(argc, argv, COMMON_OPTSTRING, opts,
				  NULL)) != -1)
		common_option(prog, opt, &init, usage);
	if (argc - optind != 1)
		usage(2);
	g = open_group(&init, FAN_OPEN, argv[optind]);
	printf("%s: watching %s at priority %u\n", prog, argv[optind],
	       init.priority);
	return serve(prog, g, handle, NULL);
}
