// SPDX-License-Identifier: GPL-2.0
/*
 * fsgatectl: look at and tune the fsgate module.
 *
 *   fsgatectl status            module, device, groups, parameters
 *   fsgatectl groups [--json]   every group in asking order
 *   fsgatectl top [-d S] [-n N | --once]
 *   fsgatectl params [--persist] [NAME | NAME=VALUE]...
 *   fsgatectl metrics [-o FILE] Prometheus text format
 *   fsgatectl group create NAME [OPTION]...
 *   fsgatectl group remove NAME
 *   fsgatectl why [-n N] [-p PID] [-t SEC] [-j] [PATH]
 *   fsgatectl trace [-j] [-n N] [-p PID] [-t SEC] [PATH]
 *
 * It reads the module through libfsgate: fsgate_version() (ABI version
 * and features), fsgate_groups_read() (the group list: FSGATE_IOC_GROUPS,
 * or /proc/fsgate/groups by column name on an older module) and
 * fsgate_param_get()/_set(); persistent groups with fsgate_init_ext(),
 * fsgate_mark(), fsgate_persist() and fsgate_remove(). why and trace
 * read the module's trace events in a tracefs instance of their own.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <fsgate.h>

#include "common/conf.h"
#include "common/group.h"
#include "common/modconf.h"
#include "common/replace.h"
#include "common/report.h"
#include "common/tracefs.h"
#include "common/why.h"
#include "parse.h"

#ifndef VERSION
#define VERSION "0"
#endif

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_NOT_LOADED 3

static const char prog[] = "fsgatectl";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION] COMMAND [ARG]...\n"
"Look at and tune the fsgate module.\n"
"\n"
"Commands:\n"
"  status                 whether fsgate.ko is loaded, its groups and\n"
"                         parameters\n"
"  groups [-j|--json]     every group in asking order: id, pid, comm,\n"
"                         class, priority, marks, counters, attached\n"
"                         fds; a persistent group's name, absent verdict\n"
"                         and the time left to its bounds\n"
"  top [-d|--delay SEC] [-n|--iterations N | -1|--once]\n"
"                         each group's event and answer rates, pending\n"
"                         events and timeouts, refreshed every SEC seconds\n"
"                         (default 1); N frames, or one, then exit\n"
"  params [-p|--persist] [NAME | NAME=VALUE]...\n"
"                         show parameters, or set them (checked first);\n"
"                         --persist also writes them to\n"
"                         /etc/modprobe.d/fsgate.conf for the next load\n"
"  metrics [-o|--output FILE]\n"
"                         the module's and every group's counters in the\n"
"                         Prometheus text format, on stdout or replacing\n"
"                         FILE at once (node_exporter's textfile collector)\n"
"  group create NAME [-c|--class C] [-p|--priority N]\n"
"               [-e|--events MASK] [-w|--writable]\n"
"               [-m|--mark [inode:|mount:|filesystem:]PATH]...\n"
"               [-r|--report perm,proc,tid] [-t|--timeout MS]\n"
"               [--timeout-verdict V] [--orphan-verdict V]\n"
"               [-a|--absent allow|deny[:ERRNO]] [--absent-ms MS]\n"
"               [-l|--linger MS | --until-removed] [-o|--owner USER]\n"
"                         make a persistent group that gates from now on,\n"
"                         before its daemon attaches to it by NAME\n"
"  group remove NAME      remove a persistent group\n"
"  why [-n|--count N] [-p|--pid PID] [-t|--timeout SEC] [-j|--json] [PATH]\n"
"                         for the next N accesses (default 1) that the\n"
"                         groups decide, of process PID or to the file\n"
"                         PATH: which groups were asked, in what order,\n"
"                         what each answered, which verdict stood\n"
"  trace [-j|--json] [-n|--count N] [-p|--pid PID] [-t|--timeout SEC]\n"
"        [PATH]           the same for every access until interrupted\n"
"                         (or N accesses, or SEC seconds); --json: one\n"
"                         JSON object per line\n"
"\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"Exit status: 0 on success, 1 on failure (why: fewer than N accesses\n"
"within SEC), 2 for bad usage, 3 when fsgate.ko is not loaded. See\n"
"fsgatectl(8).\n", prog);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return EXIT_USAGE;
}

/* On stderr: the module is missing, and where to look for why. */
static void say_not_loaded(void)
{
	fprintf(stderr, "%s: %s\n", prog,
		fsgate_strerror(FSGATE_CALL_INIT, ENOENT));
}

/* The groups, or exit 3 / 1 saying why. */
static ssize_t read_groups(struct fsgate_group_info **g)
{
	ssize_t n = fsgate_groups_read(NULL, g);

	if (n >= 0)
		return n;
	if (errno == ENOENT) {
		say_not_loaded();
		exit(EXIT_NOT_LOADED);
	}
	fprintf(stderr, "%s: cannot list groups: %s\n", prog, strerror(errno));
	exit(EXIT_FAIL);
}

/* Parameters fsgatectl knows, with the values it lets through. */
static const struct param {
	const char *name;
	unsigned long long min, max;
	const char *what;
} params[] = {
	{ "default_timeout_ms", 1, 3600000,
	  "how long an access waits for a group without its own timeout" },
	{ "max_chain_ms", 1, 3600000,
	  "ceiling on one access's whole chain of groups" },
	{ "allow_unbounded_waits", 0, 1,
	  "1: groups may wait without bound (FSGATE_TIMEOUT_NONE)" },
	{ "max_cached_verdicts", 0, UINT_MAX,
	  "files one group may have cached verdicts on; 0: no cache" },
	{ "default_max_wait_ms", 1, 3600000,
	  "the longest an access waits for a group that asks for more time" },
	{ "max_groups", 1, UINT_MAX, "groups one user may have" },
	{ "max_marks", 1, UINT_MAX, "objects one group may mark" },
	{ "max_mutes", 1, UINT_MAX, "mute entries one group may have" },
	{ "max_pending_events", 1, UINT_MAX,
	  "permission events one group may have unresolved" },
	{ "max_queued_events", 1, UINT_MAX, "events one group may queue" },
	{ "max_user_marks", 1, UINT_MAX,
	  "marks one user's unprivileged groups may hold together" },
	{ "max_persistent_groups", 0, UINT_MAX,
	  "persistent groups there may be at once" },
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))

/*
 * The entry of the @n at @table, @size bytes each and each starting with
 * its name, that the first @len bytes of @name name; NULL for none.
 */
static const void *find_named(const void *table, size_t n, size_t size,
			      const char *name, size_t len)
{
	const char *entry = table;
	size_t i;

	for (i = 0; i < n; i++, entry += size) {
		const char *const *e = (const char *const *)(const void *)entry;

		if (strlen(*e) == len && !strncmp(*e, name, len))
			return entry;
	}
	return NULL;
}

static const struct param *find_param(const char *name, size_t len)
{
	return find_named(params, NPARAMS, sizeof(params[0]), name, len);
}

static int module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/fsgate", &st) == 0;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	snprintf(buf, len, "?");
	if (f) {
		if (!fgets(buf, len, f))
			snprintf(buf, len, "?");
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

static void print_params(void)
{
	unsigned long long v;
	size_t i;

	for (i = 0; i < NPARAMS; i++) {
		if (fsgate_param_get(params[i].name, &v) < 0)
			printf("  %-21s %12s  %s\n", params[i].name, "?",
			       strerror(errno));
		else
			printf("  %-21s %12llu  %s\n", params[i].name, v,
			       params[i].what);
	}
}

/*
 * The names status prints for FSGATE_FEATURE_* bits, lowest first; a bit
 * without one prints as bitN.
 */
static const char *const feature_names[] = {
	"deny-errno", "cache", "exclude-self", "mount-marks", "stats",
	"report-perm", "report-proc", "extend", "version", "cache-flush",
	"mute", "chain-ceiling", "filter", "audit", "audit-rule", "groups",
	"filter-proc", "mark-ignore", "mark-evictable", "report-fid",
	"mute-exe-uid", "persist", "groups-persist", "report-fd-error",
	[24] = "unpriv",
	[25] = "fs-error",
	[26] = "groups-ver2",
};

/* The module's ABI version and features, from FSGATE_IOC_VERSION. */
static void print_features(void)
{
	struct fsgate_version v;
	unsigned int bit;

	if (fsgate_version(&v) < 0) {
		printf("features: not reported (%s)\n",
		       fsgate_strerror(FSGATE_CALL_VERSION, errno));
		return;
	}
	printf("abi: %u\nfeatures:", v.abi);
	for (bit = 0; bit < 64; bit++) {
		if (!(v.features & (1ULL << bit)))
			continue;
		if (bit < sizeof(feature_names) / sizeof(feature_names[0]) &&
		    feature_names[bit])
			printf(" %s", feature_names[bit]);
		else
			printf(" bit%u", bit);
	}
	printf("\n");
}

static int cmd_status(int argc, char **argv)
{
	struct fsgate_group_info *g;
	char srcversion[64], refcnt[32], version[32];
	unsigned long long marks = 0, pending = 0;
	struct stat st;
	ssize_t n, i;

	(void)argv;
	if (argc > 1)
		return usage_error("status takes no %s", "argument");
	if (!module_loaded()) {
		printf("fsgate.ko: not loaded\n");
		fflush(stdout);
		say_not_loaded();
		return EXIT_NOT_LOADED;
	}
	read_line("/sys/module/fsgate/refcnt", refcnt, sizeof(refcnt));
	read_line("/sys/module/fsgate/version", version, sizeof(version));
	read_line("/sys/module/fsgate/srcversion", srcversion, sizeof(srcversion));
	printf("fsgate.ko: loaded, version %s, held by %s open groups and users",
	       version, refcnt);
	/* srcversion exists only with CONFIG_MODULE_SRCVERSION_ALL. */
	if (strcmp(srcversion, "?"))
		printf(", srcversion %s", srcversion);
	printf("\n");
	print_features();
	printf("device: %s %s\n", FSGATE_DEVICE,
	       stat(FSGATE_DEVICE, &st) == 0 ? "present" : "missing");
	n = read_groups(&g);
	for (i = 0; i < n; i++) {
		marks += g[i].stats.marks;
		pending += g[i].stats.pending;
	}
	printf("groups: %zd (marks %llu, permission events pending %llu)\n", n,
	       marks, pending);
	free(g);
	printf("parameters:\n");
	print_params();
	return 0;
}

/*
 * The persist column: "-" for a group that is not persistent, else its
 * name, its absent verdict, and with nobody attached what happens when:
 * "fsgate-hsm deny:EIO, absent in 12.5 s, removed in 3600.0 s".
 */
static const char *persist_text(const struct fsgate_group_info *g,
				char *buf, size_t len)
{
	char absent[32];
	int n;

	if (!*g->name)
		return "-";
	n = snprintf(buf, len, "%s %s", g->name,
		     report_absent_name(g, absent, sizeof(absent)));
	if (g->absent_left_ms == 0)
		n += snprintf(buf + n, len - (size_t)n, ", absent now");
	else if (g->absent_left_ms != FSGATE_GROUP_NO_DEADLINE)
		n += snprintf(buf + n, len - (size_t)n, ", absent in %.1f s",
			      g->absent_left_ms / 1000.0);
	if (g->linger_left_ms != FSGATE_GROUP_NO_DEADLINE)
		snprintf(buf + n, len - (size_t)n, ", removed in %.1f s",
			 g->linger_left_ms / 1000.0);
	return buf;
}

static int cmd_groups(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ 0 }
	};
	struct fsgate_group_info *g;
	int opt, json = 0;
	ssize_t n, i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "j", opts, NULL)) != -1) {
		if (opt != 'j')
			return EXIT_USAGE;
		json = 1;
	}
	if (optind < argc)
		return usage_error("groups: unexpected '%s'", argv[optind]);
	n = read_groups(&g);
	if (json) {
		putchar('[');
		for (i = 0; i < n; i++) {
			if (i)
				putchar(',');
			report_group_json(stdout, &g[i]);
		}
		puts("]");
	} else {
		printf("%-5s %-7s %-15s %-11s %8s %6s %7s %7s %9s %9s %7s %8s %8s %9s %8s %s\n",
		       "id", "pid", "comm", "class", "priority", "marks",
		       "queued", "pending", "delivered", "asked", "denied",
		       "timedout", "orphaned", "cached", "attached", "persist");
		for (i = 0; i < n; i++) {
			const struct fsgate_stats *s = &g[i].stats;
			char state[160];

			printf("%-5" PRIu64 " %-7d %-15s %-11s %8u %6llu %7llu %7llu %9llu %9llu %7llu %8llu %8llu %9llu %8u %s\n",
			       g[i].id, g[i].pid, g[i].comm, g[i].class_name,
			       g[i].priority, (unsigned long long)s->marks,
			       (unsigned long long)s->queued,
			       (unsigned long long)s->pending,
			       (unsigned long long)s->delivered,
			       (unsigned long long)s->asked,
			       (unsigned long long)s->denied,
			       (unsigned long long)s->timedout,
			       (unsigned long long)s->orphaned,
			       (unsigned long long)s->cached, g[i].attached,
			       persist_text(&g[i], state, sizeof(state)));
		}
	}
	free(g);
	return 0;
}

/* What metrics writes: the module, its parameters and its groups. */
struct metrics {
	struct report_module module;
	struct report_param params[NPARAMS];
	struct fsgate_group_info *groups;
	size_t n;
};

static int metrics_write(FILE *f, void *arg)
{
	const struct metrics *m = arg;

	report_metrics(f, &m->module, m->groups, m->n);
	return 0;
}

/*
 * Everything in the Prometheus text format, on stdout or replacing
 * --output FILE at once (node_exporter's textfile collector reads it).
 * Not loaded: fsgate_loaded 0 alone, and exit 3.
 */
static int cmd_metrics(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ 0 }
	};
	struct metrics m = { .module.params = m.params };
	const char *output = NULL;
	struct fsgate_version v;
	char version[32];
	ssize_t n;
	size_t i;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (opt != 'o')
			return EXIT_USAGE;
		output = optarg;
	}
	if (optind < argc)
		return usage_error("metrics: unexpected '%s'", argv[optind]);
	m.module.loaded = module_loaded();
	if (m.module.loaded) {
		read_line("/sys/module/fsgate/version", version, sizeof(version));
		m.module.version = version;
		if (fsgate_version(&v) == 0)
			m.module.abi = v.abi;
		for (i = 0; i < NPARAMS; i++) {
			struct report_param *p = &m.params[m.module.nparams];

			if (fsgate_param_get(params[i].name, &p->value) == 0) {
				p->name = params[i].name;
				m.module.nparams++;
			}
		}
		n = read_groups(&m.groups);
		m.n = (size_t)n;
	}
	if (!output) {
		metrics_write(stdout, &m);
	} else if (file_replace(output, 0644, metrics_write, &m) < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, output,
			strerror(errno));
		free(m.groups);
		return EXIT_FAIL;
	}
	free(m.groups);
	if (!m.module.loaded) {
		say_not_loaded();
		return EXIT_NOT_LOADED;
	}
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct fsgate_group_info *
find_group(const struct fsgate_group_info *g, ssize_t n, uint64_t id)
{
	ssize_t i;

	for (i = 0; i < n; i++)
		if (g[i].id == id)
			return &g[i];
	return NULL;
}

#define RATE(field) ((cur->stats.field - (old ? old->stats.field : 0)) / dt)

/*
 * One frame: rates over the last interval. The wait is an estimate by
 * Little's law: events pending now over the rate they are answered at.
 */
static void top_frame(const struct fsgate_group_info *prev, ssize_t nprev,
		      const struct fsgate_group_info *g, ssize_t n, double dt,
		      int tty)
{
	char when[16], wait[16];
	time_t t = time(NULL);
	struct tm tm;
	ssize_t i;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (tty)
		fputs("\033[H\033[J", stdout);
	printf("fsgatectl top - %s, %zd groups, every %.1f s\n", when, n, dt);
	printf("%-5s %-15s %-11s %8s %10s %10s %9s %9s %7s %8s %6s %9s\n",
	       "id", "comm", "class", "priority", "events/s", "asked/s",
	       "answer/s", "denied/s", "pending", "wait~ms", "tmout", "cached/s");
	for (i = 0; i < n; i++) {
		const struct fsgate_group_info *cur = &g[i];
		const struct fsgate_group_info *old = find_group(prev, nprev,
								 cur->id);
		double answered = RATE(answered);

		if (answered > 0)
			snprintf(wait, sizeof(wait), "%.1f",
				 cur->stats.pending * 1000.0 / answered);
		else
			snprintf(wait, sizeof(wait), "%s",
				 cur->stats.pending ? "stuck" : "-");
		printf("%-5" PRIu64 " %-15s %-11s %8u %10.1f %10.1f %9.1f %9.1f %7llu %8s %6llu %9.1f\n",
		       cur->id, cur->comm, cur->class_name, cur->priority,
		       RATE(delivered), RATE(asked), answered, RATE(denied),
		       (unsigned long long)cur->stats.pending, wait,
		       (unsigned long long)cur->stats.timedout, RATE(cached));
	}
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

static int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },
		{ 0 }
	};
	struct fsgate_group_info *prev = NULL, *g;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long frames = 0, shown = 0, ms;
	double delay = 1, t0, t1;
	ssize_t nprev, n;
	char *end;
	int opt, tty;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:n:1", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay >= 0.1 && delay <= 3600))
				return usage_error("top: --delay '%s' is not 0.1 to 3600 seconds",
						   optarg);
			break;
		case 'n':
			if (conf_uint(optarg, ULONG_MAX, &frames) < 0 || !frames)
				return usage_error("top: -n '%s' is not a number above 0",
						   optarg);
			break;
		case '1':
			frames = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error("top: unexpected '%s'", argv[optind]);
	tty = isatty(STDOUT_FILENO);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	nprev = read_groups(&prev);
	t0 = now_s();
	while (!stop && (!frames || shown < frames)) {
		ms = (unsigned long)(delay * 1000);
		usleep(ms * 1000);
		if (stop)
			break;
		n = read_groups(&g);
		t1 = now_s();
		top_frame(prev, nprev, g, n, t1 - t0, tty);
		free(prev);
		prev = g;
		nprev = n;
		t0 = t1;
		shown++;
	}
	free(prev);
	return 0;
}

static int set_param(const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct param *p = find_param(arg, eq - arg);
	unsigned long long v;
	unsigned long n;

	if (!p) {
		fprintf(stderr, "%s: unknown parameter '%.*s'\n", prog,
			(int)(eq - arg), arg);
		return EXIT_USAGE;
	}
	if (conf_uint(eq + 1, ULONG_MAX, &n) < 0 || n < p->min || n > p->max) {
		fprintf(stderr, "%s: %s must be a number in %llu..%llu, not '%s'\n",
			prog, p->name, p->min, p->max, eq + 1);
		return EXIT_USAGE;
	}
	v = n;
	if (fsgate_param_set(p->name, v) < 0) {
		fprintf(stderr, "%s: cannot set %s: %s\n", prog, p->name,
			errno == ENOENT ? fsgate_strerror(FSGATE_CALL_INIT, ENOENT) :
			strerror(errno));
		return errno == ENOENT ? EXIT_NOT_LOADED : EXIT_FAIL;
	}
	printf("%s = %llu\n", p->name, v);
	return 0;
}

/*
 * Parameters only modprobe sets, as the module is loaded: read-only in
 * /sys/module/fsgate/parameters. --persist takes one of @values.
 */
static const struct load_param {
	const char *name;
	const char *const values[3];
} load_params[] = {
	{ "fanotify_order", { "content", "first" } },
};
#define NLOAD_PARAMS (sizeof(load_params) / sizeof(load_params[0]))

static const struct load_param *find_load_param(const char *name, size_t len)
{
	return find_named(load_params, NLOAD_PARAMS, sizeof(load_params[0]),
			  name, len);
}

/* On stderr: @arg names no parameter --persist takes, and those it does. */
static int unknown_persist(const char *arg)
{
	size_t i;

	fprintf(stderr, "%s: params --persist: unknown parameter '%.*s'; it takes",
		prog, (int)strcspn(arg, "="), arg);
	for (i = 0; i < NPARAMS; i++)
		fprintf(stderr, " %s", params[i].name);
	for (i = 0; i < NLOAD_PARAMS; i++)
		fprintf(stderr, " %s", load_params[i].name);
	fprintf(stderr, "\n");
	return EXIT_USAGE;
}

/* A --persist argument's value, checked: 0, or EXIT_USAGE having said why. */
static int check_persist(const char *arg, int loaded)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct load_param *lp = find_load_param(arg, len);
	const struct param *p = find_param(arg, len);
	unsigned long n;
	size_t i;

	if (!p && !lp)
		return unknown_persist(arg);
	if (!eq) {
		if (lp)
			return usage_error("params --persist: give %s=VALUE: it is set at load only",
					   lp->name);
		if (!loaded)
			return usage_error("params --persist: give %s=VALUE: fsgate.ko is not loaded to read it from",
					   p->name);
		return 0;
	}
	if (p) {
		if (conf_uint(eq + 1, ULONG_MAX, &n) < 0 || n < p->min ||
		    n > p->max) {
			fprintf(stderr, "%s: %s must be a number in %llu..%llu, not '%s'\n",
				prog, p->name, p->min, p->max, eq + 1);
			return EXIT_USAGE;
		}
		return 0;
	}
	for (i = 0; i < sizeof(lp->values) / sizeof(lp->values[0]); i++)
		if (lp->values[i] && !strcmp(eq + 1, lp->values[i]))
			return 0;
	fprintf(stderr, "%s: %s must be", prog, lp->name);
	for (i = 0; i < sizeof(lp->values) / sizeof(lp->values[0]); i++)
		if (lp->values[i])
			fprintf(stderr, "%s %s", i ? " or" : "", lp->values[i]);
	fprintf(stderr, ", not '%s'\n", eq + 1);
	return EXIT_USAGE;
}

/*
 * params --persist: each NAME=VALUE set now where the module is loaded
 * and takes it at run time, each NAME at its value now; then all of
 * them written to MODCONF_FSGATE, for the next load.
 */
static int persist_params(int argc, char **argv)
{
	int loaded = module_loaded(), i, r, ret = EXIT_FAIL;
	char **set = calloc((size_t)argc, sizeof(*set));
	unsigned long long v;

	if (!set)
		return EXIT_FAIL;
	for (i = 0; i < argc; i++) {
		r = check_persist(argv[i], loaded);
		if (r) {
			ret = r;
			goto out;
		}
	}
	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (eq && loaded && find_param(argv[i], (size_t)(eq - argv[i]))) {
			r = set_param(argv[i]);
			if (r) {
				ret = r;
				goto out;
			}
		}
		if (eq) {
			set[i] = strdup(argv[i]);
		} else if (fsgate_param_get(argv[i], &v) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i],
				strerror(errno));
			goto out;
		} else if (asprintf(&set[i], "%s=%llu", argv[i], v) < 0) {
			set[i] = NULL;
		}
		if (!set[i])
			goto out;
	}
	if (modconf_set(MODCONF_FSGATE, "fsgate", (const char *const *)set,
			(size_t)argc) < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog,
			MODCONF_FSGATE, strerror(errno));
		goto out;
	}
	for (i = 0; i < argc; i++)
		printf("%s: %s\n", MODCONF_FSGATE, set[i]);
	ret = 0;
out:
	for (i = 0; i < argc; i++)
		free(set[i]);
	free(set);
	return ret;
}

static int cmd_params(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "persist", no_argument, NULL, 'p' },
		{ 0 }
	};
	unsigned long long v;
	int i, ret = 0, r, opt, persist = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+p", opts, NULL)) != -1) {
		if (opt != 'p')
			return EXIT_USAGE;
		persist = 1;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (persist) {
		if (argc == 1)
			return usage_error("params --persist: %s",
					   "give NAME or NAME=VALUE");
		return persist_params(argc - 1, argv + 1);
	}
	if (!module_loaded()) {
		say_not_loaded();
		return EXIT_NOT_LOADED;
	}
	if (argc == 1) {
		print_params();
		return 0;
	}
	/* Check every argument before changing anything. */
	for (i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

		if (!find_param(argv[i], len))
			return usage_error("unknown parameter '%s'", argv[i]);
	}
	for (i = 1; i < argc; i++) {
		if (strchr(argv[i], '=')) {
			r = set_param(argv[i]);
			if (r)
				return r;
			continue;
		}
		if (fsgate_param_get(argv[i], &v) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i],
				strerror(errno));
			ret = EXIT_FAIL;
		} else {
			printf("%s = %llu\n", argv[i], v);
		}
	}
	return ret;
}

/* What `group create` makes, from its options. */
struct group_spec {
	struct fsgate_init init;
	struct fsgate_persist persist;
	uint64_t mask;
	const char **marks;
	size_t nmarks;
};

static int parse_class(const char *s, uint32_t *class)
{
	if (!strcmp(s, "notif"))
		*class = FSGATE_CLASS_NOTIF;
	else if (!strcmp(s, "content"))
		*class = FSGATE_CLASS_CONTENT;
	else if (!strcmp(s, "pre-content"))
		*class = FSGATE_CLASS_PRE_CONTENT;
	else
		return -1;
	return 0;
}

static int parse_report(char *s, uint32_t *flags)
{
	char *save, *word;

	for (word = strtok_r(s, ",", &save); word;
	     word = strtok_r(NULL, ",", &save)) {
		if (!strcmp(word, "perm"))
			*flags |= FSGATE_REPORT_PERM;
		else if (!strcmp(word, "proc"))
			*flags |= FSGATE_REPORT_PROC;
		else if (!strcmp(word, "tid"))
			*flags |= FSGATE_REPORT_TID;
		else
			return -1;
	}
	return 0;
}

static int parse_owner(const char *s, uint32_t *uid)
{
	struct passwd *pw = getpwnam(s);

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	return parse_number(s, UINT32_MAX - 1, uid);
}

/* The options of `group create`; EXIT_USAGE having said why, or 0. */
static int group_options(int argc, char **argv, struct group_spec *g)
{
	enum { O_TIMEOUT_VERDICT = 256, O_ORPHAN_VERDICT, O_ABSENT_MS,
	       O_UNTIL_REMOVED };
	static const struct option opts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "priority", required_argument, NULL, 'p' },
		{ "events", required_argument, NULL, 'e' },
		{ "mark", required_argument, NULL, 'm' },
		{ "writable", no_argument, NULL, 'w' },
		{ "report", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "timeout-verdict", required_argument, NULL, O_TIMEOUT_VERDICT },
		{ "orphan-verdict", required_argument, NULL, O_ORPHAN_VERDICT },
		{ "absent", required_argument, NULL, 'a' },
		{ "absent-ms", required_argument, NULL, O_ABSENT_MS },
		{ "linger", required_argument, NULL, 'l' },
		{ "until-removed", no_argument, NULL, O_UNTIL_REMOVED },
		{ "owner", required_argument, NULL, 'o' },
		{ 0 }
	};
	struct fsgate_persist *p = &g->persist;
	const char *events = NULL;
	uint32_t class = FSGATE_CLASS_CONTENT;
	int opt, bad = 0;

	optind = 1;
	while (!bad && (opt = getopt_long(argc, argv, "c:p:e:m:wr:t:a:l:o:",
					  opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			bad = parse_class(optarg, &class);
			break;
		case 'p':
			bad = parse_number(optarg, FSGATE_PRIORITY_MAX,
					   &g->init.priority);
			break;
		case 'e':
			events = optarg;
			break;
		case 'm':
			g->marks[g->nmarks++] = optarg;
			break;
		case 'w':
			g->init.event_f_flags = O_RDWR;
			break;
		case 'r':
			bad = parse_report(optarg, &g->init.flags);
			break;
		case 't':
			bad = parse_number(optarg, UINT32_MAX - 1,
					   &g->init.timeout_ms);
			break;
		case O_TIMEOUT_VERDICT:
			bad = parse_verdict(optarg, &g->init.timeout_verdict);
			break;
		case O_ORPHAN_VERDICT:
			bad = parse_verdict(optarg, &g->init.orphan_verdict);
			break;
		case 'a':
			bad = parse_absent(optarg, fsgate_deny_errno_parse,
					   &p->absent_verdict, &p->absent_errno);
			break;
		case O_ABSENT_MS:
			bad = parse_number(optarg, UINT32_MAX, &p->absent_ms);
			break;
		case 'l':
			bad = parse_number(optarg, UINT32_MAX, &p->linger_ms) ||
			      !p->linger_ms;
			p->flags &= ~FSGATE_PERSIST_UNTIL_REMOVED;
			break;
		case O_UNTIL_REMOVED:
			p->flags |= FSGATE_PERSIST_UNTIL_REMOVED;
			p->linger_ms = 0;
			break;
		case 'o':
			bad = parse_owner(optarg, &p->owner);
			break;
		default:
			return EXIT_USAGE;
		}
		if (bad)
			return usage_error("group create: bad value '%s'", optarg);
	}
	if (optind != argc - 1)
		return usage_error("group create: %s", "give one NAME");
	if (strlen(argv[optind]) >= sizeof(p->name))
		return usage_error("group create: name '%s' too long", argv[optind]);
	strcpy(p->name, argv[optind]);
	if (!g->nmarks)
		return usage_error("group create: %s", "no --mark given");
	g->init.flags |= class | FSGATE_CLOEXEC;
	if (!events)
		events = class == FSGATE_CLASS_NOTIF ? "open,close" : "open_perm";
	if (fsgate_mask_parse(events, &g->mask, NULL) < 0)
		return usage_error("group create: bad --events '%s'", events);
	return 0;
}

/* Mark "[inode:|mount:|filesystem:]PATH" for @g's events; 0 or -1. */
static int group_mark(int fd, const struct group_spec *g, const char *spec)
{
	static const struct { const char *prefix; unsigned int type; } types[] = {
		{ "inode:", FSGATE_MARK_INODE },
		{ "mount:", FSGATE_MARK_MOUNT },
		{ "filesystem:", FSGATE_MARK_FILESYSTEM },
	};
	unsigned int type = FSGATE_MARK_FILESYSTEM;
	const char *path = spec;
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strncmp(spec, types[i].prefix, strlen(types[i].prefix))) {
			type = types[i].type;
			path = spec + strlen(types[i].prefix);
		}
	if (fsgate_mark(fd, FSGATE_MARK_ADD | type, g->mask, AT_FDCWD,
			path) == 0)
		return 0;
	fprintf(stderr, "%s: cannot mark %s: %s\n", prog, path,
		fsgate_strerror(FSGATE_CALL_MARK, errno));
	return -1;
}

static int group_create(int argc, char **argv)
{
	struct group_spec g = {
		.init = {
			.event_f_flags = O_RDONLY,
			.priority = FSGATE_PRIORITY_DEFAULT,
			.timeout_verdict = FSGATE_VERDICT_DENY,
			.orphan_verdict = FSGATE_VERDICT_DENY,
		},
		.persist = {
			.owner = FSGATE_PERSIST_OWNER_SELF,
			.absent_ms = 30000,
			.absent_verdict = FSGATE_VERDICT_DENY,
			.flags = FSGATE_PERSIST_UNTIL_REMOVED,
		},
	};
	struct fsgate_group_info found;
	int fd, ret, err;

	g.marks = calloc((size_t)argc, sizeof(*g.marks));
	if (!g.marks)
		return EXIT_FAIL;
	ret = group_options(argc, argv, &g);
	if (ret)
		goto out;
	ret = EXIT_FAIL;
	/* A name taken already: refused before any group is made. */
	if (group_listed(g.persist.name, &found) == 1) {
		err = EEXIST;
		goto out_not_persistent;
	}
	fd = fsgate_init_ext(&g.init);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot make a group: %s\n", prog,
			fsgate_strerror(FSGATE_CALL_INIT, errno));
		ret = errno == ENOENT ? EXIT_NOT_LOADED : EXIT_FAIL;
		goto out;
	}
	/*
	 * The name first: a name taken already fails before any mark, so
	 * no access waits on a group that then goes with its fd.
	 */
	if (fsgate_persist(fd, &g.persist) < 0) {
		err = errno;
		close(fd);
		goto out_not_persistent;
	}
	for (size_t i = 0; i < g.nmarks; i++)
		if (group_mark(fd, &g, g.marks[i]) < 0)
			goto out_remove;
	ret = 0;
	goto out_close;
out_remove:
	/* Not left half-marked: it goes with the fd closed below. */
	if (fsgate_remove(g.persist.name) < 0)
		fprintf(stderr, "%s: cannot remove %s: %s\n", prog,
			g.persist.name,
			fsgate_strerror(FSGATE_CALL_ATTACH, errno));
out_close:
	close(fd);
	goto out;
out_not_persistent:
	fprintf(stderr, "%s: cannot make %s persistent: %s\n", prog,
		g.persist.name, fsgate_strerror(FSGATE_CALL_PERSIST, err));
out:
	free(g.marks);
	return ret;
}

static int group_remove(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("group remove: %s", "give one NAME");
	if (fsgate_remove(argv[1]) == 0)
		return 0;
	if (errno == ENOENT && !module_loaded()) {
		say_not_loaded();
		return EXIT_NOT_LOADED;
	}
	fprintf(stderr, "%s: cannot remove %s: %s\n", prog, argv[1],
		fsgate_strerror(FSGATE_CALL_ATTACH, errno));
	return EXIT_FAIL;
}

static int cmd_group(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "create"))
		return group_create(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "remove"))
		return group_remove(argc - 1, argv + 1);
	return usage_error("group: %s", "create or remove");
}

/* What why and trace show, and what they have shown. */
struct why_run {
	int json;
	unsigned long count;	/* accesses to show; 0: no end */
	unsigned long seen;
	long pid;		/* the accessing process's; 0: any */
	const char *path;	/* the file's, or NULL for any */
	unsigned int major, minor;
	unsigned long long ino;
	struct fsgate_group_info *groups;
	ssize_t ngroups;
	uint64_t missed;	/* a group id not in @groups when last read */
	int out_error;
};

/* A group's comm (or persistent name), read again for a group not seen. */
static const char *why_group(uint64_t id, void *arg)
{
	struct why_run *r = arg;
	ssize_t i;
	int again;

	for (again = 0; again < 2; again++) {
		for (i = 0; i < r->ngroups; i++)
			if (r->groups[i].id == id)
				return *r->groups[i].name ? r->groups[i].name :
							    r->groups[i].comm;
		if (again || id == r->missed)
			break;
		r->missed = id;
		free(r->groups);
		r->groups = NULL;
		r->ngroups = fsgate_groups_read(NULL, &r->groups);
	}
	return NULL;
}

static void why_show(const struct why_access *a, void *arg)
{
	struct why_run *r = arg;
	const char *path = r->path;

	if (r->pid && a->pid != r->pid)
		return;
	if (path && (a->major != r->major || a->minor != r->minor ||
		     a->ino != r->ino))
		return;
	if (!a->decided || (r->count && r->seen >= r->count))
		return;
	r->seen++;
	if (r->json)
		why_print_json(stdout, a, r->seen, path, why_group, r);
	else
		why_print_text(stdout, a, r->seen, path, why_group, r);
	if (fflush(stdout) == EOF)
		r->out_error = 1;
}

/* The lines in @buf (@len bytes) fed to @s; what is left of a line kept. */
static size_t why_lines(struct why_state *s, struct why_run *r, char *buf,
			size_t len)
{
	struct why_event ev;
	char *line = buf, *nl;

	while ((nl = memchr(line, '\n', len - (size_t)(line - buf)))) {
		*nl = '\0';
		if (why_parse_line(line, &ev))
			why_feed(s, &ev, why_show, r);
		line = nl + 1;
	}
	len -= (size_t)(line - buf);
	memmove(buf, line, len);
	return len;
}

/* The message for a tracefs instance that could not be made; exit code. */
static int why_trace_error(enum tracefs_error err, const char *dir)
{
	switch (err) {
	case TRACEFS_NOT_MOUNTED:
		fprintf(stderr, "%s: tracefs is not mounted (neither /sys/kernel/tracing nor /sys/kernel/debug/tracing has it): mount -t tracefs tracefs /sys/kernel/tracing\n",
			prog);
		return EXIT_FAIL;
	case TRACEFS_NO_PRIVILEGE:
		fprintf(stderr, "%s: reading the kernel's trace events needs root (tracefs is root's): %s: %s\n",
			prog, dir, strerror(errno));
		return EXIT_FAIL;
	case TRACEFS_NO_EVENTS:
		fprintf(stderr, "%s: the kernel has no fsgate trace events (%s/events/fsgate): fsgate.ko is not loaded, or the kernel has no tracepoints\n",
			prog, dir);
		return module_loaded() ? EXIT_FAIL : EXIT_NOT_LOADED;
	default:
		fprintf(stderr, "%s: cannot make the tracefs instance %s: %s\n",
			prog, dir, strerror(errno));
		return EXIT_FAIL;
	}
}

/*
 * Read the instance's trace_pipe into accesses until @r has its count,
 * @timeout seconds pass (0: none), a signal comes or stdout fails.
 */
static void why_read(struct tracefs_instance *t, struct why_run *r,
		     double timeout)
{
	static struct why_state state;
	static char buf[65536];
	struct pollfd pfd = { .fd = t->pipe, .events = POLLIN };
	double end = now_s() + timeout;
	size_t len = 0;
	ssize_t n;

	while (!stop && !r->out_error && (!r->count || r->seen < r->count) &&
	       (!timeout || now_s() < end)) {
		n = read(t->pipe, buf + len, sizeof(buf) - 1 - len);
		if (n > 0) {
			len = why_lines(&state, r, buf, len + (size_t)n);
			/* A line longer than the buffer is no event's. */
			if (len == sizeof(buf) - 1)
				len = 0;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, "%s: reading %s/trace_pipe: %s\n",
				prog, t->dir, strerror(errno));
			r->out_error = 1;
			break;
		}
		poll(&pfd, 1, 200);
	}
}

/*
 * why and trace: the module's trace events in a tracefs instance of its
 * own, removed on the way out, after SIGINT, SIGTERM and SIGHUP too
 * (SIGPIPE ignored: a closed stdout ends the run as an error does).
 */
static int why_or_trace(int argc, char **argv, const char *name,
			unsigned long count)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 }
	};
	static const char *const events[] = {
		"fsgate_perm_ask", "fsgate_perm_answer",
		"fsgate_access_verdict", NULL,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct why_run r = { .count = count };
	struct tracefs_instance t;
	enum tracefs_error err;
	unsigned long pid;
	double timeout = 0;
	char inst[64], *end;
	struct stat st;
	int opt, ret = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:p:t:j", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (conf_uint(optarg, ULONG_MAX, &r.count) < 0)
				return usage_error("-n '%s' is not a number (0: no end)",
						   optarg);
			break;
		case 'p':
			if (conf_uint(optarg, INT_MAX, &pid) < 0 || !pid)
				return usage_error("--pid '%s' is not a process id",
						   optarg);
			r.pid = (long)pid;
			break;
		case 't':
			timeout = strtod(optarg, &end);
			if (*end || !(timeout > 0 && timeout <= 86400))
				return usage_error("--timeout '%s' is not 0 to 86400 seconds",
						   optarg);
			break;
		case 'j':
			r.json = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind + 1 < argc)
		return usage_error("unexpected '%s'", argv[optind + 1]);
	if (optind < argc) {
		r.path = argv[optind];
		if (stat(r.path, &st) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, r.path,
				strerror(errno));
			return EXIT_FAIL;
		}
		r.major = major(st.st_dev);
		r.minor = minor(st.st_dev);
		r.ino = (unsigned long long)st.st_ino;
	}
	if (!module_loaded()) {
		say_not_loaded();
		return EXIT_NOT_LOADED;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	snprintf(inst, sizeof(inst), "fsgatectl-%s-%d", name, (int)getpid());
	err = tracefs_create(&t, inst, "fsgate", events);
	if (err)
		return why_trace_error(err, t.dir);
	r.ngroups = fsgate_groups_read(NULL, &r.groups);
	fprintf(stderr, "%s: tracing in %s\n", prog, t.dir);
	why_read(&t, &r, timeout);
	if (tracefs_remove(&t) < 0) {
		fprintf(stderr, "%s: cannot remove %s: %s\n", prog, t.dir,
			strerror(errno));
		ret = EXIT_FAIL;
	}
	free(r.groups);
	if (r.out_error)
		return EXIT_FAIL;
	if (!stop && r.count && r.seen < r.count && !strcmp(name, "why")) {
		fprintf(stderr, "%s: why: %lu of %lu accesses in %g s\n", prog,
			r.seen, r.count, timeout);
		return EXIT_FAIL;
	}
	return ret;
}

static int cmd_why(int argc, char **argv)
{
	return why_or_trace(argc, argv, "why", 1);
}

static int cmd_trace(int argc, char **argv)
{
	return why_or_trace(argc, argv, "trace", 0);
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "status", cmd_status },
	{ "groups", cmd_groups },
	{ "top", cmd_top },
	{ "params", cmd_params },
	{ "metrics", cmd_metrics },
	{ "group", cmd_group },
	{ "why", cmd_why },
	{ "trace", cmd_trace },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return usage_error("no %s given", "COMMAND");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("%s %s\n", prog, VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}
