// SPDX-License-Identifier: MIT
/*
 * hsm: a hierarchical storage manager in miniature. Files under STORE
 * may be stubs: empty files whose extended attribute trusted.fsgate.stub
 * names their content in ARCHIVE. When a stub is opened, hsm is asked
 * first (a pre-content group, priority 3000): it copies the content into
 * the file through the event's fd, which fsgate opened read-write for
 * it, drops the attribute and only then allows the open. Groups asked
 * after it (a scanner) see the restored file.
 *
 *   hsm [--priority N] STORE ARCHIVE
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "daemon.h"

static const char *prog = "hsm";

struct hsm {
	int archive;	/* the ARCHIVE directory */
};

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [OPTION]... STORE ARCHIVE\n"
		"Restore stub files on the filesystem of STORE from ARCHIVE before\n"
		"they are opened. A stub is a file whose extended attribute\n"
		STUB_XATTR " names its content's file in ARCHIVE.\n"
		"\n"
		"  -p, --priority N  fsgate priority, 0..65535 (default 3000, before\n"
		"                    scanners at 2000)\n"
		"  -h, --help        show this help and exit\n"
		"  -V, --version     show the version and exit\n"
		"\n"
		"Each restore is logged on stdout. A stub that cannot be restored\n"
		"fails to open with EIO. Exit status: 1 if fsgate fails, 2 for bad usage.\n",
		prog);
	exit(status);
}

/* A content name is one file directly in ARCHIVE, nothing else. */
static int name_ok(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

/* Copy ARCHIVE/@name into @fd from offset 0; bytes copied, or -1. */
static long restore(const struct hsm *h, const char *name, int fd)
{
	char buf[65536];
	long total = 0;
	ssize_t n, w;
	int src;

	if (!name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	src = openat(h->archive, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (src < 0)
		return -1;
	while ((n = read(src, buf, sizeof(buf))) > 0) {
		for (w = 0; w < n;) {
			ssize_t k = pwrite(fd, buf + w, n - w, total + w);

			if (k < 0) {
				close(src);
				return -1;
			}
			w += k;
		}
		total += n;
	}
	close(src);
	/* A stub is empty, but a restore may have been cut short before. */
	if (n < 0 || ftruncate(fd, total) < 0)
		return -1;
	return total;
}

/*
 * A restored file needs hsm no more: an ignore mask on it, without
 * FSGATE_MARK_IGNORED_SURV_MODIFY, lasts until the file is written to,
 * and a new stub (mkstub) is a new file. hsm's own cache cannot do
 * this, since the file changed after hsm was asked. Being asked would
 * also cost the groups after it their cached verdicts: fsgate drops
 * them whenever a group gets a writable event fd for the file.
 */
static void ignore_restored(int group, int fd)
{
	if (fsgate_mark(group, FSGATE_MARK_ADD | FSGATE_MARK_INODE |
			FSGATE_MARK_IGNORED_MASK, FAN_OPEN_PERM, fd, NULL) < 0)
		printf("%s: cannot ignore a restored file: %s\n", prog,
		       fsgate_strerror(FSGATE_CALL_MARK, errno));
}

static void handle(int group, const struct fanotify_event_metadata *ev,
		   void *arg)
{
	const struct hsm *h = arg;
	char name[NAME_MAX + 1], path[PATH_MAX], comm[32];
	uint32_t response;
	ssize_t n;
	long size;

	n = fgetxattr(ev->fd, STUB_XATTR, name, sizeof(name) - 1);
	if (n < 0) {
		/*
		 * Not a stub: nothing to do, now or on later opens until
		 * the file changes (tagging it changes its ctime).
		 */
		response = FSGATE_ALLOW | FSGATE_CACHE;
	} else {
		name[n] = '\0';
		fd_path(ev->fd, path, sizeof(path));
		size = restore(h, name, ev->fd);
		/*
		 * Content first, tag last: a restore cut short leaves a
		 * stub that the next open restores again.
		 */
		if (size >= 0 && fremovexattr(ev->fd, STUB_XATTR) < 0)
			size = -1;
		if (size >= 0) {
			printf("%s: restored %s (%ld bytes) for %s (pid %d): allow\n",
			       prog, path, size,
			       pid_comm(ev->pid, comm, sizeof(comm)), ev->pid);
			response = FSGATE_ALLOW;
		} else {
			printf("%s: cannot restore %s from %s: %s: deny with EIO\n",
			       prog, path, name, strerror(errno));
			response = FSGATE_DENY_ERRNO(EIO);
		}
	}
	if (response == FSGATE_ALLOW)
		ignore_restored(group, ev->fd);
	/*
	 * Closed before answering, as fsgate lets an answer name an fd
	 * number the daemon read and closed: the groups after it are asked
	 * once the answer is in, and a writable fd closed after that ends a
	 * write under their verdict, which then cannot be cached (and an
	 * exec of the file would fail with ETXTBSY while it is open).
	 */
	close(ev->fd);
	if (fsgate_respond(group, ev->fd, response) < 0)
		printf("%s: answer not taken: %s\n", prog,
		       fsgate_strerror(FSGATE_CALL_RESPOND, errno));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { COMMON_OPTIONS };
	struct fsgate_init init = {
		/* Its own reads of ARCHIVE must never wait for itself. */
		.flags = FSGATE_CLASS_PRE_CONTENT | FSGATE_CLOEXEC |
			 FSGATE_EXCLUDE_SELF,
		/* Event fds it can write the content through. */
		.event_f_flags = O_RDWR | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_PRE_CONTENT,
		/* An empty stub must never pass for its content. */
		.timeout_verdict = FSGATE_VERDICT_DENY,
		.orphan_verdict = FSGATE_VERDICT_DENY,
	};
	struct hsm h;
	int opt, g;

	while ((opt = getopt_long(argc, argv, COMMON_OPTSTRING, opts,
				  NULL)) != -1)
		common_option(prog, opt, &init, usage);
	if (argc - optind != 2)
		usage(2);
	h.archive = open(argv[optind + 1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h.archive < 0)
		err(2, "%s", argv[optind + 1]);
	g = open_group(&init, FAN_OPEN_PERM, argv[optind]);
	printf("%s: watching %s at priority %u, restoring from %s\n", prog,
	       argv[optind], init.priority, argv[optind + 1]);
	return serve(prog, g, handle, &h);
}
