// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-monitor: a notification group marks paths, mounts or
 * filesystems for the chosen content events (not the directory entry
 * events fatrace -f and inotifywait report) and prints each event (time,
 * pid, comm, uid, events, path) as a text or JSON line, or sends it to
 * the journal. Exit status as inotifywait's: 0 once events were
 * printed, 1 on an error, 2 when --timeout ran out before any event.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fsgate.h>

#include "common/conf.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opts.h"

#ifndef VERSION
#define VERSION "0"
#endif

#define EXIT_EVENTS 0
#define EXIT_ERROR 1
#define EXIT_TIMEOUT 2
#define FILTERS_MAX 64

static const char prog[] = "fsgate-monitor";

enum output { OUT_TEXT, OUT_JSON, OUT_JOURNAL };

struct monitor {
	uint64_t mask;
	unsigned int mark_type;		/* FSGATE_MARK_INODE, _MOUNT, ... */
	unsigned int priority;
	enum output output;
	int quiet;
	unsigned long count;		/* 0: no limit */
	unsigned long timeout_s;	/* 0: no limit */
	pid_t pids[FILTERS_MAX];
	size_t npids;
	const char *comms[FILTERS_MAX];
	size_t ncomms;
	const char *prefixes[FILTERS_MAX];
	size_t nprefixes;
	unsigned long printed;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... PATH...\n"
"Print the file accesses fsgate sees on each PATH: time, pid, command,\n"
"uid, events and path, one line each.\n"
"\n"
"What is watched (default: each PATH; a directory with its files):\n"
"  -M, --mount            the mounts the PATHs are on\n"
"  -F, --filesystem       the filesystems the PATHs are on\n"
"  -e, --event LIST       comma-separated events: access, modify,\n"
"                         close_write, close_nowrite, close, open,\n"
"                         open_exec, all (default all)\n"
"  -p, --pid PID          only events of process PID (repeatable)\n"
"  -c, --comm NAME        only events of processes named NAME (repeatable)\n"
"  -P, --prefix DIR       only files under DIR (repeatable)\n"
"\n"
"Output:\n"
"  -j, --json             one JSON object per line\n"
"      --journal          send events to the journal, with fields\n"
"                         (stderr when there is no journal)\n"
"  -q, --quiet            do not say on stderr when the watches are set\n"
"  -n, --count N          exit after N events\n"
"  -t, --timeout SEC      exit after SEC seconds\n"
"      --priority N       the group's priority (default 1000)\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"Exit status, as inotifywait's: 0 once an event was printed (or on\n"
"SIGINT/SIGTERM), 1 on an error or bad usage, 2 when --timeout ran out\n"
"before any event. See fsgate-monitor(1).\n", prog);
}

__attribute__((format(printf, 1, 2), noreturn))
static void fail_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	exit(EXIT_ERROR);
}

static void parse_args(struct monitor *m, int argc, char **argv)
{
	enum { OPT_JOURNAL = 256, OPT_PRIORITY };
	static const struct option opts[] = {
		{ "mount", no_argument, NULL, 'M' },
		{ "filesystem", no_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "prefix", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "journal", no_argument, NULL, OPT_JOURNAL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "priority", required_argument, NULL, OPT_PRIORITY },
		OPTS_HELP_VERSION
	};
	unsigned long n;
	long priority;
	size_t bad;
	int opt;

	while ((opt = getopt_long(argc, argv, "MFe:p:c:P:jqn:t:hV", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'M':
			m->mark_type = FSGATE_MARK_MOUNT;
			break;
		case 'F':
			m->mark_type = FSGATE_MARK_FILESYSTEM;
			break;
		case 'e':
			if (fsgate_mask_parse(optarg, &m->mask, &bad) < 0)
				fail_usage("unknown event at '%s'", optarg + bad);
			if (m->mask & ~FSGATE_NOTIF_EVENTS)
				fail_usage("'%s': only notification events can be watched",
					   optarg);
			break;
		case 'p':
			if (m->npids == FILTERS_MAX)
				fail_usage("at most %d --pid", FILTERS_MAX);
			if (conf_uint(optarg, INT_MAX, &n) < 0 || !n)
				fail_usage("--pid '%s' is not a pid", optarg);
			m->pids[m->npids++] = (pid_t)n;
			break;
		case 'c':
			if (m->ncomms == FILTERS_MAX)
				fail_usage("at most %d --comm", FILTERS_MAX);
			m->comms[m->ncomms++] = optarg;
			break;
		case 'P':
			if (m->nprefixes == FILTERS_MAX)
				fail_usage("at most %d --prefix", FILTERS_MAX);
			if (optarg[0] != '/')
				fail_usage("--prefix '%s' is not an absolute path",
					   optarg);
			m->prefixes[m->nprefixes++] = optarg;
			break;
		case 'j':
			m->output = OUT_JSON;
			break;
		case OPT_JOURNAL:
			m->output = OUT_JOURNAL;
			break;
		case 'q':
			m->quiet = 1;
			break;
		case 'n':
			if (conf_uint(optarg, ULONG_MAX, &m->count) < 0 || !m->count)
				fail_usage("--count '%s' is not a number above 0",
					   optarg);
			break;
		case 't':
			if (conf_uint(optarg, 86400 * 365, &m->timeout_s) < 0 ||
			    !m->timeout_s)
				fail_usage("--timeout '%s' is not a number of seconds above 0",
					   optarg);
			break;
		case OPT_PRIORITY:
			if (opts_priority(optarg, &priority) < 0)
				fail_usage("--priority '%s' is not in 0..%d", optarg,
					   FSGATE_PRIORITY_MAX);
			m->priority = (unsigned int)priority;
			break;
		default:
			opts_exit(opt, prog, VERSION, usage, EXIT_ERROR);
		}
	}
	if (optind == argc)
		fail_usage("no PATH given");
}

/* A prefix matches itself and what lies below it: /a matches /a/b, not /ab. */
static int under(const char *path, const char *prefix)
{
	size_t len = strlen(prefix);

	while (len > 1 && prefix[len - 1] == '/')
		len--;
	return !strncmp(path, prefix, len) &&
	       (path[len] == '\0' || path[len] == '/' || len == 1);
}

/* What a line says of one event; comm and uid may be gone. */
struct record {
	struct timespec ts;
	pid_t pid;
	char comm[32];
	int have_comm;
	uid_t uid;
	int have_uid;
	char events[128];
	char path[PATH_MAX];
};

static int wanted(const struct monitor *m, const struct record *r)
{
	size_t i;
	int ok;

	if (m->npids) {
		for (ok = 0, i = 0; i < m->npids && !ok; i++)
			ok = m->pids[i] == r->pid;
		if (!ok)
			return 0;
	}
	if (m->ncomms) {
		for (ok = 0, i = 0; i < m->ncomms && !ok; i++)
			ok = r->have_comm && !strcmp(m->comms[i], r->comm);
		if (!ok)
			return 0;
	}
	if (m->nprefixes) {
		for (ok = 0, i = 0; i < m->nprefixes && !ok; i++)
			ok = under(r->path, m->prefixes[i]);
		if (!ok)
			return 0;
	}
	return 1;
}

static void print_json(const struct record *r)
{
	char when[32];
	struct tm tm;
	const char *p;

	gmtime_r(&r->ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("{\"time\":\"%s.%06ldZ\",\"pid\":%d,\"comm\":", when,
	       r->ts.tv_nsec / 1000, r->pid);
	if (r->have_comm)
		json_string(stdout, r->comm);
	else
		fputs("null", stdout);
	if (r->have_uid)
		printf(",\"uid\":%u", (unsigned int)r->uid);
	else
		fputs(",\"uid\":null", stdout);
	fputs(",\"events\":[", stdout);
	for (p = r->events; *p;) {
		size_t len = strcspn(p, ",");

		printf("%s\"%.*s\"", p == r->events ? "" : ",", (int)len, p);
		p += len + (p[len] ? 1 : 0);
	}
	fputs("],\"path\":", stdout);
	json_string(stdout, r->path);
	fputs("}\n", stdout);
}

static void print_text(const struct record *r)
{
	char when[16], comm[32], uid[16] = "-";
	struct tm tm;
	char *c;

	localtime_r(&r->ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	/* One word per column: a comm's blanks become '_'. */
	snprintf(comm, sizeof(comm), "%s", r->have_comm ? r->comm : "-");
	for (c = comm; *c; c++)
		if (*c == ' ' || *c == '\t')
			*c = '_';
	if (r->have_uid)
		snprintf(uid, sizeof(uid), "%u", (unsigned int)r->uid);
	printf("%s.%06ld %d %s %s %s %s\n", when, r->ts.tv_nsec / 1000, r->pid,
	       comm, uid, r->events, r->path);
}

static void send_journal(const struct record *r)
{
	char f_pid[32], f_comm[64], f_uid[32], f_events[160];
	char f_path[PATH_MAX + 16];
	const char *fields[] = { f_pid, f_comm, f_uid, f_events, f_path, NULL };

	snprintf(f_pid, sizeof(f_pid), "FSGATE_PID=%d", r->pid);
	snprintf(f_comm, sizeof(f_comm), "FSGATE_COMM=%s",
		 r->have_comm ? r->comm : "");
	snprintf(f_uid, sizeof(f_uid), "FSGATE_UID=%d",
		 r->have_uid ? (int)r->uid : -1);
	snprintf(f_events, sizeof(f_events), "FSGATE_EVENTS=%s", r->events);
	snprintf(f_path, sizeof(f_path), "FSGATE_PATH=%s", r->path);
	log_send(LOG_INFO, fields, "%s %s by %s (pid %d)", r->events, r->path,
		 r->have_comm ? r->comm : "a process that has exited", r->pid);
}

/*
 * The processes of recent events. A notification event is read after
 * the access, often after a short-lived process has exited: its close
 * then still names the process its open was read from. (A pid reused
 * within the last PROCS_RECENT processes seen would be misnamed; /proc
 * is asked first, so only for an exited one.)
 */
#define PROCS_RECENT 64
static struct proc_seen {
	pid_t pid;
	char comm[32];
	uid_t uid;
} procs[PROCS_RECENT];
static unsigned int procs_next;

static void who(struct record *r)
{
	struct proc_seen *p;
	unsigned int i;

	r->have_comm = fsgate_pid_comm(r->pid, r->comm, sizeof(r->comm)) == 0;
	r->have_uid = fsgate_pid_uid(r->pid, &r->uid) == 0;
	if (r->have_comm && r->have_uid) {
		for (i = 0; i < PROCS_RECENT && procs[i].pid != r->pid; i++)
			;
		p = i < PROCS_RECENT ? &procs[i] :
		    &procs[procs_next++ % PROCS_RECENT];
		p->pid = r->pid;
		memcpy(p->comm, r->comm, sizeof(p->comm));
		p->uid = r->uid;
		return;
	}
	for (i = 0; i < PROCS_RECENT; i++)
		if (procs[i].pid == r->pid) {
			memcpy(r->comm, procs[i].comm, sizeof(r->comm));
			r->uid = procs[i].uid;
			r->have_comm = r->have_uid = 1;
			return;
		}
}

/* Print @ev if the filters take it; 1 if it was printed. */
static int handle(struct monitor *m, const struct fanotify_event_metadata *ev)
{
	struct record r;

	clock_gettime(CLOCK_REALTIME, &r.ts);
	r.pid = ev->pid;
	who(&r);
	fsgate_mask_format(ev->mask, r.events, sizeof(r.events));
	if (fsgate_fd_path(ev->fd, r.path, sizeof(r.path)) < 0)
		snprintf(r.path, sizeof(r.path), "?");
	if (!wanted(m, &r))
		return 0;
	switch (m->output) {
	case OUT_JSON:
		print_json(&r);
		break;
	case OUT_JOURNAL:
		send_journal(&r);
		break;
	default:
		print_text(&r);
	}
	return 1;
}

static int open_group(const struct monitor *m, char **paths, int npaths)
{
	const struct fsgate_init init = {
		/* Its own reads of /proc are not worth reporting. */
		.flags = FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC | FSGATE_NONBLOCK |
			 FSGATE_EXCLUDE_SELF,
		.event_f_flags = O_RDONLY | O_CLOEXEC | O_LARGEFILE,
		.priority = m->priority,
	};
	struct stat st;
	uint64_t mask;
	int g, i;

	g = fsgate_init_ext(&init);
	if (g < 0) {
		log_err("cannot make a group: %s",
			fsgate_strerror(FSGATE_CALL_INIT, errno));
		return -1;
	}
	for (i = 0; i < npaths; i++) {
		mask = m->mask;
		if (m->mark_type == FSGATE_MARK_INODE &&
		    stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			mask |= FAN_EVENT_ON_CHILD;
		if (fsgate_mark(g, FSGATE_MARK_ADD | m->mark_type, mask,
				AT_FDCWD, paths[i]) < 0) {
			log_err("cannot watch %s: %s", paths[i],
				fsgate_strerror(FSGATE_CALL_MARK, errno));
			close(g);
			return -1;
		}
	}
	return g;
}

static int now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static int take(const struct fanotify_event_metadata *ev, void *arg)
{
	struct monitor *m = arg;

	if (ev->mask & FAN_Q_OVERFLOW) {
		log_warn("the queue overflowed: events were lost");
		return 0;
	}
	if (handle(m, ev))
		m->printed++;
	close(ev->fd);
	/* Past --count the rest is dropped, unread. */
	return m->count && m->printed >= m->count;
}

/* Read and print until --count, --timeout, a signal or an error. */
static int run(struct monitor *m, int g)
{
	static char buf[65536] __attribute__((aligned(8)));
	struct pollfd pfd = { .fd = g, .events = POLLIN };
	int deadline = 0, wait = -1;

	if (m->timeout_s)
		deadline = now_ms() + (int)(m->timeout_s * 1000);
	while (!stop) {
		if (m->timeout_s) {
			wait = deadline - now_ms();
			if (wait <= 0)
				break;
		}
		if (poll(&pfd, 1, wait) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			return EXIT_ERROR;
		}
		if (fsgate_events_drain(g, buf, sizeof(buf), take, m) < 0) {
			log_err("read: %s", fsgate_strerror(FSGATE_CALL_READ, errno));
			return EXIT_ERROR;
		}
		fflush(stdout);
		if (m->count && m->printed >= m->count)
			return EXIT_EVENTS;
	}
	if (stop)
		return EXIT_EVENTS;
	return m->printed ? EXIT_EVENTS : EXIT_TIMEOUT;
}

int main(int argc, char **argv)
{
	struct monitor m = {
		.mask = FSGATE_NOTIF_EVENTS,
		.mark_type = FSGATE_MARK_INODE,
		.priority = FSGATE_PRIORITY_NOTIF,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	int g, ret;

	parse_args(&m, argc, argv);
	log_open(prog, m.output == OUT_JOURNAL ? LOG_TO_JOURNAL : LOG_TO_AUTO);
	/* No SA_RESTART: a signal ends poll() at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_DFL);
	g = open_group(&m, argv + optind, argc - optind);
	if (g < 0)
		return EXIT_ERROR;
	if (!m.quiet)
		fprintf(stderr, "Watches established.\n");
	ret = run(&m, g);
	close(g);
	return ret;
}
