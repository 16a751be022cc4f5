// SPDX-License-Identifier: GPL-2.0
/*
 * fanotify's FID reporting modes (FSGATE_REPORT_FID, _DIR_FID, _NAME,
 * _TARGET_FID) and directory entry events (FAN_CREATE, FAN_DELETE,
 * FAN_DELETE_SELF, FAN_MOVED_FROM, FAN_MOVED_TO, FAN_MOVE_SELF,
 * FAN_RENAME, FAN_ATTRIB), on tmpfs and on ext4 on loop.
 *
 * In-tree fanotify on the same kernel is the reference. An fanotify group
 * and an fsgate group with the same flags get the same marks, the test
 * process makes one workload, and the bytes each read() gives must be
 * equal: metadata, records, fsid, file handles, names, padding, and what
 * merged. With equal flags and marks, the groups' shared fsnotify masks
 * are what each would have alone. The expected events are written down
 * too (handles rendered as the names of the objects they were taken
 * from with name_to_handle_at()), so that neither can pass by doing
 * nothing. Errnos of invalid combinations are compared the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"

#ifndef FAN_RENAME
#define FAN_RENAME			0x10000000
#endif
#ifndef FAN_REPORT_TARGET_FID
#define FAN_REPORT_TARGET_FID		0x00001000
#define FAN_REPORT_DFID_NAME_TARGET	(FAN_REPORT_DFID_NAME | \
					 FAN_REPORT_FID | FAN_REPORT_TARGET_FID)
#endif
#ifndef FAN_EVENT_INFO_TYPE_OLD_DFID_NAME
#define FAN_EVENT_INFO_TYPE_OLD_DFID_NAME	10
#define FAN_EVENT_INFO_TYPE_NEW_DFID_NAME	12
#endif

#define BUF_LEN		65536
#define OUT_LEN		16384
#define MAX_KNOWN	128

/* Every directory entry event, as fanotify_mark(2) names them. */
#define DIRENT_EVENTS	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | \
			 FAN_MOVED_TO | FAN_DELETE_SELF | FAN_MOVE_SELF | \
			 FAN_ATTRIB)

/* A handle the test took, to name the objects in records. */
struct known {
	char label[24];
	struct file_handle fh;
	unsigned char bytes[MAX_HANDLE_SZ];
};

FIXTURE(fid) {
	char root[64];
	char img[64];
	char dev[32];
	int mnt_fd;
	int fa;			/* in-tree fanotify */
	int g;			/* fsgate */
	struct known known[MAX_KNOWN];
	int nknown;
	__kernel_fsid_t fsid;
	char fa_out[OUT_LEN];
	char g_out[OUT_LEN];
};

FIXTURE_VARIANT(fid) {
	int ext4;
};

FIXTURE_VARIANT_ADD(fid, tmpfs) {
	.ext4 = 0,
};

FIXTURE_VARIANT_ADD(fid, ext4) {
	.ext4 = 1,
};

FIXTURE_SETUP(fid)
{
	struct statfs sfs;

	self->fa = -1;
	self->g = -1;
	self->dev[0] = '\0';
	self->img[0] = '\0';
	if (variant->ext4) {
		ASSERT_EQ(0, fsgate_test_own_mounts());
		snprintf(self->img, sizeof(self->img), "/tmp/fid.%d.img",
			 getpid());
		snprintf(self->root, sizeof(self->root), "/tmp/fid.%d",
			 getpid());
		ASSERT_EQ(0, fsgate_test_ext4(self->img, self->dev,
					      sizeof(self->dev)));
		ASSERT_EQ(0, mkdir(self->root, 0755));
		ASSERT_EQ(0, mount(self->dev, self->root, "ext4", 0, NULL));
	} else {
		ASSERT_EQ(0, fsgate_test_tmpfs("fid", self->root,
					       sizeof(self->root)));
	}
	self->mnt_fd = open(self->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->mnt_fd);
	ASSERT_EQ(0, fstatfs(self->mnt_fd, &sfs));
	memcpy(&self->fsid, &sfs.f_fsid, sizeof(self->fsid));
	ASSERT_TRUE(self->fsid.val[0] || self->fsid.val[1]);
	self->nknown = 0;
}

FIXTURE_TEARDOWN(fid)
{
	if (self->fa >= 0)
		close(self->fa);
	if (self->g >= 0)
		close(self->g);
	close(self->mnt_fd);
	if (variant->ext4) {
		umount2(self->root, MNT_DETACH);
		fsgate_test_loop_detach(self->dev);
		unlink(self->img);
		rmdir(self->root);
	} else {
		fsgate_test_tmpfs_done(self->root);
	}
}

/* @rel under the filesystem's root, in a static buffer of four. */
static const char *at(FIXTURE_DATA(fid) *self, const char *rel)
{
	static char bufs[4][160];
	static int next;
	char *p = bufs[next++ % 4];

	snprintf(p, sizeof(bufs[0]), "%s/%s", self->root, rel);
	return p;
}

/* Remember the handle of @rel as @label (its own name when NULL). */
static void remember(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fid) *self, const char *rel,
		     const char *label)
{
	struct known *k = &self->known[self->nknown];
	int mnt;

	ASSERT_GT(MAX_KNOWN, self->nknown);
	k->fh.handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, at(self, rel), &k->fh, &mnt,
				       0)) TH_LOG("%s: %s", rel, strerror(errno));
	snprintf(k->label, sizeof(k->label), "%s", label ? label : rel);
	self->nknown++;
}

static void mkdir_at(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fid) *self, const char *rel)
{
	ASSERT_EQ(0, mkdir(at(self, rel), 0755)) TH_LOG("%s: %s", rel,
							 strerror(errno));
}

static void create_at(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fid) *self, const char *rel)
{
	int fd = open(at(self, rel), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	ASSERT_LE(0, fd) TH_LOG("%s: %s", rel, strerror(errno));
	close(fd);
}

static void rename_at(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fid) *self, const char *from,
		      const char *to)
{
	ASSERT_EQ(0, rename(at(self, from), at(self, to)))
		TH_LOG("%s -> %s: %s", from, to, strerror(errno));
}

/* Both groups, with the same FAN_REPORT_* flags. */
static void groups(struct __test_metadata *_metadata,
		   FIXTURE_DATA(fid) *self, unsigned int flags)
{
	if (self->fa >= 0)
		close(self->fa);
	if (self->g >= 0)
		close(self->g);
	self->fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC |
				 flags, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fa) TH_LOG("fanotify_init(%#x): %s", flags,
				      strerror(errno));
	self->g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			      FSGATE_CLOEXEC | flags, O_RDONLY | O_CLOEXEC,
			      FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, self->g) TH_LOG("fsgate_init(%#x): %s", flags,
				     strerror(errno));
}

/* The same mark on both groups; both must succeed. */
static void mark_both(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fid) *self, unsigned int flags,
		      uint64_t mask, const char *rel)
{
	ASSERT_EQ(0, fanotify_mark(self->fa, FAN_MARK_ADD | flags, mask,
				   AT_FDCWD, at(self, rel)))
		TH_LOG("fanotify mark %#x %#llx %s: %s", flags,
		       (unsigned long long)mask, rel, strerror(errno));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD | flags, mask,
				 AT_FDCWD, at(self, rel)))
		TH_LOG("fsgate mark %#x %#llx %s: %s", flags,
		       (unsigned long long)mask, rel, strerror(errno));
}

/* Everything queued on @fd, whole events, into @buf; returns the bytes. */
static ssize_t read_all(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got + 8192 <= len) {
		n = read(fd, buf + got, len - got);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

static const struct {
	uint64_t bit;
	const char *name;
} mask_names[] = {
	{ FAN_ACCESS, "ACCESS" }, { FAN_MODIFY, "MODIFY" },
	{ FAN_ATTRIB, "ATTRIB" }, { FAN_CLOSE_WRITE, "CLOSE_WRITE" },
	{ FAN_CLOSE_NOWRITE, "CLOSE_NOWRITE" }, { FAN_OPEN, "OPEN" },
	{ FAN_MOVED_FROM, "MOVED_FROM" }, { FAN_MOVED_TO, "MOVED_TO" },
	{ FAN_CREATE, "CREATE" }, { FAN_DELETE, "DELETE" },
	{ FAN_DELETE_SELF, "DELETE_SELF" }, { FAN_MOVE_SELF, "MOVE_SELF" },
	{ FAN_OPEN_EXEC, "OPEN_EXEC" }, { FAN_Q_OVERFLOW, "Q_OVERFLOW" },
	{ FAN_RENAME, "RENAME" }, { FAN_ONDIR, "ONDIR" },
};

static const char *label_of(FIXTURE_DATA(fid) *self,
			    const struct file_handle *fh)
{
	int i;

	for (i = self->nknown - 1; i >= 0; i--) {
		const struct known *k = &self->known[i];

		if (k->fh.handle_type == fh->handle_type &&
		    k->fh.handle_bytes == fh->handle_bytes &&
		    !memcmp(k->fh.f_handle, fh->f_handle, fh->handle_bytes))
			return k->label;
	}
	return "?";
}

static const char *info_type_name(unsigned int type)
{
	switch (type) {
	case FAN_EVENT_INFO_TYPE_FID:
		return "FID";
	case FAN_EVENT_INFO_TYPE_DFID_NAME:
		return "DFID_NAME";
	case FAN_EVENT_INFO_TYPE_DFID:
		return "DFID";
	case FAN_EVENT_INFO_TYPE_OLD_DFID_NAME:
		return "OLD_DFID_NAME";
	case FAN_EVENT_INFO_TYPE_NEW_DFID_NAME:
		return "NEW_DFID_NAME";
	default:
		return "UNKNOWN";
	}
}

/*
 * One line per event: its mask, then each record as TYPE(object[,name]);
 * anything off fanotify's frame (an fd, another pid or fsid, a record
 * that does not add up) is written into the line, so that it differs.
 */
static void render(FIXTURE_DATA(fid) *self, const unsigned char *buf,
		   size_t len, char *out, size_t room)
{
	size_t off = 0, o = 0;

	out[0] = '\0';
	while (len - off >= FAN_EVENT_METADATA_LEN) {
		struct fanotify_event_metadata m;
		size_t r;
		unsigned int i;
		const char *sep = "";

		memcpy(&m, buf + off, sizeof(m));
		if (m.event_len < FAN_EVENT_METADATA_LEN ||
		    m.event_len > len - off) {
			o += snprintf(out + o, room - o, "BADLEN\n");
			break;
		}
		for (i = 0; i < sizeof(mask_names) / sizeof(mask_names[0]); i++)
			if (m.mask & mask_names[i].bit) {
				o += snprintf(out + o, room - o, "%s%s", sep,
					      mask_names[i].name);
				sep = "|";
			}
		if (m.fd != FAN_NOFD)
			o += snprintf(out + o, room - o, " fd!");
		if (m.pid != getpid())
			o += snprintf(out + o, room - o, " pid!");
		for (r = off + m.metadata_len; r + 4 <= off + m.event_len;) {
			struct fanotify_event_info_fid info;
			struct {
				struct file_handle fh;
				unsigned char bytes[MAX_HANDLE_SZ];
			} h;
			size_t rlen, hlen;

			memcpy(&info, buf + r, sizeof(info));
			rlen = info.hdr.len;
			if (rlen < sizeof(info) + sizeof(struct file_handle) ||
			    rlen > off + m.event_len - r || rlen % 4) {
				o += snprintf(out + o, room - o, " BADREC");
				break;
			}
			memcpy(&h.fh, buf + r + sizeof(info), sizeof(h.fh));
			hlen = sizeof(info) + sizeof(h.fh) + h.fh.handle_bytes;
			if (h.fh.handle_bytes > MAX_HANDLE_SZ || hlen > rlen) {
				o += snprintf(out + o, room - o, " BADFH");
				break;
			}
			memcpy(h.bytes, buf + r + sizeof(info) + sizeof(h.fh),
			       h.fh.handle_bytes);
			o += snprintf(out + o, room - o, " %s(%s",
				      info_type_name(info.hdr.info_type),
				      label_of(self, &h.fh));
			if (hlen < rlen && buf[r + hlen])
				o += snprintf(out + o, room - o, ",%.*s",
					      (int)(rlen - hlen),
					      (const char *)buf + r + hlen);
			o += snprintf(out + o, room - o, ")");
			if (memcmp(&info.fsid, &self->fsid, sizeof(self->fsid)))
				o += snprintf(out + o, room - o, "fsid!");
			r += rlen;
		}
		o += snprintf(out + o, room - o, "\n");
		if (o >= room)
			break;
		off += m.event_len;
	}
}

/*
 * Read both groups; their bytes must be equal, and fsgate's events, as
 * render() writes them, @expected (NULL: not written down).
 */
static void compare(struct __test_metadata *_metadata,
		    FIXTURE_DATA(fid) *self, const char *expected)
{
	static unsigned char a[BUF_LEN], b[BUF_LEN];
	int qa = -1, qb = -1;
	ssize_t na, nb;

	/* FIONREAD counts the records too, as fanotify's does. */
	ASSERT_EQ(0, ioctl(self->fa, FIONREAD, &qa));
	ASSERT_EQ(0, ioctl(self->g, FIONREAD, &qb));
	na = read_all(self->fa, a, sizeof(a));
	nb = read_all(self->g, b, sizeof(b));
	EXPECT_EQ(qa, qb);
	EXPECT_EQ(nb, qb);
	render(self, a, na, self->fa_out, sizeof(self->fa_out));
	render(self, b, nb, self->g_out, sizeof(self->g_out));
	EXPECT_EQ(na, nb) TH_LOG("fanotify:\n%sfsgate:\n%s", self->fa_out,
				 self->g_out);
	EXPECT_EQ(0, memcmp(a, b, na < nb ? na : nb))
		TH_LOG("fanotify:\n%sfsgate:\n%s", self->fa_out, self->g_out);
	EXPECT_STREQ(self->fa_out, self->g_out);
	if (expected)
		EXPECT_STREQ(expected, self->g_out);
	EXPECT_LT(0, nb);
}

TEST_F(fid, the_module_offers_fid_reporting)
{
	struct fsgate_version v;

	ASSERT_EQ(0, fsgate_version(&v));
	EXPECT_TRUE(v.features & FSGATE_FEATURE_REPORT_FID);
}

/*
 * Entries of one directory: events on one name merge, wherever they are
 * in the queue, as fanotify merges them; a directory's never with a
 * file's.
 */
TEST_F(fid, dirent_events_name_entries_and_merge)
{
	mkdir_at(_metadata, self, "w");
	remember(_metadata, self, "w", NULL);
	groups(_metadata, self, FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, 0, FAN_CREATE | FAN_DELETE |
		  FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, "w");
	create_at(_metadata, self, "w/f");
	mkdir_at(_metadata, self, "w/s");
	rename_at(_metadata, self, "w/f", "w/g");
	ASSERT_EQ(0, rmdir(at(self, "w/s")));
	ASSERT_EQ(0, unlink(at(self, "w/g")));
	compare(_metadata, self,
		"MOVED_FROM|CREATE DFID_NAME(w,f)\n"
		"CREATE|DELETE|ONDIR DFID_NAME(w,s)\n"
		"MOVED_TO|DELETE DFID_NAME(w,g)\n");
}

/* Without FAN_ONDIR a directory's entries are not told. */
TEST_F(fid, directories_need_ondir)
{
	mkdir_at(_metadata, self, "w");
	remember(_metadata, self, "w", NULL);
	groups(_metadata, self, FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, 0, FAN_CREATE | FAN_DELETE, "w");
	mkdir_at(_metadata, self, "w/s");
	create_at(_metadata, self, "w/f");
	compare(_metadata, self, "CREATE DFID_NAME(w,f)\n");
}

/* The workload every mode hears, on a filesystem mark. */
static void workload(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fid) *self, const char *w)
{
	char p[8][64];
	int fd;

	snprintf(p[0], sizeof(p[0]), "%s/d", w);
	snprintf(p[1], sizeof(p[1]), "%s/d/f", w);
	snprintf(p[2], sizeof(p[2]), "%s/d/g", w);
	snprintf(p[3], sizeof(p[3]), "%s/e", w);
	snprintf(p[4], sizeof(p[4]), "%s/e/g", w);
	snprintf(p[5], sizeof(p[5]), "%s/d/h", w);
	snprintf(p[6], sizeof(p[6]), "%s/e/sub", w);
	mkdir_at(_metadata, self, p[0]);
	remember(_metadata, self, p[0], "d");
	fd = open(at(self, p[1]), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	remember(_metadata, self, p[1], "f");
	ASSERT_EQ(5, write(fd, "data\n", 5));
	close(fd);
	ASSERT_EQ(0, chmod(at(self, p[1]), 0600));
	ASSERT_EQ(0, truncate(at(self, p[1]), 2));
	rename_at(_metadata, self, p[1], p[2]);
	mkdir_at(_metadata, self, p[3]);
	remember(_metadata, self, p[3], "e");
	mkdir_at(_metadata, self, p[6]);
	remember(_metadata, self, p[6], "sub");
	rename_at(_metadata, self, p[2], p[4]);
	ASSERT_EQ(0, link(at(self, p[4]), at(self, p[5])));
	ASSERT_EQ(0, unlink(at(self, p[5])));
	ASSERT_EQ(0, unlink(at(self, p[4])));
	ASSERT_EQ(0, rmdir(at(self, p[6])));
	ASSERT_EQ(0, rmdir(at(self, p[3])));
	ASSERT_EQ(0, rmdir(at(self, p[0])));
}

/* The workload in @w with only one side's group marked: its events. */
static void hear_alone(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fid) *self, unsigned int mode,
		       uint64_t mask, const char *w, bool fsgate_side,
		       char *out, size_t room)
{
	static unsigned char buf[BUF_LEN];
	int ret;

	mkdir_at(_metadata, self, w);
	remember(_metadata, self, w, "w");
	groups(_metadata, self, mode);
	if (fsgate_side)
		ret = fsgate_mark(self->g, FSGATE_MARK_ADD | FAN_MARK_FILESYSTEM,
				  mask, AT_FDCWD, at(self, w));
	else
		ret = fanotify_mark(self->fa, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				    mask, AT_FDCWD, at(self, w));
	ASSERT_EQ(0, ret) TH_LOG("%s mark: %s", fsgate_side ? "fsgate" :
				 "fanotify", strerror(errno));
	workload(_metadata, self, w);
	render(self, buf, read_all(fsgate_side ? self->g : self->fa, buf,
				   sizeof(buf)), out, room);
}

/*
 * Every mode and every event, on a filesystem mark, as written down
 * (fanotify's on 6.1 and 6.12, tmpfs and ext4 alike) and with fanotify's
 * bytes. Each side is first heard alone, so that the other's marks
 * cannot add to what the shared inode masks let through; then both
 * together, whose read()s must be equal byte for byte.
 */
TEST_F(fid, every_mode_hears_what_fanotify_hears)
{
	static const struct {
		unsigned int mode;
		const char *events;
	} modes[] = {
		{ FAN_REPORT_FID,
		  "CREATE|DELETE|ONDIR FID(w)\n"
		  "MOVED_FROM|MOVED_TO|CREATE|DELETE FID(d)\n"
		  "MODIFY|ATTRIB|CLOSE_WRITE|OPEN|DELETE_SELF|MOVE_SELF FID(f)\n"
		  "CREATE|DELETE|DELETE_SELF|ONDIR FID(e)\n"
		  "MOVED_TO|DELETE FID(e)\n"
		  "DELETE_SELF|ONDIR FID(sub)\n"
		  "DELETE_SELF|ONDIR FID(d)\n" },
		{ FAN_REPORT_DIR_FID,
		  "CREATE|DELETE|ONDIR DFID(w)\n"
		  "MODIFY|ATTRIB|CLOSE_WRITE|OPEN|MOVED_FROM|MOVED_TO|CREATE|DELETE DFID(d)\n"
		  "CREATE|DELETE|DELETE_SELF|ONDIR DFID(e)\n"
		  "MOVED_TO|DELETE DFID(e)\n"
		  "DELETE_SELF|ONDIR DFID(sub)\n"
		  "DELETE_SELF|ONDIR DFID(d)\n" },
		{ FAN_REPORT_DFID_NAME,
		  "CREATE|DELETE|ONDIR DFID_NAME(w,d)\n"
		  "MODIFY|ATTRIB|CLOSE_WRITE|OPEN|MOVED_FROM|CREATE DFID_NAME(d,f)\n"
		  "RENAME OLD_DFID_NAME(d,f) NEW_DFID_NAME(d,g)\n"
		  "MOVED_FROM|MOVED_TO DFID_NAME(d,g)\n"
		  "CREATE|DELETE|ONDIR DFID_NAME(w,e)\n"
		  "CREATE|DELETE|ONDIR DFID_NAME(e,sub)\n"
		  "RENAME OLD_DFID_NAME(d,g) NEW_DFID_NAME(e,g)\n"
		  "MOVED_TO|DELETE DFID_NAME(e,g)\n"
		  "CREATE|DELETE DFID_NAME(d,h)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(sub,.)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(e,.)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(d,.)\n" },
		{ FAN_REPORT_FID | FAN_REPORT_DIR_FID,
		  "CREATE|DELETE|ONDIR DFID(w)\n"
		  "MOVED_FROM|MOVED_TO|CREATE|DELETE DFID(d)\n"
		  "MODIFY|ATTRIB|CLOSE_WRITE|OPEN DFID(d) FID(f)\n"
		  "ATTRIB|DELETE_SELF|MOVE_SELF FID(f)\n"
		  "CREATE|DELETE|DELETE_SELF|ONDIR DFID(e)\n"
		  "MOVED_TO|DELETE DFID(e)\n"
		  "DELETE_SELF|ONDIR DFID(sub)\n"
		  "DELETE_SELF|ONDIR DFID(d)\n" },
		{ FAN_REPORT_FID | FAN_REPORT_DFID_NAME,
		  "CREATE|DELETE|ONDIR DFID_NAME(w,d)\n"
		  "MOVED_FROM|CREATE DFID_NAME(d,f)\n"
		  "MODIFY|ATTRIB|CLOSE_WRITE|OPEN DFID_NAME(d,f) FID(f)\n"
		  "RENAME OLD_DFID_NAME(d,f) NEW_DFID_NAME(d,g)\n"
		  "MOVED_FROM|MOVED_TO DFID_NAME(d,g)\n"
		  "ATTRIB|DELETE_SELF|MOVE_SELF FID(f)\n"
		  "CREATE|DELETE|ONDIR DFID_NAME(w,e)\n"
		  "CREATE|DELETE|ONDIR DFID_NAME(e,sub)\n"
		  "RENAME OLD_DFID_NAME(d,g) NEW_DFID_NAME(e,g)\n"
		  "MOVED_TO|DELETE DFID_NAME(e,g)\n"
		  "CREATE|DELETE DFID_NAME(d,h)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(sub,.)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(e,.)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(d,.)\n" },
		{ FAN_REPORT_DFID_NAME_TARGET,
		  "CREATE|DELETE|ONDIR DFID_NAME(w,d) FID(d)\n"
		  "MODIFY|ATTRIB|CLOSE_WRITE|OPEN|MOVED_FROM|CREATE DFID_NAME(d,f) FID(f)\n"
		  "RENAME OLD_DFID_NAME(d,f) NEW_DFID_NAME(d,g) FID(f)\n"
		  "MOVED_FROM|MOVED_TO DFID_NAME(d,g) FID(f)\n"
		  "ATTRIB|DELETE_SELF|MOVE_SELF FID(f)\n"
		  "CREATE|DELETE|ONDIR DFID_NAME(w,e) FID(e)\n"
		  "CREATE|DELETE|ONDIR DFID_NAME(e,sub) FID(sub)\n"
		  "RENAME OLD_DFID_NAME(d,g) NEW_DFID_NAME(e,g) FID(f)\n"
		  "MOVED_TO|DELETE DFID_NAME(e,g) FID(f)\n"
		  "CREATE|DELETE DFID_NAME(d,h) FID(f)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(sub,.)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(e,.)\n"
		  "DELETE_SELF|ONDIR DFID_NAME(d,.)\n" },
	};
	uint64_t mask;
	unsigned int i;
	char w[16];

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		mask = DIRENT_EVENTS | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_OPEN |
		       FAN_ONDIR |
		       ((modes[i].mode & FAN_REPORT_NAME) ? FAN_RENAME : 0);
		snprintf(w, sizeof(w), "f%u", i);
		hear_alone(_metadata, self, modes[i].mode, mask, w, true,
			   self->g_out, sizeof(self->g_out));
		EXPECT_STREQ(modes[i].events, self->g_out)
			TH_LOG("fsgate alone, mode %#x", modes[i].mode);
		snprintf(w, sizeof(w), "a%u", i);
		hear_alone(_metadata, self, modes[i].mode, mask, w, false,
			   self->fa_out, sizeof(self->fa_out));
		EXPECT_STREQ(modes[i].events, self->fa_out)
			TH_LOG("fanotify alone, mode %#x", modes[i].mode);

		snprintf(w, sizeof(w), "w%u", i);
		mkdir_at(_metadata, self, w);
		remember(_metadata, self, w, "w");
		groups(_metadata, self, modes[i].mode);
		mark_both(_metadata, self, FAN_MARK_FILESYSTEM, mask, w);
		workload(_metadata, self, w);
		compare(_metadata, self, modes[i].events);
	}
}

/* FAN_RENAME: old and new directory and name, as the marks say. */
TEST_F(fid, rename_reports_both_sides)
{
	mkdir_at(_metadata, self, "a");
	mkdir_at(_metadata, self, "b");
	remember(_metadata, self, "a", NULL);
	remember(_metadata, self, "b", NULL);
	create_at(_metadata, self, "a/x");
	remember(_metadata, self, "a/x", "x");

	/* A filesystem mark: both sides, within and across directories. */
	groups(_metadata, self, FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, FAN_MARK_FILESYSTEM,
		  FAN_RENAME | FAN_ONDIR, "a");
	rename_at(_metadata, self, "a/x", "a/y");
	rename_at(_metadata, self, "a/y", "b/y");
	compare(_metadata, self,
		"RENAME OLD_DFID_NAME(a,x) NEW_DFID_NAME(a,y)\n"
		"RENAME OLD_DFID_NAME(a,y) NEW_DFID_NAME(b,y)\n");

	/* A mark on the old directory only: the old side. */
	groups(_metadata, self, FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, 0, FAN_RENAME, "b");
	rename_at(_metadata, self, "b/y", "a/z");
	compare(_metadata, self, "RENAME OLD_DFID_NAME(b,y)\n");

	/* A mark on the new directory only, with the target's handle. */
	groups(_metadata, self, FAN_REPORT_DFID_NAME_TARGET);
	mark_both(_metadata, self, 0, FAN_RENAME, "b");
	rename_at(_metadata, self, "a/z", "b/z");
	compare(_metadata, self, "RENAME NEW_DFID_NAME(b,z) FID(x)\n");

	/* A directory renamed: FAN_ONDIR, never merged with other renames. */
	mkdir_at(_metadata, self, "a/s");
	remember(_metadata, self, "a/s", "s");
	groups(_metadata, self, FAN_REPORT_DFID_NAME_TARGET);
	mark_both(_metadata, self, FAN_MARK_FILESYSTEM,
		  FAN_RENAME | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, "a");
	rename_at(_metadata, self, "a/s", "b/s");
	compare(_metadata, self,
		"RENAME|ONDIR OLD_DFID_NAME(a,s) NEW_DFID_NAME(b,s) FID(s)\n"
		"MOVED_FROM|ONDIR DFID_NAME(a,s) FID(s)\n"
		"MOVED_TO|ONDIR DFID_NAME(b,s) FID(s)\n");
}

/* Hard links: a new name, and the inode's link count (FAN_ATTRIB). */
TEST_F(fid, hard_links)
{
	mkdir_at(_metadata, self, "w");
	remember(_metadata, self, "w", NULL);
	create_at(_metadata, self, "w/f");
	remember(_metadata, self, "w/f", "f");
	groups(_metadata, self, FAN_REPORT_FID | FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, FAN_MARK_FILESYSTEM,
		  FAN_CREATE | FAN_DELETE | FAN_ATTRIB, "w");
	ASSERT_EQ(0, link(at(self, "w/f"), at(self, "w/l")));
	ASSERT_EQ(0, unlink(at(self, "w/l")));
	/* The link count changes first; later events merge into earlier. */
	compare(_metadata, self,
		"ATTRIB FID(f)\n"
		"CREATE|DELETE DFID_NAME(w,l)\n");
}

/* An open file unlinked: it goes (FAN_DELETE_SELF) when it is closed. */
TEST_F(fid, unlink_of_an_open_file)
{
	int fd;

	mkdir_at(_metadata, self, "w");
	remember(_metadata, self, "w", NULL);
	create_at(_metadata, self, "w/f");
	remember(_metadata, self, "w/f", "f");
	groups(_metadata, self, FAN_REPORT_FID | FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, FAN_MARK_FILESYSTEM,
		  FAN_DELETE | FAN_DELETE_SELF | FAN_ATTRIB, "w");
	fd = open(at(self, "w/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, unlink(at(self, "w/f")));
	compare(_metadata, self,
		"ATTRIB FID(f)\n"
		"DELETE DFID_NAME(w,f)\n");
	close(fd);
	compare(_metadata, self, "DELETE_SELF FID(f)\n");
}

/* A tree made and removed, with every handle and name reported. */
TEST_F(fid, a_tree_created_and_removed)
{
	static const char *const dirs[] = { "t", "t/a", "t/a/b", "t/c" };
	static const char *const files[] = { "t/a/b/f1", "t/a/f2", "t/c/f3" };
	int i, lines = 0;
	const char *p;

	groups(_metadata, self, FAN_REPORT_DFID_NAME_TARGET);
	mark_both(_metadata, self, FAN_MARK_FILESYSTEM,
		  FAN_CREATE | FAN_DELETE | FAN_DELETE_SELF | FAN_ONDIR, ".");
	remember(_metadata, self, ".", "/");
	for (i = 0; i < 4; i++) {
		mkdir_at(_metadata, self, dirs[i]);
		remember(_metadata, self, dirs[i], NULL);
	}
	for (i = 0; i < 3; i++) {
		create_at(_metadata, self, files[i]);
		remember(_metadata, self, files[i], NULL);
	}
	for (i = 2; i >= 0; i--)
		ASSERT_EQ(0, unlink(at(self, files[i])));
	for (i = 3; i >= 0; i--)
		ASSERT_EQ(0, rmdir(at(self, dirs[i])));
	compare(_metadata, self, NULL);
	for (p = self->g_out; (p = strchr(p, '\n')); p++)
		lines++;
	/* No event has a "?" handle, and each object was made and went. */
	EXPECT_EQ(NULL, strstr(self->g_out, "?"));
	EXPECT_NE(NULL, strstr(self->g_out,
			       "CREATE|DELETE DFID_NAME(t/a/b,f1) FID(t/a/b/f1)\n"));
	EXPECT_NE(NULL, strstr(self->g_out,
			       "CREATE|DELETE|ONDIR DFID_NAME(/,t) FID(t)\n"));
	EXPECT_NE(NULL, strstr(self->g_out, "DELETE_SELF FID(t/c/f3)\n"));
	EXPECT_NE(NULL, strstr(self->g_out,
			       "DELETE_SELF|ONDIR DFID_NAME(t/a,.)\n"));
	EXPECT_LE(14, lines) TH_LOG("%s", self->g_out);
}

/* File events in FID mode: handles, FAN_NOFD, FAN_ONDIR reported. */
TEST_F(fid, file_events_carry_handles_not_fds)
{
	int fd;

	mkdir_at(_metadata, self, "w");
	remember(_metadata, self, "w", NULL);
	create_at(_metadata, self, "w/f");
	remember(_metadata, self, "w/f", "f");
	groups(_metadata, self, FAN_REPORT_FID);
	mark_both(_metadata, self, 0, FAN_OPEN | FAN_CLOSE_NOWRITE |
		  FAN_ONDIR | FAN_EVENT_ON_CHILD, "w");
	fd = open(at(self, "w/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	fd = open(at(self, "w"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	compare(_metadata, self,
		"CLOSE_NOWRITE|OPEN FID(f)\n"
		"CLOSE_NOWRITE|OPEN|ONDIR FID(w)\n");

	/* With names: the child's parent and name, "." for a directory. */
	groups(_metadata, self, FAN_REPORT_DFID_NAME);
	mark_both(_metadata, self, 0, FAN_OPEN | FAN_ONDIR |
		  FAN_EVENT_ON_CHILD, "w");
	fd = open(at(self, "w/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	fd = open(at(self, "w"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	compare(_metadata, self,
		"OPEN DFID_NAME(w,f)\n"
		"OPEN|ONDIR DFID_NAME(w,.)\n");
}

/* A reported handle opens its object with open_by_handle_at(2). */
TEST_F(fid, reported_handles_open_their_objects)
{
	static unsigned char buf[BUF_LEN];
	struct fanotify_event_metadata m;
	struct stat want, got;
	int fd, checked = 0;
	ssize_t n;
	size_t r;

	mkdir_at(_metadata, self, "w");
	groups(_metadata, self, FAN_REPORT_DFID_NAME_TARGET);
	mark_both(_metadata, self, 0, FAN_CREATE, "w");
	create_at(_metadata, self, "w/f");
	ASSERT_EQ(0, stat(at(self, "w/f"), &want));
	n = read_all(self->g, buf, sizeof(buf));
	ASSERT_LE((ssize_t)FAN_EVENT_METADATA_LEN, n);
	memcpy(&m, buf, sizeof(m));
	ASSERT_EQ(FAN_CREATE, m.mask);
	/* DFID_NAME of w, then FID of f. */
	for (r = m.metadata_len; r < m.event_len;) {
		struct fanotify_event_info_fid *info = (void *)(buf + r);
		struct file_handle *fh = (void *)info->handle;

		if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_FID) {
			fd = open_by_handle_at(self->mnt_fd, fh, O_RDONLY);
			ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
			ASSERT_EQ(0, fstat(fd, &got));
			EXPECT_EQ(want.st_ino, got.st_ino);
			EXPECT_EQ(want.st_dev, got.st_dev);
			close(fd);
			checked++;
		} else {
			ASSERT_EQ(FAN_EVENT_INFO_TYPE_DFID_NAME,
				  info->hdr.info_type);
			fd = open_by_handle_at(self->mnt_fd, fh, O_RDONLY);
			ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
			ASSERT_EQ(0, fstat(fd, &got));
			EXPECT_TRUE(S_ISDIR(got.st_mode));
			ASSERT_EQ(0, stat(at(self, "w"), &want));
			EXPECT_EQ(want.st_ino, got.st_ino);
			ASSERT_EQ(0, stat(at(self, "w/f"), &want));
			close(fd);
			checked++;
		}
		r += info->hdr.len;
	}
	EXPECT_EQ(2, checked);
}

/*
 * fsgate's process record comes after fanotify's FID records, where
 * fanotify puts its pidfd record, at a 4-byte boundary: records of the
 * FID modes are padded to 4 bytes, not 8.
 */
TEST_F(fid, the_process_record_follows_the_fid_records)
{
	static unsigned char buf[BUF_LEN];
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK | FSGATE_CLOEXEC |
			 FSGATE_REPORT_DFID_NAME | FSGATE_REPORT_PROC,
		.event_f_flags = O_RDONLY | O_CLOEXEC,
		.priority = FSGATE_PRIORITY_DEFAULT,
	};
	struct fanotify_event_metadata m;
	struct fanotify_event_info_header hdr;
	struct fsgate_info_proc proc;
	size_t r, fid_len;
	ssize_t n;
	int g;

	mkdir_at(_metadata, self, "w");
	remember(_metadata, self, "w", NULL);
	g = fsgate_init_ext(&init);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fsgate_mark(g, FSGATE_MARK_ADD, FAN_CREATE, AT_FDCWD,
				 at(self, "w")));
	/* A five-byte name: 20 + handle + 6, padded to 4, not 8. */
	create_at(_metadata, self, "w/abcde");
	n = read(g, buf, sizeof(buf));
	close(g);
	ASSERT_LE((ssize_t)FAN_EVENT_METADATA_LEN, n);
	memcpy(&m, buf, sizeof(m));
	ASSERT_EQ((size_t)n, m.event_len);
	EXPECT_EQ(FAN_NOFD, m.fd);
	r = m.metadata_len;
	memcpy(&hdr, buf + r, sizeof(hdr));
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_DFID_NAME, hdr.info_type);
	fid_len = hdr.len;
	EXPECT_EQ(0u, fid_len % 4);
	r += fid_len;
	ASSERT_EQ(r + sizeof(proc), m.event_len);
	memcpy(&proc, buf + r, sizeof(proc));
	EXPECT_EQ(FSGATE_INFO_PROC, proc.hdr.info_type);
	EXPECT_EQ(sizeof(proc), proc.hdr.len);
	EXPECT_EQ(getpid(), (pid_t)proc.tgid);
	EXPECT_EQ((size_t)m.metadata_len + fid_len + sizeof(proc),
		  (size_t)m.event_len);
}

/* fanotify_init(2)'s rules: the same errno from both. */
TEST_F(fid, invalid_init_flags_get_fanotifys_errno)
{
	static const struct {
		unsigned int flags;
		int err;
	} cases[] = {
		{ FAN_REPORT_FID, 0 },
		{ FAN_REPORT_DIR_FID, 0 },
		{ FAN_REPORT_DFID_NAME, 0 },
		{ FAN_REPORT_FID | FAN_REPORT_DIR_FID, 0 },
		{ FAN_REPORT_FID | FAN_REPORT_DFID_NAME, 0 },
		{ FAN_REPORT_DFID_NAME_TARGET, 0 },
		{ FAN_REPORT_FID | FAN_REPORT_TID, 0 },
		{ FAN_REPORT_NAME, EINVAL },
		{ FAN_REPORT_FID | FAN_REPORT_NAME, EINVAL },
		{ FAN_REPORT_TARGET_FID, EINVAL },
		{ FAN_REPORT_TARGET_FID | FAN_REPORT_FID, EINVAL },
		{ FAN_REPORT_TARGET_FID | FAN_REPORT_DFID_NAME, EINVAL },
		{ FAN_REPORT_TARGET_FID | FAN_REPORT_FID | FAN_REPORT_DIR_FID,
		  EINVAL },
		{ FAN_REPORT_FID | FAN_CLASS_CONTENT, EINVAL },
		{ FAN_REPORT_DIR_FID | FAN_CLASS_PRE_CONTENT, EINVAL },
		{ FAN_REPORT_DFID_NAME | FAN_CLASS_CONTENT, EINVAL },
	};
	unsigned int i;
	int fa, g, efa, eg;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = 0;
		fa = fanotify_init(cases[i].flags | FAN_CLOEXEC, O_RDONLY);
		efa = fa < 0 ? errno : 0;
		errno = 0;
		g = fsgate_init(cases[i].flags | FSGATE_CLOEXEC, O_RDONLY,
				FSGATE_PRIORITY_DEFAULT);
		eg = g < 0 ? errno : 0;
		EXPECT_EQ(cases[i].err, efa) TH_LOG("%#x: fanotify %s",
						    cases[i].flags,
						    strerror(efa));
		EXPECT_EQ(efa, eg) TH_LOG("%#x: fanotify %s, fsgate %s",
					  cases[i].flags, strerror(efa),
					  strerror(eg));
		if (fa >= 0)
			close(fa);
		if (g >= 0)
			close(g);
	}
}

/* The errno 6.1's rules give a FID group's mark on procfs (see below). */
#define PROCFS_ERR	(-1)

/* Whether the running kernel is @major.@minor or later. */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * fanotify_mark(2)'s rules for FID groups and events: the same errno as
 * the running kernel's fanotify.
 */
TEST_F(fid, invalid_marks_get_fanotifys_errno)
{
	static const struct {
		unsigned int init;
		unsigned int flags;
		uint64_t mask;
		const char *path;	/* NULL: the root */
		int err;
		int err_new;	/* fanotify's from 6.8 on, for procfs */
	} cases[] = {
		/* Directory entry events need a FID group. */
		{ 0, 0, FAN_CREATE, NULL, EINVAL, 0 },
		{ 0, 0, FAN_ATTRIB, NULL, EINVAL, 0 },
		{ 0, 0, FAN_DELETE_SELF, "f", EINVAL, 0 },
		{ 0, FAN_MARK_FILESYSTEM, FAN_MOVED_TO, NULL, EINVAL, 0 },
		/* ... and no mount mark. */
		{ FAN_REPORT_FID, FAN_MARK_MOUNT, FAN_CREATE, NULL, EINVAL, 0 },
		{ FAN_REPORT_FID, FAN_MARK_MOUNT, FAN_ATTRIB, NULL, EINVAL, 0 },
		{ FAN_REPORT_FID, FAN_MARK_MOUNT, FAN_OPEN, NULL, 0, 0 },
		{ FAN_REPORT_FID, FAN_MARK_FILESYSTEM, FAN_CREATE, NULL, 0, 0 },
		{ FAN_REPORT_FID, 0, FAN_DELETE_SELF, "f", 0, 0 },
		/* FAN_RENAME needs names. */
		{ FAN_REPORT_FID, 0, FAN_RENAME, NULL, EINVAL, 0 },
		{ FAN_REPORT_DIR_FID, 0, FAN_RENAME, NULL, EINVAL, 0 },
		{ FAN_REPORT_DFID_NAME, 0, FAN_RENAME, NULL, 0, 0 },
		/* New interfaces refuse directory events on files. */
		{ FAN_REPORT_DFID_NAME, 0, FAN_RENAME, "f", ENOTDIR, 0 },
		{ FAN_REPORT_DFID_NAME_TARGET, 0, FAN_CREATE, "f", ENOTDIR, 0 },
		{ FAN_REPORT_DFID_NAME_TARGET, 0, FAN_ATTRIB | FAN_ONDIR, "f",
		  ENOTDIR, 0 },
		{ FAN_REPORT_DFID_NAME_TARGET, 0, FAN_ATTRIB, "f", 0, 0 },
		/* ... old ones take them, as they always did. */
		{ FAN_REPORT_FID, 0, FAN_CREATE, "f", 0, 0 },
		/*
		 * procfs: no fsid (6.1), or one but no decodable handles
		 * (6.12): PROCFS_ERR, what 6.1's rules say of it. From 6.8
		 * on (an fsid, and inode marks needing handles that only
		 * encode) inode marks are allowed there (err_new).
		 */
		{ FAN_REPORT_FID, 0, FAN_OPEN, "/proc/self", PROCFS_ERR, 0 },
		{ FAN_REPORT_FID, FAN_MARK_FILESYSTEM, FAN_OPEN, "/proc",
		  PROCFS_ERR, EOPNOTSUPP },
		{ FAN_REPORT_DFID_NAME, FAN_MARK_REMOVE, FAN_OPEN, "/proc",
		  PROCFS_ERR, ENOENT },
		/* Unknown bits stay unknown. */
		{ FAN_REPORT_FID, 0, 0x00008000ULL << 32, NULL, EINVAL, 0 },
	};
	int efa, eg, err, procfs_err, new_rules = kernel_at_least(6, 8);
	struct statfs sfs;
	char path[160];
	unsigned int i;

	/* fanotify_test_fsid(), then fanotify_test_fid() of 6.1 */
	ASSERT_EQ(0, statfs("/proc", &sfs));
	procfs_err = sfs.f_fsid.__val[0] || sfs.f_fsid.__val[1] ? EOPNOTSUPP :
								   ENODEV;
	create_at(_metadata, self, "f");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int flags = cases[i].flags & FAN_MARK_REMOVE ?
				     cases[i].flags :
				     FAN_MARK_ADD | cases[i].flags;

		if (!cases[i].path)
			snprintf(path, sizeof(path), "%s", self->root);
		else if (cases[i].path[0] == '/')
			snprintf(path, sizeof(path), "%s", cases[i].path);
		else
			snprintf(path, sizeof(path), "%s", at(self,
							      cases[i].path));
		groups(_metadata, self, cases[i].init);
		errno = 0;
		efa = fanotify_mark(self->fa, flags, cases[i].mask, AT_FDCWD,
				    path) ? errno : 0;
		errno = 0;
		eg = fsgate_mark(self->g, flags, cases[i].mask, AT_FDCWD,
				 path) ? errno : 0;
		err = cases[i].err == PROCFS_ERR ? procfs_err : cases[i].err;
		if (new_rules && cases[i].err == PROCFS_ERR)
			err = cases[i].err_new;
		EXPECT_EQ(err, eg) TH_LOG("case %u: fsgate %s", i,
					  strerror(eg));
		EXPECT_EQ(err, efa) TH_LOG("case %u: fanotify %s", i,
					   strerror(efa));
		EXPECT_EQ(efa, eg) TH_LOG("case %u: fanotify %s, fsgate %s", i,
					  strerror(efa), strerror(eg));
	}
}

/*
 * An overlayfs without nfs_export encodes file handles it cannot decode
 * (from 6.6 on; none at all before). fanotify takes a FID group's inode
 * mark there from 6.5 on and reports the overlay's handles, not
 * decodable; a mount or filesystem mark needs handles that decode on
 * every kernel. fsgate gives the running kernel's errno for each, and on
 * a kernel that takes the mark, the same record bytes for an open.
 */
TEST(overlay_marks_and_handles_as_this_kernels_fanotify)
{
	static const unsigned int refused[] = {
		FAN_MARK_FILESYSTEM, FAN_MARK_MOUNT,
	};
	char base[64], lower[96], upper[96], work[96], merged[96];
	char opts[400], file[128];
	unsigned char fa_buf[4096], g_buf[4096];
	const struct fanotify_event_metadata *ev;
	const struct fanotify_event_info_fid *info;
	const struct file_handle *fh;
	int fa, g, efa, eg, fd, taken = kernel_at_least(6, 6);
	ssize_t nfa, ng;
	unsigned int i;

	ASSERT_EQ(0, fsgate_test_tmpfs("ovlfid", base, sizeof(base)));
	snprintf(lower, sizeof(lower), "%s/lower", base);
	snprintf(upper, sizeof(upper), "%s/upper", base);
	snprintf(work, sizeof(work), "%s/work", base);
	snprintf(merged, sizeof(merged), "%s/merged", base);
	snprintf(file, sizeof(file), "%s/lower/f", base);
	ASSERT_EQ(0, mkdir(lower, 0755));
	ASSERT_EQ(0, mkdir(upper, 0755));
	ASSERT_EQ(0, mkdir(work, 0755));
	ASSERT_EQ(0, mkdir(merged, 0755));
	fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		 lower, upper, work);
	ASSERT_EQ(0, mount("overlay", merged, "overlay", 0, opts))
		TH_LOG("mount overlay: %m");
	snprintf(file, sizeof(file), "%s/f", merged);

	fa = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK |
			   FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fa);
	g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_REPORT_FID |
			FSGATE_NONBLOCK | FSGATE_CLOEXEC, O_RDONLY | O_CLOEXEC,
			FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, g);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		errno = 0;
		efa = fanotify_mark(fa, FAN_MARK_ADD | refused[i], FAN_OPEN,
				    AT_FDCWD, merged) ? errno : 0;
		errno = 0;
		eg = fsgate_mark(g, FSGATE_MARK_ADD | refused[i], FAN_OPEN,
				 AT_FDCWD, merged) ? errno : 0;
		EXPECT_EQ(EOPNOTSUPP, efa) TH_LOG("%#x: fanotify %s",
						  refused[i], strerror(efa));
		EXPECT_EQ(efa, eg) TH_LOG("%#x: fanotify %s, fsgate %s",
					  refused[i], strerror(efa),
					  strerror(eg));
	}
	errno = 0;
	efa = fanotify_mark(fa, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, file) ?
	      errno : 0;
	errno = 0;
	eg = fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN, AT_FDCWD, file) ?
	     errno : 0;
	EXPECT_EQ(taken ? 0 : EOPNOTSUPP, efa)
		TH_LOG("fanotify %s", strerror(efa));
	EXPECT_EQ(efa, eg) TH_LOG("fanotify %s, fsgate %s", strerror(efa),
				  strerror(eg));
	if (!efa && !eg) {
		close(open(file, O_RDONLY | O_CLOEXEC));
		nfa = read(fa, fa_buf, sizeof(fa_buf));
		ng = read(g, g_buf, sizeof(g_buf));
		ASSERT_LT(0, nfa) TH_LOG("fanotify heard nothing: %m");
		ASSERT_EQ(nfa, ng) TH_LOG("fsgate read: %m");
		EXPECT_EQ(0, memcmp(fa_buf, g_buf, nfa));
		/* One open, its handle in a FID record. */
		ev = (const void *)fa_buf;
		info = (const void *)(ev + 1);
		fh = (const void *)info->handle;
		ASSERT_EQ(nfa, ev->event_len);
		EXPECT_EQ(FAN_OPEN, ev->mask);
		EXPECT_EQ(FAN_NOFD, ev->fd);
		ASSERT_LE(sizeof(*ev) + sizeof(*info) + sizeof(*fh),
			  (size_t)nfa);
		EXPECT_EQ(FAN_EVENT_INFO_TYPE_FID, info->hdr.info_type);
		EXPECT_LT(0, fh->handle_bytes);
		EXPECT_GE(info->hdr.len, sizeof(*info) + sizeof(*fh) +
					 fh->handle_bytes);
	}
	close(fa);
	close(g);
	umount2(merged, MNT_DETACH);
	fsgate_test_tmpfs_done(base);
}

/*
 * FAN_FS_ERROR (fanotify's since 5.16): ext4 reports the errors it finds
 * (ext4_error(), fsnotify_sb_error()) to filesystem marks of FID groups,
 * each with a FID record of the inode it was about and an ERROR record.
 * The image is made, one directory block of it corrupted while it is
 * not mounted, and mounted with errors=continue, so that every read of
 * that directory is an error of its own and the filesystem goes on.
 */
#ifndef FAN_FS_ERROR
#define FAN_FS_ERROR			0x00008000
#endif
#ifndef FAN_EVENT_INFO_TYPE_ERROR
#define FAN_EVENT_INFO_TYPE_ERROR	5
#endif
#ifndef EFSCORRUPTED
#define EFSCORRUPTED			EUCLEAN
#endif

/* fanotify's struct fanotify_event_info_error, which old headers lack. */
struct fserr_info_error {
	struct fanotify_event_info_header hdr;
	int32_t error;
	uint32_t error_count;
};

/* The entry whose directory block the test breaks, found by its name. */
#define FSERR_NAME	"fsgate-fs-error-victim-entry"

FIXTURE(fserr) {
	char root[64];
	char img[64];
	char dev[32];
	int fa;
	int g;
	__kernel_fsid_t fsid;
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} dir;
};

/* Make a directory's first entry ("."), in the image, of length 0. */
static int fserr_corrupt(const char *img)
{
	static unsigned char buf[8 << 20];
	const size_t nlen = sizeof(FSERR_NAME) - 1;
	unsigned char *hit = NULL, *dot;
	ssize_t n;
	size_t i;
	int fd = open(img, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf), 0);
	for (i = 0; n > 0 && i + nlen <= (size_t)n; i++)
		if (!memcmp(buf + i, FSERR_NAME, nlen)) {
			hit = buf + i;
			break;
		}
	/* ".", "..", then the entry: 12, 12 and 8 bytes of header before. */
	if (!hit || hit - buf < 32) {
		close(fd);
		return -1;
	}
	dot = hit - 32;
	if (dot[4] != 12 || dot[5] || dot[6] != 1 || dot[8] != '.' ||
	    dot[12 + 8] != '.' || dot[12 + 9] != '.') {
		close(fd);
		return -1;
	}
	dot[4] = 0;
	n = pwrite(fd, dot + 4, 1, dot + 4 - buf);
	if (fsync(fd) || n != 1) {
		close(fd);
		return -1;
	}
	return close(fd);
}

FIXTURE_SETUP(fserr)
{
	char path[160];
	struct statfs sfs;
	int fd, mnt;

	self->fa = -1;
	self->g = -1;
	ASSERT_EQ(0, fsgate_test_own_mounts());
	snprintf(self->img, sizeof(self->img), "/tmp/fserr.%d.img", getpid());
	snprintf(self->root, sizeof(self->root), "/tmp/fserr.%d", getpid());
	ASSERT_EQ(0, fsgate_test_ext4(self->img, self->dev, sizeof(self->dev)));
	ASSERT_EQ(0, mkdir(self->root, 0755));
	ASSERT_EQ(0, mount(self->dev, self->root, "ext4", 0, "errors=continue"));
	snprintf(path, sizeof(path), "%s/bad", self->root);
	ASSERT_EQ(0, mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/bad/" FSERR_NAME, self->root);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(path, sizeof(path), "%s/bad", self->root);
	self->dir.fh.handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path, &self->dir.fh, &mnt, 0));
	ASSERT_EQ(0, umount(self->root));
	fsgate_test_loop_detach(self->dev);
	ASSERT_EQ(0, fserr_corrupt(self->img));
	ASSERT_EQ(0, fsgate_test_loop_attach(self->img, self->dev,
					     sizeof(self->dev)));
	ASSERT_EQ(0, mount(self->dev, self->root, "ext4", 0, "errors=continue"));
	ASSERT_EQ(0, statfs(self->root, &sfs));
	memcpy(&self->fsid, &sfs.f_fsid, sizeof(self->fsid));
}

FIXTURE_TEARDOWN(fserr)
{
	if (self->fa >= 0)
		close(self->fa);
	if (self->g >= 0)
		close(self->g);
	umount2(self->root, MNT_DETACH);
	fsgate_test_loop_detach(self->dev);
	unlink(self->img);
	rmdir(self->root);
}

/*
 * One read of the broken directory, opened anew: one ext4_error() (a
 * lookup would stop at the bad entry without one).
 */
static void fserr_error_at(const char *root)
{
	char path[160];
	DIR *d;

	snprintf(path, sizeof(path), "%s/bad", root);
	d = opendir(path);
	if (!d)
		return;
	while (readdir(d))
		;
	closedir(d);
}

static void fserr_error(FIXTURE_DATA(fserr) *self)
{
	fserr_error_at(self->root);
}

#ifndef FAN_REPORT_PIDFD
#define FAN_REPORT_PIDFD		0x00000080
#endif
#ifndef FAN_EVENT_INFO_TYPE_PIDFD
#define FAN_EVENT_INFO_TYPE_PIDFD	4
#endif

#define FSGATE_RUN		"/fsgate/bin/fsgate-run"
#define FSERR_ROOT_ENV		"FSGATE_FID_TEST_FSERR_ROOT"
#define FSERR_FLAGS_ENV		"FSGATE_FID_TEST_FSERR_FLAGS"
#define FSERR_OUT_ENV		"FSGATE_FID_TEST_FSERR_OUT"

/*
 * A fanotify program's steps: a group with @flags (fsgate's with @layer,
 * else in-tree fanotify's, or -EPROTO), a filesystem mark
 * for FAN_FS_ERROR on @root, two errors, one read into @buf. A pidfd
 * record's pidfd, a number of the process's own, is closed and read as
 * 0, as is the event's pid when it is the process's own. Return: the bytes read, or a negative errno.
 */
static ssize_t fserr_steps(const char *root, unsigned int flags,
			   bool layer, unsigned char *buf, size_t len)
{
	struct fanotify_event_info_header hdr;
	struct fanotify_event_metadata m;
	char link[64], target[64] = "";
	size_t r;
	int32_t pidfd;
	ssize_t n;
	int fa;

	fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC | flags,
			   O_RDONLY | O_CLOEXEC);
	if (fa < 0)
		return -errno;
	/* Under the layer, the group must be fsgate's, not in-tree fanotify's. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fa);
	if (readlink(link, target, sizeof(target) - 1) < 0 ||
	    !strcmp(target, "anon_inode:[fanotify]") == layer) {
		close(fa);
		return -EPROTO;
	}
	if (fanotify_mark(fa, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			  FAN_FS_ERROR, AT_FDCWD, root)) {
		n = -errno;
		close(fa);
		return n;
	}
	fserr_error_at(root);
	fserr_error_at(root);
	n = read(fa, buf, len);
	if (n < 0)
		n = -errno;
	close(fa);
	if (n < (ssize_t)sizeof(m))
		return n;
	memcpy(&m, buf, sizeof(m));
	/* Its own pid reads as 0: this process or the one under fsgate-run. */
	if (m.pid == getpid()) {
		m.pid = 0;
		memcpy(buf, &m, sizeof(m));
	}
	for (r = m.metadata_len; r + sizeof(hdr) <= m.event_len &&
	     m.event_len <= (size_t)n; r += hdr.len) {
		memcpy(&hdr, buf + r, sizeof(hdr));
		if (hdr.len < sizeof(hdr))
			break;
		if (hdr.info_type != FAN_EVENT_INFO_TYPE_PIDFD ||
		    hdr.len < sizeof(hdr) + sizeof(pidfd))
			continue;
		memcpy(&pidfd, buf + r + sizeof(hdr), sizeof(pidfd));
		if (pidfd >= 0) {
			close(pidfd);
			pidfd = 0;
			memcpy(buf + r + sizeof(hdr), &pidfd, sizeof(pidfd));
		}
	}
	return n;
}

/* fserr_steps(), when the layer test below starts this program so. */
static void __attribute__((constructor)) fserr_layer_mode(void)
{
	static unsigned char buf[BUF_LEN];
	const char *root = getenv(FSERR_ROOT_ENV);
	const char *flags = getenv(FSERR_FLAGS_ENV);
	const char *out = getenv(FSERR_OUT_ENV);
	ssize_t n;

	if (!root || !flags || !out)
		return;
	n = fserr_steps(root, strtoul(flags, NULL, 0), true, buf, sizeof(buf));
	if (write(atoi(out), &n, sizeof(n)) != sizeof(n) ||
	    (n > 0 && write(atoi(out), buf, n) != n))
		_exit(1);
	_exit(0);
}

/* fserr_steps() in this program re-run under fsgate-run; 0 or -1. */
static int fserr_layer(const char *root, unsigned int flags,
		       unsigned char *buf, size_t len, ssize_t *n)
{
	char exe[256], out[16], fl[16];
	size_t got = 0;
	int p[2], status;
	ssize_t r;
	pid_t pid;

	r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (r < 0 || pipe(p))
		return -1;
	exe[r] = 0;
	pid = fork();
	if (!pid) {
		close(p[0]);
		snprintf(out, sizeof(out), "%d", p[1]);
		snprintf(fl, sizeof(fl), "%#x", flags);
		setenv(FSERR_ROOT_ENV, root, 1);
		setenv(FSERR_FLAGS_ENV, fl, 1);
		setenv(FSERR_OUT_ENV, out, 1);
		execl(FSGATE_RUN, FSGATE_RUN, "--", exe, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], n, sizeof(*n)) != sizeof(*n)) {
		close(p[0]);
		return -1;
	}
	while (*n > 0 && got < (size_t)*n && got < len) {
		r = read(p[0], buf + got, *n - got);
		if (r <= 0)
			break;
		got += r;
	}
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return *n > 0 && got != (size_t)*n ? -1 : 0;
}

/* Read both groups: the same bytes, one event of @count errors. */
static void fserr_expect(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fserr) *self, uint32_t count)
{
	static unsigned char a[BUF_LEN], b[BUF_LEN];
	struct fanotify_event_metadata m;
	struct fanotify_event_info_fid fid;
	struct file_handle fh;
	struct fserr_info_error err;
	size_t fid_len = sizeof(fid) + sizeof(fh) + self->dir.fh.handle_bytes;
	ssize_t na, nb;

	na = read(self->fa, a, sizeof(a));
	nb = read(self->g, b, sizeof(b));
	ASSERT_EQ(na, nb) TH_LOG("fanotify %zd bytes, fsgate %zd: %s", na, nb,
				 strerror(errno));
	EXPECT_EQ(0, memcmp(a, b, na));
	/* fanotify's event, as it must be: one, of these records. */
	ASSERT_EQ((ssize_t)(sizeof(m) + fid_len + sizeof(err)), nb);
	memcpy(&m, b, sizeof(m));
	EXPECT_EQ(nb, m.event_len);
	EXPECT_EQ(FAN_FS_ERROR, m.mask);
	EXPECT_EQ(FAN_NOFD, m.fd);
	EXPECT_EQ(getpid(), m.pid);
	memcpy(&fid, b + sizeof(m), sizeof(fid));
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_FID, fid.hdr.info_type);
	EXPECT_EQ(fid_len, fid.hdr.len);
	EXPECT_EQ(0, memcmp(&fid.fsid, &self->fsid, sizeof(self->fsid)));
	memcpy(&fh, b + sizeof(m) + sizeof(fid), sizeof(fh));
	EXPECT_EQ(self->dir.fh.handle_type, fh.handle_type);
	EXPECT_EQ(self->dir.fh.handle_bytes, fh.handle_bytes);
	EXPECT_EQ(0, memcmp(b + sizeof(m) + sizeof(fid) + sizeof(fh),
			    self->dir.fh.f_handle, self->dir.fh.handle_bytes));
	memcpy(&err, b + sizeof(m) + fid_len, sizeof(err));
	EXPECT_EQ(FAN_EVENT_INFO_TYPE_ERROR, err.hdr.info_type);
	EXPECT_EQ(sizeof(err), err.hdr.len);
	EXPECT_EQ(EFSCORRUPTED, err.error);
	EXPECT_EQ(count, err.error_count);
}

/*
 * The event and its records, byte for byte fanotify's; errors while one
 * is pending count in it (error_count) instead of queueing more.
 */
TEST_F(fserr, fs_error_events_records_and_merging)
{
	static unsigned char more[BUF_LEN];
	struct fsgate_version v;
	int i;

	ASSERT_EQ(0, fsgate_version(&v));
	EXPECT_TRUE(v.features & FSGATE_FEATURE_FS_ERROR);
	self->fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC |
				 FAN_REPORT_FID, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fa);
	self->g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_NONBLOCK |
			      FSGATE_CLOEXEC | FSGATE_REPORT_FID,
			      O_RDONLY | O_CLOEXEC, FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, self->g);
	ASSERT_EQ(0, fanotify_mark(self->fa, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_FS_ERROR, AT_FDCWD, self->root));
	ASSERT_EQ(0, fsgate_mark(self->g, FSGATE_MARK_ADD |
				 FSGATE_MARK_FILESYSTEM, FSGATE_FS_ERROR,
				 AT_FDCWD, self->root))
		TH_LOG("fsgate mark: %s", strerror(errno));
	fserr_error(self);
	fserr_expect(_metadata, self, 1);
	for (i = 0; i < 5; i++)
		fserr_error(self);
	fserr_expect(_metadata, self, 5);
	/* Nothing more is queued: the five were one event. */
	EXPECT_EQ(-1, read(self->fa, more, sizeof(more)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(-1, read(self->g, more, sizeof(more)));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * fanotify_mark()'s rules: FAN_FS_ERROR only on a filesystem mark, and
 * only for a FID group (EINVAL otherwise, from both).
 */
/*
 * Through the fanotify layer (fsgate-run): a fanotify program reads the
 * bytes in-tree fanotify gives it, FAN_REPORT_PIDFD's record between the
 * FID and ERROR records included (the pid, the reading process's own,
 * and the pidfd, a number of its own, read as 0 on both sides).
 */
TEST_F(fserr, fs_error_through_the_layer_as_fanotify)
{
	static const unsigned int modes[] = {
		FAN_REPORT_FID, FAN_REPORT_FID | FAN_REPORT_PIDFD,
	};
	static unsigned char a[BUF_LEN], b[BUF_LEN];
	struct fanotify_event_metadata m;
	ssize_t na, nb;
	unsigned int i;

	ASSERT_EQ(0, access(FSGATE_RUN, X_OK)) TH_LOG("%s: %m", FSGATE_RUN);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		na = fserr_steps(self->root, modes[i], false, a, sizeof(a));
		ASSERT_EQ(0, fserr_layer(self->root, modes[i], b, sizeof(b),
					 &nb)) TH_LOG("mode %#x", modes[i]);
		ASSERT_LT(0, na) TH_LOG("mode %#x: %s", modes[i],
					strerror(-na));
		EXPECT_EQ(na, nb) TH_LOG("mode %#x: fsgate %s", modes[i],
					 nb < 0 ? strerror(-nb) : "");
		EXPECT_EQ(0, memcmp(a, b, na < nb ? na : nb))
			TH_LOG("mode %#x", modes[i]);
		memcpy(&m, a, sizeof(m));
		EXPECT_EQ(FAN_FS_ERROR, m.mask);
		EXPECT_EQ(na, m.event_len);
	}
}

TEST_F(fserr, fs_error_needs_a_filesystem_mark_of_a_fid_group)
{
	static const struct {
		unsigned int init;
		unsigned int flags;
		int err;
	} cases[] = {
		{ 0, FAN_MARK_FILESYSTEM, EINVAL },
		{ FAN_REPORT_FID, FAN_MARK_INODE, EINVAL },
		{ FAN_REPORT_FID, FAN_MARK_MOUNT, EINVAL },
		{ FAN_REPORT_DFID_NAME, FAN_MARK_INODE, EINVAL },
		{ FAN_REPORT_DFID_NAME, FAN_MARK_FILESYSTEM, 0 },
		{ FAN_REPORT_FID, FAN_MARK_FILESYSTEM, 0 },
	};
	unsigned int i;
	int efa, eg;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		self->fa = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC |
					 cases[i].init, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, self->fa);
		self->g = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC |
				      cases[i].init, O_RDONLY | O_CLOEXEC,
				      FSGATE_PRIORITY_DEFAULT);
		ASSERT_LE(0, self->g);
		errno = 0;
		efa = fanotify_mark(self->fa, FAN_MARK_ADD | cases[i].flags,
				    FAN_FS_ERROR, AT_FDCWD, self->root) ?
		      errno : 0;
		errno = 0;
		eg = fsgate_mark(self->g, FSGATE_MARK_ADD | cases[i].flags,
				 FSGATE_FS_ERROR, AT_FDCWD, self->root) ?
		     errno : 0;
		EXPECT_EQ(cases[i].err, efa) TH_LOG("case %u: fanotify %s", i,
						    strerror(efa));
		EXPECT_EQ(cases[i].err, eg) TH_LOG("case %u: fsgate %s", i,
						   strerror(eg));
		close(self->fa);
		close(self->g);
		self->fa = -1;
		self->g = -1;
	}
}

TEST_HARNESS_MAIN
