/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsgate-fuzz: random, mostly valid sequences against everything fsgate
 * exposes, from several processes and threads at once. fuzz.c drives
 * (options, worker processes, the pauses at which the stats identity is
 * checked, the report); ops.c holds the operations, one small function
 * each in one table; access.c the forked processes that make accesses
 * and measure their own waits; records.c the check of every record a
 * read gives; oracle.c the scripted group whose verdicts are known.
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
#define FZ_PROCS_MAX	16	/* worker processes */
/* How long a lease holder or a FUSE server lives at most. */
#define FZ_HOLDER_LIFE_S	12
/* The longest a read() of a group may take: it must not wait on a file. */
#define FZ_READ_MAX_MS	5000
/*
 * An operation kind run this often in a run must have worked at least
 * once (fz_ok()): one that always fails is a failure, named.
 */
#define FZ_OK_FLOOR_CALLS	30
/* Ids of permission events a worker answered, to see one reported again. */
#define FZ_ANSWERED	256
/* A persistent group's name: "fz<worker>-<n>", the oracle's "fzo-<n>". */
#define FZ_PNAME_LEN	24

/* State shared by every process of a run (MAP_SHARED). */
struct fz_shared {
	uint64_t seed;
	int procs, threads;
	long bound_ms;		/* longest an access may wait */
	char root[64];		/* the scratch tmpfs */
	atomic_int stop;	/* time is up */
	atomic_int pause;	/* quiesce for a stats check */
	/*
	 * Pauses begun: what a worker waits on to start the next one, since
	 * the final pause may follow a periodic one at once, so that @pause
	 * goes 1, 0, 1 quicker than any worker looks at it.
	 */
	atomic_int pause_seq;
	atomic_int parked;	/* workers quiet */
	atomic_int checked;	/* workers that checked their groups */
	/* Where each worker is in a pause (enum fz_stage), for a stuck one. */
	atomic_int stage[FZ_PROCS_MAX];
	atomic_int quiet[FZ_PROCS_MAX];	/* its threads that are parked */
	atomic_int seen[FZ_PROCS_MAX];	/* the last pause it began */
	atomic_int failures;
	atomic_int pauses;
	atomic_ulong calls[FZ_OPS_MAX];
	atomic_ulong errors[FZ_OPS_MAX];	/* calls that failed as allowed */
	atomic_ulong oks[FZ_OPS_MAX];	/* calls that did what they were for */
	uint64_t features;		/* FSGATE_FEATURE_* of the module */
	/* The verdict oracle (oracle.c). */
	atomic_int oracle_ready, oracle_stop;
	atomic_ulong oracle_asked, oracle_denied, oracle_refused;
	/* Issue 34's paths, seen: FUSE events, uid 65534's fds, overlay. */
	atomic_ulong fuse_events, nobody_fds, overlay_accesses;
	atomic_ulong accesses, access_denied, access_killed, stats_checked;
	atomic_ulong long_wait_ms;	/* the longest wait an accessor saw */
	/* Persistent groups (issue 36): what the new operations saw. */
	atomic_ulong persist_made, persist_enospc, persist_removed;
	atomic_ulong rereport_kept;	/* read, unanswered, then fd closed */
	atomic_ulong rereport_seen;	/* ... read again, same id, other fd */
	atomic_ulong cross_fd_refused;	/* answers through another fd: ENOENT */
	atomic_ulong attached_killed;	/* readers killed holding an attach */
	atomic_ulong persist_eperm;	/* uid 65534's FSGATE_IOC_PERSIST */
	atomic_int limit_busy;		/* a worker set max_persistent_groups 1 */
	atomic_ulong oracle_persisted, oracle_away, oracle_handovers;
	atomic_ulong oracle_rereported;
	char first_failure[512];
};

/* A worker's part in the pauses, named by fz_pause() if one never ends. */
enum fz_stage {
	FZ_STAGE_RUN,		/* running, waiting for the next pause */
	FZ_STAGE_THREADS,	/* waiting for its threads to park */
	FZ_STAGE_KIDS,		/* waiting for its children to end */
	FZ_STAGE_PARKED,	/* waiting for the other workers */
	FZ_STAGE_CHECK,		/* checking its groups' stats */
};

enum fz_kid_kind {
	FZ_KID_ACCESS, FZ_KID_DAEMON, FZ_KID_READER,
	FZ_KID_LEASE,		/* an unprivileged lease holder */
	FZ_KID_FUSE,		/* stallfs, serving the worker's FUSE mount */
	FZ_KID_NOBODY,		/* a group fd's holder turned uid 65534 */
	FZ_KID_ATTACHED,	/* a reader of an fd it attached itself */
};

/* One worker process, shared by its threads. */
struct fz_proc {
	pthread_rwlock_t slots_lock;	/* write: closing or replacing a slot */
	int slots[FZ_SLOTS];		/* group fds, -1 when empty */
	unsigned int slot_flags[FZ_SLOTS];	/* their struct fsgate_init flags */
	pthread_mutex_t kids_lock;
	pid_t kids[FZ_KIDS];
	enum fz_kid_kind kind[FZ_KIDS];
	/*
	 * Persistent groups (slots_lock): the name of the one whose home a
	 * slot is, "" if none. A home slot holds an fd of its group or
	 * none; fz_slot_store() never takes one, so that the worker's
	 * groups, attached or not, stay at most FZ_SLOTS (the run's bound
	 * counts that many per worker).
	 */
	char home[FZ_SLOTS][FZ_PNAME_LEN];
	unsigned int home_flags[FZ_SLOTS];	/* the group's init flags */
	bool home_until_removed[FZ_SLOTS];	/* no linger bound */
	bool home_busy[FZ_SLOTS];	/* a handover has its fd out */
	bool persisted[FZ_SLOTS];	/* the slot's group was persisted */
	/* Which group a slot's fd is of: dups and attached fds share it. */
	unsigned int tag[FZ_SLOTS], home_tag[FZ_SLOTS], next_tag;
	unsigned int persist_seq;	/* the next name's number */
	int worker;
	int dev;			/* /dev/fsgate, opened before any mark */
	atomic_int fuse_busy;		/* a thread is starting stallfs */
	/* Ids answered (fz_answered()), a ring; no lock, children fork. */
	_Atomic uint64_t answered[FZ_ANSWERED];
	atomic_uint answered_next;
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
	uint64_t stash_id[FZ_STASH];	/* its id (FSGATE_REPORT_PERM), or 0 */
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

/* The current operation did what it was for (see FZ_OK_FLOOR_CALLS). */
static inline void fz_ok(struct fz *fz)
{
	atomic_fetch_add(&fz->sh->oks[fz->op], 1);
}

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
/* ... one made with every flag of @flags, -1 (and unlocked) if none. */
int fz_slot_get_with(struct fz *fz, unsigned int *slot, unsigned int flags);
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
void fz_reader_spawn(struct fz *fz, int group, unsigned int gflags);

/* Respond to one event (used by threads, daemons and readers). */
uint32_t fz_response(struct fz *fz);
/* How fz_answer() answers: a form, ored with what it knows of the event. */
enum {
	FZ_ANY,			/* any form, picked at random */
	FZ_BY_ID,		/* by id (fsgate_respond_id()) */
	FZ_AUDITED,		/* with FSGATE_AUDIT */
	FZ_EXTEND,		/* asking for more time first */
	FZ_FORM = 0xf,
	FZ_SHARED = 0x10,	/* others read the group: by id where it can */
	FZ_LATE = 0x20,		/* the group fd's number may name another */
	FZ_KEEP = 0x40,		/* a read for a stash: the read is no success */
};
/*
 * Answer event @fd (id @id, 0 if it has none) of group @g, made with
 * @gflags, with a random verdict in the form @how says (in any form: by
 * fd number or id, after asking for more time, audited, with an audit
 * rule), and check the result. Return: the call's, errno set.
 */
long fz_answer(struct fz *fz, int g, unsigned int gflags, int fd, uint64_t id,
	       unsigned int how);

/*
 * Event @id (0: none) was answered by this process; one read again later
 * fails the run (fz_events()): no event is answered twice nor
 * re-reported once answered.
 */
void fz_answered(struct fz_proc *p, uint64_t id);
bool fz_was_answered(struct fz_proc *p, uint64_t id);
/* Remove every persistent group of this worker (its threads parked). */
void fz_persist_cleanup(struct fz *fz);
/* A valid struct fsgate_persist for @name; an absent verdict deny if @deny. */
struct fsgate_persist;
void fz_persist_req(struct fz *fz, struct fsgate_persist *req,
		    const char *name, bool deny);

/* records.c: one event of a read, checked. */
struct fz_event {
	const struct fanotify_event_metadata *meta;
	uint64_t id;		/* its struct fsgate_info_perm's, or 0 */
};
/*
 * Check the event at @buf, with @left bytes of the read after it, of a
 * group made with @gflags: its metadata, each info record's header,
 * length, alignment and content, and that they fill it exactly.
 * Return: its length, or 0 if it is bad (a failure, named).
 */
size_t fz_event_check(struct fz *fz, unsigned int gflags, const char *buf,
		      size_t left, struct fz_event *ev);
/*
 * Check each event of a read of @len bytes at @buf from a group made
 * with @gflags, and each event fd (for the reader's uid); hand those
 * with an fd to @fn, which owns the fd.
 * Return: false if a record was bad (the rest are not handed out).
 */
typedef void (*fz_event_fn)(struct fz *fz, const struct fz_event *ev,
			    void *arg);
bool fz_events(struct fz *fz, unsigned int gflags, const char *buf,
	       ssize_t len, fz_event_fn fn, void *arg);
/* The longest event a group made with @gflags can give. */
size_t fz_event_max(unsigned int gflags);
/* read() of group @g, timed (FZ_READ_MAX_MS). Return: read()'s, errno set. */
ssize_t fz_read_timed(struct fz *fz, int g, char *buf, size_t count);
/* What read() may fail with, the ABI's and the event fd's open's. */
extern const int fz_read_errnos[];
/*
 * Read group @g (made with @gflags) as a daemon or reader does, answering
 * @percent of its permission events; @serve says who reads.
 */
enum { FZ_SERVE_OWN = 1, FZ_SERVE_NOBODY = 2 };
void fz_serve(struct fz *fz, int g, unsigned int gflags, int percent,
	      unsigned int serve);
/* The overlay on ov/ (ops.c); 0 or -1. */
int fz_overlay_mount(const char *root);
/* access.c: the processes of issue 34's paths. */
void fz_lease_spawn(struct fz *fz);
void fz_fuse_spawn(struct fz *fz);
void fz_nobody_spawn(struct fz *fz);
/* A reader of an fd attached to persistent group @name, killed soon. */
pid_t fz_attached_spawn(struct fz *fz, const char *name, unsigned int gflags);

/* oracle.c: the scripted group, in a process of its own. */
void fz_oracle_main(struct fz_shared *sh);
/* An open of @path (flags @flags) worked: fail if the oracle denies it. */
void fz_oracle_check(struct fz *fz, const char *path, int flags);
/* An open of @path was refused with @err: count it for the oracle. */
void fz_oracle_refused(struct fz *fz, const char *path, int err);
/* Drop every privilege: uid and gid 65534, no groups; 0 or -1. */
int fz_drop_to_nobody(void);
/* The scratch tree's file a worker's lease holder takes. */
#define FZ_LEASE_FILE	"u/lease%d"
#define FZ_FUSE_DIR	"fu%d"
#define FZ_STALLFS	"/fsgate/bin/stallfs"
/* Whether @err is one a verdict of fz_response() can give an access. */
bool fz_errno_is_verdict(int err);

#endif /* FSGATE_FUZZ_H */
