// SPDX-License-Identifier: MIT
/*
 * mkstub: make FILE a stub for hsm: empty it and tag it with the name
 * of its content's file in hsm's archive. What an HSM does when it
 * moves a file's content to slower storage, without the moving.
 *
 *   mkstub FILE NAME
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "daemon.h"

static const char *prog = "mkstub";

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s FILE NAME\n"
		"Make FILE (created if need be) an empty stub whose content is the\n"
		"file NAME in hsm's archive, by setting its " STUB_XATTR "\n"
		"attribute. Needs root (a trusted.* attribute).\n"
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
	int fd;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		usage(0);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")))
		print_version(prog);
	if (argc != 3 || argv[1][0] == '-')
		usage(2);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		err(1, "%s", argv[1]);
	if (fsetxattr(fd, STUB_XATTR, argv[2], strlen(argv[2]), 0) < 0)
		err(1, "%s: setting " STUB_XATTR, argv[1]);
	if (close(fd) < 0)
		err(1, "%s", argv[1]);
	return 0;
}
