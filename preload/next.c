// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The definitions the layer hides: libc's fanotify_init(), fanotify_mark()
 * and syscall(), for the fallback and for calls that are not the layer's.
 */
#include <dlfcn.h>

#include "preload.h"

void *preload_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}
