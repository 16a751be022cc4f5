// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fanotify_init() and fanotify_mark() served by fsgate. The fd returned
 * is an fsgate group fd, so write(), poll() and close() need nothing
 * from the layer, and read() only for a group made with FAN_REPORT_PIDFD
 * (read.c). A mark call on any other fd (an in-tree fanotify fd, from
 * the fallback or inherited) goes to libc untouched.
 */
#include <errno.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "preload.h"

typedef int init_fn(unsigned int flags, unsigned int event_f_flags);
typedef int mark_fn(int fd, unsigned int flags, uint64_t mask, int dirfd,
		    const char *pathname);

static int warned_env, warned_missing, warned_feature, warned_pidfd;
static int warned_flush;

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
		    FSGATE_DEVICE "); to find out why: modprobe fsgate, "
		    "dkms status fsgate, mokutil --sb-state (Secure Boot); "
		    "FSGATE_FALLBACK=1 uses in-tree fanotify");
	errno = ENODEV;
	return -1;
}

/*
 * What fanotify_init() asks of the module beyond fanotify's flags, it
 * must offer: FSGATE_IOC_VERSION's feature bits say, so that a variable
 * the module cannot serve is named rather than left to a bare EINVAL
 * from FSGATE_IOC_INIT. A module that cannot answer (without the ioctl,
 * or not loaded) is left to FSGATE_IOC_INIT. Return 0, or -1 when a
 * feature is missing.
 */
static int check_features(const struct fsgate_init *init,
			  const struct preload_env *env)
{
	struct fsgate_version v;

	if (!(init->flags & (FSGATE_EXCLUDE_SELF | FSGATE_REPORT_PROC)) ||
	    fsgate_version(&v))
		return 0;
	if (init->flags & FSGATE_EXCLUDE_SELF &&
	    !(v.features & FSGATE_FEATURE_EXCLUDE_SELF)) {
		preload_warn(&warned_feature,
			     "FSGATE_EXCLUDE_SELF=1: fsgate.ko has no FSGATE_EXCLUDE_SELF");
		return -1;
	}
	if (init->flags & FSGATE_REPORT_PROC &&
	    !(v.features & FSGATE_FEATURE_REPORT_PROC)) {
		/* FAN_REPORT_PIDFD alone: EINVAL, as a kernel without it. */
		if (env->report_proc)
			preload_warn(&warned_feature,
				     "FSGATE_REPORT_PROC=1: fsgate.ko has no process records");
		return -1;
	}
	return 0;
}

/*
 * FSGATE_PERSIST=NAME: the persistent group NAME, attached to if it
 * exists (the daemon restarted: what its last run read and did not
 * answer comes again), else made from @init and made persistent. Two
 * first starts racing: the one that loses attaches to the winner's.
 * The program's fanotify_mark() calls add to the group's marks, which
 * it already has on a restart.
 */
static int persistent_group(const struct fsgate_init *init,
			    const struct preload_env *env)
{
	unsigned int flags = init->flags & (FSGATE_CLOEXEC | FSGATE_NONBLOCK);
	const char *name = env->persist_req.name;
	int fd, tries;

	for (tries = 0; tries < 2; tries++) {
		fd = fsgate_attach(name, flags);
		if (fd >= 0 || errno != ENOENT)
			return fd;
		fd = fsgate_init_ext(init);
		if (fd < 0)
			return fd;
		if (!fsgate_persist(fd, &env->persist_req))
			return fd;
		close(fd);
		if (errno != EEXIST) {
			preload_warn(&warned_feature, "FSGATE_PERSIST: cannot make the group persistent");
			return -1;
		}
	}
	errno = EEXIST;
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
		if (flags & FAN_REPORT_PIDFD && env.report_proc)
			preload_warn(&warned_pidfd,
				     "FAN_REPORT_PIDFD cannot be served with FSGATE_REPORT_PROC=1");
		errno = EINVAL;
		return -1;
	}
	if (check_features(&init, &env)) {
		errno = EINVAL;
		return -1;
	}
	fd = env.persist ? persistent_group(&init, &env) : fsgate_init_ext(&init);
	if (fd < 0 && module_missing(errno))
		return without_fsgate(&env, flags, event_f_flags);
	/*
	 * /dev/fsgate is everyone's (FSGATE_FEATURE_UNPRIV), and the module
	 * says EPERM itself for what a user may not have, as fanotify_init()
	 * does; a module before it is mode 0600, whose EACCES is that EPERM
	 * too, as programs test for it to say so.
	 */
	if (fd < 0 && errno == EACCES)
		errno = EPERM;
	if (fd >= 0 && flags & FAN_REPORT_PIDFD && preload_track(fd)) {
		close(fd);
		preload_warn(&warned_pidfd, "FAN_REPORT_PIDFD needs a group fd below 65536");
		errno = EMFILE;
		return -1;
	}
	if (fd >= 0 && flags & FAN_REPORT_PIDFD && flags & FSGATE_REPORT_FD_ERROR)
		preload_track_fd_error(fd);
	return fd;
}

/*
 * An fsgate group fd answers FSGATE_IOC_STATS, which only reads counters;
 * a fanotify fd says ENOTTY. Asking the fd itself, rather than keeping a
 * list of the fds made here, stays right across dup(), fork() and fds
 * closed and reused. read() asks it too before it rewrites what an fd
 * of its list of FAN_REPORT_PIDFD groups gave (read.c).
 */
bool preload_is_group(int fd)
{
	struct fsgate_stats stats;

	return fsgate_stats(fd, &stats) == 0;
}

/*
 * Under FSGATE_PERSIST the marks belong to the group, which outlives the
 * program. A daemon that stops in order flushes them first to "stop the
 * flow of events" (fapolicyd does, with FAN_MARK_FLUSH and its mark type),
 * which would leave the group gating nothing until its next run marks
 * again: the very window the group is there to close. Such a flush
 * succeeds and leaves the marks; `fsgatectl group remove` drops them.
 */
static bool persistent_flush(unsigned int flags)
{
	struct preload_env env;

	if (!(flags & FAN_MARK_FLUSH) || preload_env_read(&env) || !env.persist)
		return false;
	preload_warn(&warned_flush,
		     "FSGATE_PERSIST: FAN_MARK_FLUSH leaves the persistent group's marks in place");
	return true;
}

int preload_fanotify_mark(int fd, unsigned int flags, uint64_t mask,
			 int dirfd, const char *pathname)
{
	if (!preload_is_group(fd))
		return next_mark(fd, flags, mask, dirfd, pathname);
	if (!preload_mark_flags_ok(flags)) {
		errno = EINVAL;
		return -1;
	}
	if (persistent_flush(flags))
		return 0;
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
