// SPDX-License-Identifier: GPL-2.0
/*
 * The group fd's fdinfo prints fanotify's lines exactly: an in-tree
 * fanotify group and an fsgate group made with the same flags mark the
 * same objects the same way, and the lines of their fdinfo that begin
 * "fanotify " must be equal, but for a mount mark's mnt_id, which fsgate
 * cannot know (it prints 0). fsgate's own lines begin "fsgate-".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"

#define MAXLINES 16

FIXTURE(fdinfo) {
	char dir[64];
	char file[80];
	char other[80];
	char sub[80];
};

FIXTURE_SETUP(fdinfo)
{
	int fd;

	ASSERT_EQ(0, fsgate_test_tmpfs("fdinfo", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/other", self->dir);
	snprintf(self->sub, sizeof(self->sub), "%s/sub", self->dir);
	fd = open(self->file, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	fd = open(self->other, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, mkdir(self->sub, 0755));
}

FIXTURE_TEARDOWN(fdinfo)
{
	fsgate_test_tmpfs_done(self->dir);
}

/*
 * The lines of @fd's fdinfo that begin with @prefix, at most MAXLINES,
 * each malloc'd into @lines. Return: how many, or -1.
 */
static int fdinfo_lines(int fd, const char *prefix, char **lines)
{
	char path[64], line[1024];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (n < MAXLINES && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)))
			lines[n++] = strdup(line);
	fclose(f);
	return n;
}

static void free_lines(char **lines, int n)
{
	while (n-- > 0)
		free(lines[n]);
}

/* Replace the value of "mnt_id:" in @line by "*"; return the old one. */
static long blank_mnt_id(char *line)
{
	char *p = strstr(line, "mnt_id:"), *end;
	long id;

	if (!p)
		return -1;
	p += strlen("mnt_id:");
	id = strtol(p, &end, 16);
	memmove(p + 1, end, strlen(end) + 1);
	*p = '*';
	return id;
}

/* The marks both groups get; the fanotify_mark(2) calls, as they are. */
struct mark {
	unsigned int flags;
	uint64_t mask;
	int which;	/* 0: dir, 1: file, 2: other, 3: sub */
};

static const struct mark marks[] = {
	{ FAN_MARK_FILESYSTEM, FAN_OPEN_PERM | FAN_CLOSE_WRITE, 0 },
	{ FAN_MARK_INODE, FAN_OPEN | FAN_CLOSE_NOWRITE, 1 },
	{ FAN_MARK_INODE | FAN_MARK_IGNORED_MASK |
	  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, 2 },
	{ FAN_MARK_INODE, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, 3 },
	{ FAN_MARK_MOUNT, FAN_OPEN | FAN_ONDIR, 0 },
	{ FAN_MARK_INODE | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, 1 },
	/* FAN_EVENT_ON_CHILD means nothing on a mount: fanotify drops it. */
	{ FAN_MARK_MOUNT, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, 0 },
	/* An ignore mask of FAN_MARK_IGNORE keeps its flags. */
	{ FAN_MARK_INODE | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, 3 },
};

static const char *mark_path(FIXTURE_DATA(fdinfo) *self, int which)
{
	const char *paths[] = { self->dir, self->file, self->other, self->sub };

	return paths[which];
}

TEST_F(fdinfo, the_fanotify_lines_are_fanotifys_own)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC | FSGATE_NONBLOCK,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	char *fan[MAXLINES], *fsg[MAXLINES];
	int fa, g, nf, ng, i;
	unsigned int k;

	fa = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			   O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fa);
	g = fsgate_init_ext(&init);
	ASSERT_LE(0, g);
	for (k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
		const char *path = mark_path(self, marks[k].which);

		ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_ADD | marks[k].flags,
					   marks[k].mask, AT_FDCWD, path))
			TH_LOG("fanotify mark %u: %s", k, strerror(errno));
		ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | marks[k].flags,
					 marks[k].mask, AT_FDCWD, path))
			TH_LOG("fsgate mark %u: %s", k, strerror(errno));
	}

	nf = fdinfo_lines(fa, "fanotify ", fan);
	ng = fdinfo_lines(g, "fanotify ", fsg);
	/* The group's line and one per object (marks on one are one). */
	ASSERT_EQ(1 + 5, nf);
	ASSERT_EQ(nf, ng);
	for (i = 0; i < nf; i++) {
		long fan_id = blank_mnt_id(fan[i]);
		long fsg_id = blank_mnt_id(fsg[i]);

		EXPECT_STREQ(fan[i], fsg[i]) TH_LOG("line %d", i);
		/* The one value that differs: fsgate cannot know it. */
		if (fan_id >= 0) {
			EXPECT_LT(0, fan_id);
			EXPECT_EQ(0, fsg_id);
		}
	}
	free_lines(fan, nf);
	free_lines(fsg, ng);

	/* fsgate's own facts are on lines of their own. */
	ng = fdinfo_lines(g, "fsgate-group ", fsg);
	EXPECT_EQ(1, ng);
	free_lines(fsg, ng);
	ng = fdinfo_lines(g, "fsgate-mark ", fsg);
	EXPECT_EQ(5, ng);
	free_lines(fsg, ng);
	close(fa);
	close(g);
}

/* Removing marks and a flush leave the same lines as fanotify's. */
TEST_F(fdinfo, removals_leave_the_same_lines)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_NOTIF,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	char *fan[MAXLINES], *fsg[MAXLINES];
	int fa, g, nf, ng, i;

	fa = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	ASSERT_LE(0, fa);
	g = fsgate_init_ext(&init);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR,
				   AT_FDCWD, self->sub));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN | FAN_ONDIR,
				 AT_FDCWD, self->sub));
	ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_ADD, FAN_CLOSE_WRITE,
				   AT_FDCWD, self->file));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_CLOSE_WRITE,
				 AT_FDCWD, self->file));
	/* Only FAN_ONDIR is left on sub: the mark stays. */
	ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_REMOVE, FAN_OPEN,
				   AT_FDCWD, self->sub));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_REMOVE, FAN_OPEN,
				 AT_FDCWD, self->sub));
	ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_OPEN, AT_FDCWD, self->dir));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				 FAN_OPEN, AT_FDCWD, self->dir));
	ASSERT_EQ(0, fanotify_mark(fa, FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM,
				   0, AT_FDCWD, NULL));
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_FLUSH | FSGATE_MARK_FILESYSTEM,
				 0, AT_FDCWD, NULL));

	nf = fdinfo_lines(fa, "fanotify ", fan);
	ng = fdinfo_lines(g, "fanotify ", fsg);
	ASSERT_LE(1, nf);
	ASSERT_EQ(nf, ng);
	for (i = 0; i < nf; i++)
		EXPECT_STREQ(fan[i], fsg[i]) TH_LOG("line %d", i);
	free_lines(fan, nf);
	free_lines(fsg, ng);
	close(fa);
	close(g);
}

/* Read @g's fdinfo in a loop until killed; exits non-zero if it cannot. */
static pid_t fdinfo_reader(int g)
{
	char path[64], buf[4096];
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g);
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			_exit(1);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

#define PROC_MARKS	32
#define PROC_ROUNDS	20

/*
 * fdinfo reads while marked inodes are evicted. A /proc/PID inode is
 * evicted at its last iput() (procfs drops unused inodes), which comes
 * when its process is reaped; if fdinfo held the last reference then and
 * dropped it under fsgate's mark mutex, eviction, which frees the marks
 * under the same mutex, would deadlock (every mark request, group close
 * and eviction of a marked inode after it hanging). Evictable marks on
 * the /proc/PID directories of processes reaped while a reader loops on
 * fdinfo; after it, the group still takes a mark and the marks went
 * with their processes. Forks are slow on the debug kernel: 240 s.
 */
TEST_F_TIMEOUT(fdinfo, while_marked_inodes_are_evicted, 240)
{
	char path[32];
	pid_t kids[PROC_MARKS], reader;
	struct fsgate_stats st;
	int g, i, round;

	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC, O_RDONLY,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	reader = fdinfo_reader(g);
	ASSERT_LT(0, reader);
	for (round = 0; round < PROC_ROUNDS; round++) {
		for (i = 0; i < PROC_MARKS; i++) {
			kids[i] = fork();
			if (!kids[i]) {
				pause();
				_exit(0);
			}
			ASSERT_LT(0, kids[i]);
			snprintf(path, sizeof(path), "/proc/%d", kids[i]);
			ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD |
						 FSGATE_MARK_EVICTABLE,
						 FAN_OPEN | FAN_ONDIR,
						 AT_FDCWD, path));
		}
		for (i = 0; i < PROC_MARKS; i++)
			kill(kids[i], SIGKILL);
		for (i = 0; i < PROC_MARKS; i++)
			waitpid(kids[i], NULL, 0);
	}
	kill(reader, SIGKILL);
	waitpid(reader, NULL, 0);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD, "/"));
	ASSERT_EQ(0, fsgate_stats(g, &st));
	EXPECT_GE(1 + PROC_MARKS, st.marks);
	close(g);
}

TEST_HARNESS_MAIN
