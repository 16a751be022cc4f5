/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the native fanotify tests (tests/native/): plain fanotify,
 * no fsgate module, on a kernel patched with patches/fanotify-priority/.
 * The series' uapi, for C libraries whose headers predate it.
 */
#ifndef NATIVE_UTIL_H
#define NATIVE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FAN_PRIORITY
#define FAN_PRIORITY_SHIFT	24
#define FAN_PRIORITY_MASK	0x7f000000
#define FAN_PRIORITY_MAX	127
#define FAN_PRIORITY(prio)	((__u32)(prio) << FAN_PRIORITY_SHIFT)
#endif
#ifndef FAN_IOC_SET_RESPONSE_TIMEOUT
struct fanotify_response_timeout {
	__u32 timeout_ms;
	__u32 response;
};
#define FAN_IOC_SET_RESPONSE_TIMEOUT	_IOW(0xFA, 0x01, \
					     struct fanotify_response_timeout)
#endif

/* The kernel's O_LARGEFILE, which fanotify adds to the event flags it
 * shows in fdinfo on 64-bit kernels (glibc's is 0 there). */
#define KERNEL_O_LARGEFILE 0100000

/* Where each test's own tmpfs is mounted, in a mount namespace of its own. */
#define NATIVE_DIR "/tmp/native"
#define NATIVE_FILE NATIVE_DIR "/file"

/* The mark types, by name for the logs. */
static const char *const mark_names[] = { "inode", "mount", "filesystem" };
static const unsigned int mark_types[] = {
	FAN_MARK_INODE, FAN_MARK_MOUNT, FAN_MARK_FILESYSTEM,
};

/* A private mount namespace and a fresh tmpfs at NATIVE_DIR, with an
 * empty NATIVE_FILE. 0, or -1 with errno. */
static inline int native_tmpfs(void)
{
	int fd;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	mkdir(NATIVE_DIR, 0755);
	if (mount("native", NATIVE_DIR, "tmpfs", 0, "size=1m"))
		return -1;
	fd = open(NATIVE_FILE, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	return close(fd);
}

/* A group of @class with priority @prio (none for -1), nonblocking. */
static inline int native_group(unsigned int class, int prio, unsigned int f_flags)
{
	unsigned int flags = class | FAN_CLOEXEC | FAN_NONBLOCK;

	if (prio >= 0)
		flags |= FAN_PRIORITY(prio);
	return fanotify_init(flags, f_flags | O_CLOEXEC | O_LARGEFILE);
}

/* Mark @path with mark type @type (index into mark_types) for @mask. */
static inline int native_mark(int g, int type, uint64_t mask, const char *path)
{
	return fanotify_mark(g, FAN_MARK_ADD | mark_types[type], mask,
			     AT_FDCWD, path);
}

/* Fork a process that opens @path read-only: it exits 0, or with the
 * errno of its open. */
static inline pid_t native_open_child(const char *path)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	fd = open(path, O_RDONLY);
	_exit(fd < 0 ? errno : 0);
}

/* Reap @pid: its exit status, or -1. */
static inline int native_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Wait up to @ms for a permission event on one of the @n groups in @g.
 * Returns the index of the one group that has an event (read into @ev),
 * -1 when none had one in time, -2 when more than one had one at once
 * (the groups are asked one after the other, never together).
 */
static inline int native_next(const int *g, int n, int ms,
			      struct fanotify_event_metadata *ev)
{
	struct pollfd p[8];
	int i, hit = -1, hits = 0;

	for (i = 0; i < n; i++) {
		p[i].fd = g[i];
		p[i].events = POLLIN;
	}
	if (poll(p, n, ms) <= 0)
		return -1;
	/* Give a wrongly concurrent second group the time to show up. */
	usleep(20000);
	if (poll(p, n, 0) <= 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (p[i].revents & POLLIN) {
			hit = i;
			hits++;
		}
	}
	if (hits != 1)
		return -2;
	if (read(g[hit], ev, sizeof(*ev)) != sizeof(*ev) ||
	    ev->vers != FANOTIFY_METADATA_VERSION)
		return -3;
	return hit;
}

/* Answer @ev on @g with @response and close its fd. 0 or -1. */
static inline int native_answer(int g, struct fanotify_event_metadata *ev,
				unsigned int response)
{
	struct fanotify_response r = { .fd = ev->fd, .response = response };
	int ret = write(g, &r, sizeof(r)) == sizeof(r) ? 0 : -1;

	close(ev->fd);
	return ret;
}

/* The "fanotify flags:" line of @g's fdinfo into @buf; 0 or -1. */
static inline int native_fdinfo_line(int g, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(buf, len, f)) {
		if (!strncmp(buf, "fanotify flags:", 15)) {
			buf[strcspn(buf, "\n")] = 0;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
static inline long native_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Become uid/gid 65534 with no capabilities; 0 or -1. */
static inline int native_drop_privileges(void)
{
	return setgroups(0, NULL) || setgid(65534) || setuid(65534) ? -1 : 0;
}

#endif
