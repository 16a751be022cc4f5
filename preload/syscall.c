// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * syscall(SYS_fanotify_init, ...), syscall(SYS_fanotify_mark, ...) and
 * syscall(SYS_read, ...) served like the libc functions; every other
 * number goes to libc's syscall() with its arguments as they came.
 *
 * syscall() is variadic and does not say how many arguments it has, so
 * six are taken and passed on, as libc's own syscall() does. That needs
 * an ABI where every argument, the 64-bit fanotify_mark() mask included,
 * fits one long: 64-bit x86 and arm. Elsewhere the layer leaves syscall()
 * alone and serves the libc functions only.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#if defined(__x86_64__) || defined(__aarch64__)

typedef long syscall_fn(long number, ...);

static void *next_syscall;

long syscall(long number, ...)
{
	syscall_fn *next;
	va_list ap;
	long a[6];
	int i;

	va_start(ap, number);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	switch (number) {
	case SYS_fanotify_init:
		return preload_fanotify_init(a[0], a[1]);
	case SYS_fanotify_mark:
		return preload_fanotify_mark(a[0], a[1], a[2], a[3],
					    (const char *)a[4]);
	case SYS_read:
		return preload_read(a[0], (void *)a[1], a[2]);
	}
	next = (syscall_fn *)preload_next_cached(&next_syscall, "syscall");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

#endif
