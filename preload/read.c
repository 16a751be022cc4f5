// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read() for groups made with FAN_REPORT_PIDFD: their events come with
 * fsgate's process-context records, which become fanotify's pidfd
 * records before the program sees them (pidfd.c). Such fds are marked in
 * a bitmap, so that a read() of any other fd costs one bit test on its
 * way to libc.
 *
 * A number leaves the bitmap when close(), dup2() or dup3() ends it; dup()
 * and dup2()/dup3() of a marked fd mark the copy. An fd closed another
 * way (close_range(), a close in another library's own system call) and
 * its number given to a new file must not have the file's bytes taken
 * for events, so a marked fd is also asked whether it is still a group
 * before its events are rewritten. Not served: fds inherited across
 * execve(), fcntl(F_DUPFD), readv() and stdio on the fd.
 */
#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "preload.h"

#define WORD_BITS (sizeof(unsigned long) * CHAR_BIT)

static unsigned long tracked[PRELOAD_TRACKED_MAX / WORD_BITS];
/* Those of tracked[] made with FAN_REPORT_FD_ERROR. */
static unsigned long fd_errors[PRELOAD_TRACKED_MAX / WORD_BITS];

typedef ssize_t read_fn(int fd, void *buf, size_t count);
typedef ssize_t read_chk_fn(int fd, void *buf, size_t count, size_t buflen);
typedef int close_fn(int fd);
typedef int dup_fn(int fd);
typedef int dup2_fn(int oldfd, int newfd);
typedef int dup3_fn(int oldfd, int newfd, int flags);

static void *next_read, *next_read_chk, *next_close, *next_dup, *next_dup2,
	    *next_dup3;

/*
 * Look the libc functions up as the layer loads, not in a program's first
 * read() or close(), which may come from a signal handler, where dlsym()
 * may not be called.
 */
static void __attribute__((constructor)) look_up(void)
{
	preload_next_cached(&next_read, "read");
	preload_next_cached(&next_read_chk, "__read_chk");
	preload_next_cached(&next_close, "close");
	preload_next_cached(&next_dup, "dup");
	preload_next_cached(&next_dup2, "dup2");
	preload_next_cached(&next_dup3, "dup3");
}

static bool in_range(int fd)
{
	return fd >= 0 && fd < PRELOAD_TRACKED_MAX;
}

int preload_track(int fd)
{
	if (!in_range(fd))
		return -1;
	__atomic_fetch_or(&tracked[fd / WORD_BITS], 1UL << fd % WORD_BITS,
			  __ATOMIC_RELAXED);
	return 0;
}

void preload_track_fd_error(int fd)
{
	if (in_range(fd))
		__atomic_fetch_or(&fd_errors[fd / WORD_BITS],
				  1UL << fd % WORD_BITS, __ATOMIC_RELAXED);
}

static void untrack(int fd)
{
	if (!in_range(fd))
		return;
	__atomic_fetch_and(&tracked[fd / WORD_BITS], ~(1UL << fd % WORD_BITS),
			   __ATOMIC_RELAXED);
	__atomic_fetch_and(&fd_errors[fd / WORD_BITS],
			   ~(1UL << fd % WORD_BITS), __ATOMIC_RELAXED);
}

bool preload_tracked(int fd)
{
	return in_range(fd) &&
	       __atomic_load_n(&tracked[fd / WORD_BITS], __ATOMIC_RELAXED) &
	       1UL << fd % WORD_BITS;
}

bool preload_tracked_fd_error(int fd)
{
	return in_range(fd) &&
	       __atomic_load_n(&fd_errors[fd / WORD_BITS], __ATOMIC_RELAXED) &
	       1UL << fd % WORD_BITS;
}

/* @newfd now refers to what @oldfd does: marked exactly when @oldfd is. */
static void copied(int oldfd, int newfd)
{
	bool fd_error = preload_tracked_fd_error(oldfd);

	/* dup2(fd, fd) changes nothing, and neither may its marks. */
	if (newfd < 0 || newfd == oldfd)
		return;
	untrack(newfd);
	if (preload_tracked(oldfd))
		preload_track(newfd);
	if (fd_error)
		preload_track_fd_error(newfd);
}

/*
 * The @n bytes read() put in @buf (@count bytes) from @fd, rewritten if
 * @fd is marked.
 */
static ssize_t rewrite(int fd, void *buf, size_t count, ssize_t n)
{
	int saved = errno;

	if (n <= 0 || !preload_tracked(fd) || !preload_is_group(fd))
		return n;
	if (preload_tracked_fd_error(fd))
		n = (ssize_t)preload_pidfd_rewrite_ext(buf, n, count,
						       preload_pidfd_errno_of,
						       -ESRCH);
	else
		n = (ssize_t)preload_pidfd_rewrite(buf, n, count,
						   preload_pidfd_of);
	errno = saved;
	return n;
}

static void *next(void **slot, const char *name)
{
	void *fn = preload_next_cached(slot, name);

	if (!fn)
		errno = ENOSYS;
	return fn;
}

ssize_t preload_read(int fd, void *buf, size_t count)
{
	read_fn *fn = (read_fn *)next(&next_read, "read");

	if (!fn)
		return -1;
	if (!preload_tracked(fd))
		return fn(fd, buf, count);
	return rewrite(fd, buf, count, fn(fd, buf, count));
}

ssize_t read(int fd, void *buf, size_t count)
{
	return preload_read(fd, buf, count);
}

/* read() as _FORTIFY_SOURCE calls it. */
ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	read_chk_fn *fn = (read_chk_fn *)next(&next_read_chk, "__read_chk");

	if (!fn)
		return -1;
	if (!preload_tracked(fd))
		return fn(fd, buf, count, buflen);
	return rewrite(fd, buf, count, fn(fd, buf, count, buflen));
}

int close(int fd)
{
	close_fn *fn = (close_fn *)next(&next_close, "close");

	if (!fn)
		return -1;
	untrack(fd);
	return fn(fd);
}

int dup(int oldfd)
{
	dup_fn *fn = (dup_fn *)next(&next_dup, "dup");
	int fd;

	if (!fn)
		return -1;
	fd = fn(oldfd);
	copied(oldfd, fd);
	return fd;
}

int dup2(int oldfd, int newfd)
{
	dup2_fn *fn = (dup2_fn *)next(&next_dup2, "dup2");
	int fd;

	if (!fn)
		return -1;
	fd = fn(oldfd, newfd);
	copied(oldfd, fd);
	return fd;
}

int dup3(int oldfd, int newfd, int flags)
{
	dup3_fn *fn = (dup3_fn *)next(&next_dup3, "dup3");
	int fd;

	if (!fn)
		return -1;
	fd = fn(oldfd, newfd, flags);
	copied(oldfd, fd);
	return fd;
}
