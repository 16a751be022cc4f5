// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-hsm: a hierarchical storage manager on fsgate.
 *
 *   fsgate-hsm release FILE...   content to the store, a stub in place
 *   fsgate-hsm restore FILE...   content back now
 *   fsgate-hsm status PATH...    stubs and resident files
 *   fsgate-hsm daemon [PATH...]  restore stubs as they are opened
 *   fsgate-hsm create-group [PATH...]  the daemon's group, before it runs
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/opts.h"
#include "hsm.h"

#ifndef VERSION
#define VERSION "0"
#endif
#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#define DEFAULT_CONFIG SYSCONFDIR "/fsgate/hsm.conf"
#define EXIT_USAGE 2

static const char prog[] = "fsgate-hsm";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... COMMAND [ARG]...\n"
"A hierarchical storage manager on fsgate: file content moves to a\n"
"backing store and comes back when the file is opened.\n"
"\n"
"Commands:\n"
"  release FILE...     move each FILE's content to the store and leave a\n"
"                      stub (same size, no data, an attribute naming it)\n"
"  restore FILE...     bring the content of stubs back now\n"
"  status PATH...      list stubs and resident files (directories are\n"
"                      walked), without restoring anything\n"
"  daemon [PATH...]    restore each stub on the filesystems of the PATHs\n"
"                      (default: the configuration's watch = lines) when\n"
"                      it is first opened or executed\n"
"  create-group [PATH...]\n"
"                      make the daemon's persistent group as the daemon\n"
"                      would, marked, and leave it waiting for the\n"
"                      daemon (at boot, before the services that read\n"
"                      the data); one there already is left as it is\n"
"\n"
"Options:\n"
"  -c, --config FILE   configuration (default " DEFAULT_CONFIG ")\n"
"  -s, --store DIR     the backing store (default /var/lib/fsgate-hsm)\n"
"  -p, --priority N    the daemon's fsgate priority (default 3000)\n"
"  -h, --help          show this help and exit\n"
"  -V, --version       show the version and exit\n"
"\n"
"Exit status: 0 when every file was handled (the daemon: stopped by\n"
"SIGTERM or SIGINT), 1 when one was not or fsgate failed, 2 for bad\n"
"usage or configuration, or a persistent group that is not what the\n"
"configuration asks for. See fsgate-hsm(8).\n", prog);
}

static void fail_usage(const char *what)
{
	fprintf(stderr, "%s: %s (see --help)\n", prog, what);
	exit(EXIT_USAGE);
}

static int cmd_release(struct store *st, int argc, char **argv)
{
	int i, ret = 0;

	for (i = 0; i < argc; i++)
		if (hsm_release(st, argv[i]) < 0)
			ret = 1;
	return ret;
}

static int cmd_restore(struct store *st, int argc, char **argv)
{
	struct stub stub;
	int i, fd, r, ret = 0;

	for (i = 0; i < argc; i++) {
		/* With the daemon running, this open restores it already. */
		fd = open(argv[i], O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? -1 : stub_of_fd(fd, &stub);
		if (r == 0) {
			log_info("%s is resident", argv[i]);
		} else if (r < 0 || hsm_restore_fd(st, fd, &stub) < 0) {
			log_err("restore: %s: %s", argv[i],
				r < 0 ? strerror(errno) : store_strerror(errno));
			ret = 1;
		} else {
			log_info("restored %s (%" PRIu64 " bytes)", argv[i],
				 stub.size);
		}
		if (fd >= 0)
			close(fd);
	}
	return ret;
}

static struct {
	unsigned long long stubs, stub_bytes, resident, resident_bytes;
	int errors;
} tally;

static int status_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	struct stub stub;
	int r;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	r = stub_of_path(path, &stub);
	if (r < 0) {
		printf("error     %12s  %s: %s\n", "-", path, strerror(errno));
		tally.errors = 1;
	} else if (r) {
		printf("stub      %12" PRIu64 "  %s  sha256:%.16s\n", stub.size,
		       path, stub.key);
		tally.stubs++;
		tally.stub_bytes += stub.size;
	} else {
		printf("resident  %12lld  %s\n", (long long)st->st_size, path);
		tally.resident++;
		tally.resident_bytes += st->st_size;
	}
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (nftw(argv[i], status_one, 32, FTW_PHYS) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i],
				strerror(errno));
			tally.errors = 1;
		}
	printf("%llu stubs (%llu bytes in the store), %llu resident (%llu bytes)\n",
	       tally.stubs, tally.stub_bytes, tally.resident,
	       tally.resident_bytes);
	return tally.errors;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "store", required_argument, NULL, 's' },
		{ "priority", required_argument, NULL, 'p' },
		OPTS_HELP_VERSION
	};
	const char *config = DEFAULT_CONFIG, *store = NULL, *cmd;
	struct hsm_settings s;
	long priority = -1;
	struct store st;
	int opt, explicit = 0;

	/* '+': options end at the command. */
	while ((opt = getopt_long(argc, argv, "+c:s:p:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			explicit = 1;
			break;
		case 's':
			store = optarg;
			break;
		case 'p':
			if (opts_priority(optarg, &priority) < 0)
				fail_usage("--priority is not in 0..65535");
			break;
		default:
			opts_exit(opt, prog, VERSION, usage, EXIT_USAGE);
		}
	}
	if (optind == argc)
		fail_usage("no COMMAND given");
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	hsm_settings_default(&s);
	if (hsm_settings_read(&s, config, !explicit) < 0)
		return EXIT_USAGE;
	if (store)
		s.store = store;
	if (priority >= 0)
		s.priority = priority;
	log_open(prog, LOG_TO_AUTO);
	if (!strcmp(cmd, "status")) {
		if (!argc)
			fail_usage("status: no PATH given");
		return cmd_status(argc, argv);
	}
	if (strcmp(cmd, "release") && strcmp(cmd, "restore") &&
	    strcmp(cmd, "daemon") && strcmp(cmd, "create-group")) {
		fprintf(stderr, "%s: unknown command '%s' (see --help)\n", prog, cmd);
		return EXIT_USAGE;
	}
	if (argc && (!strcmp(cmd, "daemon") || !strcmp(cmd, "create-group"))) {
		if (argc > HSM_LIST_MAX)
			fail_usage("too many PATHs");
		for (s.nwatch = 0; s.nwatch < (size_t)argc; s.nwatch++)
			s.watch[s.nwatch] = argv[s.nwatch];
	}
	/* No store: early in the boot it may not be mounted yet. */
	if (!strcmp(cmd, "create-group"))
		return hsm_create_group(&s);
	if (strcmp(cmd, "daemon") && !argc)
		fail_usage("no FILE given");
	if (store_open(&st, s.store, !strcmp(cmd, "release")) < 0)
		return 1;
	if (!strcmp(cmd, "release"))
		return cmd_release(&st, argc, argv);
	if (!strcmp(cmd, "restore"))
		return cmd_restore(&st, argc, argv);
	return hsm_daemon(&s, &st);
}
