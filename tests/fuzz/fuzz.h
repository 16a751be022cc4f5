/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsgate-fuzz: random, mostly valid sequences against everything fsgate
 * exposes, from several processes and threads at once. fuzz.c drives
 * (options, worker processes, the pauses at which the stats identity is
 * checked, the report); ops.c holds the operations, one small function
 * each in one table; access.c the forked processes that make accesses
 * and measure their own waits.
 */
#ifndef FSGATE_FUZZ_H
#define FSGATE_FUZZ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define FZ_OPS_MAX	64
#define FZ_SLOTS	6	/* group fds per worker process */
#define FZ_KIDS		32	/* its children at once */
#define FZ_STASH	16	/* event fds a thread keeps unanswered */
/* The longest timeout a fuzzed group or default_timeout_ms may have. */
#define FZ_TIMEOUT_MAX_MS	2000
/* How long a daemon (a forked group owner) lives at most. */
#define FZ_DAEMON_LIFE_S	4
#define FZ_DAEMONS	2	/* per worker at once */

/* State shared by every process of a run (MAP_SHARED). */
struct fz_shared {
	uint64_t seed;
	int procs, threads;
	long bound_ms;		/* longest an access may wait */
	char root[64];		/* the scratch tmpfs */
	atomic_int stop;	/* time is up */
	atomic_int pause;	/* quiesce for a stats check */
	atomic_int parked;	/* workers quiet */
	atomic_int checked;	/* workers that checked their groups */
	atomic_int failures;
	atomic_int pauses;
	atomic_ulong calls[FZ_OPS_MAX];
	atomic_ulong errors[FZ_OPS_MAX];	/* calls that failed as allowed */
	atomic_ulong accesses, access_denied, access_killed, stats_checked;
	atomic_ulong long_wait_ms;	/* the longest wait an accessor saw */
	char first_failure[512];
};

enum fz_kid_kind { FZ_KID_ACCESS, FZ_KID_DAEMON, FZ_KID_READER };

/* One worker process, shared by its threads. */
struct fz_proc {
	pthread_rwlock_t slots_lock;	/* write: closing or replacing a slot */
	int slots[FZ_SLOTS];		/* group fds, -1 when empty */
	unsigned int slot_flags[FZ_SLOTS];	/* their struct fsgate_init flags */
	pthread_mutex_t kids_lock;
	pid_t kids[FZ_KIDS];
	enum fz_kid_kind kind[FZ_KIDS];
	int worker;
	int dev;			/* /dev/fsgate, opened before any mark */
};

/* One thread's state. */
struct fz {
	uint64_t rng;
	struct fz_shared *sh;
	struct fz_proc *proc;
	int worker, thread;
	int op;				/* the operation running */
	int stash_fd[FZ_STASH];		/* event fds read and not answered */
	int stash_group[FZ_STASH];	/* the group fd each came from */
	int epfd;
	void *timer;			/* interrupts a blocking read */
};

struct fz_op {
	const char *name;
	unsigned int weight;
	void (*run)(struct fz *fz);
};

extern const struct fz_op fz_ops[];
extern const unsigned int fz_nops;

/* Random numbers: the thread's own xorshift stream, from the run's seed. */
uint64_t fz_rand(struct fz *fz);
static inline unsigned int fz_below(struct fz *fz, unsigned int n)
{
	return n ? (unsigned int)(fz_rand(fz) % n) : 0;
}
static inline bool fz_chance(struct fz *fz, unsigned int percent)
{
	return fz_below(fz, 100) < percent;
}
#define FZ_PICK(fz, arr) ((arr)[fz_below((fz), sizeof(arr) / sizeof((arr)[0]))])

/* Record a failure of the current operation; the run fails. */
void fz_fail(struct fz *fz, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_fail_shared(struct fz_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A call returned @ret with errno: fine if it worked or failed with one
 * of @allowed (0-terminated); anything else is a failure, named.
 */
void fz_check(struct fz *fz, const char *what, long ret, const int *allowed);
#define FZ_ERRNOS(...) ((const int[]){ __VA_ARGS__, 0 })

long fz_now_ms(void);

/* A group fd of this process, read-locked until fz_slot_put(); -1 if none. */
int fz_slot_get(struct fz *fz, unsigned int *slot);
void fz_slot_put(struct fz *fz);

/* Children: remember one (kids_lock held), reap those done, kill one. */
void fz_kid_add_locked(struct fz_proc *p, pid_t pid, enum fz_kid_kind kind);
void fz_kids_reap(struct fz_proc *proc, bool block);
pid_t fz_kid_pick(struct fz *fz, enum fz_kid_kind kind);
int fz_kids_count(struct fz_proc *proc, enum fz_kid_kind kind);
pid_t fz_kid_peek(struct fz *fz);	/* some child's pid, or 0 */

/* A path of the scratch tree, absolute, for marks and accesses. */
const char *fz_object(struct fz *fz, char *buf, size_t len);
void fz_tree_make(const char *root);

/* access.c: a forked process that makes one or more accesses. */
void fz_access_spawn(struct fz *fz);
void fz_daemon_spawn(struct fz *fz);
void fz_reader_spawn(struct fz *fz, int group);

/* Respond to one event (used by threads, daemons and readers). */
uint32_t fz_response(struct fz *fz);
/* Whether @err is one a verdict of fz_response() can give an access. */
bool fz_errno_is_verdict(int err);

#endif /* FSGATE_FUZZ_H */
