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
#include <grp.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <pthread.h>
#include <linux/filter.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
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

	ASSERT_EQ(0, fsgate_test_tmpfs("harden", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->obj, sizeof(self->obj), "%s/obj", self->dir);
	fd = open(self->file, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8, write(fd, "content\n", 8));
	close(fd);
}

FIXTURE_TEARDOWN(harden)
{
	fsgate_test_tmpfs_done(self->dir);
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

/* The permission group @g (or an error) made to gate opens on @dir's tmpfs. */
static int gate(int g, const char *dir)
{
	if (g < 0)
		return g;
	if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
			FAN_OPEN_PERM, AT_FDCWD, dir))
		return -1;
	return g;
}

/* A content group gating opens on the tmpfs of @dir. */
static int open_gate(const char *dir)
{
	return gate(perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT,
			       10000, FSGATE_VERDICT_DEFAULT,
			       FSGATE_VERDICT_DEFAULT), dir);
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

/* Copy the program behind /bin/sleep to @dst; 0 or -1. */
static int copy_sleep(const char *dst)
{
	char src[PATH_MAX], buf[65536];
	int in, out = -1;
	ssize_t n;

	if (!realpath("/bin/sleep", src))
		return -1;
	in = open(src, O_RDONLY);
	if (in >= 0)
		out = open(dst, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	close(in);
	if (out < 0 || close(out))
		return -1;
	return 0;
}

/* Run @prog as "sleep 60"; return once it is running, with its pid. */
static pid_t run_prog(const char *prog)
{
	char exe[64], target[PATH_MAX];
	pid_t pid = fork();
	ssize_t n;
	int i;

	if (!pid) {
		close_range(3, ~0U, 0);
		execl(prog, "sleep", "60", (char *)NULL);
		_exit(errno);
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	for (i = 0; i < WAIT_MS / 10; i++) {
		n = readlink(exe, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			if (!strcmp(target, prog))
				return pid;
		}
		usleep(10000);
	}
	return -1;
}

/* Wait until @g holds @bytes of events. */
static int queued(int g, int bytes)
{
	int i, n;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (ioctl(g, FIONREAD, &n) == 0 && n >= bytes)
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Fork opens of @a then @b; return once @g holds both events. */
static int queue_two(int g, const char *a, const char *b, pid_t *pid)
{
	const size_t len = sizeof(struct fanotify_event_metadata);

	pid[0] = spawn_open(a, O_RDONLY, 0);
	if (!queued(g, len))
		return -1;
	pid[1] = spawn_open(b, O_RDONLY, 0);
	return queued(g, 2 * len) ? 0 : -1;
}

/*
 * In-tree fanotify, on the same object: the event fd cannot be opened,
 * read() fails with @err and the access is denied.
 */
static void fanotify_unopenable(struct __test_metadata *_metadata,
				const char *dir, const char *path, int err)
{
	struct fanotify_event_metadata ev;
	struct rlimit rl;
	pid_t pid;
	int f;

	f = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			  (err == ETXTBSY ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_OPEN_PERM, AT_FDCWD, dir));
	pid = spawn_open(path, O_RDONLY, 0);
	ASSERT_TRUE(queued(f, sizeof(ev)));
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	if (err == EMFILE)
		ASSERT_EQ(0, lower_nofile(&rl));
	EXPECT_EQ(-1, read(f, &ev, sizeof(ev)));
	EXPECT_EQ(err, errno);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	EXPECT_EQ(EPERM, reap(pid));
	close(f);
}

/*
 * An HSM's writable event fd cannot be opened on a running program
 * (ETXTBSY): the access is denied and counted, and the same read()
 * delivers the next event.
 */
TEST_F(harden, etxtbsy_denies_and_reads_on)
{
	struct fanotify_event_metadata ev[2];
	struct fsgate_stats st;
	pid_t prog, pid[2];
	int g;

	ASSERT_EQ(0, copy_sleep(self->obj));
	prog = run_prog(self->obj);
	ASSERT_LT(0, prog);

	fanotify_unopenable(_metadata, self->dir, self->obj, ETXTBSY);

	g = hsm_group(FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, self->dir));
	ASSERT_EQ(0, queue_two(g, self->obj, self->file, pid));
	ASSERT_EQ(sizeof(ev[0]), read(g, ev, sizeof(ev))) TH_LOG("read: %m");
	ASSERT_LE(0, ev[0].fd);
	ASSERT_EQ(sizeof(struct fanotify_response), answer(g, ev[0].fd, FAN_ALLOW));
	EXPECT_EQ(EPERM, reap(pid[0]));
	EXPECT_EQ(0, reap(pid[1]));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.unopened);
	EXPECT_EQ(st.asked, st.answered + st.timedout + st.orphaned +
		  st.cancelled + st.perm_overflows + st.unopened + st.pending);
	close(g);
	kill(prog, SIGKILL);
	reap(prog);
}

/* With fds free again, @g reads the next open of @file with its fd. */
static void open_read_again(struct __test_metadata *_metadata, int g,
			    const char *file)
{
	struct fanotify_event_metadata ev[2];
	pid_t pid = spawn_open(file, O_RDONLY, 0);

	ASSERT_TRUE(readable(g, WAIT_MS));
	ASSERT_EQ(sizeof(ev[0]), read(g, ev, sizeof(ev))) TH_LOG("read: %m");
	ASSERT_LE(0, ev[0].fd);
	ASSERT_EQ(sizeof(struct fanotify_response), answer(g, ev[0].fd, FAN_ALLOW));
	EXPECT_EQ(0, reap(pid));
}

/*
 * A listener out of fds (RLIMIT_NOFILE) cannot open event fds: the
 * accesses are denied and counted, read() says EMFILE, and once fds are
 * free again the next event is delivered.
 */
TEST_F(harden, emfile_denies_and_reads_on)
{
	struct fanotify_event_metadata ev[2];
	struct fsgate_stats st;
	struct rlimit rl;
	pid_t pid[2];
	int g;

	fanotify_unopenable(_metadata, self->dir, self->file, EMFILE);

	g = open_gate(self->dir);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, queue_two(g, self->file, self->file, pid));
	ASSERT_EQ(0, lower_nofile(&rl));
	EXPECT_EQ(-1, read(g, ev, sizeof(ev)));
	EXPECT_EQ(EMFILE, errno);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	EXPECT_EQ(EPERM, reap(pid[0]));
	EXPECT_EQ(EPERM, reap(pid[1]));

	open_read_again(_metadata, g, self->file);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.unopened);
	close(g);
}

/*
 * A permission group of @class with FSGATE_REPORT_FD_ERROR and
 * @event_f_flags, gating opens on the tmpfs of @dir.
 */
static int fd_error_gate(const char *dir, unsigned int class,
			 unsigned int event_f_flags)
{
	struct fsgate_init init = {
		.flags = class | FSGATE_CLOEXEC | FSGATE_NONBLOCK |
			 FSGATE_REPORT_FD_ERROR,
		.event_f_flags = event_f_flags | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = 10000,
	};

	return gate(fsgate_init_ext(&init), dir);
}

/*
 * FSGATE_REPORT_FD_ERROR (fanotify's FAN_REPORT_FD_ERROR): a listener out
 * of fds reads both events, each with -EMFILE for its fd, rather than a
 * failing read(); the accesses are still denied and counted.
 */
TEST_F(harden, fd_error_reports_emfile_and_reads_on)
{
	struct fanotify_event_metadata ev[2];
	struct fsgate_stats st;
	struct rlimit rl;
	pid_t pid[2];
	ssize_t n;
	int g;

	g = fd_error_gate(self->dir, FSGATE_CLASS_CONTENT, O_RDONLY);
	ASSERT_LE(0, g) TH_LOG("FSGATE_REPORT_FD_ERROR: %m");
	ASSERT_EQ(0, queue_two(g, self->file, self->file, pid));
	ASSERT_EQ(0, lower_nofile(&rl));
	n = read(g, ev, sizeof(ev));
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ASSERT_EQ(sizeof(ev), n) TH_LOG("read: %m");
	EXPECT_EQ(-EMFILE, ev[0].fd);
	EXPECT_EQ(-EMFILE, ev[1].fd);
	EXPECT_TRUE(ev[0].mask & FAN_OPEN_PERM);
	EXPECT_EQ(pid[0], ev[0].pid);
	EXPECT_EQ(EPERM, reap(pid[0]));
	EXPECT_EQ(EPERM, reap(pid[1]));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(2, st.unopened);
	EXPECT_EQ(st.asked, st.answered + st.timedout + st.orphaned +
		  st.cancelled + st.perm_overflows + st.unopened + st.pending);
	/* An fd can no more answer it: it was denied as it was read. */
	EXPECT_EQ(-1, fsgate_respond(g, ev[0].fd, FSGATE_ALLOW));
	EXPECT_EQ(EINVAL, errno);

	open_read_again(_metadata, g, self->file);
	close(g);
}

/*
 * With FSGATE_REPORT_FD_ERROR an event with no file to open says -EBADF
 * in its fd, as fanotify's with FAN_REPORT_FD_ERROR: FAN_Q_OVERFLOW, and
 * every event of a FID group.
 */
TEST_F(harden, fd_error_without_a_file_is_ebadf)
{
	union {
		struct fanotify_event_metadata meta;
		char b[4096];
	} buf;
	struct fanotify_event_metadata *ev;
	char old[32], path[128];
	int g, i, overflows = 0, events = 0;
	ssize_t n;

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			FSGATE_REPORT_FD_ERROR, O_RDONLY, FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g) TH_LOG("FSGATE_REPORT_FD_ERROR: %m");
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_CLOSE_WRITE, AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_test_param("max_queued_events", "2", old,
				       sizeof(old)));
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/overflow%d", self->dir, i);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	n = read(g, &buf, sizeof(buf));
	fsgate_test_param("max_queued_events", old, NULL, 0);
	ASSERT_LT(0, n) TH_LOG("read: %m");
	for (ev = &buf.meta; FAN_EVENT_OK(ev, n); ev = FAN_EVENT_NEXT(ev, n)) {
		if (ev->mask & FAN_Q_OVERFLOW) {
			overflows++;
			EXPECT_EQ(-EBADF, ev->fd);
		} else {
			events++;
			EXPECT_LE(0, ev->fd);
			close(ev->fd);
		}
	}
	EXPECT_EQ(1, overflows);
	EXPECT_EQ(2, events);
	close(g);

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			FSGATE_REPORT_FID | FSGATE_REPORT_FD_ERROR, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g) TH_LOG("FID with FSGATE_REPORT_FD_ERROR: %m");
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD,
				 self->file));
	close(open(self->file, O_RDONLY));
	ASSERT_TRUE(readable(g, WAIT_MS));
	n = read(g, &buf, sizeof(buf));
	ASSERT_LT(0, n) TH_LOG("read: %m");
	EXPECT_TRUE(buf.meta.mask & FAN_OPEN);
	EXPECT_EQ(-EBADF, buf.meta.fd);
	close(g);
}

/* Become uid and gid 65534, with no capabilities; 0, or -1. */
static int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

/*
 * A local user's lease: a child that dropped to uid 65534 opens @path
 * (its own file), takes a lease of @type on it, ignores the SIGIO that a
 * lease break sends and, if @do_read, reads a byte; then it writes a
 * byte to @ready and holds the lease until it is killed.
 */
static pid_t lease_holder(const char *path, int type, int do_read, int ready)
{
	pid_t pid = fork();
	char c = 0;
	int fd;

	if (pid)
		return pid;
	signal(SIGIO, SIG_IGN);
	if (drop_to_nobody())
		_exit(1);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fcntl(fd, F_SETLEASE, type) ||
	    (do_read && read(fd, &c, 1) != 1) || write(ready, &c, 1) != 1)
		_exit(2);
	pause();
	_exit(0);
}

/* @path, a new 0644 file of uid 65534 with a few bytes. */
static int user_file(const char *dir, const char *path)
{
	if (chmod(dir, 0755))
		return -1;
	write_file(path, "leased\n");
	return chown(path, 65534, 65534);
}

/*
 * Take a lease as lease_holder() says, answering the holder's own open
 * on @g if @answer_open; the holder's pid, or -1.
 */
static pid_t leased(int g, const char *path, int type, int do_read,
		    int answer_open)
{
	struct fanotify_event_metadata ev;
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = lease_holder(path, type, do_read, p[1]);
	close(p[1]);
	if (answer_open) {
		if (next_event(g, WAIT_MS, &ev) || ev.fd < 0)
			goto fail;
		/*
		 * Closed before the answer: the holder, woken by it, asks for
		 * its lease at once, and an event fd still open would refuse
		 * it a write lease (and a writable one a read lease).
		 */
		close(ev.fd);
		if (fsgate_respond(g, ev.fd, FSGATE_ALLOW))
			goto fail;
	}
	if (read(p[0], &c, 1) != 1)
		goto fail;
	close(p[0]);
	return pid;
fail:
	close(p[0]);
	kill(pid, SIGKILL);
	reap(pid);
	return -1;
}

/*
 * A lease on a user's own file must not stall the group: opening an
 * event's fd breaks a conflicting lease and would wait lease-break-time
 * (45 s) for its holder, and every access waiting on the group with it.
 * The read() returns at once (the 3 s alarm would end it with EINTR),
 * the access is denied as any unopenable one and counted. A write lease
 * conflicts with a read-only event fd, a read lease with a writable one.
 * A group made with FSGATE_REPORT_FD_ERROR (@fd_error) reads the event,
 * with -EWOULDBLOCK for its fd, where read() says EAGAIN otherwise.
 */
static void lease_denies_at_once(struct __test_metadata *_metadata,
				 const char *dir, const char *path, int g,
				 int type, bool fd_error)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	pid_t holder, pid;

	ASSERT_LE(0, g) TH_LOG("group: %m");
	ASSERT_EQ(0, user_file(dir, path));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN_PERM, AT_FDCWD, dir));
	holder = leased(g, path, type, 0, 1);
	ASSERT_LT(0, holder);

	pid = spawn_open(path, O_RDONLY, 0);
	errno = 0;
	if (fd_error) {
		ASSERT_EQ(sizeof(ev), bounded_read(g, &ev, 3))
			TH_LOG("read: %m (EINTR: stalled on the lease)");
		EXPECT_TRUE(ev.mask & FAN_OPEN_PERM);
		EXPECT_EQ(pid, ev.pid);
		EXPECT_EQ(-EWOULDBLOCK, ev.fd);
	} else {
		EXPECT_EQ(-1, bounded_read(g, &ev, 3));
		EXPECT_EQ(EAGAIN, errno)
			TH_LOG("read: %m (EINTR: stalled on the lease)");
	}
	EXPECT_EQ(EPERM, reap(pid));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.unopened);
	kill(holder, SIGKILL);
	reap(holder);
	close(g);
}

TEST_F(harden, write_lease_denies_at_once)
{
	lease_denies_at_once(_metadata, self->dir, self->obj,
			     perm_group(FSGATE_CLASS_CONTENT,
					FSGATE_PRIORITY_DEFAULT, 10000,
					FSGATE_VERDICT_DEFAULT,
					FSGATE_VERDICT_DEFAULT), F_WRLCK, false);
}

/*
 * With FSGATE_REPORT_FD_ERROR the leased file's permission event is read
 * at once with -EWOULDBLOCK for its fd; the access is denied and counted
 * all the same.
 */
TEST_F(harden, fd_error_reports_a_lease_as_ewouldblock)
{
	lease_denies_at_once(_metadata, self->dir, self->obj,
			     fd_error_gate(self->dir, FSGATE_CLASS_CONTENT,
					   O_RDONLY), F_WRLCK, true);
}

TEST_F(harden, read_lease_denies_writable_fds_at_once)
{
	lease_denies_at_once(_metadata, self->dir, self->obj,
			     hsm_group(FSGATE_PRIORITY_DEFAULT), F_RDLCK, false);
}

/*
 * A notification on a leased file names it with an O_PATH fd, as a
 * special file, at once: the holder's own read is reported while its
 * write lease would stall the open of a readable fd.
 */
TEST_F(harden, lease_gives_notifications_o_path)
{
	struct fanotify_event_metadata ev;
	struct stat st, want;
	pid_t holder;
	int g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			    FSGATE_PRIORITY_DEFAULT);

	ASSERT_LE(0, g);
	ASSERT_EQ(0, user_file(self->dir, self->obj));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_ACCESS, AT_FDCWD, self->dir));
	holder = leased(g, self->obj, F_WRLCK, 1, 0);
	ASSERT_LT(0, holder);
	ASSERT_EQ(sizeof(ev), bounded_read(g, &ev, 3)) TH_LOG("read: %m");
	EXPECT_TRUE(ev.mask & FAN_ACCESS);
	EXPECT_EQ(holder, ev.pid);
	ASSERT_LE(0, ev.fd);
	EXPECT_TRUE(fcntl(ev.fd, F_GETFL) & O_PATH);
	ASSERT_EQ(0, fstat(ev.fd, &st));
	ASSERT_EQ(0, stat(self->obj, &want));
	EXPECT_EQ(want.st_ino, st.st_ino);
	close(ev.fd);
	kill(holder, SIGKILL);
	reap(holder);
	close(g);
}

/* Where the guest keeps stallfs, a FUSE server that never answers opens. */
#define STALLFS "/fsgate/bin/stallfs"

/* Mount stallfs on @mnt; return the server's pid, or -1. */
static pid_t stallfs_start(const char *mnt)
{
	char line[8] = "";
	int p[2];
	pid_t pid;

	if (mkdir(mnt, 0755) || pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl(STALLFS, STALLFS, mnt, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0 && (read(p[0], line, sizeof(line)) != 6 ||
			memcmp(line, "ready\n", 6))) {
		kill(pid, SIGKILL);
		reap(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* Kill the server, which ends every open waiting on it, and unmount. */
static void stallfs_stop(pid_t server, const char *mnt)
{
	kill(server, SIGKILL);
	reap(server);
	umount2(mnt, MNT_DETACH);
}

/*
 * read() one event from @g; if it still waits after @sec seconds, a
 * watchdog kills @server, which ends the wait (no signal to the reader
 * does: a wait for a FUSE server's answer ends only with a fatal one).
 * *@waited says whether the watchdog fired before the read returned.
 */
static ssize_t read_or_kill_server(int g, pid_t server,
				   struct fanotify_event_metadata *ev, int sec,
				   bool *waited)
{
	pid_t watchdog;
	int fired[2];
	ssize_t n;
	char c;

	*waited = false;
	if (!readable(g, WAIT_MS) || pipe2(fired, O_NONBLOCK))
		return -2;
	watchdog = fork();
	if (watchdog == 0) {
		sleep(sec);
		/* Said before the kill, so the reader cannot miss it. */
		if (write(fired[1], "k", 1) == 1)
			kill(server, SIGKILL);
		_exit(0);
	}
	n = read(g, ev, sizeof(*ev));
	if (watchdog > 0) {
		kill(watchdog, SIGKILL);
		reap(watchdog);
	}
	*waited = read(fired[0], &c, 1) == 1;
	close(fired[0]);
	close(fired[1]);
	return n;
}

/*
 * Mount a read-only overlay of @lower over an empty @dir/empty (without
 * an upper layer, overlayfs wants two lower ones) on @dir/ovl, its path
 * written to @ovl.
 */
static int overlay_on(const char *dir, const char *lower, char *ovl,
		      size_t len)
{
	char empty[96], opts[208];

	snprintf(ovl, len, "%s/ovl", dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	snprintf(opts, sizeof(opts), "lowerdir=%s:%s", lower, empty);
	if (mkdir(ovl, 0755) || mkdir(empty, 0755))
		return -1;
	return mount("overlay", ovl, "overlay", MS_RDONLY, opts);
}

/*
 * A FUSE server (any user may run one) that never answers an open must
 * not stall the group: opening the event's fd would send the server an
 * open and wait for its answer without any bound, every access waiting
 * on the group with it. The event comes at once with an O_PATH fd, which
 * the daemon answers; the allowed open then waits on the server, as it
 * would without fsgate, and fails when the server dies. Through an
 * overlay the open goes to the layer that holds the file: FUSE again.
 */
static void fuse_open_gives_o_path(struct __test_metadata *_metadata,
				   const char *dir, bool overlay)
{
	struct fanotify_event_metadata ev;
	char mnt[96], top[96], path[112];
	struct stat st;
	pid_t server, pid;
	bool waited;
	ssize_t n;
	int g, err;

	snprintf(mnt, sizeof(mnt), "%s/fuse", dir);
	server = stallfs_start(mnt);
	ASSERT_LT(0, server) TH_LOG("cannot start %s on %s", STALLFS, mnt);
	snprintf(top, sizeof(top), "%s", mnt);
	if (overlay)
		ASSERT_EQ(0, overlay_on(dir, mnt, top, sizeof(top)))
			TH_LOG("overlay over FUSE: %m");
	snprintf(path, sizeof(path), "%s/file", top);
	g = open_gate(top);
	ASSERT_LE(0, g);
	pid = spawn_open(path, O_RDONLY, 0);
	n = read_or_kill_server(g, server, &ev, 3, &waited);
	EXPECT_FALSE(waited) TH_LOG("read() waited on the server");
	ASSERT_EQ(sizeof(ev), n) TH_LOG("read: %m");
	EXPECT_TRUE(ev.mask & FAN_OPEN_PERM);
	ASSERT_LE(0, ev.fd);
	EXPECT_TRUE(fcntl(ev.fd, F_GETFL) & O_PATH);
	ASSERT_EQ(0, fstat(ev.fd, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(sizeof(struct fanotify_response), answer(g, ev.fd, FAN_ALLOW));
	if (overlay)
		umount2(top, MNT_DETACH);
	stallfs_stop(server, mnt);
	/* Aborted in flight, or refused as the connection was gone. */
	err = reap(pid);
	EXPECT_TRUE(err == ECONNABORTED || err == ENOTCONN) TH_LOG("%d", err);
	close(g);
}

TEST_F(harden, fuse_open_gives_o_path_at_once)
{
	fuse_open_gives_o_path(_metadata, self->dir, false);
}

TEST_F(harden, fuse_under_overlay_gives_o_path_at_once)
{
	fuse_open_gives_o_path(_metadata, self->dir, true);
}

/*
 * fanotify, beside it, opens the event's fd in read() and waits there
 * for as long as the server does: here until the test kills the server.
 */
TEST_F(harden, fanotify_waits_on_a_fuse_open)
{
	struct fanotify_event_metadata ev;
	char mnt[96], path[112];
	pid_t server, pid;
	bool waited;
	int f;

	snprintf(mnt, sizeof(mnt), "%s/fuse", self->dir);
	snprintf(path, sizeof(path), "%s/file", mnt);
	server = stallfs_start(mnt);
	ASSERT_LT(0, server) TH_LOG("cannot start %s on %s", STALLFS, mnt);
	f = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_OPEN_PERM, AT_FDCWD, mnt));
	pid = spawn_open(path, O_RDONLY, 0);
	read_or_kill_server(f, server, &ev, 3, &waited);
	EXPECT_TRUE(waited);
	stallfs_stop(server, mnt);
	EXPECT_EQ(EPERM, reap(pid));
	close(f);
}

/* An unprivileged reader of a group. */
struct nobody_read {
	int g;
	int ready;	/* the reader writes a byte here once it waits */
};

/*
 * Read one event as nobody: 0 if it came with an fd (answered allow),
 * else the read()'s errno (a nonblocking group reports EAGAIN for an
 * event it dropped after poll() said one was there), or 128 + the errno
 * an event's fd says (FSGATE_REPORT_FD_ERROR).
 */
static int nobody_reads(const struct nobody_read *r)
{
	struct fanotify_event_metadata ev;
	char c = 0;
	ssize_t n;

	if (write(r->ready, &c, 1) != 1 || !readable(r->g, WAIT_MS))
		return 254;
	n = read(r->g, &ev, sizeof(ev));
	if (n < 0)
		return errno;
	if (n == sizeof(ev) && ev.fd < FAN_NOFD && ev.fd > -128)
		return 128 - ev.fd;
	if (n != sizeof(ev) || ev.fd < 0)
		return 253;
	if (ev.mask & FAN_OPEN_PERM)
		answer(r->g, ev.fd, FAN_ALLOW);
	else
		close(ev.fd);
	return 0;
}

/*
 * Root opens @path with @g's reader an unprivileged process: the
 * reader's result (see nobody_reads()) in *@res, the open's errno as the
 * return.
 */
static int open_read_by_nobody(int g, const char *path, int *res)
{
	struct nobody_read r = { .g = g };
	pid_t reader, pid;
	int p[2];
	char c;

	if (pipe(p))
		return -1;
	r.ready = p[1];
	reader = fork();
	if (!reader) {
		close(p[0]);
		_exit(drop_to_nobody() ? 255 : nobody_reads(&r));
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	pid = spawn_open(path, O_RDONLY, 0);
	*res = reap(reader);
	return reap(pid);
}

/*
 * Events reach a reader that dropped its privileges (a daemon's habit
 * after set-up) with only the fds open(2) would give it: root's opens of
 * a 0600 root file are reported to fanotify's reader with a readable fd,
 * while fsgate's reader gets none (the notification is dropped, read()
 * says EACCES) and still gets its fd of a file it may read.
 */
TEST_F(harden, unprivileged_reader_gets_only_what_it_may_open)
{
	char secret[96];
	int f, g, res;

	snprintf(secret, sizeof(secret), "%s/secret", self->dir);
	write_file(secret, "root only\n");
	ASSERT_EQ(0, chmod(secret, 0600));
	ASSERT_EQ(0, chmod(self->dir, 0755));

	f = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD,
				   AT_FDCWD, self->dir));
	ASSERT_EQ(0, open_read_by_nobody(f, secret, &res));
	EXPECT_EQ(0, res) TH_LOG("fanotify's reader got no fd: %d", res);
	close(f);

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD,
				 FAN_OPEN | FAN_EVENT_ON_CHILD, AT_FDCWD,
				 self->dir));
	ASSERT_EQ(0, open_read_by_nobody(g, secret, &res));
	EXPECT_EQ(EACCES, res);
	ASSERT_EQ(0, open_read_by_nobody(g, self->file, &res));
	EXPECT_EQ(0, res);
	close(g);
}

/*
 * A permission group with writable event fds, read by a process that
 * dropped its privileges: it may read a root 0644 file but not write it,
 * so it gets no fd and the access is denied, as any unopenable one (a
 * group that cannot judge an access does not let it through).
 */
TEST_F(harden, unprivileged_reader_gets_no_writable_fd)
{
	struct fsgate_stats st;
	int g = hsm_group(FSGATE_PRIORITY_DEFAULT), res;

	ASSERT_LE(0, g);
	ASSERT_EQ(0, chmod(self->dir, 0755));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				 self->file));
	EXPECT_EQ(EPERM, open_read_by_nobody(g, self->file, &res));
	EXPECT_EQ(EACCES, res);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.unopened);
	close(g);
}

/*
 * With FSGATE_REPORT_FD_ERROR the unprivileged reader is told: the
 * notification on the root-only file comes with -EACCES for its fd
 * rather than being dropped, and the permission event that needs a
 * writable fd too, which is denied and counted all the same.
 */
TEST_F(harden, fd_error_reports_eacces_to_an_unprivileged_reader)
{
	struct fsgate_stats st;
	char secret[96];
	int g, res;

	snprintf(secret, sizeof(secret), "%s/secret", self->dir);
	write_file(secret, "root only\n");
	ASSERT_EQ(0, chmod(secret, 0600));
	ASSERT_EQ(0, chmod(self->dir, 0755));

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			FSGATE_REPORT_FD_ERROR, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g) TH_LOG("FSGATE_REPORT_FD_ERROR: %m");
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD,
				 FAN_OPEN | FAN_EVENT_ON_CHILD, AT_FDCWD,
				 self->dir));
	ASSERT_EQ(0, open_read_by_nobody(g, secret, &res));
	EXPECT_EQ(128 + EACCES, res);
	ASSERT_EQ(0, open_read_by_nobody(g, self->file, &res));
	EXPECT_EQ(0, res);
	close(g);

	g = fd_error_gate(self->dir, FSGATE_CLASS_PRE_CONTENT, O_RDWR);
	ASSERT_LE(0, g);
	EXPECT_EQ(EPERM, open_read_by_nobody(g, self->file, &res));
	EXPECT_EQ(128 + EACCES, res);
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_EQ(1, st.unopened);
	close(g);
}

/* The mark requests an unprivileged holder of a group fd tries. */
enum { M_FS, M_MOUNT, M_SECRET, M_OPEN, M_FLUSH_FS, M_COUNT };

/*
 * In a child that dropped to uid and gid 65534 (no capabilities), try
 * each request with @g (fsgate when @fsgate, else fanotify); the errno
 * of each, 0 for success, in @res.
 */
static int unprivileged_marks(int g, int fsgate, const char *dir,
			      const char *secret, const char *open_file,
			      int *res)
{
	const unsigned int type[M_COUNT] = {
		FAN_MARK_FILESYSTEM, FAN_MARK_MOUNT, FAN_MARK_INODE,
		FAN_MARK_INODE, FAN_MARK_FILESYSTEM,
	};
	const char *path[M_COUNT] = { dir, dir, secret, open_file, NULL };
	int p[2], i, r;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[0]);
		if (drop_to_nobody())
			_exit(1);
		for (i = 0; i < M_COUNT; i++) {
			unsigned int cmd = path[i] ? FAN_MARK_ADD : FAN_MARK_FLUSH;

			if (fsgate)
				r = fsgate_mark(g, cmd | type[i],
						path[i] ? FAN_OPEN : 0,
						AT_FDCWD, path[i]);
			else
				r = fanotify_mark(g, cmd | type[i],
						  path[i] ? FAN_OPEN : 0,
						  AT_FDCWD, path[i]);
			res[i] = r ? errno : 0;
		}
		_exit(write(p[1], res, M_COUNT * sizeof(*res)) !=
		      (ssize_t)(M_COUNT * sizeof(*res)));
	}
	close(p[1]);
	r = read(p[0], res, M_COUNT * sizeof(*res));
	close(p[0]);
	if (reap(pid) || r != (int)(M_COUNT * sizeof(*res)))
		return -1;
	return 0;
}

/*
 * A group fd inherited by a process that dropped its privileges: mount
 * and filesystem marks need CAP_SYS_ADMIN (EPERM), an inode mark needs
 * read permission on the object (EACCES), as in-tree fanotify decides
 * for every group. fsgate decides so only for FID groups, whose events
 * carry no fds: a group whose events do gets no new mark at all from
 * such a holder (EPERM), which fanotify allows.
 */
TEST_F(harden, inherited_fd_needs_privilege_to_mark)
{
	const int want[M_COUNT] = { EPERM, EPERM, EACCES, 0, EPERM };
	const int want_fd_group[M_COUNT] = { EPERM, EPERM, EPERM, EPERM, EPERM };
	char secret[96];
	int res[M_COUNT], i, f, g, fd;

	snprintf(secret, sizeof(secret), "%s/secret", self->dir);
	fd = open(secret, O_CREAT | O_WRONLY, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, chmod(self->dir, 0755));

	f = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, unprivileged_marks(f, 0, self->dir, secret, self->file,
					res));
	for (i = 0; i < M_COUNT; i++)
		EXPECT_EQ(want[i], res[i]) TH_LOG("fanotify request %d", i);
	close(f);

	g = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY, FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, unprivileged_marks(g, 1, self->dir, secret, self->file,
					res));
	for (i = 0; i < M_COUNT; i++)
		EXPECT_EQ(want_fd_group[i], res[i]) TH_LOG("fsgate request %d", i);
	close(g);

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, unprivileged_marks(g, 1, self->dir, secret, self->file,
					res));
	for (i = 0; i < M_COUNT; i++)
		EXPECT_EQ(want[i], res[i]) TH_LOG("fsgate FID request %d", i);
	close(g);
}

/* Add a mark of @type for @mask on @path with fsgate or fanotify; errno. */
static int try_mark(int g, int fsgate, unsigned int type, uint64_t mask,
		    const char *path)
{
	int r;

	if (fsgate)
		r = fsgate_mark(g, FAN_MARK_ADD | type, mask, AT_FDCWD, path);
	else
		r = fanotify_mark(g, FAN_MARK_ADD | type, mask, AT_FDCWD, path);
	return r ? errno : 0;
}

/*
 * Permission marks on procfs (FS_DISALLOW_NOTIFY_PERM) fail with EINVAL,
 * notification marks do not; as in-tree fanotify.
 */
TEST(perm_marks_on_procfs_are_refused)
{
	static const unsigned int types[] = {
		FAN_MARK_INODE, FAN_MARK_MOUNT, FAN_MARK_FILESYSTEM,
	};
	int f, g, i;

	f = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
	ASSERT_LE(0, f);
	g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT, 10000,
		       FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(EINVAL, try_mark(f, 0, types[i], FAN_OPEN_PERM,
					   "/proc/self/status"));
		EXPECT_EQ(EINVAL, try_mark(g, 1, types[i], FAN_OPEN_PERM,
					   "/proc/self/status"));
		EXPECT_EQ(0, try_mark(f, 0, types[i], FAN_OPEN,
				      "/proc/self/status"));
		EXPECT_EQ(0, try_mark(g, 1, types[i], FAN_OPEN,
				      "/proc/self/status"));
	}
	close(f);
	close(g);
}

/*
 * Mount and filesystem marks on kernel-internal filesystems (SB_NOUSER:
 * a pipe's pipefs, reached through /proc/self/fd) fail with EINVAL, as
 * in-tree fanotify. fsgate refuses an inode mark there too, which
 * fanotify accepts.
 */
TEST(marks_on_internal_mounts_are_refused)
{
	static const unsigned int types[] = {
		FAN_MARK_MOUNT, FAN_MARK_FILESYSTEM,
	};
	char path[64];
	int f, g, i, p[2];

	ASSERT_EQ(0, pipe(p));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	f = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
	ASSERT_LE(0, f);
	g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT, 10000,
		       FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, g);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(EINVAL, try_mark(f, 0, types[i], FAN_OPEN, path));
		EXPECT_EQ(EINVAL, try_mark(g, 1, types[i], FAN_OPEN, path));
		EXPECT_EQ(EINVAL, try_mark(f, 0, types[i], FAN_ACCESS_PERM,
					   path));
		EXPECT_EQ(EINVAL, try_mark(g, 1, types[i], FAN_ACCESS_PERM,
					   path));
	}
	EXPECT_EQ(0, try_mark(f, 0, FAN_MARK_INODE, FAN_OPEN, path));
	EXPECT_EQ(EINVAL, try_mark(g, 1, FAN_MARK_INODE, FAN_OPEN, path));
	EXPECT_EQ(EINVAL, try_mark(g, 1, FAN_MARK_INODE, FAN_ACCESS_PERM,
				   path));
	close(f);
	close(g);
	close(p[0]);
	close(p[1]);
}

/* Open and close @dir, then read the mask of the first event of @g. */
static uint64_t dir_open_mask(int g, const char *dir)
{
	struct fanotify_event_metadata ev;

	close(open(dir, O_RDONLY | O_DIRECTORY));
	if (!readable(g, WAIT_MS) || read(g, &ev, sizeof(ev)) != sizeof(ev))
		return 0;
	close(ev.fd);
	return ev.mask;
}

/*
 * Issue 13 item 13: in fd mode FAN_ONDIR is never in a reported mask, for
 * in-tree fanotify and fsgate alike.
 */
TEST_F(harden, ondir_is_not_reported)
{
	const uint64_t mask = FAN_OPEN | FAN_ONDIR;
	int f, g;

	f = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD, mask, AT_FDCWD, self->dir));
	EXPECT_EQ(FAN_OPEN, dir_open_mask(f, self->dir));
	close(f);

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, mask, AT_FDCWD, self->dir));
	EXPECT_EQ(FAN_OPEN, dir_open_mask(g, self->dir));
	close(g);
}

/*
 * Issue 13 item 15: FAN_MARK_REMOVE with only FAN_EVENT_ON_CHILD or only
 * FAN_ONDIR is accepted, by fanotify and fsgate alike.
 */
TEST_F(harden, remove_event_flags_alone)
{
	const uint64_t mask = FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD;
	int f, g;

	f = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD, mask, AT_FDCWD, self->dir));
	EXPECT_EQ(0, fanotify_mark(f, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD,
				   AT_FDCWD, self->dir));
	EXPECT_EQ(0, fanotify_mark(f, FAN_MARK_REMOVE, FAN_ONDIR, AT_FDCWD,
				   self->dir));
	close(f);

	g = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY, FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, mask, AT_FDCWD, self->dir));
	EXPECT_EQ(0, fsgate_mark(g, FSGATE_MARK_REMOVE, FAN_EVENT_ON_CHILD,
				 AT_FDCWD, self->dir)) TH_LOG("%m");
	EXPECT_EQ(0, fsgate_mark(g, FSGATE_MARK_REMOVE, FAN_ONDIR, AT_FDCWD,
				 self->dir)) TH_LOG("%m");
	close(g);
}

/* Open and close @dir; the union of the masks @g reads about it. */
static uint64_t dir_masks(int g, const char *dir)
{
	struct fanotify_event_metadata ev;
	uint64_t mask = 0;

	close(open(dir, O_RDONLY | O_DIRECTORY));
	while (readable(g, 300) && read(g, &ev, sizeof(ev)) == sizeof(ev)) {
		mask |= ev.mask;
		close(ev.fd);
	}
	return mask;
}

/*
 * Issue 13 item 14: an inode mark on a directory without FAN_ONDIR does
 * not report the directory's own opens, even when another mark of the
 * group (here its filesystem mark) has FAN_ONDIR; as in-tree fanotify.
 */
TEST_F(harden, dir_mark_without_ondir_is_silent)
{
	const uint64_t fs_mask = FAN_CLOSE_NOWRITE | FAN_ONDIR;
	int f, g;

	f = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   fs_mask, AT_FDCWD, self->dir));
	ASSERT_EQ(0, fanotify_mark(f, FAN_MARK_ADD, FAN_OPEN |
				   FAN_EVENT_ON_CHILD, AT_FDCWD, self->dir));
	EXPECT_EQ(FAN_CLOSE_NOWRITE, dir_masks(f, self->dir));
	close(f);

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 fs_mask, AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN |
				 FAN_EVENT_ON_CHILD, AT_FDCWD, self->dir));
	EXPECT_EQ(FAN_CLOSE_NOWRITE, dir_masks(g, self->dir));
	close(g);
}

/*
 * Issue 13 item 17: AT_FDCWD without a pathname marks the current
 * directory, as fanotify_mark(2) and fsgate's uapi say. In-tree fanotify
 * says EBADF on these kernels, against its manual; fsgate follows the
 * manual.
 */
TEST_F(harden, at_fdcwd_alone_marks_the_current_directory)
{
	struct fanotify_event_metadata ev;
	char cwd[PATH_MAX];
	int f, g;

	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	ASSERT_EQ(0, chdir(self->dir));
	f = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	ASSERT_LE(0, f);
	EXPECT_EQ(-1, fanotify_mark(f, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, NULL));
	EXPECT_EQ(EBADF, errno);
	close(f);

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	EXPECT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_ONLYDIR,
				 FAN_OPEN | FAN_EVENT_ON_CHILD, AT_FDCWD, NULL))
		TH_LOG("%m");
	close(open(self->file, O_RDONLY));
	ASSERT_TRUE(readable(g, WAIT_MS));
	ASSERT_EQ(sizeof(ev), read(g, &ev, sizeof(ev)));
	EXPECT_EQ(FAN_OPEN, ev.mask);
	close(ev.fd);
	close(g);
	ASSERT_EQ(0, chdir(cwd));
}

/*
 * A system call whose buffer is a page of stallfs's /unread faults, and
 * the fault waits as long as the server does: for ever, if a user's
 * server wants it so. Any holder of a group fd can make each of its calls
 * wait there; none may wait holding a lock of the module's that anyone
 * else needs. Each variant makes one call with its buffer on such a page;
 * while it waits, another process makes, marks, mutes, filters, persists,
 * lists and closes groups and has an open decided, within STUCK_SEC.
 * Killing the server then ends the fault, and the call (EFAULT).
 */
#define STUCK_SEC 10

/* What a stuck call works on. */
struct stuck_ctx {
	int g;		/* content group: an inode mark, a mute, a filter */
	int n;		/* notification group with an event queued */
	int dev;	/* /dev/fsgate */
	char *page;	/* a page of /unread, mapped private and writable */
	pid_t tid;	/* the thread making the call, once it runs */
	long (*call)(const struct stuck_ctx *ctx);
};

FIXTURE(stuck) {
	char dir[64];
	char mnt[96];
	pid_t server;
	struct stuck_ctx ctx;
};

FIXTURE_VARIANT(stuck) {
	long (*call)(const struct stuck_ctx *ctx);
};

/* @name in @dir, made empty; an open fd of it is not kept. */
static int stuck_file(const char *dir, const char *name, char *path,
		      size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	return close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
}

FIXTURE_SETUP(stuck)
{
	struct fsgate_mute_entry uid = { .type = FSGATE_MUTE_UID, .id = 65534 };
	struct sock_filter ask = BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK);
	char gfile[96], nfile[96], unread[112];
	int fd;

	ASSERT_EQ(0, fsgate_test_tmpfs("stuck", self->dir, sizeof(self->dir)));
	snprintf(self->mnt, sizeof(self->mnt), "%s/fuse", self->dir);
	self->server = stallfs_start(self->mnt);
	ASSERT_LT(0, self->server) TH_LOG("cannot start %s", STALLFS);
	snprintf(unread, sizeof(unread), "%s/unread", self->mnt);
	fd = open(unread, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %m", unread);
	self->ctx.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			      fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, self->ctx.page);
	self->ctx.call = variant->call;

	ASSERT_EQ(0, stuck_file(self->dir, "gfile", gfile, sizeof(gfile)));
	ASSERT_EQ(0, stuck_file(self->dir, "nfile", nfile, sizeof(nfile)));
	self->ctx.g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT,
				 10000, FSGATE_VERDICT_DEFAULT,
				 FSGATE_VERDICT_DEFAULT);
	ASSERT_LE(0, self->ctx.g);
	ASSERT_EQ(0, fsgate_mark(self->ctx.g, FSGATE_MARK_ADD, FAN_OPEN_PERM,
				 AT_FDCWD, gfile));
	ASSERT_EQ(0, fsgate_mute_add(self->ctx.g, &uid));
	ASSERT_EQ(0, fsgate_set_filter(self->ctx.g, &ask, 1));
	self->ctx.n = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK,
				  O_RDONLY, FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, self->ctx.n);
	ASSERT_EQ(0, fsgate_mark(self->ctx.n, FSGATE_MARK_ADD, FAN_OPEN,
				 AT_FDCWD, nfile));
	close(open(nfile, O_RDONLY | O_CLOEXEC));
	ASSERT_TRUE(readable(self->ctx.n, WAIT_MS));
	self->ctx.dev = open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->ctx.dev);
}

FIXTURE_TEARDOWN(stuck)
{
	if (self->server > 0)
		stallfs_stop(self->server, self->mnt);
	if (self->ctx.page && self->ctx.page != MAP_FAILED)
		munmap(self->ctx.page, 4096);
	close(self->ctx.g);
	close(self->ctx.n);
	close(self->ctx.dev);
	fsgate_test_tmpfs_done(self->dir);
}

static long stuck_read(const struct stuck_ctx *c)
{
	return read(c->n, c->page, 4096);
}

static long stuck_write(const struct stuck_ctx *c)
{
	return write(c->g, c->page, sizeof(struct fanotify_response));
}

static long stuck_mark(const struct stuck_ctx *c)
{
	return ioctl(c->g, FSGATE_IOC_MARK, c->page);
}

static long stuck_mark_path(const struct stuck_ctx *c)
{
	struct fsgate_mark m = {
		.flags = FSGATE_MARK_ADD | FSGATE_MARK_INODE,
		.dirfd = AT_FDCWD,
		.mask = FAN_OPEN_PERM,
		.pathname = (uintptr_t)c->page,
	};

	return ioctl(c->g, FSGATE_IOC_MARK, &m);
}

static long stuck_mute(const struct stuck_ctx *c)
{
	return ioctl(c->g, FSGATE_IOC_MUTE, c->page);
}

static long stuck_mute_list(const struct stuck_ctx *c)
{
	struct fsgate_mute m = {
		.size = sizeof(m),
		.op = FSGATE_MUTE_LIST,
		.count = 1,
		.entries = (uintptr_t)c->page,
	};

	return ioctl(c->g, FSGATE_IOC_MUTE, &m);
}

static long stuck_filter(const struct stuck_ctx *c)
{
	struct fsgate_filter f = { .len = 1, .insns = (uintptr_t)c->page };

	return ioctl(c->g, FSGATE_IOC_SET_FILTER, &f);
}

static long stuck_stats(const struct stuck_ctx *c)
{
	return ioctl(c->g, FSGATE_IOC_STATS, c->page);
}

static long stuck_fionread(const struct stuck_ctx *c)
{
	return ioctl(c->n, FIONREAD, c->page);
}

static long stuck_persist(const struct stuck_ctx *c)
{
	return ioctl(c->g, FSGATE_IOC_PERSIST, c->page);
}

static long stuck_groups(const struct stuck_ctx *c)
{
	struct fsgate_groups r = {
		.size = FSGATE_GROUP_ENTRY_SIZE_VER0,
		.count = 1,
		.entries = (uintptr_t)c->page,
	};

	return ioctl(c->dev, FSGATE_IOC_GROUPS, &r);
}

static long stuck_init(const struct stuck_ctx *c)
{
	return ioctl(c->dev, FSGATE_IOC_INIT, c->page);
}

static long stuck_attach(const struct stuck_ctx *c)
{
	return ioctl(c->dev, FSGATE_IOC_ATTACH, c->page);
}

/* read() of @path into the page. */
static long stuck_read_file(const struct stuck_ctx *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, c->page, 4096);
	close(fd);
	return n;
}

static long stuck_proc_groups(const struct stuck_ctx *c)
{
	return stuck_read_file(c, "/proc/fsgate/groups");
}

static long stuck_fdinfo(const struct stuck_ctx *c)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", c->g);
	return stuck_read_file(c, path);
}

#define STUCK_VARIANT(name)					\
	FIXTURE_VARIANT_ADD(stuck, name) { .call = stuck_##name }

STUCK_VARIANT(read);
STUCK_VARIANT(write);
STUCK_VARIANT(mark);
STUCK_VARIANT(mark_path);
STUCK_VARIANT(mute);
STUCK_VARIANT(mute_list);
STUCK_VARIANT(filter);
STUCK_VARIANT(stats);
STUCK_VARIANT(fionread);
STUCK_VARIANT(persist);
STUCK_VARIANT(groups);
STUCK_VARIANT(init);
STUCK_VARIANT(attach);
STUCK_VARIANT(proc_groups);
STUCK_VARIANT(fdinfo);

static void *stuck_thread(void *arg)
{
	struct stuck_ctx *c = arg;

	__atomic_store_n(&c->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	return (void *)c->call(c);
}

/* The state letter of thread @tid of this process, or 0. */
static char thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Whether the thread making the call sleeps in it: seen asleep for half
 * a second on end, within WAIT_MS.
 */
static bool stuck_asleep(const struct stuck_ctx *c)
{
	int asleep = 0, i;
	pid_t tid;
	char st;

	for (i = 0; i < WAIT_MS / 10 && asleep < 50; i++) {
		usleep(10000);
		tid = __atomic_load_n(&c->tid, __ATOMIC_ACQUIRE);
		st = tid ? thread_state(tid) : 0;
		asleep = st == 'D' || st == 'S' ? asleep + 1 : 0;
	}
	return asleep >= 50;
}

/*
 * What another process does while the call waits: make a group, mark
 * it, mute, filter, persist it and attach to it; have an open decided
 * by it and its verdict cached; list the groups (ioctl and /proc); read
 * its fdinfo; remove and close it. Returns 0, or the step that failed.
 */
static int stuck_others(const char *dir)
{
	struct fsgate_mute_entry uid = { .type = FSGATE_MUTE_UID, .id = 65533 };
	struct sock_filter ask = BPF_STMT(BPF_RET | BPF_K, FSGATE_FILTER_ASK);
	struct fsgate_persist req = {
		.size = sizeof(req),
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.absent_ms = 1000,
		.absent_verdict = FSGATE_VERDICT_DENY,
		.linger_ms = 1000,
	};
	struct fanotify_event_metadata ev;
	struct fsgate_group_info *all = NULL;
	char path[96], info[64];
	pid_t pid;
	int g, a;

	snprintf(req.name, sizeof(req.name), "stuck-%d", (int)getpid());
	if (stuck_file(dir, "file2", path, sizeof(path)))
		return 1;
	g = perm_group(FSGATE_CLASS_CONTENT, FSGATE_PRIORITY_DEFAULT, 10000,
		       FSGATE_VERDICT_DEFAULT, FSGATE_VERDICT_DEFAULT);
	if (g < 0 || fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				 path))
		return 2;
	if (fsgate_mute_add(g, &uid) || fsgate_set_filter(g, &ask, 1))
		return 3;
	if (fsgate_persist(g, &req))
		return 4;
	a = fsgate_attach(req.name, FSGATE_CLOEXEC);
	if (a < 0)
		return 5;
	pid = spawn_open(path, O_RDONLY, 0);
	if (next_event(g, WAIT_MS, &ev) ||
	    answer(g, ev.fd, FSGATE_ALLOW | FSGATE_CACHE) !=
	    sizeof(struct fanotify_response) || reap(pid))
		return 6;
	if (fsgate_groups_read(NULL, &all) < 2 ||
	    fsgate_groups_read("/proc/fsgate/groups", &all) < 2)
		return 7;
	free(all);
	if (fsgate_test_fdinfo(g, "id", info, sizeof(info)))
		return 8;
	if (fsgate_remove(req.name))
		return 9;
	close(a);
	close(g);
	return 0;
}

TEST_F(stuck, a_call_stuck_in_a_fault_stalls_nobody_else)
{
	int go[2], status = -1, i;
	pthread_t thread;
	void *ret;
	pid_t pid;
	char c;

	/* Forked before the fault: a fork waits for the faulting mm. */
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? stuck_others(self->dir) : 100);
	}
	close(go[0]);
	ASSERT_EQ(0, pthread_create(&thread, NULL, stuck_thread, &self->ctx));
	EXPECT_TRUE(stuck_asleep(&self->ctx))
		TH_LOG("the call did not wait in its fault");
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	for (i = 0; i < STUCK_SEC * 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(10000);
	}
	EXPECT_GT(STUCK_SEC * 100, i)
		TH_LOG("others waited %d s behind the stuck call", STUCK_SEC);
	/* The call still waits: the fault is what held it. */
	EXPECT_NE(0, pthread_tryjoin_np(thread, &ret));
	stallfs_stop(self->server, self->mnt);
	self->server = 0;
	ASSERT_EQ(0, pthread_join(thread, &ret));
	EXPECT_EQ(-1, (long)ret);
	if (i == STUCK_SEC * 100)
		waitpid(pid, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("others failed at step %d", WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
