// SPDX-License-Identifier: MIT
/*
 * The parts the example daemons share; see daemon.h.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "parse.h"

void common_option(const char *prog, int opt, struct fsgate_init *init,
		   void (*usage)(int status))
{
	switch (opt) {
	case 'p':
		init->priority = option_number("--priority", optarg,
					       FSGATE_PRIORITY_MAX);
		break;
	case 'h':
		usage(0);
		break;
	case 'V':
		print_version(prog);
		break;
	default:
		usage(2);
	}
}

void print_version(const char *prog)
{
	printf("%s (fsgate examples) %s\n", prog, VERSION);
	exit(0);
}

unsigned int option_number(const char *opt, const char *text,
			   unsigned long max)
{
	uint32_t n;

	if (parse_number(text, max, &n))
		errx(2, "%s '%s' is not a number in 0..%lu", opt,
		     text, max);
	return n;
}

unsigned int option_verdict(const char *opt, const char *text)
{
	uint32_t v;

	if (parse_verdict(text, &v))
		errx(2, "%s '%s' is neither allow nor deny", opt, text);
	return v;
}

int open_group(const struct fsgate_init *init, uint64_t mask,
	       const char *path)
{
	int g = fsgate_init_ext(init);

	if (g < 0)
		errx(1, "cannot make a group: %s",
		     fsgate_strerror(FSGATE_CALL_INIT, errno));
	if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM, mask,
			AT_FDCWD, path) < 0)
		errx(1, "cannot mark %s: %s", path,
		     fsgate_strerror(FSGATE_CALL_MARK, errno));
	/* One line per decision, in order with the others' logs. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return g;
}

/*
 * No signal is caught: a daemon that dies, however, closes its group
 * fd, and fsgate gives the events it still holds its orphan verdict.
 */
int serve(const char *prog, int group, event_handler handle, void *arg)
{
	/* Records are 8-byte aligned; fsgate_event_next() checks it. */
	static char buf[16384] __attribute__((aligned(8)));
	const struct fanotify_event_metadata *ev;
	struct fsgate_events it;
	ssize_t len;

	for (;;) {
		len = read(group, buf, sizeof(buf));
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0) {
			warnx("read: %s",
			      fsgate_strerror(FSGATE_CALL_READ, errno));
			return 1;
		}
		fsgate_events_init(&it, buf, len);
		while ((ev = fsgate_event_next(&it))) {
			if (ev->mask & FAN_Q_OVERFLOW) {
				printf("%s: queue overflow: events were lost\n",
				       prog);
				continue;
			}
			handle(group, ev, arg);
		}
		if (it.error) {
			warnx("%s", fsgate_strerror(FSGATE_CALL_READ, it.error));
			return 1;
		}
	}
}

const char *fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	if (n < 0)
		return "?";
	buf[n] = '\0';
	return buf;
}

const char *pid_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, len, f)) {
		if (f)
			fclose(f);
		return "already exited";
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}
