/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module's options in a modprobe.d(5) file, so that parameters set
 * now are set again when the module is next loaded.
 */
#ifndef TOOLS_MODCONF_H
#define TOOLS_MODCONF_H

#include <stddef.h>

/* Where fsgatectl params --persist writes fsgate's options. */
#define MODCONF_FSGATE "/etc/modprobe.d/fsgate.conf"

/*
 * Each of the @n @set ("NAME=VALUE") into the "options @module ..." of
 * @path: a NAME there already gets the new value in its place, another
 * is appended. Every "options @module" line becomes one, where the
 * first was (at the end of a file without one); other lines stay as
 * they are. A missing @path is made, with a comment saying by what.
 * The file is replaced at once (file_replace()), mode 0644.
 * Return: 0, or -1 with errno set (EINVAL: an entry of @set without
 * '=', or with whitespace).
 */
int modconf_set(const char *path, const char *module,
		const char *const *set, size_t n);

#endif /* TOOLS_MODCONF_H */
