/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the permission event tests: a forked process makes the
 * access and exits with its errno, while the test answers its groups.
 */
#ifndef PERM_UTIL_H
#define PERM_UTIL_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <linux/fanotify.h>

/*
 * A group timeout longer than any test waits: the module's ceiling on a
 * chain (max_chain_ms) is what ends such a wait. Unbounded waits
 * (FSGATE_TIMEOUT_NONE) need the module's allow_unbounded_waits.
 */
#define PERM_LONG_MS 3600000

/* A permission group with read-only event fds: class, priority, timeout
 * and verdict policies. */
int perm_group(unsigned int class, unsigned int priority, unsigned int timeout_ms,
	       unsigned int timeout_verdict, unsigned int orphan_verdict);

/* A content group at @priority that waits for its answers PERM_LONG_MS. */
int content_group(unsigned int priority);

/* Add a filesystem mark for @mask on the filesystem of @path. */
int perm_mark(int g, uint64_t mask, const char *path);

/* Make @path (mode 0755) hold @s. */
void write_file(const char *path, const char *s);

/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
long ms_since(const struct timespec *t0);

/*
 * The module's fanotify_order ("content" or "first") into @buf; 0, or
 * -1 if it cannot be read.
 */
int fanotify_order(char *buf, size_t len);

/*
 * How the boot was asked to load the module: FSGATE_FANOTIFY_ORDER
 * (tests/check sets it for the boots with fanotify_order=first), else
 * the default, "content".
 */
const char *fanotify_order_wanted(void);

/*
 * How much later than its bound a bounded wait may be seen to end: the
 * module's timer fires on time, but the woken access and the test must
 * then be scheduled, in a TCG guest: within a second on the stock
 * kernels, a few on the debug kernel (KASAN, lockdep, kmemleak).
 */
long late_ms(void);

/*
 * How much earlier than its bound a wait may end: a timeout of n jiffies
 * expires n - 1 to n jiffy periods after it is set (10 ms at HZ=100).
 */
#define JIFFY_MS 10

/* A pre-content group whose event fds are writable, as an HSM needs;
 * it waits PERM_LONG_MS. */
int hsm_group(unsigned int priority);

/* Fork a process that opens @path with @flags (and reads a byte if
 * @do_read); it exits 0, or with the errno that failed. */
pid_t spawn_open(const char *path, int flags, int do_read);

/*
 * Fork a process now that opens @path (O_RDONLY) only once give_cue()
 * writes to *@cue: a process that exists before the caller's next step
 * (a group made, a daemon attached) but accesses after it. It exits 0,
 * with the errno that failed, or 100 if the cue never came.
 */
pid_t spawn_open_on_cue(const char *path, int *cue);

/* Let the process of spawn_open_on_cue() open; 0, or -1 with errno. */
int give_cue(int cue);

/* Fork a process that execs @path; it exits 0 if the exec worked. */
pid_t spawn_exec(const char *path);

/* Wait for @pid; its exit status, or -1 if it did not exit normally. */
int reap(pid_t pid);

/* Wait up to @timeout_ms for one event on @g and read it into @ev.
 * Return: 0, or -1 on timeout or error. */
int next_event(int g, int timeout_ms, struct fanotify_event_metadata *ev);

struct fsgate_info_perm;
/*
 * A content group that reports FSGATE_REPORT_PERM records, with
 * non-blocking reads, @timeout_ms (the deny verdict after it) and
 * @max_wait_ms (0: the module's default) of its own.
 */
int deadline_group(unsigned int timeout_ms, unsigned int max_wait_ms);

/*
 * Wait up to @timeout_ms for one permission event on @g, close its fd
 * and copy its struct fsgate_info_perm into @rec. Return: 0, or -1 on
 * timeout, error or a record shorter than FSGATE_INFO_PERM_LEN_V2.
 */
int next_perm_record(int g, int timeout_ms, struct fsgate_info_perm *rec);

/* Answer the event with @fd and close @fd. Return: write()'s result. */
int answer(int g, int fd, uint32_t response);

/* Whether @g has an event to read within @timeout_ms. */
int readable(int g, int timeout_ms);

/* Whether an open of @path by a child is decided without asking @g:
 * it opens, and no event comes within 300 ms. */
int decided_quietly(int g, const char *path);

/* Open @path @n times in children, each decided without asking @g.
 * Return: 1 if all were, else 0. */
int quiet_opens(int g, const char *path, int n);

/* Open @path in a child while @g answers its event (within 5 s) with
 * @response. Return: the child's errno (0: it opened), or -1 if no event
 * came or the answer was refused (the child is killed then). */
int open_answered(int g, const char *path, uint32_t response);

struct rlimit;
/* Lower RLIMIT_NOFILE so that no fd can be opened; the old one in @rl. */
int lower_nofile(struct rlimit *rl);

#endif /* PERM_UTIL_H */
