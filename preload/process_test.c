// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cmocka: the pidfd for a record's process, on real processes of the
 * host: its own child, one that exited, one whose start time is not the
 * record's (the pid given to another); pidfd_open() may be made to fail
 * through a wrapped syscall() (-Wl,--wrap=syscall), and /proc/PID/stat
 * be missing through a wrapped open() (-Wl,--wrap=open).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

long __real_syscall(long number, ...);

/* 0: the real system call; else pidfd_open() fails with this errno. */
static int pidfd_open_errno;
/* Whether open() finds no /proc/PID/stat, as where /proc is not mounted. */
static int no_proc;

int __real_open(const char *path, int flags, ...);

int __wrap_open(const char *path, int flags, ...)
{
	if (no_proc && !strncmp(path, "/proc/", 6)) {
		errno = ENOENT;
		return -1;
	}
	return __real_open(path, flags);
}

long __wrap_syscall(long number, ...)
{
	va_list ap;
	long pid, flags;

	va_start(ap, number);
	pid = va_arg(ap, long);
	flags = va_arg(ap, long);
	va_end(ap);
	assert_int_equal(number, SYS_pidfd_open);
	assert_int_equal(flags, 0);
	if (pidfd_open_errno) {
		errno = pidfd_open_errno;
		return -1;
	}
	return __real_syscall(number, pid, flags);
}

/* A sandbox that forbids pidfd_open() (ENOSYS, EPERM): nothing to test. */
static void need_pidfd_open(void)
{
	long fd = __real_syscall(SYS_pidfd_open, (long)getpid(), 0L);

	if (fd < 0)
		skip();
	close(fd);
}

/* A child that sleeps until killed. */
static pid_t sleeper(void)
{
	pid_t pid;

	need_pidfd_open();
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A record for @pid whose start time is the one /proc shows for it. */
static struct fsgate_info_proc record_of(pid_t pid)
{
	struct fsgate_info_proc proc = {
		.hdr.info_type = FSGATE_INFO_PROC,
		.hdr.len = FSGATE_INFO_PROC_LEN_V1,
		.tgid = pid,
	};
	unsigned long long ticks;
	char path[64], buf[1024], *p;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')') + 2;
	for (i = 3; i < 22; i++)
		p = strchr(p, ' ') + 1;
	assert_int_equal(sscanf(p, "%llu", &ticks), 1);
	/* Anywhere within the tick, as the kernel's ns may be. */
	proc.start_time_ns = ticks * (1000000000ULL / sysconf(_SC_CLK_TCK)) +
			     9999999 % (1000000000ULL / sysconf(_SC_CLK_TCK));
	return proc;
}

/* The lowest fd free now: a leaked pidfd would take it. */
static int lowest_free(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

static int setup(void **state)
{
	(void)state;
	pidfd_open_errno = 0;
	no_proc = 0;
	return 0;
}

static void running_process_gets_its_pidfd(void **state)
{
	pid_t pid = sleeper();
	struct fsgate_info_proc proc = record_of(pid);
	char path[64], line[256];
	int pidfd, found = 0;
	FILE *f;

	(void)state;
	pidfd = preload_pidfd_of(&proc);
	assert_true(pidfd >= 0);
	/* It is the child's: its fdinfo says so, and it can signal it. */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Pid:", 4))
			found = atoi(line + 4) == pid;
	fclose(f);
	assert_true(found);
	assert_true(fcntl(pidfd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(__real_syscall(SYS_pidfd_send_signal, pidfd, SIGKILL,
					NULL, 0), 0);
	waitpid(pid, NULL, 0);
	close(pidfd);
}

static void exited_process_is_nopidfd(void **state)
{
	pid_t pid = sleeper();
	struct fsgate_info_proc proc = record_of(pid);

	(void)state;
	reap(pid);
	assert_int_equal(preload_pidfd_of(&proc), FAN_NOPIDFD);
	/* FAN_REPORT_FD_ERROR's value for it. */
	assert_int_equal(preload_pidfd_errno_of(&proc), -ESRCH);
}

/* Another start time at the pid: the record's process is gone. */
static void reused_pid_is_nopidfd_and_closes_the_pidfd(void **state)
{
	pid_t pid = sleeper();
	struct fsgate_info_proc proc = record_of(pid);
	int free_fd = lowest_free();

	(void)state;
	proc.start_time_ns -= 1000000000ULL;
	assert_int_equal(preload_pidfd_of(&proc), FAN_NOPIDFD);
	proc.start_time_ns += 2000000000ULL;
	assert_int_equal(preload_pidfd_of(&proc), FAN_NOPIDFD);
	assert_int_equal(lowest_free(), free_fd);
	reap(pid);
}

static void no_pid_in_our_namespace_is_nopidfd(void **state)
{
	struct fsgate_info_proc proc = record_of(getpid());

	(void)state;
	proc.tgid = 0;
	assert_int_equal(preload_pidfd_of(&proc), FAN_NOPIDFD);
}

/* pidfd_open() failing otherwise than ESRCH: FAN_EPIDFD, as fanotify. */
static void pidfd_open_failure_is_epidfd(void **state)
{
	struct fsgate_info_proc proc = record_of(getpid());

	(void)state;
	pidfd_open_errno = EMFILE;
	assert_int_equal(preload_pidfd_of(&proc), FAN_EPIDFD);
	assert_int_equal(preload_pidfd_errno_of(&proc), -EMFILE);
	pidfd_open_errno = ESRCH;
	assert_int_equal(preload_pidfd_of(&proc), FAN_NOPIDFD);
}

/* A running process /proc does not show: no pidfd to vouch for. */
static void process_missing_from_proc_is_epidfd(void **state)
{
	pid_t pid = sleeper();
	struct fsgate_info_proc proc = record_of(pid);
	int free_fd = lowest_free();

	(void)state;
	no_proc = 1;
	assert_int_equal(preload_pidfd_of(&proc), FAN_EPIDFD);
	assert_int_equal(lowest_free(), free_fd);
	/* Exited, it is gone whatever /proc says. */
	reap(pid);
	assert_int_equal(preload_pidfd_of(&proc), FAN_NOPIDFD);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(running_process_gets_its_pidfd, setup),
		cmocka_unit_test_setup(exited_process_is_nopidfd, setup),
		cmocka_unit_test_setup(reused_pid_is_nopidfd_and_closes_the_pidfd, setup),
		cmocka_unit_test_setup(no_pid_in_our_namespace_is_nopidfd, setup),
		cmocka_unit_test_setup(pidfd_open_failure_is_epidfd, setup),
		cmocka_unit_test_setup(process_missing_from_proc_is_epidfd, setup),
	};

	return cmocka_run_group_tests_name("preload_process", tests, NULL, NULL);
}
