// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pidfd for the process a struct fsgate_info_proc names. The record
 * holds a pid number, which the process may have left by the time the
 * event is read (a notification event; a permission event's process is
 * waiting for the answer), and which another process may then have. So
 * the pidfd is opened first, and then /proc/PID/stat must show the
 * record's start time: a process there since before the pidfd was opened
 * is the one the pidfd holds, and one that came later started after the
 * event, so its start time differs (/proc counts it in clock ticks, the
 * record in ns; both are the kernel's start_boottime).
 *
 * Gone, or another process at the number: FAN_NOPIDFD, as fanotify says
 * for a process that exited. Any other failure (no fd free, a /proc
 * that does not show the process): FAN_EPIDFD. For a group made with
 * FAN_REPORT_FD_ERROR, -ESRCH and the failure's -errno instead, as
 * fanotify reports them then.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * Whether the process @pidfd holds has exited: its pidfd is readable
 * then. Tells a /proc without the pid from one without the process.
 */
static bool exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/*
 * Field 22 of /proc/@pid/stat, starttime, for the process @pidfd holds:
 * 0, -ESRCH once it has exited, or another -errno.
 */
static int start_ticks(pid_t pid, int pidfd, unsigned long long *ticks)
{
	char path[32], buf[1024], *p, *end;
	int fd, field;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT && exited(pidfd) ? -ESRCH : -errno;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	/* The command name, field 2, may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	for (field = 2; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	errno = 0;
	*ticks = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1)
		return -EINVAL;
	return 0;
}

int preload_pidfd_errno_of(const struct fsgate_info_proc *proc)
{
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	int pidfd, err;

	/* 0: the process is not in the reader's pid namespace. */
	if (proc->tgid <= 0)
		return -ESRCH;
	if (hz <= 0)
		return -EINVAL;
	pidfd = (int)syscall(SYS_pidfd_open, (long)proc->tgid, 0L);
	if (pidfd < 0)
		return -errno;
	err = start_ticks(proc->tgid, pidfd, &ticks);
	if (!err && ticks == proc->start_time_ns / (1000000000ULL / hz))
		return pidfd;
	close(pidfd);
	return err ? err : -ESRCH;
}

int preload_pidfd_of(const struct fsgate_info_proc *proc)
{
	int pidfd = preload_pidfd_errno_of(proc);

	if (pidfd >= 0)
		return pidfd;
	return pidfd == -ESRCH ? FAN_NOPIDFD : FAN_EPIDFD;
}
