/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsbench: what its parts share. fsbench.c picks a case and prints its
 * CSV row, watch.c runs the listener groups of a case in a child process,
 * loop.c times the access loops, slab.c counts kernel memory.
 */
#ifndef FSBENCH_H
#define FSBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Names of the benchmark files: "f000000" and up, in one directory. */
#define BENCH_NAME_LEN	24
void bench_name(char *buf, long i);

/* --- watch.c: listener groups served by a child process --- */

enum watch_api { API_INOTIFY, API_FANOTIFY, API_FSGATE };

/**
 * struct watch_group - one listener group of a case
 * @api: which interface makes the group
 * @flags: FAN_CLASS_* (= FSGATE_CLASS_*) and group flags
 * @priority: fsgate only: explicit priority or FSGATE_PRIORITY_DEFAULT
 * @mark_type: FAN_MARK_INODE, FAN_MARK_MOUNT or FAN_MARK_FILESYSTEM
 * @mask: events to mark for
 * @path: the object marked; with @inode_marks, the directory whose first
 *	@inode_marks benchmark files each get an inode mark
 * @inode_marks: see @path; 0 to mark @path itself
 * @response: what permission events are answered (FAN_ALLOW, with
 *	FSGATE_CACHE for fsgate's verdict cache)
 * @ignore_after_first: add an ignore mark for FAN_OPEN_PERM on the file
 *	of each permission event before answering it (fanotify's way of
 *	not being asked again)
 * @mute_pid: fsgate only: a process the group mutes (FSGATE_IOC_MUTE,
 *	FSGATE_MUTE_PROCESS); 0 for none
 * @filter_tenth: fsgate only: a classic BPF filter (FSGATE_IOC_SET_FILTER)
 *	allows the files whose inode number is not a multiple of 10 in
 *	the kernel and asks the group about the rest
 * @threads: threads of the watcher process that read and answer the
 *	group's events (a multi-threaded daemon); 1 for the process alone
 */
struct watch_group {
	enum watch_api api;
	unsigned int flags;
	unsigned int priority;
	unsigned int mark_type;
	uint64_t mask;
	const char *path;
	long inode_marks;
	uint32_t response;
	bool ignore_after_first;
	int mute_pid;
	bool filter_tenth;
	int threads;
};

#define WATCH_MAX_GROUPS 16
#define WATCH_MAX_THREADS 16

/**
 * struct watch - the running watcher processes of a case
 * @nproc: how many: one serving every group, or one per group
 * @pid: the children
 * @status: the children's ends of their status pipes, read by the parent
 * @mark_bytes: slab bytes the child's marks added (see slab.c)
 * @mark_top: the caches that grew most while marking
 * @events: events the child read, filled by watch_stop()
 * @overflows: FAN_Q_OVERFLOW records (IN_Q_OVERFLOW for inotify) read
 */
struct watch {
	int nproc;
	int pid[WATCH_MAX_GROUPS];
	int status[WATCH_MAX_GROUPS];
	long mark_bytes;
	char mark_top[128];
	long events;
	long overflows;
};

/*
 * Start a child that makes @n groups, marks and serves them, or with
 * @per_group one child per group, as so many daemons would. Returns 0
 * once every mark is in place, 1 (message in @why) if the module or
 * kernel does not support what a group asks for, -1 on any other error.
 */
int watch_start(struct watch *w, const struct watch_group *groups, int n,
		bool per_group, char *why, size_t len);
/* Stop the children and collect their counters. Returns 0 or -1. */
int watch_stop(struct watch *w);

/* --- tool.c: a real program as the watcher --- */

/*
 * Start "sh -c @cmd" (which execs the program, so that the shell's pid
 * is the program's) and wait until it has a fanotify or fsgate mark (its /proc/PID/fdinfo), then a second more for it to
 * settle. Returns its pid, or -1 (message in @why) if it did not mark
 * within a minute or ended.
 */
int tool_start(const char *cmd, char *why, size_t len);
/* SIGINT, SIGTERM after 5 s, SIGKILL after 10 s: its exit status or -1. */
int tool_stop(int pid);
/* Run "sh -c @cmd" to its end; its duration in ns, or 0 on failure. */
uint64_t tool_time(const char *cmd);

/* --- loop.c: the timed access loops --- */

enum loop_kind { LOOP_OPEN, LOOP_READ, LOOP_CREATE };

/*
 * One pass: open (and read 4 KiB of) and close @count files named by
 * @names (taken round-robin from @nnames), relative to @dirfd; for
 * LOOP_CREATE, create each (O_CREAT | O_EXCL), close and unlink it. The
 * duration of each open() goes to @lat (ns). Returns the pass's
 * accesses per second, or -1 with errno set.
 */
double loop_pass(int dirfd, const char (*names)[BENCH_NAME_LEN], long nnames,
		 long count, enum loop_kind kind, uint64_t *lat);

/*
 * loop_pass() split over @nproc accessor processes, each with its own
 * slice of the @count accesses (all of them the one file when @nnames is
 * 1), started together once all are ready. Returns the accesses per
 * second of all of them, from the start to the last one's end, or -1
 * with errno set.
 */
#define LOOP_MAX_ACCESSORS 16
double loop_pass_parallel(int dirfd, const char (*names)[BENCH_NAME_LEN],
			  long nnames, long count, enum loop_kind kind,
			  uint64_t *lat, int nproc);

/* CLOCK_MONOTONIC in ns: under -icount, executed instructions. */
uint64_t now_ns(void);
/* The median of @n doubles (sorts them). */
double median(double *v, int n);
/* The @pct percentile of @n samples (sorts them). */
uint64_t percentile(uint64_t *v, size_t n, double pct);

/* --- slab.c: kernel memory from /proc/slabinfo --- */

#define SLAB_MAX_CACHES 1024

struct slab_snap {
	int n;
	struct {
		char name[64];
		long bytes;
	} cache[SLAB_MAX_CACHES];
};

/* Fill @s with active_objs * objsize of every cache. Returns 0 or -1. */
int slab_snapshot(struct slab_snap *s);
/*
 * Bytes the caches grew from @a to @b, with the three that grew most
 * written to @top as "name:+bytes ...".
 */
long slab_delta(const struct slab_snap *a, const struct slab_snap *b,
		char *top, size_t len);
/* Bytes the one cache @name grew from @a to @b. */
long slab_growth(const struct slab_snap *a, const struct slab_snap *b,
		 const char *name);

#endif /* FSBENCH_H */
