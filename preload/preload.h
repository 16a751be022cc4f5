/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libfsgate-fanotify: the parts of the LD_PRELOAD layer, each in its own
 * file so that the host tests can fake the ones a part calls.
 */
#ifndef FSGATE_PRELOAD_H
#define FSGATE_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <fsgate.h>

/* fanotify's pidfd records (Linux 5.15), should the headers be older. */
#ifndef FAN_EVENT_INFO_TYPE_PIDFD
#define FAN_REPORT_PIDFD		0x00000080
#define FAN_EVENT_INFO_TYPE_PIDFD	4
#define FAN_NOPIDFD			FAN_NOFD
#define FAN_EPIDFD			-2
struct fanotify_event_info_pidfd {
	struct fanotify_event_info_header hdr;
	__s32 pidfd;
};
#endif

/* What the environment asks of the groups the layer makes (env.c). */
struct preload_env {
	uint32_t priority;		/* FSGATE_PRIORITY */
	uint32_t timeout_ms;		/* FSGATE_TIMEOUT_MS */
	uint32_t timeout_verdict;	/* FSGATE_TIMEOUT_VERDICT */
	uint32_t orphan_verdict;	/* FSGATE_ORPHAN_VERDICT */
	bool fallback;			/* FSGATE_FALLBACK */
	bool exclude_self;		/* FSGATE_EXCLUDE_SELF */
	bool report_proc;		/* FSGATE_REPORT_PROC */
	bool persist;			/* FSGATE_PERSIST is set: */
	struct fsgate_persist persist_req;	/* what it asks */
};

/*
 * Parsers of the variables' values, shared with fsgate-run's options.
 * Each returns 0, or -1 when @s is not a valid value (out untouched).
 */
int preload_parse_priority(const char *s, uint32_t *out);
int preload_parse_timeout(const char *s, uint32_t *out);
int preload_parse_verdict(const char *s, uint32_t *out);
int preload_parse_persist(const char *s, struct fsgate_persist *out);
/* "0" or "1": FSGATE_FALLBACK, FSGATE_EXCLUDE_SELF, FSGATE_REPORT_PROC. */
int preload_parse_switch(const char *s, bool *out);

/*
 * Read every variable into @env, defaults for the unset ones. Return NULL,
 * or a one-line message naming the first variable with a bad value.
 */
const char *preload_env_read(struct preload_env *env);

/*
 * What of fanotify fsgate serves (flags.c): fill @init for a
 * fanotify_init(@flags, @event_f_flags) and return true, or return false
 * when fsgate has no equivalent of some flag.
 */
bool preload_init_args(unsigned int flags, unsigned int event_f_flags,
		      const struct preload_env *env, struct fsgate_init *init);
bool preload_mark_flags_ok(unsigned int flags);

/* fanotify_init() and fanotify_mark() as the layer serves them (fanotify.c). */
int preload_fanotify_init(unsigned int flags, unsigned int event_f_flags);
int preload_fanotify_mark(int fd, unsigned int flags, uint64_t mask,
			 int dirfd, const char *pathname);
/* Whether @fd is an fsgate group fd: it answers FSGATE_IOC_STATS. */
bool preload_is_group(int fd);

/*
 * The fds whose reads get pidfd records (read.c): those fanotify_init()
 * made with FAN_REPORT_PIDFD, below PRELOAD_TRACKED_MAX. preload_track()
 * returns 0, or -1 for an fd too high to track.
 */
#define PRELOAD_TRACKED_MAX 65536
int preload_track(int fd);
bool preload_tracked(int fd);
/*
 * Of those, the fds of groups made with FAN_REPORT_FD_ERROR as well,
 * whose pidfd records say -errno where fanotify's would say FAN_NOPIDFD
 * or FAN_EPIDFD; @fd must be tracked already.
 */
void preload_track_fd_error(int fd);
bool preload_tracked_fd_error(int fd);
/* read() as the layer serves it: rewritten for a tracked group fd. */
ssize_t preload_read(int fd, void *buf, size_t count);

/*
 * The pidfd for the process a struct fsgate_info_proc names, or FAN_NOPIDFD
 * when it has exited, or FAN_EPIDFD (process.c).
 */
int preload_pidfd_of(const struct fsgate_info_proc *proc);
/* ... or -ESRCH, or another -errno: FAN_REPORT_FD_ERROR's values. */
int preload_pidfd_errno_of(const struct fsgate_info_proc *proc);

/*
 * Rewrite the @len bytes of events read into @buf (@cap bytes) in place:
 * each struct fsgate_info_proc becomes a struct fanotify_event_info_pidfd
 * with the pidfd @pidfd_of gives, each event's event_len shrinks to
 * match and the events close up; an event without one gets a
 * FAN_NOPIDFD record if @cap has room. Return the new length (pidfd.c).
 */
size_t preload_pidfd_rewrite(void *buf, size_t len, size_t cap,
			     int (*pidfd_of)(const struct fsgate_info_proc *proc));
/* The same, with @none in the record of an event without a process. */
size_t preload_pidfd_rewrite_ext(void *buf, size_t len, size_t cap,
				 int (*pidfd_of)(const struct fsgate_info_proc *proc),
				 int none);

/* The next definition of a libc symbol, the one the layer hides (next.c). */
void *preload_next(const char *name);

/*
 * preload_next(@name), looked up once into @slot: some programs make
 * every futex call through syscall(), and every read() goes through
 * the layer.
 */
static inline void *preload_next_cached(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = preload_next(name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

/* Print "libfsgate-fanotify: @msg" on stderr, once per @once (warn.c). */
void preload_warn(int *once, const char *msg);

#endif /* FSGATE_PRELOAD_H */
