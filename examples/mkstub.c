// SPDX-License-Identifier: MIT
/*
 * mkstub: make FILE a stub for hsm: an empty file tagged with the name
 * of its content's file in hsm's archive. What an HSM does when it
 * moves a file's content to slower storage, without the moving.
 *
 * The stub is made beside FILE and renamed over it rather than FILE
 * being truncated: readers see the old file or the whole stub, never an
 * untagged empty file; and the stub is a new inode, which carries none
 * of the ignore masks hsm put on the file it restored (fsgate clears
 * those on write(2), but not on truncation).
 *
 *   mkstub FILE NAME
 */
#include <err.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "daemon.h"

static const char *prog = "mkstub";

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s FILE NAME\n"
		"Replace FILE (or create it) with an empty stub whose content is the\n"
		"file NAME in hsm's archive: its " STUB_XATTR " attribute\n"
		"names it. Needs root (a trusted.* attribute).\n"
		"\n"
		"  -h, --help     show this help and exit\n"
		"  -V, --version  show the version and exit\n"
		"\n"
		"Exit status: 1 if FILE cannot be made a stub, 2 for bad usage.\n",
		prog);
	exit(status);
}

int main(int argc, char **argv)
{
	char tmp[PATH_MAX];
	int fd;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		usage(0);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")))
		print_version(prog);
	if (argc != 3 || argv[1][0] == '-')
		usage(2);
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", argv[1]) >= (int)sizeof(tmp))
		errx(1, "%s: name too long", argv[1]);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		err(1, "%s", tmp);
	if (fchmod(fd, 0644) < 0 ||
	    fsetxattr(fd, STUB_XATTR, argv[2], strlen(argv[2]), 0) < 0 ||
	    close(fd) < 0 || rename(tmp, argv[1]) < 0) {
		warn("%s", argv[1]);
		unlink(tmp);
		return 1;
	}
	return 0;
}
