/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools' configuration files and option values: "key = value" lines,
 * '#' comments, and the few kinds of value they hold.
 */
#ifndef TOOLS_CONF_H
#define TOOLS_CONF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Called for each "key = value" line; returns NULL when it took the
 * value, or a message saying why not ("unknown key", "not a number").
 */
typedef const char *(*conf_setter)(const char *key, const char *value,
				   void *arg);

/*
 * Read @path, calling @set for each setting in order. A missing file is
 * no error when @optional. Return 0, or -1 after printing
 * "PATH:LINE: why" on stderr.
 */
int conf_read(const char *path, int optional, conf_setter set, void *arg);

/* Parsers of values: 0 and *@out set, or -1 for a malformed value. */
int conf_uint(const char *text, unsigned long max, unsigned long *out);
/* A size with an optional K, M or G suffix (powers of 1024). */
int conf_size(const char *text, uint64_t *out);
/* yes/no, true/false, on/off, 1/0. */
int conf_bool(const char *text, int *out);

#endif /* TOOLS_CONF_H */
