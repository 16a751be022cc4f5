// SPDX-License-Identifier: GPL-2.0
/*
 * The fanotify layer (libfsgate-fanotify.so, under fsgate-run): what it
 * serves beyond fanotify's flags as fsgate has them. FAN_REPORT_PIDFD is
 * compared with the kernel's own fanotify side by side: the same program
 * steps run once in this process on in-tree fanotify and once in this
 * program re-run under fsgate-run, and must give the same records. The
 * layer's variables (orphan verdict, FSGATE_EXCLUDE_SELF,
 * FSGATE_REPORT_PROC) are checked against a run without them.
 *
 * Run under fsgate-run, this program does one step (LAYER_MODE_ENV) and
 * writes what it saw to the fd LAYER_OUT_ENV names.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#ifndef FAN_REPORT_TARGET_FID
#define FAN_REPORT_TARGET_FID 0x00001000
#endif
#ifndef FAN_REPORT_FD_ERROR
#define FAN_REPORT_FD_ERROR 0x00002000
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define FSGATE_RUN "/fsgate/bin/fsgate-run"
#define LAYER_MODE_ENV "FSGATE_LAYER_TEST_MODE"
#define LAYER_FILE_ENV "FSGATE_LAYER_TEST_FILE"
#define LAYER_OUT_ENV "FSGATE_LAYER_TEST_OUT"
#define WAIT_MS 10000	/* for what must come */

/* An event with its records, aligned as a reader's buffer should be. */
struct event_buf {
	struct fanotify_event_metadata meta;
	unsigned char info[256];
} __attribute__((aligned(8)));

/* The accessor of a pidfd run: alive while the pidfd is checked, or not. */
enum accessor { PERM_ALIVE, NOTIF_ALIVE, NOTIF_GONE };

/* What one FAN_REPORT_PIDFD run saw; compared field by field. */
struct pidfd_outcome {
	int step;		/* 0, or the step that failed */
	int err;		/* errno of that step */
	int event_len;
	int metadata_len;
	int pid_is_accessor;	/* metadata.pid */
	int info_type;
	int info_len;
	int pidfd;		/* 1 for a pidfd, else FAN_NOPIDFD or FAN_EPIDFD */
	int pidfd_pid_is_accessor;	/* its fdinfo's Pid: */
	int pidfd_signals;	/* pidfd_send_signal(pidfd, 0) works */
	int pidfd_cloexec;
};

/* What a pidfd record's pidfd is, and whether it holds @pid. */
struct pidfd_check {
	int pidfd;		/* 1 for a pidfd, else FAN_NOPIDFD or FAN_EPIDFD */
	int pid_is_accessor;	/* its fdinfo's Pid: */
	int signals;		/* pidfd_send_signal(pidfd, 0) works */
	int cloexec;
};

/* Fill @c from @pidfd, which it closes, of an access @pid made. */
static void pidfd_check(int pidfd, pid_t pid, struct pidfd_check *c)
{
	char value[32];

	if (pidfd < 0) {
		c->pidfd = pidfd;
		return;
	}
	c->pidfd = 1;
	c->pid_is_accessor = !fsgate_test_fdinfo(pidfd, "Pid", value,
						 sizeof(value)) &&
			     atoi(value) == pid;
	c->signals = syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
	c->cloexec = (fcntl(pidfd, F_GETFD) & FD_CLOEXEC) != 0;
	close(pidfd);
}

/* Fill @o from the event in @e, whose access @pid made. */
static void pidfd_record(const struct event_buf *e, ssize_t n, pid_t pid,
			 struct pidfd_outcome *o)
{
	struct fanotify_event_info_pidfd rec;
	struct pidfd_check c = { 0 };

	o->event_len = e->meta.event_len;
	o->metadata_len = e->meta.metadata_len;
	o->pid_is_accessor = e->meta.pid == pid;
	if (n < (ssize_t)e->meta.event_len ||
	    e->meta.event_len < e->meta.metadata_len + sizeof(rec)) {
		o->step = 5;
		return;
	}
	memcpy(&rec, (const char *)e + e->meta.metadata_len, sizeof(rec));
	o->info_type = rec.hdr.info_type;
	o->info_len = rec.hdr.len;
	pidfd_check(rec.pidfd, pid, &c);
	o->pidfd = c.pidfd;
	o->pidfd_pid_is_accessor = c.pid_is_accessor;
	o->pidfd_signals = c.signals;
	o->pidfd_cloexec = c.cloexec;
}

/* One run of a program's steps: its group, the accessor, how far it got. */
struct run {
	bool gone;	/* the accessor is reaped before the event is read */
	int *step;	/* 0, or the step that failed */
	int *err;	/* errno of that step */
	int g;
	int hold[2];
	pid_t pid;
};

/*
 * fanotify_init(@flags), a mark on @obj for @mask, and a child that
 * opens @path with @oflags (mode 0644) and stays until run_end(), or
 * with @r->gone is reaped at once. Return 0, or -1 with nothing left.
 */
static int run_start(struct run *r, unsigned int flags, uint64_t mask,
		     const char *obj, const char *path, int oflags)
{
	r->g = fanotify_init(flags, O_RDONLY | O_CLOEXEC);
	if (r->g < 0) {
		*r->step = 1;
		*r->err = errno;
		return -1;
	}
	if (fanotify_mark(r->g, FAN_MARK_ADD, mask, AT_FDCWD, obj) ||
	    pipe2(r->hold, O_CLOEXEC)) {
		*r->step = 2;
		*r->err = errno;
		close(r->g);
		return -1;
	}
	r->pid = fork();
	if (!r->pid) {
		int fd = open(path, oflags, 0644);
		char c;

		if (fd >= 0)
			close(fd);
		close(r->hold[1]);
		if (!r->gone && read(r->hold[0], &c, 1) < 0)
			_exit(2);
		_exit(fd < 0 ? 1 : 0);
	}
	close(r->hold[0]);
	if (r->gone) {
		close(r->hold[1]);
		if (reap(r->pid))
			*r->step = 3;
	}
	return 0;
}

/* One read() of the group into @buf: its length, or -1 (step 4). */
static ssize_t run_read(struct run *r, void *buf, size_t len)
{
	ssize_t n;

	if (!readable(r->g, WAIT_MS)) {
		*r->step = 4;
		return -1;
	}
	n = read(r->g, buf, len);
	if (n < (ssize_t)FAN_EVENT_METADATA_LEN) {
		*r->step = 4;
		*r->err = errno;
		return -1;
	}
	return n;
}

/* Let the accessor go, reap it and close the group. */
static void run_end(struct run *r)
{
	if (!r->gone) {
		close(r->hold[1]);
		if (reap(r->pid) && !*r->step)
			*r->step = 6;
	}
	close(r->g);
}

/*
 * What a fanotify program with FAN_REPORT_PIDFD does: mark @file, let a
 * child open it and read the event. The child stays until the record is
 * checked, or (NOTIF_GONE) is reaped before the event is read.
 */
static void pidfd_run(enum accessor a, const char *file, struct pidfd_outcome *o)
{
	unsigned int class = a == PERM_ALIVE ? FAN_CLASS_CONTENT : FAN_CLASS_NOTIF;
	uint64_t mask = a == PERM_ALIVE ? FAN_OPEN_PERM : FAN_OPEN;
	struct run r = { .gone = a == NOTIF_GONE };
	struct event_buf e;
	ssize_t n;

	memset(o, 0, sizeof(*o));
	r.step = &o->step;
	r.err = &o->err;
	if (run_start(&r, class | FAN_CLOEXEC | FAN_REPORT_PIDFD, mask, file,
		      file, O_RDONLY))
		return;
	n = run_read(&r, &e, sizeof(e));
	if (n >= 0) {
		pidfd_record(&e, n, r.pid, o);
		if (a == PERM_ALIVE && e.meta.fd >= 0)
			answer(r.g, e.meta.fd, FAN_ALLOW);
		else if (e.meta.fd >= 0)
			close(e.meta.fd);
	}
	run_end(&r);
}

/*
 * FID reporting with FAN_REPORT_PIDFD: what a program saw of the
 * FAN_CREATE of FID_NAME in the marked directory; compared field by
 * field, the directory's record byte by byte.
 */
/*
 * 8 characters: with its NUL the directory's record is padded to a
 * multiple of 4 that is not one of 8, so the pidfd record after it sits
 * off an 8-byte boundary, as fanotify puts it.
 */
#define FID_NAME "fid-file"
#define FID_MAX_RECORDS 4
struct fid_outcome {
	int step;		/* 0, or the step that failed */
	int err;		/* errno of that step */
	int events;		/* in the read */
	int event_len;
	int metadata_len;
	int fd;
	unsigned int mask;
	int pid_is_accessor;	/* metadata.pid */
	int records;
	int type[FID_MAX_RECORDS];
	int len[FID_MAX_RECORDS];
	int offset[FID_MAX_RECORDS];	/* from the metadata's start */
	int dir_len;		/* the first record's length and bytes */
	unsigned char dir[256];
	struct pidfd_check pidfd;	/* of the pidfd record */
};

/* Fill @o from the @n bytes at @ev, whose first event @pid made. */
static void fid_records(const struct fanotify_event_metadata *ev, ssize_t n,
			pid_t pid, struct fid_outcome *o)
{
	const unsigned char *p = (const void *)ev;
	struct fanotify_event_info_header hdr;
	struct fanotify_event_info_pidfd rec;
	const struct fanotify_event_metadata *e;
	ssize_t left = n;
	size_t off;

	for (e = ev; FAN_EVENT_OK(e, left); e = FAN_EVENT_NEXT(e, left))
		o->events++;
	o->event_len = ev->event_len;
	o->metadata_len = ev->metadata_len;
	o->fd = ev->fd;
	o->mask = (unsigned int)ev->mask;
	o->pid_is_accessor = ev->pid == pid;
	if (n < (ssize_t)ev->event_len || ev->event_len < ev->metadata_len) {
		o->step = 5;
		return;
	}
	for (off = ev->metadata_len; off + sizeof(hdr) <= ev->event_len;
	     off += hdr.len) {
		memcpy(&hdr, p + off, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || off + hdr.len > ev->event_len ||
		    o->records == FID_MAX_RECORDS)
			break;
		o->type[o->records] = hdr.info_type;
		o->len[o->records] = hdr.len;
		o->offset[o->records] = (int)off;
		if (!o->records) {
			o->dir_len = hdr.len;
			memcpy(o->dir, p + off, hdr.len < sizeof(o->dir) ?
			       hdr.len : sizeof(o->dir));
		}
		o->records++;
		if (hdr.info_type == FAN_EVENT_INFO_TYPE_PIDFD &&
		    hdr.len >= sizeof(rec)) {
			memcpy(&rec, p + off, sizeof(rec));
			pidfd_check(rec.pidfd, pid, &o->pidfd);
		}
	}
	if (off != ev->event_len)
		o->step = 5;
}

/*
 * What a fanotify program with FID reporting and FAN_REPORT_PIDFD does
 * (@mode "fid": FAN_REPORT_DFID_NAME, "fid-target": with FAN_REPORT_FID
 * and FAN_REPORT_TARGET_FID, which add the file's own record,
 * "fid-gone": as "fid", with the accessor reaped before the read): mark
 * @dir for FAN_CREATE, let a child create FID_NAME in it and read the
 * event.
 */
static void fid_run(const char *mode, const char *dir, struct fid_outcome *o)
{
	union {
		struct fanotify_event_metadata meta;
		unsigned char b[1024];
	} buf;
	unsigned int flags = FAN_CLASS_NOTIF | FAN_CLOEXEC |
			     FAN_REPORT_DFID_NAME | FAN_REPORT_PIDFD;
	struct run r = { .gone = !strcmp(mode, "fid-gone") };
	char path[160];
	ssize_t n;

	memset(o, 0, sizeof(*o));
	r.step = &o->step;
	r.err = &o->err;
	if (!strcmp(mode, "fid-target"))
		flags |= FAN_REPORT_FID | FAN_REPORT_TARGET_FID;
	snprintf(path, sizeof(path), "%s/" FID_NAME, dir);
	if (run_start(&r, flags, FAN_CREATE, dir, path,
		      O_CREAT | O_EXCL | O_WRONLY))
		return;
	n = run_read(&r, &buf, sizeof(buf));
	if (n >= 0)
		fid_records(&buf.meta, n, r.pid, o);
	run_end(&r);
	unlink(path);
}

/* What a FAN_REPORT_FD_ERROR program saw; compared field by field. */
struct fd_error_outcome {
	int step;		/* 0, or the step that failed */
	int err;		/* errno of that step */
	int perm_read;		/* read() of the permission event, out of fds */
	int perm_fd;		/* its fd */
	int perm_access;	/* the accessor's errno */
	int gone_len;		/* the notification of an accessor reaped */
	int gone_fd_ok;		/* its fd is a file's */
	int gone_info_type;
	int gone_pidfd;		/* its pidfd record's pidfd */
};

/*
 * What a fanotify program with FAN_REPORT_FD_ERROR does: read the open
 * of @file it is asked about while out of fds (its fd says the errno
 * and the open is denied), then, with FAN_REPORT_PIDFD as well, read
 * the open of an accessor that exited (its pidfd record says the errno).
 */
static void fd_error_run(const char *file, struct fd_error_outcome *o)
{
	struct run r = { .gone = true };
	struct pidfd_outcome po;
	struct event_buf e;
	struct rlimit rl;
	pid_t pid;
	ssize_t n;
	int g;

	memset(o, 0, sizeof(*o));
	g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_REPORT_FD_ERROR,
			  O_RDONLY | O_CLOEXEC);
	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				   file)) {
		o->step = g < 0 ? 1 : 2;
		o->err = errno;
		return;
	}
	pid = spawn_open(file, O_RDONLY, 0);
	if (!readable(g, WAIT_MS) || lower_nofile(&rl)) {
		o->step = 3;
		o->err = errno;
	} else {
		n = read(g, &e, sizeof(e));
		o->err = n < 0 ? errno : 0;
		setrlimit(RLIMIT_NOFILE, &rl);
		o->perm_read = (int)n;
		o->perm_fd = n > 0 ? e.meta.fd : 0;
		if (n > 0 && e.meta.fd >= 0)
			answer(g, e.meta.fd, FAN_ALLOW);
	}
	o->perm_access = reap(pid);
	close(g);
	if (o->step)
		return;

	r.step = &o->step;
	r.err = &o->err;
	if (run_start(&r, FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_REPORT_PIDFD |
		      FAN_REPORT_FD_ERROR, FAN_OPEN, file, file, O_RDONLY))
		return;
	n = run_read(&r, &e, sizeof(e));
	if (n >= 0) {
		memset(&po, 0, sizeof(po));
		pidfd_record(&e, n, r.pid, &po);
		o->gone_len = e.meta.event_len;
		o->gone_fd_ok = e.meta.fd >= 0;
		o->gone_info_type = po.info_type;
		o->gone_pidfd = po.pidfd;
		if (e.meta.fd >= 0)
			close(e.meta.fd);
	}
	run_end(&r);
}

/* Write @len bytes of @out to the fd LAYER_OUT_ENV names. */
static void report(const void *out, size_t len)
{
	const char *fd = getenv(LAYER_OUT_ENV);

	if (!fd || write(atoi(fd), out, len) != (ssize_t)len)
		_exit(120);
}

/* fanotify_init(FAN_REPORT_PIDFD | FAN_REPORT_TID): its errno, or 0. */
static int pidfd_tid_errno(void)
{
	int g = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_PIDFD |
			      FAN_REPORT_TID, O_RDONLY);

	if (g >= 0) {
		close(g);
		return 0;
	}
	return errno;
}

/*
 * An unanswering daemon: says "R" once its mark is in, "E" once it has
 * read an event, then waits to be killed.
 */
static int silent_daemon(const char *file)
{
	struct event_buf e;
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);

	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file))
		return 10;
	report("R", 1);
	if (read(g, &e, sizeof(e)) < (ssize_t)FAN_EVENT_METADATA_LEN)
		return 11;
	report("E", 1);
	for (;;)
		pause();
}

/*
 * A daemon that stops in order as fapolicyd does: it marks @file, then
 * flushes its inode and mount marks ("stop the flow of events"), closes
 * its group and exits.
 */
static int flushing_daemon(const char *file)
{
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);

	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file))
		return 10;
	if (fanotify_mark(g, FAN_MARK_FLUSH, 0, AT_FDCWD, file) ||
	    fanotify_mark(g, FAN_MARK_FLUSH | FAN_MARK_MOUNT, 0, AT_FDCWD, file))
		return 11;
	close(g);
	report("F", 1);
	return 0;
}

/*
 * A daemon that denies every open of @file it reads until none comes for
 * a second: how many it denied, reported as one int.
 */
static int denying_daemon(const char *file)
{
	struct fanotify_event_metadata ev;
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			      O_RDONLY);
	int denied = 0;

	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file))
		return 10;
	while (readable(g, 1000) && read(g, &ev, sizeof(ev)) == sizeof(ev))
		if (answer(g, ev.fd, FAN_DENY) == sizeof(struct fanotify_response))
			denied++;
	report(&denied, sizeof(denied));
	return 0;
}

/*
 * A daemon whose child opens @file: how many times it was asked
 * (answering allow), and the child's exit status. Reported as two ints.
 */
static int asking_daemon(const char *file)
{
	struct fanotify_event_metadata ev;
	int out[2] = { 0, -1 }, status, i;
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			      O_RDONLY);
	pid_t pid;

	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file))
		return 10;
	pid = spawn_open(file, O_RDONLY, 0);
	for (i = 0; i < WAIT_MS / 50; i++) {
		/* The poll is also the loop's pause. */
		if (readable(g, 50) && read(g, &ev, sizeof(ev)) == sizeof(ev)) {
			out[0]++;
			answer(g, ev.fd, FAN_ALLOW);
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			out[1] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			break;
		}
	}
	report(out, sizeof(out));
	return 0;
}

/*
 * A notification daemon: the event of its child's open, and whether a
 * process record came with it naming the child. Reported as three ints:
 * event_len, record found, its tgid is the child.
 */
static int records_daemon(const char *file)
{
	const struct fsgate_info_proc *proc;
	int out[3] = { 0 };
	struct event_buf e;
	int g = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
	pid_t pid;

	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, file))
		return 10;
	pid = spawn_open(file, O_RDONLY, 0);
	if (reap(pid) || !readable(g, WAIT_MS) ||
	    read(g, &e, sizeof(e)) < (ssize_t)FAN_EVENT_METADATA_LEN)
		return 11;
	out[0] = e.meta.event_len;
	proc = fsgate_info_proc(&e.meta);
	out[1] = proc != NULL;
	out[2] = proc && proc->tgid == pid;
	report(out, sizeof(out));
	return 0;
}

/* What overflow_daemon() saw. */
struct overflow_outcome {
	int step;
	int events;
	int with_pidfd;		/* events with a pidfd of their process */
	int overflow_len;	/* the FAN_Q_OVERFLOW's event_len, 0 if none */
	int overflow_info_type;
	int overflow_pidfd;
};

/*
 * A FAN_REPORT_PIDFD daemon whose queue overflows: it writes files in
 * @dir, more than the module queues (the test lowers max_queued_events),
 * then reads them all in one read().
 */
static int overflow_daemon(const char *dir, struct overflow_outcome *o)
{
	union {
		struct fanotify_event_metadata meta;
		char b[4096];
	} buf;
	struct fanotify_event_metadata *ev;
	struct fanotify_event_info_pidfd rec;
	char path[128];
	ssize_t n;
	int g, i;

	memset(o, 0, sizeof(*o));
	g = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_REPORT_PIDFD,
			  O_RDONLY | O_CLOEXEC);
	if (g < 0 || fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_CLOSE_WRITE, AT_FDCWD, dir))
		return o->step = 1;
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/overflow%d", dir, i);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	n = read(g, &buf, sizeof(buf));
	if (n < (ssize_t)FAN_EVENT_METADATA_LEN)
		return o->step = 2;
	for (ev = &buf.meta; FAN_EVENT_OK(ev, n); ev = FAN_EVENT_NEXT(ev, n)) {
		o->events++;
		if (ev->event_len < ev->metadata_len + sizeof(rec))
			continue;
		memcpy(&rec, (char *)ev + ev->metadata_len, sizeof(rec));
		if (ev->mask & FAN_Q_OVERFLOW) {
			o->overflow_len = ev->event_len;
			o->overflow_info_type = rec.hdr.info_type;
			o->overflow_pidfd = rec.pidfd;
		} else if (rec.hdr.info_type == FAN_EVENT_INFO_TYPE_PIDFD &&
			   rec.pidfd >= 0) {
			o->with_pidfd++;
			close(rec.pidfd);
		}
		if (ev->fd >= 0)
			close(ev->fd);
	}
	close(g);
	return 0;
}

/*
 * A group as the layer makes it: its orphan verdict and FSGATE_* flags,
 * from its fdinfo's fsgate-group line. Reported as two ints: 1 for deny,
 * and the flags.
 */
static int group_daemon(void)
{
	int out[2] = { -1, -1 };
	char path[64], line[512], *p;
	unsigned int flags;
	FILE *f;
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);

	if (g < 0)
		return 10;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "fsgate-group ", 13))
			continue;
		p = strstr(line, " flags:0x");
		if (p && sscanf(p, " flags:0x%x", &flags) == 1)
			out[1] = flags;
		out[0] = strstr(line, " orphan-verdict:deny") != NULL;
	}
	if (f)
		fclose(f);
	report(out, sizeof(out));
	return 0;
}

/* What an unprivileged fanotify program saw; compared field by field. */
struct user_outcome {
	int step;		/* 0, or the step that failed */
	int err;		/* errno of that step */
	int init_err[3];	/* no FID, a content class, FAN_REPORT_PIDFD */
	int fs_mark_err;	/* a filesystem mark */
	int other_pid;		/* another process's event: its pid */
	int other_fd;
	int other_mask;
	int other_type;		/* its first record */
	int own_pid_is_self;	/* the program's own event: its pid */
	int own_fd;
};

#define USER_STEP(o, n, ok) do {		\
	if (!(ok)) {				\
		(o)->step = (n);		\
		(o)->err = errno;		\
		goto out;			\
	}					\
} while (0)

/* The errno of fanotify_init(@flags), 0 if it made a group. */
static int init_errno(unsigned int flags)
{
	int g = fanotify_init(flags, O_RDONLY);

	if (g < 0)
		return errno;
	close(g);
	return 0;
}

/* One event on @g within WAIT_MS into @e; its first record's type. */
static int user_event(int g, struct event_buf *e)
{
	const struct fanotify_event_info_header *h = (const void *)e->info;
	ssize_t n;

	if (!readable(g, WAIT_MS))
		return -1;
	n = read(g, e, sizeof(*e));
	if (n < (ssize_t)(FAN_EVENT_METADATA_LEN + sizeof(*h)))
		return -1;
	return h->info_type;
}

/*
 * What a fanotify program run by a user does (the caller dropped its
 * privileges): ask for what fanotify keeps for CAP_SYS_ADMIN, then make
 * a FID group, mark @dir for FAN_CREATE (a filesystem mark first,
 * refused) and read a child's creation and its own.
 */
static void user_run(const char *dir, struct user_outcome *o)
{
	struct event_buf e;
	char path[160];
	int g = -1, fd, type;

	memset(o, 0, sizeof(*o));
	o->init_err[0] = init_errno(FAN_CLASS_NOTIF);
	o->init_err[1] = init_errno(FAN_CLASS_CONTENT | FAN_REPORT_FID);
	o->init_err[2] = init_errno(FAN_REPORT_DFID_NAME | FAN_REPORT_PIDFD);
	g = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_REPORT_DFID_NAME,
			  O_RDONLY);
	USER_STEP(o, 1, g >= 0);
	o->fs_mark_err = fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				       FAN_CREATE, AT_FDCWD, dir) ? errno : 0;
	USER_STEP(o, 2, !fanotify_mark(g, FAN_MARK_ADD, FAN_CREATE, AT_FDCWD,
				       dir));
	snprintf(path, sizeof(path), "%s/other", dir);
	USER_STEP(o, 3, !reap(spawn_open(path, O_CREAT | O_WRONLY, 0)));
	type = user_event(g, &e);
	USER_STEP(o, 4, type >= 0);
	o->other_pid = e.meta.pid;
	o->other_fd = e.meta.fd;
	o->other_mask = (int)e.meta.mask;
	o->other_type = type;
	snprintf(path, sizeof(path), "%s/own", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	USER_STEP(o, 5, fd >= 0);
	close(fd);
	USER_STEP(o, 6, user_event(g, &e) >= 0);
	o->own_pid_is_self = e.meta.pid == getpid();
	o->own_fd = e.meta.fd;
out:
	if (g >= 0)
		close(g);
}

/* Run as one step of a fanotify program, when fsgate-run starts us so. */
static void __attribute__((constructor)) layer_mode(void)
{
	const char *mode = getenv(LAYER_MODE_ENV);
	const char *file = getenv(LAYER_FILE_ENV);
	struct pidfd_outcome o;
	int err;

	if (!mode || !file)
		return;
	if (!strcmp(mode, "perm") || !strcmp(mode, "notif") ||
	    !strcmp(mode, "gone")) {
		pidfd_run(!strcmp(mode, "perm") ? PERM_ALIVE :
			  !strcmp(mode, "notif") ? NOTIF_ALIVE : NOTIF_GONE,
			  file, &o);
		report(&o, sizeof(o));
		_exit(0);
	}
	if (!strncmp(mode, "fid", 3)) {
		struct fid_outcome f;

		fid_run(mode, file, &f);
		report(&f, sizeof(f));
		_exit(0);
	}
	if (!strcmp(mode, "fd-error")) {
		struct fd_error_outcome fe;

		fd_error_run(file, &fe);
		report(&fe, sizeof(fe));
		_exit(0);
	}
	if (!strcmp(mode, "tid")) {
		err = pidfd_tid_errno();
		report(&err, sizeof(err));
		_exit(0);
	}
	if (!strcmp(mode, "overflow")) {
		struct overflow_outcome of;

		overflow_daemon(file, &of);
		report(&of, sizeof(of));
		_exit(0);
	}
	if (!strcmp(mode, "user")) {
		struct user_outcome u;

		user_run(file, &u);
		report(&u, sizeof(u));
		_exit(0);
	}
	if (!strcmp(mode, "group"))
		_exit(group_daemon());
	if (!strcmp(mode, "silent"))
		_exit(silent_daemon(file));
	if (!strcmp(mode, "asking"))
		_exit(asking_daemon(file));
	if (!strcmp(mode, "deny"))
		_exit(denying_daemon(file));
	if (!strcmp(mode, "flush"))
		_exit(flushing_daemon(file));
	if (!strcmp(mode, "records"))
		_exit(records_daemon(file));
	_exit(121);
}

/*
 * Start this program under fsgate-run in @mode on @file, with the
 * variable @var (NAME=VALUE, or NULL) and the fsgate-run option @opt (or
 * NULL). Its reports come on *@rfd. Return its pid.
 */
static pid_t layer_start(const char *mode, const char *file, const char *var,
			 const char *opt, int *rfd)
{
	char exe[256], out[16];
	int p[2];
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0 || pipe(p))
		return -1;
	exe[n] = 0;
	pid = fork();
	if (!pid) {
		close(p[0]);
		snprintf(out, sizeof(out), "%d", p[1]);
		setenv(LAYER_MODE_ENV, mode, 1);
		setenv(LAYER_FILE_ENV, file, 1);
		setenv(LAYER_OUT_ENV, out, 1);
		if (var)
			putenv((char *)var);
		/* A user's program: fsgate-run too runs without privileges. */
		if (!strcmp(mode, "user") && fsgate_test_nobody(0))
			_exit(126);
		if (opt)
			execl(FSGATE_RUN, FSGATE_RUN, opt, "--", exe, (char *)NULL);
		else
			execl(FSGATE_RUN, FSGATE_RUN, "--", exe, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* Read @len bytes of report from @rfd within WAIT_MS. Return 0 or -1. */
static int layer_report(int rfd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (!readable(rfd, WAIT_MS))
			return -1;
		n = read(rfd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/* Run @mode to its end; its report into @buf. Return its exit status. */
static int layer_run(const char *mode, const char *file, const char *var,
		     const char *opt, void *buf, size_t len)
{
	int rfd, status;
	pid_t pid = layer_start(mode, file, var, opt, &rfd);

	if (pid < 0)
		return -1;
	if (layer_report(rfd, buf, len))
		kill(pid, SIGKILL);
	close(rfd);
	status = reap(pid);
	return status;
}

FIXTURE(layer) {
	char dir[64];
	char file[96];
};

FIXTURE_SETUP(layer)
{
	self->dir[0] = '\0';
	/*
	 * The guest always has it: a missing fsgate-run is a broken build,
	 * not a reason to skip (a skip in the setup would also run the body
	 * with its failures masked).
	 */
	ASSERT_EQ(0, access(FSGATE_RUN, X_OK)) TH_LOG("%s: %m", FSGATE_RUN);
	ASSERT_EQ(0, fsgate_test_tmpfs("layer", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
}

#define PERSIST_OPT "--persist=layer-test,absent-ms=60000"

FIXTURE_TEARDOWN(layer)
{
	/* A test that failed half-way leaves no persistent group behind. */
	fsgate_remove("layer-test");
	if (self->dir[0])
		fsgate_test_tmpfs_done(self->dir);
}

/* In-tree fanotify and the layer give the same outcome, field by field. */
static void expect_same(struct __test_metadata *_metadata,
			const struct pidfd_outcome *fa,
			const struct pidfd_outcome *fs)
{
	EXPECT_EQ(fa->step, fs->step);
	EXPECT_EQ(fa->err, fs->err);
	EXPECT_EQ(fa->event_len, fs->event_len);
	EXPECT_EQ(fa->metadata_len, fs->metadata_len);
	EXPECT_EQ(fa->pid_is_accessor, fs->pid_is_accessor);
	EXPECT_EQ(fa->info_type, fs->info_type);
	EXPECT_EQ(fa->info_len, fs->info_len);
	EXPECT_EQ(fa->pidfd, fs->pidfd);
	EXPECT_EQ(fa->pidfd_pid_is_accessor, fs->pidfd_pid_is_accessor);
	EXPECT_EQ(fa->pidfd_signals, fs->pidfd_signals);
	EXPECT_EQ(fa->pidfd_cloexec, fs->pidfd_cloexec);
}

/* This process is not preloaded: its fanotify is the kernel's. */
static void expect_in_tree(struct __test_metadata *_metadata)
{
	struct fsgate_stats st;
	int g;

	g = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	ASSERT_LE(0, g);
	ASSERT_NE(0, fsgate_stats(g, &st));
	close(g);
}

/* Run @a on in-tree fanotify and under the layer; both into @fa, @fs. */
static void pidfd_both(struct __test_metadata *_metadata, const char *mode,
		       enum accessor a, const char *file,
		       struct pidfd_outcome *fa, struct pidfd_outcome *fs)
{
	expect_in_tree(_metadata);
	pidfd_run(a, file, fa);
	memset(fs, 0xa5, sizeof(*fs));
	ASSERT_EQ(0, layer_run(mode, file, NULL, NULL, fs, sizeof(*fs)));
	expect_same(_metadata, fa, fs);
}

/* A pidfd record as fanotify's, holding the accessor's pidfd. */
static void expect_accessor_pidfd(struct __test_metadata *_metadata,
				  const struct pidfd_outcome *o)
{
	EXPECT_EQ(0, o->step);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + 8, o->event_len);
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_PIDFD, o->info_type);
	EXPECT_EQ(8, o->info_len);
	EXPECT_EQ(1, o->pidfd);
	EXPECT_EQ(1, o->pidfd_pid_is_accessor);
	EXPECT_EQ(1, o->pidfd_signals);
	EXPECT_EQ(1, o->pidfd_cloexec);
}

/* The accessor waits for the answer: its pidfd, as fanotify gives it. */
TEST_F_TIMEOUT(layer, pidfd_on_permission_event_as_fanotify, 120)
{
	struct pidfd_outcome fa, fs;

	pidfd_both(_metadata, "perm", PERM_ALIVE, self->file, &fa, &fs);
	expect_accessor_pidfd(_metadata, &fs);
}

/* A notification event of a process still running: its pidfd. */
TEST_F_TIMEOUT(layer, pidfd_on_notification_event_as_fanotify, 120)
{
	struct pidfd_outcome fa, fs;

	pidfd_both(_metadata, "notif", NOTIF_ALIVE, self->file, &fa, &fs);
	expect_accessor_pidfd(_metadata, &fs);
}

/* The process exited before the event was read: FAN_NOPIDFD. */
TEST_F_TIMEOUT(layer, pidfd_of_exited_process_is_nopidfd, 120)
{
	struct pidfd_outcome fa, fs;

	pidfd_both(_metadata, "gone", NOTIF_GONE, self->file, &fa, &fs);
	EXPECT_EQ(0, fs.step);
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_PIDFD, fs.info_type);
	EXPECT_EQ(FAN_NOPIDFD, fs.pidfd);
}

/*
 * FAN_Q_OVERFLOW has no process, and fanotify gives it a pidfd record
 * saying FAN_NOPIDFD: so does the layer.
 */
TEST_F_TIMEOUT(layer, overflow_event_carries_nopidfd, 120)
{
	struct overflow_outcome o;
	char old[32];
	int status;

	ASSERT_EQ(0, fsgate_test_param("max_queued_events", "2", old,
				       sizeof(old)));
	status = layer_run("overflow", self->dir, NULL, NULL, &o, sizeof(o));
	fsgate_test_param("max_queued_events", old, NULL, 0);
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, o.step);
	EXPECT_EQ(3, o.events);
	EXPECT_EQ(2, o.with_pidfd);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + 8, o.overflow_len);
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_PIDFD, o.overflow_info_type);
	EXPECT_EQ(FAN_NOPIDFD, o.overflow_pidfd);
}

/* FID @mode on in-tree fanotify and under the layer: the same, field by field. */
static void fid_both(struct __test_metadata *_metadata, const char *mode,
		     const char *dir, struct fid_outcome *fa,
		     struct fid_outcome *fs)
{
	int i;

	expect_in_tree(_metadata);
	fid_run(mode, dir, fa);
	memset(fs, 0xa5, sizeof(*fs));
	ASSERT_EQ(0, layer_run(mode, dir, NULL, NULL, fs, sizeof(*fs)));
	EXPECT_EQ(fa->step, fs->step);
	EXPECT_EQ(fa->err, fs->err);
	EXPECT_EQ(fa->events, fs->events);
	EXPECT_EQ(fa->event_len, fs->event_len);
	EXPECT_EQ(fa->metadata_len, fs->metadata_len);
	EXPECT_EQ(fa->fd, fs->fd);
	EXPECT_EQ(fa->mask, fs->mask);
	EXPECT_EQ(fa->pid_is_accessor, fs->pid_is_accessor);
	ASSERT_EQ(fa->records, fs->records);
	for (i = 0; i < fa->records; i++) {
		EXPECT_EQ(fa->type[i], fs->type[i]);
		EXPECT_EQ(fa->len[i], fs->len[i]);
		EXPECT_EQ(fa->offset[i], fs->offset[i]);
	}
	/* The directory, its fsid and handle, the name, the padding. */
	ASSERT_EQ(fa->dir_len, fs->dir_len);
	EXPECT_EQ(0, memcmp(fa->dir, fs->dir, sizeof(fa->dir)));
	EXPECT_EQ(fa->pidfd.pidfd, fs->pidfd.pidfd);
	EXPECT_EQ(fa->pidfd.pid_is_accessor, fs->pidfd.pid_is_accessor);
	EXPECT_EQ(fa->pidfd.signals, fs->pidfd.signals);
	EXPECT_EQ(fa->pidfd.cloexec, fs->pidfd.cloexec);
}

/*
 * The layer's FID event of @records records: the FID records first, the
 * directory's with the name, then the pidfd record, last, holding the
 * accessor's pidfd if it is @alive, else FAN_NOPIDFD.
 */
static void expect_fid_then_pidfd(struct __test_metadata *_metadata,
				  const struct fid_outcome *o, int records,
				  bool alive)
{
	const int last = records - 1;

	EXPECT_EQ(0, o->step);
	EXPECT_EQ(1, o->events);
	EXPECT_EQ(FAN_NOFD, o->fd);
	EXPECT_EQ(FAN_CREATE, o->mask);
	EXPECT_EQ(1, o->pid_is_accessor);
	ASSERT_EQ(records, o->records);
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_DFID_NAME, o->type[0]);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, o->offset[0]);
	if (records == 3)
		EXPECT_EQ(FAN_EVENT_INFO_TYPE_FID, o->type[1]);
	/* The name, NUL-terminated, ends the directory's record or its padding. */
	ASSERT_LE(sizeof(FID_NAME), o->dir_len);
	EXPECT_NE(NULL, memmem(o->dir, o->dir_len, FID_NAME, sizeof(FID_NAME)));
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_PIDFD, o->type[last]);
	EXPECT_EQ(8, o->len[last]);
	EXPECT_EQ(o->event_len - 8, o->offset[last]);
	EXPECT_EQ(4, o->offset[last] % 8);
	if (!alive) {
		EXPECT_EQ(FAN_NOPIDFD, o->pidfd.pidfd);
		return;
	}
	EXPECT_EQ(1, o->pidfd.pidfd);
	EXPECT_EQ(1, o->pidfd.pid_is_accessor);
	EXPECT_EQ(1, o->pidfd.signals);
	EXPECT_EQ(1, o->pidfd.cloexec);
}

/*
 * FAN_REPORT_DFID_NAME with FAN_REPORT_PIDFD: the directory's record,
 * then a pidfd of the accessor, as fanotify gives them.
 */
TEST_F_TIMEOUT(layer, fid_records_then_pidfd_as_fanotify, 120)
{
	struct fid_outcome fa, fs;

	fid_both(_metadata, "fid", self->dir, &fa, &fs);
	expect_fid_then_pidfd(_metadata, &fs, 2, true);
}

/*
 * With FAN_REPORT_FID and FAN_REPORT_TARGET_FID too: the created file's
 * own record comes between them.
 */
TEST_F_TIMEOUT(layer, fid_target_records_then_pidfd_as_fanotify, 120)
{
	struct fid_outcome fa, fs;

	fid_both(_metadata, "fid-target", self->dir, &fa, &fs);
	expect_fid_then_pidfd(_metadata, &fs, 3, true);
}

/* The creator exited before the FID event was read: FAN_NOPIDFD. */
TEST_F_TIMEOUT(layer, fid_pidfd_of_exited_process_is_nopidfd, 120)
{
	struct fid_outcome fa, fs;

	fid_both(_metadata, "fid-gone", self->dir, &fa, &fs);
	expect_fid_then_pidfd(_metadata, &fs, 2, false);
}

/*
 * FAN_REPORT_FD_ERROR through the layer, on every kernel (6.1's fanotify
 * has no such flag): out of fds, the permission event is read with
 * -EMFILE for its fd and the open is denied; the pidfd record of an
 * accessor that exited says -ESRCH, not FAN_NOPIDFD.
 */
TEST_F_TIMEOUT(layer, fd_error_through_the_layer, 120)
{
	struct fd_error_outcome fs;

	memset(&fs, 0xa5, sizeof(fs));
	ASSERT_EQ(0, layer_run("fd-error", self->file, NULL, NULL, &fs,
			       sizeof(fs)));
	EXPECT_EQ(0, fs.step) TH_LOG("step %d: %s", fs.step, strerror(fs.err));
	EXPECT_EQ(0, fs.err);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, fs.perm_read);
	EXPECT_EQ(-EMFILE, fs.perm_fd);
	EXPECT_EQ(EPERM, fs.perm_access);
	EXPECT_EQ(FAN_EVENT_METADATA_LEN + 8, fs.gone_len);
	EXPECT_EQ(1, fs.gone_fd_ok);
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_PIDFD, fs.gone_info_type);
	EXPECT_EQ(-ESRCH, fs.gone_pidfd);
}

/*
 * The same program on in-tree fanotify, where the kernel has
 * FAN_REPORT_FD_ERROR (6.13, 6.12.5, 6.6.66: Debian's 6.12), and under
 * the layer: the same outcome, field by field.
 */
TEST_F_TIMEOUT(layer, fd_error_as_fanotify, 120)
{
	struct fd_error_outcome fa, fs;
	int f;

	expect_in_tree(_metadata);
	f = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FD_ERROR, O_RDONLY);
	if (f < 0 && errno == EINVAL)
		SKIP(return, "in-tree fanotify has no FAN_REPORT_FD_ERROR");
	ASSERT_LE(0, f);
	close(f);
	fd_error_run(self->file, &fa);
	EXPECT_EQ(0, fa.step) TH_LOG("fanotify step %d: %s", fa.step,
				     strerror(fa.err));
	memset(&fs, 0xa5, sizeof(fs));
	ASSERT_EQ(0, layer_run("fd-error", self->file, NULL, NULL, &fs,
			       sizeof(fs)));
	EXPECT_EQ(fa.step, fs.step);
	EXPECT_EQ(fa.err, fs.err);
	EXPECT_EQ(fa.perm_read, fs.perm_read);
	EXPECT_EQ(fa.perm_fd, fs.perm_fd);
	EXPECT_EQ(fa.perm_access, fs.perm_access);
	EXPECT_EQ(fa.gone_len, fs.gone_len);
	EXPECT_EQ(fa.gone_fd_ok, fs.gone_fd_ok);
	EXPECT_EQ(fa.gone_info_type, fs.gone_info_type);
	EXPECT_EQ(fa.gone_pidfd, fs.gone_pidfd);
}

/* As fanotify: FAN_REPORT_PIDFD with FAN_REPORT_TID is EINVAL. */
TEST_F_TIMEOUT(layer, pidfd_with_tid_is_einval, 120)
{
	int fs = -1;

	EXPECT_EQ(EINVAL, pidfd_tid_errno());
	ASSERT_EQ(0, layer_run("tid", self->file, NULL, NULL, &fs, sizeof(fs)));
	EXPECT_EQ(EINVAL, fs);
}

/*
 * FSGATE_ORPHAN_VERDICT=deny: the access a killed daemon was asked about
 * is denied; by default it is allowed.
 */
TEST_F_TIMEOUT(layer, orphan_verdict_from_environment, 120)
{
	static const char *const vars[] = {
		"FSGATE_ORPHAN_VERDICT=deny", "FSGATE_ORPHAN_VERDICT=allow", NULL,
	};
	static const int want[] = { EPERM, 0, 0 };
	int i, rfd;
	char c;
	pid_t daemon, accessor;

	for (i = 0; i < 3; i++) {
		daemon = layer_start("silent", self->file, vars[i], NULL, &rfd);
		ASSERT_LE(0, daemon);
		ASSERT_EQ(0, layer_report(rfd, &c, 1));
		ASSERT_EQ('R', c);
		accessor = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_LE(0, accessor);
		ASSERT_EQ(0, layer_report(rfd, &c, 1));
		ASSERT_EQ('E', c);
		close(rfd);
		kill(daemon, SIGKILL);
		reap(daemon);
		EXPECT_EQ(want[i], reap(accessor)) {
			TH_LOG("with %s", vars[i] ? vars[i] : "no variable");
		}
	}
}

/*
 * fsgate-run --persist: a fanotify daemon killed with an event read and
 * not answered, and an open made while it is down, both wait and are
 * decided by the daemon's next run, which attaches to the group its
 * last run left. Without it the killed daemon's access is allowed
 * (orphan_verdict_from_environment) and nothing is asked meanwhile.
 */
TEST_F_TIMEOUT(layer, persist_leaves_no_window_across_a_restart, 120)
{
	pid_t daemon, read_one, later;
	int rfd, denied = -1;
	char c;

	daemon = layer_start("silent", self->file, NULL, PERSIST_OPT, &rfd);
	ASSERT_LE(0, daemon);
	ASSERT_EQ(0, layer_report(rfd, &c, 1));
	ASSERT_EQ('R', c);
	read_one = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LE(0, read_one);
	ASSERT_EQ(0, layer_report(rfd, &c, 1));
	ASSERT_EQ('E', c);
	close(rfd);
	kill(daemon, SIGKILL);
	reap(daemon);

	later = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LE(0, later);
	usleep(300000);
	EXPECT_EQ(0, waitpid(read_one, NULL, WNOHANG));
	EXPECT_EQ(0, waitpid(later, NULL, WNOHANG));

	ASSERT_EQ(0, layer_run("deny", self->file, NULL, PERSIST_OPT, &denied,
			       sizeof(denied)));
	EXPECT_EQ(2, denied);
	EXPECT_EQ(EPERM, reap(read_one));
	EXPECT_EQ(EPERM, reap(later));
	EXPECT_EQ(0, fsgate_remove("layer-test"));
}

/*
 * fsgate-run --persist: a daemon that flushes its marks as it stops in
 * order (fapolicyd does) leaves them with its persistent group, so an
 * open made before its next run waits for that run, which denies it.
 * Were the flush done, the open would be allowed at once, unasked.
 */
TEST_F_TIMEOUT(layer, persist_keeps_the_marks_a_stopping_daemon_flushes, 120)
{
	int denied = -1;
	pid_t later;
	char c;

	ASSERT_EQ(0, layer_run("flush", self->file, NULL, PERSIST_OPT, &c, 1));
	ASSERT_EQ('F', c);
	later = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_LE(0, later);
	usleep(300000);
	EXPECT_EQ(0, waitpid(later, NULL, WNOHANG));

	ASSERT_EQ(0, layer_run("deny", self->file, NULL, PERSIST_OPT, &denied,
			       sizeof(denied)));
	EXPECT_EQ(1, denied);
	EXPECT_EQ(EPERM, reap(later));
	EXPECT_EQ(0, fsgate_remove("layer-test"));
}

/*
 * fsgate-run --exclude-self: the daemon's own child opens without the
 * daemon being asked; without it the daemon is asked.
 */
TEST_F_TIMEOUT(layer, exclude_self_spares_the_daemons_children, 120)
{
	int out[2];

	ASSERT_EQ(0, layer_run("asking", self->file, NULL, "--exclude-self",
			       out, sizeof(out)));
	EXPECT_EQ(0, out[0]);
	EXPECT_EQ(0, out[1]);
	ASSERT_EQ(0, layer_run("asking", self->file, "FSGATE_EXCLUDE_SELF=1",
			       NULL, out, sizeof(out)));
	EXPECT_EQ(0, out[0]);
	EXPECT_EQ(0, out[1]);
	ASSERT_EQ(0, layer_run("asking", self->file, NULL, NULL, out,
			       sizeof(out)));
	EXPECT_EQ(1, out[0]);
	EXPECT_EQ(0, out[1]);
}

/*
 * FSGATE_REPORT_PROC=1: every event carries fsgate's process record,
 * naming the accessor; without it, the bare metadata.
 */
TEST_F_TIMEOUT(layer, process_records_from_environment, 120)
{
	int out[3];

	ASSERT_EQ(0, layer_run("records", self->file, "FSGATE_REPORT_PROC=1",
			       NULL, out, sizeof(out)));
	EXPECT_LE(FAN_EVENT_METADATA_LEN + FSGATE_INFO_PROC_LEN_V1, out[0]);
	EXPECT_EQ(1, out[1]);
	EXPECT_EQ(1, out[2]);
	ASSERT_EQ(0, layer_run("records", self->file, NULL, "--process-context",
			       out, sizeof(out)));
	EXPECT_EQ(1, out[1]);
	ASSERT_EQ(0, layer_run("records", self->file, NULL, NULL, out,
			       sizeof(out)));
	EXPECT_EQ(FAN_EVENT_METADATA_LEN, out[0]);
	EXPECT_EQ(0, out[1]);
}

/* fsgate-run's options reach the group the layer makes. */
TEST_F_TIMEOUT(layer, fsgate_run_options_reach_the_group, 120)
{
	int out[2];

	ASSERT_EQ(0, layer_run("group", self->file, NULL, NULL, out,
			       sizeof(out)));
	EXPECT_EQ(0, out[0]);
	EXPECT_EQ(FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC, out[1]);
	ASSERT_EQ(0, layer_run("group", self->file, NULL, "--orphan-verdict=deny",
			       out, sizeof(out)));
	EXPECT_EQ(1, out[0]);
	ASSERT_EQ(0, layer_run("group", self->file, "FSGATE_REPORT_PROC=1",
			       "--exclude-self", out, sizeof(out)));
	EXPECT_EQ(FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC | FSGATE_EXCLUDE_SELF |
		  FSGATE_REPORT_PROC, out[1]);
}

/*
 * A bad value, given as an option or found in the environment: named on
 * standard error, exit status 125, PROGRAM not run.
 */
TEST_F_TIMEOUT(layer, fsgate_run_refuses_bad_values, 120)
{
	static const struct {
		const char *opt, *var, *said;
	} bad[] = {
		{ "--orphan-verdict=maybe", NULL, "invalid orphan verdict" },
		{ NULL, "FSGATE_ORPHAN_VERDICT=maybe", "FSGATE_ORPHAN_VERDICT=maybe" },
		{ NULL, "FSGATE_EXCLUDE_SELF=yes", "FSGATE_EXCLUDE_SELF=yes" },
		{ NULL, "FSGATE_REPORT_PROC=2", "FSGATE_REPORT_PROC=2" },
		{ "--persist=a b", NULL, "invalid persistent group" },
		{ NULL, "FSGATE_PERSIST=x,absent=maybe", "FSGATE_PERSIST=x,absent=maybe" },
	};
	char err[512];
	int i, p[2];
	ssize_t n;
	pid_t pid;

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			dup2(p[1], STDERR_FILENO);
			if (bad[i].var)
				putenv((char *)bad[i].var);
			if (bad[i].opt)
				execl(FSGATE_RUN, FSGATE_RUN, bad[i].opt, "--",
				      "/fsgate/no-such-program", (char *)NULL);
			else
				execl(FSGATE_RUN, FSGATE_RUN, "--",
				      "/fsgate/no-such-program", (char *)NULL);
			_exit(1);
		}
		close(p[1]);
		EXPECT_EQ(125, reap(pid));
		n = read(p[0], err, sizeof(err) - 1);
		close(p[0]);
		err[n > 0 ? n : 0] = '\0';
		EXPECT_NE(NULL, strstr(err, bad[i].said)) {
			TH_LOG("stderr: %s", err);
		}
	}
}

/* user_run() as fsgate_test_as_nobody() calls it: @arg is the directory. */
static void user_step(const void *arg, void *out)
{
	user_run(arg, out);
}

/*
 * An unprivileged fanotify program (FSGATE_FEATURE_UNPRIV): under
 * fsgate-run, run by a user, it gets what in-tree fanotify gives it:
 * EPERM for what needs CAP_SYS_ADMIN, a FID group whose inode marks
 * report, no fd, and pid 0 for another process's event.
 */
TEST_F_TIMEOUT(layer, unprivileged_program_as_fanotify, 120)
{
	struct user_outcome fa, fs;
	char path[160];
	int i;

	ASSERT_EQ(0, chmod(self->dir, 0777));
	expect_in_tree(_metadata);
	ASSERT_EQ(0, fsgate_test_as_nobody(user_step, self->dir, &fa,
					   sizeof(fa)));
	EXPECT_EQ(0, fa.step);
	EXPECT_EQ(EPERM, fa.init_err[0]);
	EXPECT_EQ(EPERM, fa.fs_mark_err);
	EXPECT_EQ(0, fa.other_pid);
	EXPECT_EQ(1, fa.own_pid_is_self);
	/* The layer's run creates the same files anew. */
	snprintf(path, sizeof(path), "%s/other", self->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/own", self->dir);
	unlink(path);
	memset(&fs, 0xa5, sizeof(fs));
	ASSERT_EQ(0, layer_run("user", self->dir, NULL, NULL, &fs, sizeof(fs)));
	EXPECT_EQ(fa.step, fs.step);
	EXPECT_EQ(fa.err, fs.err);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(fa.init_err[i], fs.init_err[i]) TH_LOG("init %d", i);
	}
	EXPECT_EQ(fa.fs_mark_err, fs.fs_mark_err);
	EXPECT_EQ(fa.other_pid, fs.other_pid);
	EXPECT_EQ(fa.other_fd, fs.other_fd);
	EXPECT_EQ(fa.other_mask, fs.other_mask);
	EXPECT_EQ(fa.other_type, fs.other_type);
	EXPECT_EQ(fa.own_pid_is_self, fs.own_pid_is_self);
	EXPECT_EQ(fa.own_fd, fs.own_fd);
}

TEST_HARNESS_MAIN
