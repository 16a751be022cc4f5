// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fsgate-run: run an unmodified fanotify program on fsgate, through
 * libfsgate-fanotify.so in LD_PRELOAD.
 *
 * Exit status as env(1) and timeout(1): 125 when fsgate-run itself fails,
 * 126 when PROGRAM cannot be run, 127 when it is not found; otherwise
 * PROGRAM's own, since fsgate-run becomes PROGRAM.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../preload/preload.h"

#define EXIT_FAILED 125
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127
#define LAYER "libfsgate-fanotify.so"

static const char program[] = "fsgate-run";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... [--] PROGRAM [ARG]...\n"
"Run PROGRAM with its fanotify_init() and fanotify_mark() served by fsgate:\n"
"its fanotify groups become fsgate groups, ordered by explicit priority.\n"
"\n"
"  -p, --priority N            priority of PROGRAM's groups, 0 to 65535\n"
"                              (default: the class default, 3000 for\n"
"                              pre-content, 2000 content, 1000 notification)\n"
"  -t, --timeout MS            how long an access waits for PROGRAM's answer;\n"
"                              0 for the module's default, \"none\" for no bound\n"
"      --timeout-verdict allow|deny\n"
"                              verdict when that wait runs out (default allow)\n"
"      --orphan-verdict allow|deny\n"
"                              verdict for the accesses PROGRAM was asked\n"
"                              about when its group goes away, as when it\n"
"                              dies (default allow)\n"
"      --exclude-self          PROGRAM and the processes it starts are\n"
"                              neither told nor asked about their own\n"
"                              accesses\n"
"      --process-context       append fsgate's process-context record to\n"
"                              every event PROGRAM reads\n"
"      --fallback              use in-tree fanotify when fsgate.ko is not\n"
"                              loaded, instead of failing with ENODEV\n"
"      --persist NAME[,absent=allow|deny[:ERRNO]][,absent-ms=MS][,linger-ms=MS]\n"
"                              make PROGRAM's group the persistent group\n"
"                              NAME, or attach to it if it exists: a\n"
"                              restart of PROGRAM leaves no window (default\n"
"                              absent=deny after 30000 ms, kept until\n"
"                              `fsgatectl group remove NAME`)\n"
"  -h, --help                  show this help and exit\n"
"  -V, --version               show the version and exit\n"
"\n"
"The options become FSGATE_PRIORITY, FSGATE_TIMEOUT_MS,\n"
"FSGATE_TIMEOUT_VERDICT, FSGATE_ORPHAN_VERDICT, FSGATE_EXCLUDE_SELF=1,\n"
"FSGATE_REPORT_PROC=1, FSGATE_FALLBACK=1 and FSGATE_PERSIST in PROGRAM's\n"
"environment, and the layer is prepended to LD_PRELOAD. It is looked for\n"
"in ../lib/ beside fsgate-run, or at $FSGATE_FANOTIFY_LIB.\n"
"\n"
"Exit status: PROGRAM's; 125 if fsgate-run fails, 126 if PROGRAM cannot\n"
"be run, 127 if it is not found. See fsgate(7).\n", program);
}

__attribute__((format(printf, 1, 2), noreturn))
static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILED);
}

/* The layer: $FSGATE_FANOTIFY_LIB, or ../lib/ from fsgate-run's own path. */
static const char *layer_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("FSGATE_FANOTIFY_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t len;

	if (env && *env)
		return env;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		fail("cannot find myself in /proc/self/exe: %s", strerror(errno));
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	if (snprintf(path, sizeof(path), "%s/../lib/" LAYER, exe) >= (int)sizeof(path))
		fail("path too long: %s", exe);
	return path;
}

/* LD_PRELOAD separates with spaces and colons: the path may have neither. */
static void preload(const char *layer)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;

	if (access(layer, R_OK))
		fail("cannot use %s: %s", layer, strerror(errno));
	if (strpbrk(layer, " :"))
		fail("LD_PRELOAD cannot hold a path with a space or colon: %s", layer);
	if (old && *old) {
		value = malloc(strlen(layer) + strlen(old) + 2);
		if (!value)
			fail("%s", strerror(ENOMEM));
		sprintf(value, "%s:%s", layer, old);
	} else {
		value = (char *)layer;
	}
	if (setenv("LD_PRELOAD", value, 1))
		fail("setenv: %s", strerror(errno));
}

/*
 * Check an option's value with the layer's own parser, so that a typo
 * fails here rather than in PROGRAM's fanotify_init(), then pass it on.
 */
static void set(const char *var, const char *value,
		int (*parse)(const char *s, uint32_t *out), const char *what)
{
	uint32_t ignored;

	if (parse(value, &ignored))
		fail("invalid %s: '%s'", what, value);
	if (setenv(var, value, 1))
		fail("setenv: %s", strerror(errno));
}

/* An option without a value sets its 0|1 variable to 1. */
static void set_switch(const char *var)
{
	if (setenv(var, "1", 1))
		fail("setenv: %s", strerror(errno));
}

enum {
	OPT_TIMEOUT_VERDICT = 256, OPT_ORPHAN_VERDICT, OPT_EXCLUDE_SELF,
	OPT_PROCESS_CONTEXT, OPT_FALLBACK, OPT_PERSIST,
};

static void parse_options(int argc, char **argv)
{
	static const struct option options[] = {
		{ "priority", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "timeout-verdict", required_argument, NULL, OPT_TIMEOUT_VERDICT },
		{ "orphan-verdict", required_argument, NULL, OPT_ORPHAN_VERDICT },
		{ "exclude-self", no_argument, NULL, OPT_EXCLUDE_SELF },
		{ "process-context", no_argument, NULL, OPT_PROCESS_CONTEXT },
		{ "fallback", no_argument, NULL, OPT_FALLBACK },
		{ "persist", required_argument, NULL, OPT_PERSIST },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/* "+": options end at PROGRAM, whose own options are its own. */
	while ((opt = getopt_long(argc, argv, "+p:t:hV", options, NULL)) != -1) {
		switch (opt) {
		case 'p':
			set("FSGATE_PRIORITY", optarg, preload_parse_priority,
			    "priority (0 to 65535)");
			break;
		case 't':
			set("FSGATE_TIMEOUT_MS", optarg, preload_parse_timeout,
			    "timeout (milliseconds or \"none\")");
			break;
		case OPT_TIMEOUT_VERDICT:
			set("FSGATE_TIMEOUT_VERDICT", optarg, preload_parse_verdict,
			    "timeout verdict (\"allow\" or \"deny\")");
			break;
		case OPT_ORPHAN_VERDICT:
			set("FSGATE_ORPHAN_VERDICT", optarg, preload_parse_verdict,
			    "orphan verdict (\"allow\" or \"deny\")");
			break;
		case OPT_EXCLUDE_SELF:
			set_switch("FSGATE_EXCLUDE_SELF");
			break;
		case OPT_PROCESS_CONTEXT:
			set_switch("FSGATE_REPORT_PROC");
			break;
		case OPT_FALLBACK:
			set_switch("FSGATE_FALLBACK");
			break;
		case OPT_PERSIST: {
			struct fsgate_persist ignored;

			if (preload_parse_persist(optarg, &ignored))
				fail("invalid persistent group: '%s' (want NAME[,absent=allow|deny[:ERRNO]][,absent-ms=MS][,linger-ms=MS])",
				     optarg);
			if (setenv("FSGATE_PERSIST", optarg, 1))
				fail("setenv: %s", strerror(errno));
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("fsgate-run (fsgate) %s\n", VERSION);
			exit(0);
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n",
				program);
			exit(EXIT_FAILED);
		}
	}
}

int main(int argc, char **argv)
{
	struct preload_env env;
	const char *bad;

	parse_options(argc, argv);
	/* A bad value inherited in the environment fails here too. */
	bad = preload_env_read(&env);
	if (bad)
		fail("%s", bad);
	if (optind >= argc) {
		fprintf(stderr, "%s: no PROGRAM given\n", program);
		fprintf(stderr, "Try '%s --help' for more information.\n", program);
		return EXIT_FAILED;
	}
	preload(layer_path());
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "%s: %s: %s\n", program, argv[optind], strerror(errno));
	return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
