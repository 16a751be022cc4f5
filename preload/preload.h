/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libfsgate-fanotify: the parts of the LD_PRELOAD layer, each in its own
 * file so that the host tests can fake the ones a part calls.
 */
#ifndef FSGATE_PRELOAD_H
#define FSGATE_PRELOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <fsgate.h>

/* What the environment asks of the groups the layer makes (env.c). */
struct preload_env {
	uint32_t priority;		/* FSGATE_PRIORITY */
	uint32_t timeout_ms;		/* FSGATE_TIMEOUT_MS */
	uint32_t timeout_verdict;	/* FSGATE_TIMEOUT_VERDICT */
	bool fallback;			/* FSGATE_FALLBACK */
};

/*
 * Parsers of the variables' values, shared with fsgate-run's options.
 * Each returns 0, or -1 when @s is not a valid value (out untouched).
 */
int preload_parse_priority(const char *s, uint32_t *out);
int preload_parse_timeout(const char *s, uint32_t *out);
int preload_parse_verdict(const char *s, uint32_t *out);
int preload_parse_fallback(const char *s, bool *out);

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

/* The next definition of a libc symbol, the one the layer hides (next.c). */
void *preload_next(const char *name);

/* Print "libfsgate-fanotify: @msg" on stderr, once per @once (warn.c). */
void preload_warn(int *once, const char *msg);

#endif /* FSGATE_PRELOAD_H */
