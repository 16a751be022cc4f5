/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsgate-scan's parts: its settings (config.c), the YARA rules
 * (rules.c), the workers that decide events (pool.c) and the groups
 * they answer (main.c).
 */
#ifndef FSGATE_SCAN_H
#define FSGATE_SCAN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include <fsgate.h>

#include "common/group.h"
#include "common/hold.h"

#define LIST_MAX 64

struct settings {
	const char *watch[LIST_MAX];	/* filesystems to mark */
	size_t nwatch;
	const char *rules[LIST_MAX];	/* rule files or directories */
	size_t nrules;
	const char *exclude_path[LIST_MAX];
	size_t nexclude_path;
	const char *mute_exe[LIST_MAX];	/* programs fsgate mutes */
	size_t nmute_exe;
	unsigned int priority;
	unsigned int threads;
	uint64_t max_size;
	int large_allow;		/* verdict for files over max_size */
	int fail_closed;		/* errors, timeouts, orphans deny */
	unsigned int queue;		/* accesses waiting for a worker */
	int overload_allow;		/* verdict past the queue or in time */
	int overload_set;		/* overload = given; else it follows fail */
	unsigned int timeout_ms;
	int deny_errno;
	int cache;
	/* persist =, absent = ...; absent follows fail unless given */
	struct group_persist persist;
};

/* Load @path into @s (see etc/fsgate/scan.conf); 0, or -1 having said why. */
int settings_read(struct settings *s, const char *path, int optional);
/* The defaults, before any file or option. */
void settings_default(struct settings *s);

/* Compiled YARA rules, replaced whole on reload. */
struct rules;

int rules_init(void);
void rules_exit(void);
/* Compile or load every file of @s->rules; NULL having logged why. */
struct rules *rules_load(const struct settings *s);
void rules_free(struct rules *r);
unsigned int rules_count(const struct rules *r);
/*
 * Scan @len bytes: 1 and the first matching rule's name in @match, 0
 * when none matches, -1 on a scan error (its message in @match).
 */
int rules_scan(struct rules *r, const void *buf, size_t len, char *match,
	       size_t matchlen);

/* The listener group the workers answer. */
struct group {
	int fd;
};

/* What the workers count, for the statistics. */
struct counters {
	atomic_ullong scanned, clean, detected, errors, large, excluded;
	atomic_ullong overloaded;	/* decided by overload, unscanned */
};

struct pool;

/*
 * Start @s->threads workers deciding events with the rules *@rules
 * (read under @lock, which a reload takes for writing), within @w.
 */
struct pool *pool_start(const struct settings *s, struct rules **rules,
			pthread_rwlock_t *lock, struct counters *counters,
			const struct waits *w);
/*
 * Hand one event of @g to a worker, which answers it and closes its fd;
 * past the queue's bound, answer it with the overload verdict at once.
 */
void pool_submit(struct pool *p, struct group *g,
		 const struct fanotify_event_metadata *ev);
/*
 * Keep the deadlines of the accesses held: more time for those whose
 * deadline is near, the overload verdict for those that can have no
 * more. Milliseconds until it should run again, -1 with none held.
 */
int pool_tick(struct pool *p);
void pool_stop(struct pool *p);

#endif /* FSGATE_SCAN_H */
