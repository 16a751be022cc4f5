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

/*
 * Setters for the settings several tools share, for a conf_setter: NULL
 * when *@out took the value, else why not.
 */
/* A priority, 0..FSGATE_PRIORITY_MAX. */
const char *conf_set_priority(const char *value, unsigned int *out);
/* A wait in ms, 1..3600000. */
const char *conf_set_timeout_ms(const char *value, unsigned int *out);
/* An errno a deny may carry, by name (EPERM, EIO, ...). */
const char *conf_set_deny_errno(const char *value, int *out);
/* A copy of an absolute path, added to @list of *@n (at most @max). */
const char *conf_add_path(const char *value, const char **list, size_t *n,
			  size_t max);

#endif /* TOOLS_CONF_H */
