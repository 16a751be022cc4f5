// SPDX-License-Identifier: GPL-2.0
/*
 * Hardening: what a local user or an ordinary daemon does must not stall,
 * bypass or starve a group. Special files reach the daemon as O_PATH fds;
 * an event fd that cannot be opened denies the access and is counted.
 *
 * The access is made by a forked process, which exits with its errno;
 * the test itself reads and answers for its group.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */

FIXTURE(harden) {
	char dir[64];
	char file[80];
	char obj[80];
};

/* Each test gets a tmpfs of its own, in a mount namespace of its own. */
FIXTURE_SETUP(harden)
{
	int fd;

	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	snprintf(self->dir, sizeof(self->dir), "/tmp/harden.%d", getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	ASSERT_EQ(0, mount("tmpfs", self->dir, "tmpfs", 0, NULL));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->obj, sizeof(self->obj), "%s/obj", self->dir);
	fd = open(self->file, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8, write(fd, "content\n", 8));
	close(fd);
}

FIXTURE_TEARDOWN(harden)
{
	umount2(self->dir, MNT_DETACH);
	rmdir(self->dir);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * read() one event from @g, which must not block more than @sec seconds
 * (an alarm without SA_RESTART ends a read stuck in an open).
 */
static ssize_t bounded_read(int g, struct fanotify_event_metadata *ev, int sec)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	ssize_t n;

	if (!readable(g, WAIT_MS))
		return -2;
	sigaction(SIGALRM, &sa, NULL);
	alarm(sec);
	n = read(g, ev, sizeof(*ev));
	alarm(0);
	return n;
}

/* A content group gating opens on the tmpfs of @dir. */
static int open_gate(const char *dir)
{
	int g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT, 10000,
			   FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DEFAULT);

	if (g < 0)
		return g;
	if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
			FAN_OPEN_PERM, AT_FDCWD, dir))
		return -1;
	return g;
}

/*
 * The special file at @obj is opened with @flags by a child: the gate's
 * read() returns at once with an O_PATH fd of the right type, the open
 * is allowed, and a later open of @file still reaches the gate.
 */
static void special_open(struct __test_metadata *_metadata, const char *obj,
			 int flags, mode_t type, int want, const char *file)
{
	struct fanotify_event_metadata ev;
	struct stat st;
	int g = open_gate(obj);
	pid_t pid;

	ASSERT_LE(0, g);
	pid = spawn_open(obj, flags, 0);
	ASSERT_EQ(sizeof(ev), bounded_read(g, &ev, 3)) TH_LOG("read: %m");
	ASSERT_TRUE(ev.mask & FAN_OPEN_PERM);
	ASSERT_LE(0, ev.fd);
	EXPECT_TRUE(fcntl(ev.fd, F_GETFL) & O_PATH);
	ASSERT_EQ(0, fstat(ev.fd, &st));
	EXPECT_EQ(type, st.st_mode & S_IFMT);
	ASSERT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FAN_ALLOW));
	EXPECT_EQ(want, reap(pid));

	pid = spawn_open(file, O_RDONLY, 0);
	ASSERT_EQ(sizeof(ev), bounded_read(g, &ev, 3)) TH_LOG("read: %m");
	ASSERT_LE(0, ev.fd);
	EXPECT_FALSE(fcntl(ev.fd, F_GETFL) & O_PATH);
	ASSERT_EQ(0, fstat(ev.fd, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FAN_ALLOW));
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/* A FIFO without a writer, opened O_NONBLOCK: the daemon must not block. */
TEST_F(harden, fifo_event_fd_is_o_path)
{
	ASSERT_EQ(0, mkfifo(self->obj, 0666));
	special_open(_metadata, self->obj, O_RDONLY | O_NONBLOCK, S_IFIFO, 0,
		     self->file);
}

/* A character device: the daemon's fd does not run the driver's open. */
TEST_F(harden, chardev_event_fd_is_o_path)
{
	struct stat null;

	ASSERT_EQ(0, stat("/dev/null", &null));
	ASSERT_EQ(0, mknod(self->obj, S_IFCHR | 0666, null.st_rdev));
	special_open(_metadata, self->obj, O_RDONLY, S_IFCHR, 0, self->file);
}

/* A unix socket: open(2) on it fails (ENXIO), the event fd must not. */
TEST_F(harden, socket_event_fd_is_o_path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	ASSERT_LE(0, s);
	strcpy(sun.sun_path, self->obj);
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&sun, sizeof(sun)));
	special_open(_metadata, self->obj, O_RDONLY, S_IFSOCK, ENXIO,
		     self->file);
	close(s);
}

TEST_HARNESS_MAIN
