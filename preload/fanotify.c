// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fanotify_init() and fanotify_mark() served by fsgate. The fd returned
 * is an fsgate group fd, so read(), write(), poll() and close() need
 * nothing from the layer. A mark call on any other fd (an in-tree
 * fanotify fd, from the fallback or inherited) goes to libc untouched.
 */
#include <errno.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "preload.h"

typedef int init_fn(unsigned int flags, unsigned int event_f_flags);
typedef int mark_fn(int fd, unsigned int flags, uint64_t mask, int dirfd,
		    const char *pathname);

static int warned_env, warned_missing;

/* errno from fsgate_init() when fsgate.ko is not there to answer. */
static bool module_missing(int err)
{
	return err == ENOENT || err == ENXIO || err == ENODEV;
}

static int next_init(unsigned int flags, unsigned int event_f_flags)
{
	init_fn *fn = (init_fn *)preload_next("fanotify_init");

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(flags, event_f_flags);
}

static int next_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
		     const char *pathname)
{
	mark_fn *fn = (mark_fn *)preload_next("fanotify_mark");

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(fd, flags, mask, dirfd, pathname);
}

/* Without fsgate, FSGATE_FALLBACK=1 makes the layer step aside entirely. */
static int without_fsgate(const struct preload_env *env, unsigned int flags,
			  unsigned int event_f_flags)
{
	if (env->fallback)
		return next_init(flags, event_f_flags);
	preload_warn(&warned_missing, "fsgate.ko is not loaded (no "
		    FSGATE_DEVICE "); FSGATE_FALLBACK=1 uses in-tree fanotify");
	errno = ENODEV;
	return -1;
}

int preload_fanotify_init(unsigned int flags, unsigned int event_f_flags)
{
	struct fsgate_init init;
	struct preload_env env;
	const char *bad;
	int fd;

	bad = preload_env_read(&env);
	if (bad) {
		preload_warn(&warned_env, bad);
		errno = EINVAL;
		return -1;
	}
	if (!preload_init_args(flags, event_f_flags, &env, &init)) {
		if (env.fallback && access(FSGATE_DEVICE, F_OK))
			return next_init(flags, event_f_flags);
		errno = EINVAL;
		return -1;
	}
	fd = fsgate_init_ext(&init);
	if (fd < 0 && module_missing(errno))
		return without_fsgate(&env, flags, event_f_flags);
	/*
	 * /dev/fsgate is mode 0600; fanotify_init() says EPERM to a caller
	 * without the privilege, and programs test for that to say so.
	 */
	if (fd < 0 && errno == EACCES)
		errno = EPERM;
	return fd;
}

/*
 * An fsgate group fd answers FSGATE_IOC_STATS, which only reads counters;
 * a fanotify fd says ENOTTY. Asking the fd itself, rather than keeping a
 * list of the fds made here, stays right across dup(), fork() and fds
 * closed and reused, without interposing on close().
 */
static bool is_group(int fd)
{
	struct fsgate_stats stats;

	return fsgate_stats(fd, &stats) == 0;
}

int preload_fanotify_mark(int fd, unsigned int flags, uint64_t mask,
			 int dirfd, const char *pathname)
{
	if (!is_group(fd))
		return next_mark(fd, flags, mask, dirfd, pathname);
	if (!preload_mark_flags_ok(flags)) {
		errno = EINVAL;
		return -1;
	}
	return fsgate_mark(fd, flags, mask, dirfd, pathname);
}

int fanotify_init(unsigned int flags, unsigned int event_f_flags)
{
	return preload_fanotify_init(flags, event_f_flags);
}

int fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd,
		  const char *pathname)
{
	return preload_fanotify_mark(fd, flags, mask, dirfd, pathname);
}
