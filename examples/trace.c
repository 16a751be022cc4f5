// SPDX-License-Identifier: MIT
/*
 * trace: print pid, events and path of every access under the given
 * paths, in the manner of fatrace. Each PATH is marked as a filesystem
 * with -f, as a directory and its children otherwise.
 *
 *   trace [-f] [-c COUNT] PATH...
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fsgate.h>

#define EVENTS (FAN_ACCESS | FAN_MODIFY | FAN_OPEN | FAN_OPEN_EXEC | \
		FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE)

/* fatrace's letters: R read, W write, O open, X exec, C close (+W). */
static const char *event_letters(uint64_t mask, char *buf)
{
	char *p = buf;

	if (mask & FAN_ACCESS)
		*p++ = 'R';
	if (mask & (FAN_MODIFY | FAN_CLOSE_WRITE))
		*p++ = 'W';
	if (mask & FAN_OPEN)
		*p++ = 'O';
	if (mask & FAN_OPEN_EXEC)
		*p++ = 'X';
	if (mask & (FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE))
		*p++ = 'C';
	if (mask & FAN_ONDIR)
		*p++ = 'D';
	if (mask & FAN_Q_OVERFLOW)
		*p++ = '!';
	*p = '\0';
	return buf;
}

static void print_event(const struct fanotify_event_metadata *ev)
{
	char link[64], path[PATH_MAX] = "?", letters[16];
	ssize_t len = 0;

	if (ev->fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", ev->fd);
		len = readlink(link, path, sizeof(path) - 1);
		if (len > 0)
			path[len] = '\0';
		close(ev->fd);
	}
	printf("%d %s %s\n", ev->pid, event_letters(ev->mask, letters), path);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned int flags = FSGATE_MARK_ADD;
	uint64_t mask = EVENTS | FAN_EVENT_ON_CHILD;
	char buf[4096] __attribute__((aligned(8)));
	long count = -1;
	int fd, opt, i;
	ssize_t len = 0;

	while ((opt = getopt(argc, argv, "fc:")) != -1) {
		switch (opt) {
		case 'f':
			flags |= FSGATE_MARK_FILESYSTEM;
			mask = EVENTS;
			break;
		case 'c':
			count = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-f] [-c COUNT] PATH...\n", argv[0]);
			return 2;
		}
	}
	if (optind >= argc)
		errx(2, "no path given");
	fd = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC | FSGATE_EXCLUDE_SELF,
			 O_RDONLY | O_CLOEXEC, FSGATE_PRIORITY_DEFAULT);
	if (fd < 0)
		err(1, "fsgate_init");
	for (i = optind; i < argc; i++)
		if (fsgate_mark(fd, flags, mask, AT_FDCWD, argv[i]) < 0)
			err(1, "fsgate_mark %s", argv[i]);
	/* Tell whoever waits for us that the marks are in place. */
	fprintf(stderr, "trace: watching\n");
	while (count != 0 && (len = read(fd, buf, sizeof(buf))) > 0) {
		const struct fanotify_event_metadata *ev = (void *)buf;

		for (; FAN_EVENT_OK(ev, len) && count != 0;
		     ev = FAN_EVENT_NEXT(ev, len), count--)
			print_event(ev);
	}
	if (len < 0)
		err(1, "read");
	return 0;
}
