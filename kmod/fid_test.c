// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what a FID-mode group is told of an event
 * (fsgate_fid_event_mask()), the struct fanotify_event_info_fid records
 * laid out for it (fsgate_fid_len(), fsgate_fid_fill()), byte for byte
 * as fanotify's copy_info_records_to_user() lays them out, and which
 * events merge (fsgate_fid_mergeable()). Events are built by hand here;
 * tests/selftests/fid_test.c builds them from real accesses.
 */
#include <kunit/test.h>
#include <linux/fanotify.h>
#include <linux/fs.h>
#include <linux/fsnotify_backend.h>
#include <linux/string.h>

#include "fid.h"

#define HDR_LEN	(sizeof(struct fanotify_event_info_fid) + \
		 sizeof(struct file_handle))

/*
 * An event with handles of @dir, @dir2 and @obj bytes (0: none), each
 * filled with its own byte, and the names @name and @name2 (NULL: none).
 */
static struct fsgate_fid *fid_make(struct kunit *test, bool name_event,
				   unsigned int dir, unsigned int dir2,
				   unsigned int obj, const char *name,
				   const char *name2)
{
	unsigned int len[FSGATE_FH_SLOTS] = { dir, dir2, obj };
	size_t nl = name ? strlen(name) : 0, nl2 = name2 ? strlen(name2) : 0;
	struct fsgate_fid *fid;
	unsigned int i;
	u16 off = 0;

	fid = kunit_kzalloc(test, sizeof(*fid) + dir + dir2 + obj + nl + nl2,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fid);
	fid->fsid.val[0] = 0x11223344;
	fid->fsid.val[1] = 0x55667788;
	fid->name_event = name_event;
	for (i = 0; i < FSGATE_FH_SLOTS; i++) {
		fid->fh[i].type = len[i] ? 1 : FILEID_INVALID;
		fid->fh[i].len = len[i];
		fid->fh[i].off = off;
		memset(fid->buf + off, 0xa0 + i, len[i]);
		off += len[i];
	}
	fid->name_off = off;
	fid->name_len = nl;
	if (name)
		memcpy(fid->buf + off, name, nl);
	off += nl;
	fid->name2_off = off;
	fid->name2_len = nl2;
	if (name2)
		memcpy(fid->buf + off, name2, nl2);
	return fid;
}

/* Check the record at @rec: its type, length, fsid, handle and name. */
static size_t rec_check(struct kunit *test, const u8 *rec, u8 type,
			const struct fsgate_fid *fid, enum fsgate_fh_slot slot,
			const char *name)
{
	struct fanotify_event_info_fid info;
	struct file_handle fh;
	size_t nl = name ? strlen(name) + 1 : 0;
	size_t len = round_up(HDR_LEN + fid->fh[slot].len + nl, 4), i;

	memcpy(&info, rec, sizeof(info));
	memcpy(&fh, rec + sizeof(info), sizeof(fh));
	KUNIT_EXPECT_EQ(test, info.hdr.info_type, type);
	KUNIT_EXPECT_EQ(test, info.hdr.pad, 0);
	KUNIT_EXPECT_EQ(test, (size_t)info.hdr.len, len);
	KUNIT_EXPECT_EQ(test, info.fsid.val[0], fid->fsid.val[0]);
	KUNIT_EXPECT_EQ(test, info.fsid.val[1], fid->fsid.val[1]);
	KUNIT_EXPECT_EQ(test, fh.handle_bytes, (u32)fid->fh[slot].len);
	KUNIT_EXPECT_EQ(test, fh.handle_type, (int)fid->fh[slot].type);
	KUNIT_EXPECT_EQ(test, memcmp(rec + HDR_LEN, fid->buf + fid->fh[slot].off,
				     fid->fh[slot].len), 0);
	if (name)
		KUNIT_EXPECT_EQ(test, memcmp(rec + HDR_LEN + fid->fh[slot].len,
					     name, nl), 0);
	/* Padding is zeroes. */
	for (i = HDR_LEN + fid->fh[slot].len + nl; i < len; i++)
		KUNIT_EXPECT_EQ(test, rec[i], 0);
	return len;
}

static void mask_reports_ondir_for_every_event(struct kunit *test)
{
	struct inode *dir = (struct inode *)test;	/* only tested for NULL */

	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_FID,
						    FS_CREATE | FS_ISDIR,
						    FAN_CREATE | FAN_ONDIR, 0,
						    dir),
			(u32)(FAN_CREATE | FAN_ONDIR));
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_FID,
						    FS_OPEN | FS_ISDIR,
						    FAN_OPEN | FAN_ONDIR, 0,
						    NULL),
			(u32)(FAN_OPEN | FAN_ONDIR));
	/* FAN_EVENT_ON_CHILD is never reported. */
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_FID,
						    FS_ATTRIB | FS_EVENT_ON_CHILD,
						    FAN_ATTRIB |
						    FAN_EVENT_ON_CHILD, 0, dir),
			(u32)FAN_ATTRIB);
}

static void mask_needs_an_event_besides_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_FID,
						    FS_CREATE | FS_ISDIR,
						    FAN_CREATE | FAN_ONDIR,
						    FAN_CREATE, NULL), 0U);
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_FID,
						    FS_CREATE | FS_ISDIR,
						    FAN_DELETE | FAN_ONDIR, 0,
						    NULL), 0U);
}

static void dir_fid_alone_needs_a_directory(struct kunit *test)
{
	struct inode *dir = (struct inode *)test;

	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_DIR_FID,
						    FS_DELETE_SELF,
						    FAN_DELETE_SELF, 0, NULL),
			0U);
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_DIR_FID,
						    FS_DELETE_SELF | FS_ISDIR,
						    FAN_DELETE_SELF | FAN_ONDIR,
						    0, NULL),
			(u32)(FAN_DELETE_SELF | FAN_ONDIR));
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_DIR_FID,
						    FS_ATTRIB, FAN_ATTRIB, 0,
						    dir),
			(u32)FAN_ATTRIB);
	KUNIT_EXPECT_EQ(test, fsgate_fid_event_mask(FSGATE_REPORT_DIR_FID |
						    FSGATE_REPORT_FID,
						    FS_DELETE_SELF,
						    FAN_DELETE_SELF, 0, NULL),
			(u32)FAN_DELETE_SELF);
}

static void fid_record_of_an_object(struct kunit *test)
{
	struct fsgate_fid *fid = fid_make(test, false, 0, 0, 8, NULL, NULL);
	u8 buf[128];

	KUNIT_ASSERT_EQ(test, fsgate_fid_len(fid, FSGATE_REPORT_FID, FAN_OPEN),
			(size_t)28);
	memset(buf, 0xff, sizeof(buf));
	KUNIT_ASSERT_EQ(test, fsgate_fid_fill(buf, fid, FSGATE_REPORT_FID,
					      FAN_OPEN), (size_t)28);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_FID, fid, FSGATE_FH_OBJ, NULL);
	/* A directory's handle alone, in FID mode, is still FID. */
	fsgate_fid_fill(buf, fid, FSGATE_REPORT_FID, FAN_CREATE | FAN_ONDIR);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_FID, fid, FSGATE_FH_OBJ, NULL);
}

static void dir_fid_record_types(struct kunit *test)
{
	struct fsgate_fid *fid = fid_make(test, false, 0, 0, 8, NULL, NULL);
	u32 flags = FSGATE_REPORT_DIR_FID;
	u8 buf[128];

	/* A directory entry event, or a directory's: DFID; else FID. */
	fsgate_fid_fill(buf, fid, flags, FAN_CREATE);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_DFID, fid, FSGATE_FH_OBJ, NULL);
	fsgate_fid_fill(buf, fid, flags, FAN_OPEN | FAN_ONDIR);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_DFID, fid, FSGATE_FH_OBJ, NULL);
	fsgate_fid_fill(buf, fid, flags | FSGATE_REPORT_FID, FAN_DELETE_SELF);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_FID, fid, FSGATE_FH_OBJ, NULL);
	/* With names, a directory's own event is named ".". */
	flags |= FSGATE_REPORT_NAME;
	KUNIT_EXPECT_EQ(test, fsgate_fid_len(fid, flags, FAN_OPEN | FAN_ONDIR),
			(size_t)32);
	fsgate_fid_fill(buf, fid, flags, FAN_OPEN | FAN_ONDIR);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_DFID_NAME, fid, FSGATE_FH_OBJ,
		  ".");
}

static void name_records_then_child(struct kunit *test)
{
	struct fsgate_fid *fid = fid_make(test, true, 12, 0, 8, "abc", NULL);
	u32 flags = FSGATE_REPORT_FID | FSGATE_REPORT_DFID_NAME;
	u8 buf[256];
	size_t len;

	/* 20 + 12 + "abc\0" = 36; then 20 + 8 = 28. */
	KUNIT_ASSERT_EQ(test, fsgate_fid_len(fid, flags, FAN_CREATE),
			(size_t)64);
	memset(buf, 0xff, sizeof(buf));
	KUNIT_ASSERT_EQ(test, fsgate_fid_fill(buf, fid, flags, FAN_CREATE),
			(size_t)64);
	len = rec_check(test, buf, FAN_EVENT_INFO_TYPE_DFID_NAME, fid,
			FSGATE_FH_DIR, "abc");
	rec_check(test, buf + len, FAN_EVENT_INFO_TYPE_FID, fid, FSGATE_FH_OBJ,
		  NULL);
}

static void name_is_padded_to_four_bytes(struct kunit *test)
{
	struct fsgate_fid *fid = fid_make(test, true, 8, 0, 0, "abcd", NULL);
	u8 buf[128];

	/* 20 + 8 + "abcd\0" = 33, padded to 36 with zeroes. */
	KUNIT_EXPECT_EQ(test, fsgate_fid_len(fid, FSGATE_REPORT_DFID_NAME,
					     FAN_DELETE), (size_t)36);
	memset(buf, 0xff, sizeof(buf));
	fsgate_fid_fill(buf, fid, FSGATE_REPORT_DFID_NAME, FAN_DELETE);
	rec_check(test, buf, FAN_EVENT_INFO_TYPE_DFID_NAME, fid, FSGATE_FH_DIR,
		  "abcd");
}

static void rename_records(struct kunit *test)
{
	struct fsgate_fid *both = fid_make(test, true, 8, 12, 0, "x", "yy");
	struct fsgate_fid *newer = fid_make(test, true, 0, 12, 8, NULL, "yy");
	u32 flags = FSGATE_REPORT_DFID_NAME;
	u8 buf[256];
	size_t len;

	len = fsgate_fid_fill(buf, both, flags, FAN_RENAME);
	KUNIT_EXPECT_EQ(test, len, fsgate_fid_len(both, flags, FAN_RENAME));
	len = rec_check(test, buf, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, both,
			FSGATE_FH_DIR, "x");
	rec_check(test, buf + len, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, both,
		  FSGATE_FH_DIR2, "yy");
	/* Only the new side, with the target: its handle is FID. */
	flags |= FSGATE_REPORT_FID | FSGATE_REPORT_TARGET_FID;
	len = fsgate_fid_fill(buf, newer, flags, FAN_RENAME | FAN_ONDIR);
	KUNIT_EXPECT_EQ(test, len, fsgate_fid_len(newer, flags,
						  FAN_RENAME | FAN_ONDIR));
	len = rec_check(test, buf, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, newer,
			FSGATE_FH_DIR2, "yy");
	rec_check(test, buf + len, FAN_EVENT_INFO_TYPE_FID, newer,
		  FSGATE_FH_OBJ, NULL);
}

static void equal_events_merge(struct kunit *test)
{
	struct fsgate_fid *a = fid_make(test, true, 8, 0, 0, "f", NULL);
	struct fsgate_fid *b = fid_make(test, true, 8, 0, 0, "f", NULL);
	struct fsgate_fid *o = fid_make(test, false, 0, 0, 8, NULL, NULL);
	struct fsgate_fid *p = fid_make(test, false, 0, 0, 8, NULL, NULL);

	KUNIT_EXPECT_TRUE(test, fsgate_fid_mergeable(FAN_CREATE, a, FAN_DELETE,
						     b));
	KUNIT_EXPECT_TRUE(test, fsgate_fid_mergeable(FAN_OPEN, o, FAN_ATTRIB,
						     p));
}

static void what_never_merges(struct kunit *test)
{
	struct fsgate_fid *a = fid_make(test, true, 8, 0, 0, "f", NULL);
	struct fsgate_fid *b = fid_make(test, true, 8, 0, 0, "g", NULL);
	struct fsgate_fid *o = fid_make(test, false, 0, 0, 8, NULL, NULL);
	struct fsgate_fid *nodir = fid_make(test, true, 0, 8, 0, NULL, "f");
	struct fsgate_fid *nofh = fid_make(test, false, 0, 0, 0, NULL, NULL);
	struct fsgate_fid *c = fid_make(test, true, 8, 0, 0, "f", NULL);

	/* A directory's with a file's, FAN_RENAME with others. */
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_CREATE, a,
						      FAN_DELETE | FAN_ONDIR,
						      a));
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_MOVED_FROM, a,
						      FAN_RENAME, a));
	/* Another name, another kind of event. */
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_CREATE, a, FAN_CREATE,
						      b));
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_CREATE, a, FAN_CREATE,
						      o));
	/* Without the handle that names them. */
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_RENAME, nodir,
						      FAN_RENAME, nodir));
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_ATTRIB, nofh,
						      FAN_ATTRIB, nofh));
	/* Another filesystem, another handle. */
	c->fsid.val[1]++;
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_CREATE, a, FAN_CREATE,
						      c));
	c->fsid.val[1]--;
	c->buf[c->fh[FSGATE_FH_DIR].off]++;
	KUNIT_EXPECT_FALSE(test, fsgate_fid_mergeable(FAN_CREATE, a, FAN_CREATE,
						      c));
}

static struct kunit_case fsgate_fid_cases[] = {
	KUNIT_CASE(mask_reports_ondir_for_every_event),
	KUNIT_CASE(mask_needs_an_event_besides_flags),
	KUNIT_CASE(dir_fid_alone_needs_a_directory),
	KUNIT_CASE(fid_record_of_an_object),
	KUNIT_CASE(dir_fid_record_types),
	KUNIT_CASE(name_records_then_child),
	KUNIT_CASE(name_is_padded_to_four_bytes),
	KUNIT_CASE(rename_records),
	KUNIT_CASE(equal_events_merge),
	KUNIT_CASE(what_never_merges),
	{}
};

static struct kunit_suite fsgate_fid_suite = {
	.name = "fsgate_fid",
	.test_cases = fsgate_fid_cases,
};

kunit_test_suite(fsgate_fid_suite);
