// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-scan: an on-access anti-malware scanner with YARA rules. A
 * content group (priority 2000: after an HSM at 3000 has filled a file,
 * before notifiers at 1000) marks the configured filesystems for
 * FAN_OPEN_PERM; workers read each opened file through its event fd,
 * deny it when a rule matches and cache clean verdicts.
 *
 * A rules reload (SIGHUP) must drop the cached verdicts: they were given
 * by the old rules. The new rules take over under the workers' lock,
 * then the group's cache is flushed (fsgate_cache_flush()). A worker
 * that scanned with the old rules and answers after the flush still
 * decides its access, but fsgate does not cache an answer to an event
 * asked before the flush, so no verdict of the old rules outlives the
 * reload.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/group.h"
#include "common/log.h"
#include "common/opts.h"
#include "common/watchdog.h"
#include "scan.h"

#ifndef VERSION
#define VERSION "0"
#endif
#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define DEFAULT_CONFIG SYSCONFDIR "/fsgate/scan.conf"

static const char prog[] = "fsgate-scan";

struct scanner {
	struct settings s;
	struct rules *rules;
	pthread_rwlock_t lock;
	struct counters count;
	struct pool *pool;
	struct group *cur;
	int sigfd;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... [PATH]...\n"
"Scan each file opened on the filesystems of the PATHs (default: the\n"
"configuration's watch = lines) with YARA rules, and deny the open when a\n"
"rule matches.\n"
"\n"
"  -c, --config FILE   configuration (default " DEFAULT_CONFIG ")\n"
"  -r, --rules PATH    rules: a source (.yar), compiled rules or a\n"
"                      directory of sources; repeatable; replaces the\n"
"                      configuration's rules = lines\n"
"  -j, --threads N     workers scanning at once, 1..32 (default 4)\n"
"  -p, --priority N    fsgate priority, 0..65535 (default 2000)\n"
"      --check         read the configuration and the rules, say what\n"
"                      they hold and exit\n"
"      --create-group  make the scanner's persistent group as the scanner\n"
"                      would, marked and muted, leave it waiting for the\n"
"                      scanner and exit (at boot, before the services\n"
"                      that read the files); one there already is left\n"
"                      as it is; no rules are read\n"
"  -h, --help          show this help and exit\n"
"  -V, --version       show the version and exit\n"
"\n"
"Signals: SIGHUP reloads the rules and forgets cached verdicts; SIGUSR1\n"
"logs statistics; SIGTERM and SIGINT stop.\n"
"Exit status: 0 when stopped by a signal (or --check passed, or\n"
"--create-group made the group or found it), 1 when fsgate or the rules\n"
"fail, 2 for bad usage or configuration, or a persistent group that is\n"
"not what the configuration asks for. See fsgate-scan(8).\n", prog);
}

static void fail_usage(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s' (see --help)\n", prog, what, arg);
	exit(EXIT_USAGE);
}

static void parse_args(struct scanner *sc, int argc, char **argv, int *check,
		       int *create)
{
	enum { OPT_CHECK = 256, OPT_CREATE_GROUP };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "rules", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 'j' },
		{ "priority", required_argument, NULL, 'p' },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "create-group", no_argument, NULL, OPT_CREATE_GROUP },
		OPTS_HELP_VERSION
	};
	const char *config = DEFAULT_CONFIG, *rules[LIST_MAX];
	long threads = -1, priority = -1;
	size_t nrules = 0;
	unsigned long n;
	int opt, explicit = 0;

	while ((opt = getopt_long(argc, argv, "c:r:j:p:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			explicit = 1;
			break;
		case 'r':
			if (nrules == LIST_MAX)
				fail_usage("too many --rules at", optarg);
			rules[nrules++] = optarg;
			break;
		case 'j':
			if (conf_uint(optarg, 32, &n) < 0 || !n)
				fail_usage("--threads is not in 1..32:", optarg);
			threads = n;
			break;
		case 'p':
			if (opts_priority(optarg, &priority) < 0)
				fail_usage("--priority is not in 0..65535:", optarg);
			break;
		case OPT_CHECK:
			*check = 1;
			break;
		case OPT_CREATE_GROUP:
			*create = 1;
			break;
		default:
			opts_exit(opt, prog, VERSION, usage, EXIT_USAGE);
		}
	}
	settings_default(&sc->s);
	if (settings_read(&sc->s, config, !explicit) < 0)
		exit(EXIT_USAGE);
	/* Options and PATHs replace what the file says. */
	if (nrules) {
		memcpy(sc->s.rules, rules, nrules * sizeof(rules[0]));
		sc->s.nrules = nrules;
	}
	if (threads > 0)
		sc->s.threads = threads;
	if (priority >= 0)
		sc->s.priority = priority;
	if (optind < argc) {
		if (argc - optind > LIST_MAX)
			fail_usage("too many PATHs from", argv[optind]);
		for (sc->s.nwatch = 0; optind < argc; optind++)
			sc->s.watch[sc->s.nwatch++] = argv[optind];
	}
	if (!sc->s.nwatch && !*check) {
		fprintf(stderr, "%s: nothing to watch: give a PATH or watch = in %s\n",
			prog, config);
		exit(EXIT_USAGE);
	}
}

/*
 * Programs whose opens are never scanned (an updater, a backup): fsgate
 * mutes them in the kernel, so they cost no round trip. The workers are
 * the scanner's own threads, which FSGATE_EXCLUDE_SELF leaves out.
 */
static int mute_programs(int fd, const struct settings *s)
{
	size_t i;

	for (i = 0; i < s->nmute_exe; i++) {
		if (fsgate_mute_exe(fd, s->mute_exe[i]) < 0) {
			log_err("mute_exe %s: %s", s->mute_exe[i],
				fsgate_strerror(FSGATE_CALL_MUTE, errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The group; NULL having said why, *@exit the status to exit with. With
 * @create (--create-group), NULL and *@exit 0 when there is nothing to
 * make.
 */
static struct group *group_open(const struct settings *s, int create,
				int *exit)
{
	unsigned int verdict = s->fail_closed ? FSGATE_VERDICT_DENY :
				FSGATE_VERDICT_ALLOW;
	const struct fsgate_init init = {
		/* Its workers read through event fds: they never wait on it. */
		/* Each event's id and deadline, to keep it (pool_tick()). */
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_NONBLOCK | FSGATE_EXCLUDE_SELF |
			 FSGATE_REPORT_PERM,
		.event_f_flags = O_RDONLY | O_CLOEXEC | O_LARGEFILE,
		.priority = s->priority,
		.timeout_ms = s->timeout_ms,
		.timeout_verdict = verdict,
		.orphan_verdict = verdict,
	};
	struct group *g;
	int attached, r;

	*exit = EXIT_RUNTIME;
	/* Only what it has to make: see create_group(). */
	if (create) {
		r = group_create_wanted(&init, &s->persist);
		if (r <= 0) {
			*exit = r == 0 ? 0 : r == GROUP_DIFFERS ? EXIT_USAGE :
			       EXIT_RUNTIME;
			return NULL;
		}
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->fd = group_attach_or_watch(&init, FAN_OPEN_PERM, s->watch,
				      s->nwatch, &s->persist, &attached);
	if (g->fd < 0) {
		if (g->fd == GROUP_DIFFERS)
			*exit = EXIT_USAGE;
		free(g);
		return NULL;
	}
	/* A persistent group has the mutes it had: made anew, as asked. */
	if (attached && fsgate_mute_clear(g->fd) < 0) {
		log_err("cannot clear the mutes of persistent group %s: %s",
			s->persist.req.name,
			fsgate_strerror(FSGATE_CALL_MUTE, errno));
		goto fail;
	}
	if (mute_programs(g->fd, s) < 0)
		goto fail;
	return g;
fail:
	close(g->fd);
	free(g);
	return NULL;
}

struct reading {
	struct scanner *sc;
	struct group *g;
};

static int submit(const struct fanotify_event_metadata *ev, void *arg)
{
	const struct reading *r = arg;

	if (ev->fd < 0)
		return 0;
	if (ev->mask & FSGATE_PERM_EVENTS)
		pool_submit(r->sc->pool, r->g, ev);
	else
		close(ev->fd);
	return 0;
}

/* Queue every event @g has for the workers; -1 when reading fails. */
static int drain(struct scanner *sc, struct group *g)
{
	static char buf[65536] __attribute__((aligned(8)));
	struct reading r = { .sc = sc, .g = g };

	if (fsgate_events_drain(g->fd, buf, sizeof(buf), submit, &r) < 0) {
		log_err("read: %s", fsgate_strerror(FSGATE_CALL_READ, errno));
		return -1;
	}
	return 0;
}

static void log_stats(struct scanner *sc)
{
	struct fsgate_stats k = { 0 };

	fsgate_stats(sc->cur->fd, &k);
	log_info("stats: %u rules; scanned %llu, clean %llu, detected %llu, errors %llu, too large %llu, excluded %llu, overloaded %llu; this group: asked %llu, cached %llu, timed out %llu, pending %llu, muted %llu, extended %llu, overflows %llu",
		 rules_count(sc->rules),
		 (unsigned long long)sc->count.scanned,
		 (unsigned long long)sc->count.clean,
		 (unsigned long long)sc->count.detected,
		 (unsigned long long)sc->count.errors,
		 (unsigned long long)sc->count.large,
		 (unsigned long long)sc->count.excluded,
		 (unsigned long long)sc->count.overloaded,
		 (unsigned long long)k.asked, (unsigned long long)k.cached,
		 (unsigned long long)k.timedout, (unsigned long long)k.pending,
		 (unsigned long long)k.muted, (unsigned long long)k.extended,
		 (unsigned long long)k.perm_overflows);
}

/* New rules, and the verdicts the old ones gave forgotten. */
static void reload(struct scanner *sc)
{
	struct rules *fresh, *stale;
	int n;

	log_notify("RELOADING=1");
	fresh = rules_load(&sc->s);
	if (!fresh) {
		log_err("reload failed: still scanning with the %u rules loaded before",
			rules_count(sc->rules));
		log_notify("READY=1");
		return;
	}
	pthread_rwlock_wrlock(&sc->lock);
	stale = sc->rules;
	sc->rules = fresh;
	pthread_rwlock_unlock(&sc->lock);
	rules_free(stale);
	/* After the swap: no scan from now on uses the old rules. */
	n = fsgate_cache_flush(sc->cur->fd, -1);
	if (n < 0)
		log_err("reload: new rules in use, but cached verdicts were kept: %s",
			fsgate_strerror(FSGATE_CALL_CACHE_FLUSH, errno));
	else
		log_info("reloaded %u rules; cached verdicts of %d files dropped",
			 rules_count(sc->rules), n);
	log_notify("READY=1");
}

/* 0 when stopped by a signal, EXIT_RUNTIME when fsgate failed. */
static int serve(struct scanner *sc)
{
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	int wait_ms = -1;

	for (;;) {
		pfd[0] = (struct pollfd){ .fd = sc->sigfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sc->cur->fd, .events = POLLIN };
		if (poll(pfd, 2, watchdog_poll_ms(wait_ms)) < 0 && errno != EINTR) {
			log_err("poll: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
		if (pfd[1].revents && drain(sc, sc->cur) < 0)
			return EXIT_RUNTIME;
		/* The deadlines of what the workers hold, kept in time. */
		wait_ms = pool_tick(sc->pool);
		if (!(pfd[0].revents & POLLIN) ||
		    read(sc->sigfd, &si, sizeof(si)) != sizeof(si))
			continue;
		switch (si.ssi_signo) {
		case SIGHUP:
			reload(sc);
			break;
		case SIGUSR1:
			log_stats(sc);
			break;
		default:
			log_info("stopping on signal %u", si.ssi_signo);
			return 0;
		}
	}
}

/*
 * --create-group: the scanner's own group, made, marked, persisted and
 * muted by the scanner's own code, then left with nobody attached until
 * the scanner attaches. The exit status.
 */
static int create_group(const struct settings *s)
{
	struct group *g;
	int ret;

	g = group_open(s, 1, &ret);
	if (!g)
		return ret;
	group_create_done(&s->persist, prog);
	close(g->fd);
	free(g);
	return 0;
}

int main(int argc, char **argv)
{
	struct waits w;
	static struct scanner sc;
	sigset_t sigs;
	int check = 0, create = 0, ret;
	size_t i;

	parse_args(&sc, argc, argv, &check, &create);
	log_open(prog, LOG_TO_AUTO);
	if (create)
		return create_group(&sc.s);
	if (rules_init() < 0)
		return EXIT_RUNTIME;
	sc.rules = rules_load(&sc.s);
	if (!sc.rules)
		return EXIT_RUNTIME;
	if (check) {
		printf("%s: %u rules; watch", prog, rules_count(sc.rules));
		for (i = 0; i < sc.s.nwatch; i++)
			printf(" %s", sc.s.watch[i]);
		printf("%s\n", sc.s.nwatch ? "" : " nothing");
		return 0;
	}
	pthread_rwlock_init(&sc.lock, NULL);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	/* Blocked before the workers start, so that they inherit it. */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sc.sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	w = waits_of(sc.s.timeout_ms);
	sc.pool = pool_start(&sc.s, &sc.rules, &sc.lock, &sc.count, &w);
	if (sc.sigfd < 0 || !sc.pool)
		return EXIT_RUNTIME;
	sc.cur = group_open(&sc.s, 0, &ret);
	if (!sc.cur)
		return ret;
	log_info("ready: %u rules, %u threads, priority %u, fail %s, max_size %llu (%s above), deny with %s, queue %u, overload %s, an access held up to %u ms",
		 rules_count(sc.rules), sc.s.threads, sc.s.priority,
		 sc.s.fail_closed ? "closed" : "open",
		 (unsigned long long)sc.s.max_size,
		 sc.s.large_allow ? "allow" : "deny",
		 fsgate_deny_errno_name(sc.s.deny_errno), sc.s.queue,
		 sc.s.overload_allow ? "allow" : "deny", w.hold_ms);
	log_notify("READY=1");
	ret = serve(&sc);
	log_notify("STOPPING=1");
	/*
	 * Workers answer what they hold; unread events get the orphan
	 * verdict, or, in a persistent group, wait for the next scanner.
	 */
	pool_stop(sc.pool);
	close(sc.cur->fd);
	rules_free(sc.rules);
	rules_exit();
	return ret;
}
