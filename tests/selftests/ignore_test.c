// SPDX-License-Identifier: GPL-2.0
/*
 * FSGATE_MARK_IGNORE and FSGATE_MARK_IGNORE_SURV, Linux 6.0's
 * FAN_MARK_IGNORE and FAN_MARK_IGNORE_SURV: an ignore mask in which
 * FAN_ONDIR and FAN_EVENT_ON_CHILD say whether it applies to directories
 * and to children, beside the legacy FAN_MARK_IGNORED_MASK, which always
 * applies to directories and to children when the mark watches them.
 *
 * In-tree fanotify on the same kernel is the reference: an fanotify
 * group and an fsgate group get the same fanotify_mark(2) calls, must
 * give the same errno for each and hear of the same events; the expected
 * values are written down too, so that neither can pass by doing nothing.
 * Events are compared one group at a time: both groups' marks on an inode
 * share its fsnotify mask, so fanotify's marks could bring fsgate events
 * its own marks would not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"

/* The objects: the tmpfs root, a file in it, a subdirectory, its file. */
enum { DIR_, FILE_, SUB, CHILD, NOBJ };

FIXTURE(ignore) {
	char root[64];
	char path[NOBJ][96];
	ino_t ino[NOBJ];
	int fa;		/* in-tree fanotify */
	int g;		/* fsgate */
};

FIXTURE_SETUP(ignore)
{
	struct stat st;
	int i, fd;

	ASSERT_EQ(0, fsgate_test_tmpfs("ignore", self->root, sizeof(self->root)));
	snprintf(self->path[DIR_], sizeof(self->path[DIR_]), "%s", self->root);
	snprintf(self->path[FILE_], sizeof(self->path[FILE_]), "%s/file",
		 self->root);
	snprintf(self->path[SUB], sizeof(self->path[SUB]), "%s/sub",
		 self->root);
	snprintf(self->path[CHILD], sizeof(self->path[CHILD]), "%s/sub/child",
		 self->root);
	ASSERT_EQ(0, mkdir(self->path[SUB], 0755));
	fd = open(self->path[FILE_], O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	fd = open(self->path[CHILD], O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	for (i = 0; i < NOBJ; i++) {
		ASSERT_EQ(0, stat(self->path[i], &st));
		self->ino[i] = st.st_ino;
	}
	self->fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC,
				 O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fa);
	self->g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			      FSGATE_CLOEXEC, O_RDONLY | O_CLOEXEC,
			      FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, self->g);
}

FIXTURE_TEARDOWN(ignore)
{
	if (self->fa >= 0)
		close(self->fa);
	close(self->g);
	fsgate_test_tmpfs_done(self->root);
}

/* One fanotify_mark(2) call and the errno it must give (0: success). */
struct call {
	unsigned int flags;
	uint64_t mask;
	int obj;
	int err;
};

/*
 * Make @c on both groups. Return: whether both gave @c->err; what each
 * gave is logged otherwise.
 */
static int mark_both(struct __test_metadata *_metadata,
		     FIXTURE_DATA(ignore) *self, const struct call *c)
{
	int fan, fsg;

	errno = 0;
	fan = fanotify_mark(self->fa, c->flags, c->mask, AT_FDCWD,
			    self->path[c->obj]) ? errno : 0;
	errno = 0;
	fsg = fsgate_mark(self->g, c->flags, c->mask, AT_FDCWD,
			  self->path[c->obj]) ? errno : 0;
	EXPECT_EQ(fan, fsg) TH_LOG("flags %#x mask %#llx: fanotify %s, fsgate %s",
				   c->flags, (unsigned long long)c->mask,
				   strerror(fan), strerror(fsg));
	EXPECT_EQ(c->err, fan) TH_LOG("flags %#x mask %#llx: fanotify %s",
				      c->flags, (unsigned long long)c->mask,
				      strerror(fan));
	return fan == c->err && fsg == c->err;
}

/* Make @calls on the group @fd, fsgate's if @fsgate; each must give its errno. */
static void mark_all(struct __test_metadata *_metadata,
		     FIXTURE_DATA(ignore) *self, int fd, int fsgate,
		     const struct call *calls, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		const struct call *c = &calls[i];

		errno = 0;
		if (fsgate)
			ret = fsgate_mark(fd, c->flags, c->mask, AT_FDCWD,
					  self->path[c->obj]);
		else
			ret = fanotify_mark(fd, c->flags, c->mask, AT_FDCWD,
					    self->path[c->obj]);
		ASSERT_EQ(c->err, ret ? errno : 0)
			TH_LOG("%s call %u: %s", fsgate ? "fsgate" : "fanotify",
			       i, strerror(errno));
	}
}

/* Open and close each object once, directories included. */
static void touch_all(FIXTURE_DATA(ignore) *self)
{
	int i;

	for (i = 0; i < NOBJ; i++)
		close(open(self->path[i], O_RDONLY));
}

/*
 * Read every event waiting on @fd; the union of the masks heard about
 * each object goes to @masks. Return: how many events, or -1.
 */
static int heard(FIXTURE_DATA(ignore) *self, int fd, uint64_t masks[NOBJ])
{
	char buf[4096];
	const struct fanotify_event_metadata *ev;
	struct stat st;
	ssize_t len;
	int n = 0, i;

	memset(masks, 0, NOBJ * sizeof(masks[0]));
	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (ev = (void *)buf; FAN_EVENT_OK(ev, len);
		     ev = FAN_EVENT_NEXT(ev, len)) {
			n++;
			if (ev->fd < 0 || fstat(ev->fd, &st))
				return -1;
			close(ev->fd);
			for (i = 0; i < NOBJ; i++)
				if (st.st_ino == self->ino[i])
					masks[i] |= ev->mask;
		}
	}
	return len < 0 && errno != EAGAIN ? -1 : n;
}

/*
 * Make @calls on the fanotify group, touch every object and read what it
 * heard; close it, then the same with the fsgate group. Both must have
 * heard the same, and FAN_OPEN of exactly the objects in @opened (a bit
 * per object).
 */
static void expect_opens(struct __test_metadata *_metadata,
			 FIXTURE_DATA(ignore) *self, const struct call *calls,
			 unsigned int n, unsigned int opened)
{
	uint64_t fan[NOBJ], fsg[NOBJ];
	int i;

	mark_all(_metadata, self, self->fa, 0, calls, n);
	touch_all(self);
	ASSERT_LE(0, heard(self, self->fa, fan));
	close(self->fa);
	self->fa = -1;
	mark_all(_metadata, self, self->g, 1, calls, n);
	touch_all(self);
	ASSERT_LE(0, heard(self, self->g, fsg));
	for (i = 0; i < NOBJ; i++) {
		EXPECT_EQ(fan[i], fsg[i]) TH_LOG("object %d", i);
		EXPECT_EQ(!!(opened & (1U << i)), !!(fan[i] & FAN_OPEN))
			TH_LOG("object %d: fanotify heard %#llx", i,
			       (unsigned long long)fan[i]);
	}
}

#define ALL_OPEN	(FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD)
#define BIT(obj)	(1U << (obj))

/* The errno rules of the new flags, as fanotify_mark(2) gives them. */
TEST_F(ignore, invalid_combinations_get_fanotifys_errno)
{
	static const struct call calls[] = {
		/* Not both ignore flags. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_MASK,
		  FAN_OPEN, FILE_, EINVAL },
		/* A directory's, a mount's, a filesystem's need SURV. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, SUB, EISDIR },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_MOUNT, FAN_OPEN,
		  DIR_, EINVAL },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_FILESYSTEM,
		  FAN_OPEN, DIR_, EINVAL },
		/* Directory flags on a file. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR,
		  FILE_, ENOTDIR },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
		  FAN_OPEN | FAN_EVENT_ON_CHILD, FILE_, ENOTDIR },
		/* A file's may go with modification. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, FILE_, 0 },
		/* ... and then cannot go back to the legacy flags. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE,
		  FILE_, EEXIST },
		/* One that survives modification must say so again. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, CHILD, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE, CHILD,
		  EEXIST },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_CLOSE_NOWRITE,
		  CHILD, 0 },
		/* A legacy ignore mask may take the new meaning. */
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, SUB, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
		  FAN_CLOSE_NOWRITE | FAN_ONDIR, SUB, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, SUB, EEXIST },
		/* Once the mark is gone, its flags go with it. */
		{ FAN_MARK_REMOVE | FAN_MARK_IGNORE,
		  FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR, SUB, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, SUB, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		EXPECT_TRUE(mark_both(_metadata, self, &calls[i]))
			TH_LOG("call %u", i);
}

/* FAN_ONDIR in the ignore mask: the directory's own events, not its files'. */
TEST_F(ignore, ondir_ignores_the_directory_only)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD, ALL_OPEN, DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
	};

	expect_opens(_metadata, self, calls, 2, BIT(FILE_) | BIT(SUB));
}

/* FAN_EVENT_ON_CHILD in it: the files', not the directory's own. */
TEST_F(ignore, event_on_child_ignores_the_children_only)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD, ALL_OPEN, DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
		  FAN_OPEN | FAN_EVENT_ON_CHILD, DIR_, 0 },
	};

	/* A subdirectory is a child and a directory: it needs both. */
	expect_opens(_metadata, self, calls, 2, BIT(DIR_) | BIT(SUB));
}

/* The legacy ignore mask, for comparison: all of them. */
TEST_F(ignore, legacy_ignores_the_directory_and_watched_children)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD, ALL_OPEN, DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, DIR_, 0 },
	};

	expect_opens(_metadata, self, calls, 2, 0);
}

/*
 * A directory's ignore mask for its children works against a filesystem
 * mark even when the directory watches nothing: the children's events
 * must be brought to the directory's mark.
 */
TEST_F(ignore, children_are_ignored_against_a_filesystem_mark)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
		  FAN_OPEN | FAN_EVENT_ON_CHILD, SUB, 0 },
	};

	expect_opens(_metadata, self, calls, 2, BIT(DIR_) | BIT(FILE_) | BIT(SUB));
}

/*
 * The same with a legacy ignore mask on a directory that watches its
 * children for another event.
 */
TEST_F(ignore, legacy_children_are_ignored_against_a_filesystem_mark)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
		{ FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, SUB, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		  FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, SUB, 0 },
	};

	expect_opens(_metadata, self, calls, 3, BIT(DIR_) | BIT(FILE_));
}

/* On a filesystem mark, without FAN_ONDIR: files only. */
TEST_F(ignore, filesystem_ignore_mask_spares_directories)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_IGNORE_SURV,
		  FAN_OPEN, DIR_, 0 },
	};

	expect_opens(_metadata, self, calls, 2, BIT(DIR_) | BIT(SUB));
}

/* ... and with it, everything. */
TEST_F(ignore, filesystem_ignore_mask_with_ondir_ignores_all)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_IGNORE_SURV,
		  FAN_OPEN | FAN_ONDIR, DIR_, 0 },
	};

	expect_opens(_metadata, self, calls, 2, 0);
}

/* fdinfo shows FAN_MARK_IGNORE in mflags and the flags in the mask. */
TEST_F(ignore, fdinfo_shows_the_new_ignore_mask)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD, FAN_CLOSE_WRITE, SUB, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
		  FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, SUB, 0 },
	};
	char fan[256], fsg[256];

	ASSERT_TRUE(mark_both(_metadata, self, &calls[0]));
	ASSERT_TRUE(mark_both(_metadata, self, &calls[1]));
	ASSERT_EQ(0, fsgate_test_fdinfo(self->fa, "mflags", fan, sizeof(fan)));
	ASSERT_EQ(0, fsgate_test_fdinfo(self->g, "mflags", fsg, sizeof(fsg)));
	EXPECT_STREQ(fan, fsg);
	EXPECT_STREQ("440", fan);	/* FAN_MARK_IGNORE_SURV */
	ASSERT_EQ(0, fsgate_test_fdinfo(self->fa, "ignored_mask", fan,
					sizeof(fan)));
	ASSERT_EQ(0, fsgate_test_fdinfo(self->g, "ignored_mask", fsg,
					sizeof(fsg)));
	EXPECT_STREQ(fan, fsg);
	EXPECT_STREQ("48000020", fan);
}

/*
 * As fanotify, an ignore mask that a modification would clear is not
 * added to a file open for write (the writer could change it through a
 * mapping, unseen): the call succeeds and makes no mark. One that
 * survives modification is added.
 */
TEST_F(ignore, no_modify_cleared_ignore_mask_on_a_file_open_for_write)
{
	const struct call moot[] = {
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, FILE_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, FILE_, 0 },
	};
	const struct call surv = {
		FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN, FILE_, 0
	};
	char buf[256];
	int wfd = open(self->path[FILE_], O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, wfd);
	ASSERT_TRUE(mark_both(_metadata, self, &moot[0]));
	ASSERT_TRUE(mark_both(_metadata, self, &moot[1]));
	EXPECT_NE(0, fsgate_test_fdinfo(self->fa, "ignored_mask", buf,
					sizeof(buf)));
	EXPECT_NE(0, fsgate_test_fdinfo(self->g, "ignored_mask", buf,
					sizeof(buf)));
	ASSERT_TRUE(mark_both(_metadata, self, &surv));
	ASSERT_EQ(0, fsgate_test_fdinfo(self->fa, "ignored_mask", buf,
					sizeof(buf)));
	EXPECT_STREQ("20", buf);
	ASSERT_EQ(0, fsgate_test_fdinfo(self->g, "ignored_mask", buf,
					sizeof(buf)));
	EXPECT_STREQ("20", buf);
	close(wfd);
}

/*
 * Where fsgate differs: the writable fd a request names the file by does
 * not count as a writer (an HSM ignores a file it restored through its
 * event fd before closing it); fanotify counts it and makes no mark. A
 * second writer still makes the request moot.
 */
TEST_F(ignore, the_requests_own_writable_fd_is_not_another_writer)
{
	char buf[256];
	int wfd = open(self->path[FILE_], O_RDWR | O_CLOEXEC), other;

	ASSERT_LE(0, wfd);
	ASSERT_EQ(0, fanotify_mark(self->fa, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK,
				   FAN_OPEN, wfd, NULL));
	EXPECT_NE(0, fsgate_test_fdinfo(self->fa, "ignored_mask", buf,
					sizeof(buf)));
	other = open(self->path[FILE_], O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_IGNORED_MASK, FAN_OPEN, wfd, NULL));
	EXPECT_NE(0, fsgate_test_fdinfo(self->g, "ignored_mask", buf,
					sizeof(buf)));
	close(other);
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_IGNORED_MASK, FAN_OPEN, wfd, NULL));
	ASSERT_EQ(0, fsgate_test_fdinfo(self->g, "ignored_mask", buf,
					sizeof(buf)));
	EXPECT_STREQ("20", buf);
	close(wfd);
}

/* Write a byte to @obj: a modification (FAN_MODIFY). Return: 0 or -1. */
static int modify(FIXTURE_DATA(ignore) *self, int obj)
{
	int fd = open(self->path[obj], O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, "x", 1);
	close(fd);
	return n == 1 ? 0 : -1;
}

/*
 * The ignore mask that @fd's fdinfo shows, in fanotify's line, for its
 * mark on the inode @ino. Return: the mask, or -1 if there is no such mark.
 */
static long ignored_mask_of(int fd, ino_t ino)
{
	char path[64], line[512], key[48];
	unsigned int mask;
	long ret = -1;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(key, sizeof(key), "fanotify ino:%lx ", (unsigned long)ino);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		p = strstr(line, " ignored_mask:");
		if (!strncmp(line, key, strlen(key)) && p &&
		    sscanf(p, " ignored_mask:%x", &mask) == 1)
			ret = mask;
	}
	fclose(f);
	return ret;
}

/*
 * Which marks' ignore masks a modification clears, as fsnotify's
 * send_to_group() clears them on 6.1 and 6.12: those of the marks an
 * event is reported to, which are the modified inode's own, its
 * filesystem's and (through the path's mount) its mount's, and its
 * directory's only when the directory's mark watches children (its mask,
 * or an FSGATE_MARK_IGNORE mask, has FAN_EVENT_ON_CHILD;
 * fsnotify_iter_select_report_types()). A legacy ignore mask on a
 * directory whose mark watches nothing applies to the directory's own
 * events only, and a child's modification leaves it alone, even when
 * another group watches the directory's children and so brings the
 * child's event to the directory (LTP fanotify09's "Events on non-dir
 * child with ignore mask on parent").
 *
 * Each side in turn, fanotify first: a watcher group with FAN_MODIFY on
 * the children of the tmpfs root, and the fixture's group with a
 * filesystem mark for opens and a legacy ignore mask of FAN_OPEN, which
 * does not survive modification, on the root. A file in the root is
 * modified; then the root's ignore mask must still be there and its open
 * still ignored, the other objects' opens heard.
 */
TEST_F(ignore, a_childs_modification_spares_an_ignore_mask_not_for_children)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, DIR_, 0 },
	};
	const struct call watch = {
		FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, DIR_, 0
	};
	uint64_t masks[2][NOBJ], watched[NOBJ];
	long ignored[2];
	int side, w, i;

	for (side = 0; side < 2; side++) {
		int s = side ? self->g : self->fa;

		w = side ? fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
				       FSGATE_CLOEXEC, O_RDONLY | O_CLOEXEC,
				       FSGATE_PRIORITY_DEFAULT) :
			   fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK |
					 FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, w);
		mark_all(_metadata, self, w, side, &watch, 1);
		mark_all(_metadata, self, s, side, calls, 2);
		ASSERT_EQ(0x20, ignored_mask_of(s, self->ino[DIR_]));
		ASSERT_EQ(0, modify(self, FILE_));
		/* The modification reached the root's marks. */
		ASSERT_LE(1, heard(self, w, watched));
		EXPECT_EQ(FAN_MODIFY, watched[FILE_]);
		ASSERT_LE(0, heard(self, s, masks[side]));
		ignored[side] = ignored_mask_of(s, self->ino[DIR_]);
		touch_all(self);
		ASSERT_LE(0, heard(self, s, masks[side]));
		close(w);
		if (!side) {
			close(self->fa);
			self->fa = -1;
		}
	}
	EXPECT_EQ(ignored[0], ignored[1]);
	EXPECT_EQ(0x20, ignored[0]);
	for (i = 0; i < NOBJ; i++) {
		EXPECT_EQ(masks[0][i], masks[1][i]) TH_LOG("object %d", i);
		EXPECT_EQ(i != DIR_, !!(masks[0][i] & FAN_OPEN))
			TH_LOG("object %d: fanotify heard %#llx", i,
			       (unsigned long long)masks[0][i]);
	}
}

/*
 * The other side of the rule: a legacy ignore mask on a directory whose
 * mark watches children applies to them, and a child's modification
 * clears it, in fanotify as in fsgate (the directory's and the child's
 * opens are heard again; the grandchild's always were).
 */
TEST_F(ignore, a_childs_modification_clears_an_ignore_mask_for_children)
{
	const struct call calls[] = {
		{ FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR,
		  DIR_, 0 },
		{ FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, DIR_, 0 },
		{ FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, DIR_, 0 },
	};
	uint64_t masks[2][2][NOBJ];
	long ignored[2];
	int side, i;

	for (side = 0; side < 2; side++) {
		int s = side ? self->g : self->fa;

		mark_all(_metadata, self, s, side, calls, 3);
		touch_all(self);
		ASSERT_LE(0, heard(self, s, masks[side][0]));
		ASSERT_EQ(0, modify(self, FILE_));
		ASSERT_LE(0, heard(self, s, masks[side][1]));
		ignored[side] = ignored_mask_of(s, self->ino[DIR_]);
		touch_all(self);
		ASSERT_LE(0, heard(self, s, masks[side][1]));
		if (!side) {
			close(self->fa);
			self->fa = -1;
		}
	}
	EXPECT_EQ(ignored[0], ignored[1]);
	EXPECT_EQ(0, ignored[0]);
	for (i = 0; i < NOBJ; i++) {
		EXPECT_EQ(masks[0][0][i], masks[1][0][i]) TH_LOG("object %d", i);
		EXPECT_EQ(masks[0][1][i], masks[1][1][i]) TH_LOG("object %d", i);
		EXPECT_EQ(i == CHILD, !!(masks[0][0][i] & FAN_OPEN))
			TH_LOG("object %d: fanotify heard %#llx before", i,
			       (unsigned long long)masks[0][0][i]);
		EXPECT_TRUE(masks[0][1][i] & FAN_OPEN)
			TH_LOG("object %d: fanotify heard %#llx after", i,
			       (unsigned long long)masks[0][1][i]);
	}
}

/* The module says it has them. */
TEST(feature_bit_is_set)
{
	struct fsgate_version v;

	ASSERT_EQ(0, fsgate_version(&v));
	EXPECT_TRUE(v.features & FSGATE_FEATURE_MARK_IGNORE);
}

TEST_HARNESS_MAIN
