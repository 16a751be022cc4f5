/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command-line options every tool takes the same way: --help and
 * --version, an option getopt refused, and a --priority value.
 */
#ifndef TOOLS_OPTS_H
#define TOOLS_OPTS_H

#include <getopt.h>
#include <stdio.h>

/* The last entries of a tool's getopt_long() table. */
#define OPTS_HELP_VERSION					\
	{ "help", no_argument, NULL, 'h' },			\
	{ "version", no_argument, NULL, 'V' },			\
	{ 0 }

/*
 * For an @opt of 'h', 'V' or what getopt refused: print @usage to stdout
 * and exit 0, print "@prog VERSION" and exit 0, or point at --help and
 * exit @usage_status. Every tool answers these three alike.
 */
__attribute__((noreturn))
void opts_exit(int opt, const char *prog, const char *version,
	       void (*usage)(FILE *f), int usage_status);

/* A priority, 0..FSGATE_PRIORITY_MAX, into *@out: 0, or -1 if it is not. */
int opts_priority(const char *arg, long *out);

#endif /* TOOLS_OPTS_H */
