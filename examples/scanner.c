// SPDX-License-Identifier: MIT
/*
 * scanner: an anti-malware scanner in miniature. Every regular file
 * opened on the filesystem of PATH is read through the event's fd and
 * the open is denied (EPERM) when the file holds the pattern, the EICAR
 * test string unless told otherwise. A content group at priority 2000:
 * an HSM at 3000 has filled the file before the scanner reads it.
 * Clean verdicts are cached (FSGATE_CACHE), so the next open of an
 * unchanged file does not ask the scanner again.
 *
 *   scanner [--timeout-ms MS] [--timeout-verdict allow|deny] PATH
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

static const char *prog = "scanner";

/*
 * The EICAR anti-virus test file: harmless, and every scanner reports
 * it. Split so that this source file is not flagged itself.
 */
static const char eicar[] = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR"
			    "-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";

/* Well below the scan's chunk size, which must hold a pattern and more. */
#define PATTERN_MAX 4096

struct scanner {
	const char *pattern;
	const char *pattern_name;
	size_t pattern_len;
	int cache;
};

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [OPTION]... PATH\n"
		"Scan each file opened on the filesystem of PATH and deny the open\n"
		"(EPERM) when the file holds the pattern, by default the EICAR test\n"
		"string.\n"
		"\n"
		"  -p, --priority N           fsgate priority, 0..65535 (default 2000)\n"
		"  -P, --pattern STRING       deny files that hold STRING instead\n"
		"  -t, --timeout-ms MS        how long an open waits for the scanner\n"
		"                             (default: the module's, 10000)\n"
		"  -T, --timeout-verdict V    allow or deny once it has waited that long\n"
		"                             (default allow)\n"
		"  -o, --orphan-verdict V     allow or deny the opens still waiting when\n"
		"                             the scanner dies (default allow)\n"
		"  -n, --no-cache             ask again on every open\n"
		"  -h, --help                 show this help and exit\n"
		"  -V, --version              show the version and exit\n"
		"\n"
		"Each verdict is logged on stdout. Exit status: 1 if fsgate fails,\n"
		"2 for bad usage.\n",
		prog);
	exit(status);
}

/* Whether @fd holds the pattern: 1, 0, or -1 on a read error. */
static int holds_pattern(const struct scanner *s, int fd, off_t *size)
{
	/* Chunks overlap by the pattern's length less one byte. */
	char buf[65536];
	size_t keep = 0, have;
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf + keep, sizeof(buf) - keep, off)) > 0) {
		off += n;
		have = keep + n;
		if (memmem(buf, have, s->pattern, s->pattern_len)) {
			*size = off;
			return 1;
		}
		keep = have < s->pattern_len ? have : s->pattern_len - 1;
		memmove(buf, buf + have - keep, keep);
	}
	*size = off;
	return n < 0 ? -1 : 0;
}

static void handle(int group, const struct fanotify_event_metadata *ev,
		   void *arg)
{
	const struct scanner *s = arg;
	char path[PATH_MAX], comm[32];
	uint32_t response;
	struct stat st;
	off_t size;
	int found;

	/* Only regular files have content to scan. */
	if (fstat(ev->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		response = FSGATE_ALLOW;
		goto answer;
	}
	fd_path(ev->fd, path, sizeof(path));
	pid_comm(ev->pid, comm, sizeof(comm));
	found = holds_pattern(s, ev->fd, &size);
	if (found > 0) {
		printf("%s: found %s in %s for %s (pid %d): deny\n", prog,
		       s->pattern_name, path, comm, ev->pid);
		response = FSGATE_DENY;
	} else if (found < 0) {
		printf("%s: cannot read %s: %s: deny\n", prog, path,
		       strerror(errno));
		response = FSGATE_DENY;
	} else {
		printf("%s: clean: %s (%lld bytes) for %s (pid %d): allow%s\n",
		       prog, path, (long long)size, comm, ev->pid,
		       s->cache ? ", cached" : "");
		response = FSGATE_ALLOW | (s->cache ? FSGATE_CACHE : 0);
	}
answer:
	/* ENOENT: the open was already decided, by our timeout verdict. */
	if (fsgate_respond(group, ev->fd, response) < 0)
		printf("%s: answer not taken: %s\n", prog,
		       fsgate_strerror(FSGATE_CALL_RESPOND, errno));
	close(ev->fd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pattern", required_argument, NULL, 'P' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "timeout-verdict", required_argument, NULL, 'T' },
		{ "orphan-verdict", required_argument, NULL, 'o' },
		{ "no-cache", no_argument, NULL, 'n' },
		COMMON_OPTIONS
	};
	struct fsgate_init init = {
		/* Files it opens itself (none here) must not wait for it. */
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_EXCLUDE_SELF,
		/* Reading is all a scanner does with a file. */
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_CONTENT,
		.timeout_verdict = FSGATE_VERDICT_ALLOW,
		.orphan_verdict = FSGATE_VERDICT_ALLOW,
	};
	struct scanner s = {
		.pattern = eicar,
		.pattern_name = "the EICAR test string",
		.cache = 1,
	};
	char wait[32] = "default_timeout_ms";
	int opt, g;

	while ((opt = getopt_long(argc, argv, COMMON_OPTSTRING "P:t:T:o:n",
				  opts, NULL)) != -1) {
		switch (opt) {
		case 'P':
			/* The scan keeps up to a pattern's length of a chunk. */
			if (!*optarg || strlen(optarg) > PATTERN_MAX)
				errx(2, "--pattern must be 1 to %d bytes", PATTERN_MAX);
			s.pattern = optarg;
			s.pattern_name = "the pattern";
			break;
		case 't':
			/* 0 would mean the module's default: at least 1 ms. */
			init.timeout_ms = option_number("--timeout-ms",
							optarg, 3600000);
			if (!init.timeout_ms)
				errx(2, "--timeout-ms must be at least 1");
			break;
		case 'T':
			init.timeout_verdict = option_verdict("--timeout-verdict",
							      optarg);
			break;
		case 'o':
			init.orphan_verdict = option_verdict("--orphan-verdict",
							     optarg);
			break;
		case 'n':
			s.cache = 0;
			break;
		default:
			common_option(prog, opt, &init, usage);
		}
	}
	if (argc - optind != 1)
		usage(2);
	s.pattern_len = strlen(s.pattern);
	g = open_group(&init, FAN_OPEN_PERM, argv[optind]);
	if (init.timeout_ms)
		snprintf(wait, sizeof(wait), "%u ms", init.timeout_ms);
	printf("%s: watching %s at priority %u for %s; waits %s, then %s\n",
	       prog, argv[optind], init.priority, s.pattern_name, wait,
	       init.timeout_verdict == FSGATE_VERDICT_DENY ? "deny" : "allow");
	return serve(prog, g, handle, &s);
}
