// SPDX-License-Identifier: GPL-2.0
/*
 * FID records (layer 0): what a group made with fanotify's FID reporting
 * flags (FSGATE_REPORT_FID_BITS) is told of an event, built as
 * fanotify.c builds it (fanotify_alloc_event(), fanotify_alloc_fid_event(),
 * fanotify_alloc_name_event()), when it merges (fanotify_should_merge()),
 * and the struct fanotify_event_info_fid records a read() gives for it,
 * laid out as fanotify_user.c's copy_info_records_to_user() lays them
 * out, so that fanotify programs read them unchanged. And fanotify's
 * test of an object such a group marks (fanotify_test_fsid() and
 * fanotify_test_fid()).
 *
 * Handles are encoded when the event happens, while its inodes are
 * certainly alive; the records are laid out when it is read, since their
 * types depend on the event's mask, which merging may still widen. Only
 * groups with those flags get here: the path events of other groups pay
 * nothing. It calls nothing else of fsgate's.
 */
#include <linux/exportfs.h>
#include <linux/fanotify.h>
#include <linux/fs.h>
#include <linux/fsnotify_backend.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/string.h>

#include "compat.h"
#include "fid.h"

/* fanotify's FANOTIFY_FID_INFO_HDR_LEN and FANOTIFY_EVENT_ALIGN. */
#define FSGATE_FID_HDR_LEN	(sizeof(struct fanotify_event_info_fid) + \
				 sizeof(struct file_handle))
#define FSGATE_FID_ALIGN	4

/* The events fanotify reports with the directory's handle and a name. */
#define FSGATE_FID_DIRENT	ALL_FSNOTIFY_DIRENT_EVENTS

static_assert((FSGATE_REPORT_FID_BITS) == (FAN_REPORT_DFID_NAME_TARGET));
static_assert(FSGATE_DIRENT_EVENTS ==
	      (FS_ATTRIB | FS_MOVED_FROM | FS_MOVED_TO | FS_CREATE |
	       FS_DELETE | FS_DELETE_SELF | FS_MOVE_SELF | FS_RENAME));

/**
 * fsgate_fid_event_mask() - what a FID-mode group is told of one event
 * @group_flags: FSGATE_* flags of the group
 * @event: the fsnotify event bits, FS_ISDIR included
 * @marks: union of the group's mark masks that apply to the event
 * @ignore: union of the group's ignore masks that apply
 * @dir: the directory fsnotify reported the event with, or NULL
 *
 * As fanotify_group_event_mask() in FID mode: a group reporting only
 * directory handles hears nothing without a directory to name, event
 * flags alone are no event, and FAN_ONDIR is reported for every event
 * type (FAN_EVENT_ON_CHILD never).
 *
 * Context: any.
 * Return: the FAN_* bits to report, or 0.
 */
u32 fsgate_fid_event_mask(u32 group_flags, u32 event, u32 marks, u32 ignore,
			  const struct inode *dir)
{
	u32 test;

	if (!(group_flags & FSGATE_REPORT_FID) && !dir && !(event & FS_ISDIR))
		return 0;
	test = event & marks & ~ignore;
	if (!(test & ~(FAN_ONDIR | FAN_EVENT_ON_CHILD)))
		return 0;
	return test & (FSGATE_EVENTS | FSGATE_DIRENT_EVENTS | FSGATE_FS_ERROR |
		       FAN_ONDIR);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_fid_event_mask);

/* As fanotify_encode_fh_len(): 0 when @inode has no handle to report. */
static unsigned int fsgate_fh_len(struct inode *inode)
{
	int dwords = 0;

	if (!inode)
		return 0;
	fsgate_compat_encode_fid(inode, NULL, &dwords);
	if (WARN_ON_ONCE(dwords < 0 || dwords << 2 > MAX_HANDLE_SZ))
		return 0;
	return dwords << 2;
}

/* Encode @inode's handle of @len bytes at @fid's @off into @slot. */
static void fsgate_fh_encode(struct fsgate_fid *fid, enum fsgate_fh_slot slot,
			     struct inode *inode, unsigned int len, u16 *off)
{
	struct fsgate_fh *fh = &fid->fh[slot];
	int dwords = len >> 2;
	int type;

	fh->type = FILEID_INVALID;
	fh->len = 0;
	fh->off = *off;
	if (len < 4)
		return;
	type = fsgate_compat_encode_fid(inode, (struct fid *)(fid->buf + *off),
					&dwords);
	if (!type || type == FILEID_INVALID || len != dwords << 2) {
		pr_warn_ratelimited("cannot encode a file handle (type %d, %u bytes)\n",
				    type, len);
		return;
	}
	fh->type = type;
	fh->len = len;
	*off += len;
}

/*
 * As fanotify_report_child_fid(): whether a group reporting directory
 * handles reports the child's too.
 */
static bool fsgate_fid_report_child(u32 group_flags, u32 mask)
{
	if (mask & FSGATE_FID_DIRENT)
		return group_flags & FSGATE_REPORT_TARGET_FID;
	return (group_flags & FSGATE_REPORT_FID) && !(mask & FAN_ONDIR);
}

/* What fsgate_fid_alloc() records, as fanotify_alloc_event() decides it. */
struct fsgate_fid_what {
	struct inode *fh[FSGATE_FH_SLOTS];
	const struct qstr *name;
	const struct qstr *name2;
	bool name_event;
};

static void fsgate_fid_decide(u32 group_flags, u32 mask, const void *data,
			      int data_type, struct inode *dir,
			      const struct qstr *name, u32 match_types,
			      struct fsgate_fid_what *w)
{
	struct inode *inode = fsnotify_data_inode(data, data_type);
	bool dirent = mask & FSGATE_FID_DIRENT;
	struct inode *id, *dirid, *child = NULL;
	struct dentry *moved = NULL;
	bool report_old, report_new;

	/* fanotify_fid_inode(), fanotify_dfid_inode() */
	id = dirent && !(group_flags & FSGATE_REPORT_TARGET_FID) ? dir : inode;
	if (dirent)
		dirid = dir;
	else
		dirid = inode && S_ISDIR(inode->i_mode) ? inode : dir;
	*w = (struct fsgate_fid_what){};
	if (!(group_flags & FSGATE_REPORT_DIR_FID) || !dirid) {
		w->fh[FSGATE_FH_OBJ] = id;
		return;
	}
	if (fsgate_fid_report_child(group_flags, mask) && id != dirid)
		child = id;
	id = dirid;
	if (!(group_flags & FSGATE_REPORT_NAME)) {
		w->name_event = child;
		name = NULL;
	} else if (dirent || !(mask & FAN_ONDIR)) {
		w->name_event = true;
	}
	if (mask & FAN_RENAME) {
		/* Both sides for a filesystem mark, else the marked side. */
		report_old = match_types & BIT(FSNOTIFY_ITER_TYPE_SB);
		report_new = report_old;
		report_old |= match_types & BIT(FSNOTIFY_ITER_TYPE_INODE);
		report_new |= match_types & BIT(FSNOTIFY_ITER_TYPE_INODE2);
		if (!report_old) {
			dirid = NULL;
			name = NULL;
		}
		if (report_new)
			moved = fsnotify_data_dentry(data, data_type);
	}
	if (!w->name_event || !(name || moved || child)) {
		w->name_event = false;
		w->fh[FSGATE_FH_OBJ] = id;
		return;
	}
	w->fh[FSGATE_FH_DIR] = dirid;
	w->fh[FSGATE_FH_OBJ] = child;
	w->name = name;
	if (moved) {
		/* The rename is done and its locks held: d_name is the new one. */
		w->fh[FSGATE_FH_DIR2] = d_inode(moved->d_parent);
		w->name2 = &moved->d_name;
	}
}

/**
 * fsgate_fid_alloc() - take what a FID-mode group is told of an event
 * @group_flags: FSGATE_* flags of the group
 * @mask: the FAN_* bits it is told, from fsgate_fid_event_mask()
 * @data: fsnotify's data of the event
 * @data_type: FSNOTIFY_EVENT_*
 * @dir: the directory fsnotify reported the event with, or NULL
 * @name: the entry's name in @dir, or NULL
 * @fsid: the fsid of the filesystem, as the group's mark found it
 * @match_types: BIT() of each FSNOTIFY_ITER_TYPE_* whose marks of the
 *	group wanted the event; FAN_RENAME reports the old directory and
 *	name for a mark on the old directory, the new ones for a mark on the
 *	new, both for a filesystem mark
 * @head: bytes of the caller's own struct, which the same allocation
 *	holds before the record (as fanotify allocates an event with its
 *	handles and name); a multiple of the record's alignment, which
 *	callers assert at compile time
 * @gfp: allocation flags, the caller's to choose (%FSGATE_GROUP_GFP for
 *	an event of a group)
 *
 * Context: process context, may sleep.
 * Return: the event's handles and names, @head bytes into an allocation
 * whose start is for kfree(); NULL without memory.
 */
struct fsgate_fid *fsgate_fid_alloc(u32 group_flags, u32 mask,
				    const void *data, int data_type,
				    struct inode *dir, const struct qstr *name,
				    const __kernel_fsid_t *fsid,
				    u32 match_types, size_t head, gfp_t gfp)
{
	unsigned int len[FSGATE_FH_SLOTS], i;
	struct fsgate_fid_what w;
	struct fsgate_fid *fid;
	size_t size = sizeof(*fid);
	u16 off = 0;
	void *block;

	fsgate_fid_decide(group_flags, mask, data, data_type, dir, name,
			  match_types, &w);
	for (i = 0; i < FSGATE_FH_SLOTS; i++) {
		len[i] = fsgate_fh_len(w.fh[i]);
		size += len[i];
	}
	size += (w.name ? w.name->len : 0) + (w.name2 ? w.name2->len : 0);
	block = kmalloc(head + size, gfp);
	if (!block)
		return NULL;
	fid = block + head;
	fid->fsid = *fsid;
	fid->name_event = w.name_event;
	for (i = 0; i < FSGATE_FH_SLOTS; i++)
		fsgate_fh_encode(fid, i, w.fh[i], len[i], &off);
	/* Handles are whole dwords, so the names follow them directly. */
	off = size - sizeof(*fid) - (w.name ? w.name->len : 0) -
	      (w.name2 ? w.name2->len : 0);
	fid->name_off = off;
	fid->name_len = w.name ? w.name->len : 0;
	if (w.name)
		memcpy(fid->buf + off, w.name->name, fid->name_len);
	off += fid->name_len;
	fid->name2_off = off;
	fid->name2_len = w.name2 ? w.name2->len : 0;
	if (w.name2)
		memcpy(fid->buf + off, w.name2->name, fid->name2_len);
	return fid;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_fid_alloc);

/**
 * fsgate_fid_error_init() - what an %FSGATE_FS_ERROR event reports
 * @fid: a record with room for MAX_HANDLE_SZ bytes of handle after it
 * @inode: the inode the error is about, or NULL
 * @fsid: the filesystem's fsid, as the group's mark found it
 *
 * As fanotify_alloc_error_event(): the handle of @inode alone, whatever
 * the group's FID flags; none (handle_bytes 0, FILEID_INVALID) without
 * an inode or when it cannot be encoded, and the record is read all the
 * same (fsgate_fid_len()).
 *
 * Context: any; allocates nothing.
 */
void fsgate_fid_error_init(struct fsgate_fid *fid, struct inode *inode,
			   const __kernel_fsid_t *fsid)
{
	unsigned int i;
	u16 off = 0;

	*fid = (struct fsgate_fid){ .fsid = *fsid };
	for (i = 0; i < FSGATE_FH_SLOTS; i++)
		fid->fh[i].type = FILEID_INVALID;
	fsgate_fh_encode(fid, FSGATE_FH_OBJ, inode, fsgate_fh_len(inode), &off);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_fid_error_init);

static bool fsgate_fh_equal(const struct fsgate_fid *a, const struct fsgate_fid *b,
			    enum fsgate_fh_slot slot)
{
	const struct fsgate_fh *x = &a->fh[slot], *y = &b->fh[slot];

	return x->type == y->type && x->len == y->len &&
	       !memcmp(a->buf + x->off, b->buf + y->off, x->len);
}

/**
 * fsgate_fid_mergeable() - whether a new FID-mode event merges into an old
 * @old_mask: the queued event's FAN_* bits
 * @old: its handles and names
 * @new_mask: the new event's FAN_* bits
 * @new: its handles and names
 *
 * As fanotify_should_merge(), the process aside (the caller compares it):
 * a directory's events never merge with a non-directory's, nor FAN_RENAME
 * or FSGATE_FS_ERROR with other events; error events merge when their
 * fsid is equal, whatever inode they are about; other events without the
 * handle that names them never merge; others merge when fsid, every
 * handle and every name are equal.
 *
 * Context: any.
 * Return: true when the new event's bits may be added to the old event.
 */
bool fsgate_fid_mergeable(u32 old_mask, const struct fsgate_fid *old,
			  u32 new_mask, const struct fsgate_fid *new)
{
	unsigned int i;

	if ((old_mask ^ new_mask) & (FAN_ONDIR | FAN_RENAME | FSGATE_FS_ERROR))
		return false;
	if (new_mask & FSGATE_FS_ERROR)
		return old->fsid.val[0] == new->fsid.val[0] &&
		       old->fsid.val[1] == new->fsid.val[1];
	if (old->name_event != new->name_event)
		return false;
	if (!old->fh[old->name_event ? FSGATE_FH_DIR : FSGATE_FH_OBJ].len)
		return false;
	if (old->fsid.val[0] != new->fsid.val[0] ||
	    old->fsid.val[1] != new->fsid.val[1])
		return false;
	for (i = 0; i < FSGATE_FH_SLOTS; i++)
		if (!fsgate_fh_equal(old, new, i))
			return false;
	return old->name_len == new->name_len &&
	       old->name2_len == new->name2_len &&
	       !memcmp(old->buf + old->name_off, new->buf + new->name_off,
		       old->name_len) &&
	       !memcmp(old->buf + old->name2_off, new->buf + new->name2_off,
		       old->name2_len);
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_fid_mergeable);

/* fanotify_fid_info_len() */
static size_t fsgate_fid_rec_len(unsigned int fh_len, unsigned int name_len)
{
	return round_up(FSGATE_FID_HDR_LEN + fh_len +
			(name_len ? name_len + 1 : 0), FSGATE_FID_ALIGN);
}

/*
 * The type of the record of the object's handle, and whether it carries
 * the name ".", as copy_info_records_to_user() decides; @dir_type is the
 * type of the directory record before it, 0 when there is none.
 */
static u8 fsgate_fid_obj_type(u32 group_flags, u32 mask, u8 dir_type,
			      bool *dot)
{
	*dot = false;
	if ((group_flags & FSGATE_REPORT_FID_BITS) == FSGATE_REPORT_FID ||
	    dir_type)
		return FAN_EVENT_INFO_TYPE_FID;
	if ((group_flags & FSGATE_REPORT_NAME) && (mask & FAN_ONDIR)) {
		*dot = true;
		return FAN_EVENT_INFO_TYPE_DFID_NAME;
	}
	if (mask & (FSGATE_FID_DIRENT | FAN_ONDIR))
		return FAN_EVENT_INFO_TYPE_DFID;
	return FAN_EVENT_INFO_TYPE_FID;
}

/* The type of the first directory record, 0 when there is none. */
static u8 fsgate_fid_dir_type(const struct fsgate_fid *fid, u32 mask)
{
	if (!fid->fh[FSGATE_FH_DIR].len)
		return fid->fh[FSGATE_FH_DIR2].len ?
		       FAN_EVENT_INFO_TYPE_NEW_DFID_NAME : 0;
	if (mask & FAN_RENAME)
		return FAN_EVENT_INFO_TYPE_OLD_DFID_NAME;
	return fid->name_len ? FAN_EVENT_INFO_TYPE_DFID_NAME :
			       FAN_EVENT_INFO_TYPE_DFID;
}

/**
 * fsgate_fid_len() - the bytes of the FID records of an event
 * @fid: its handles and names
 * @group_flags: FSGATE_* flags of the group reading it
 * @mask: its FAN_* bits, as read
 *
 * As fanotify_event_len(): records are padded to 4 bytes, not to 8 as
 * fsgate's own, so that event_len is fanotify's.
 *
 * Context: any.
 * Return: their size.
 */
size_t fsgate_fid_len(const struct fsgate_fid *fid, u32 group_flags, u32 mask)
{
	const struct fsgate_fh *fh = fid->fh;
	size_t len = 0;
	bool dot;

	if (fh[FSGATE_FH_DIR].len)
		len += fsgate_fid_rec_len(fh[FSGATE_FH_DIR].len, fid->name_len);
	if (fh[FSGATE_FH_DIR2].len)
		len += fsgate_fid_rec_len(fh[FSGATE_FH_DIR2].len, fid->name2_len);
	/* An error event's record is read even without a handle. */
	if (fh[FSGATE_FH_OBJ].len || (mask & FSGATE_FS_ERROR)) {
		fsgate_fid_obj_type(group_flags, mask,
				    fsgate_fid_dir_type(fid, mask), &dot);
		len += fsgate_fid_rec_len(fh[FSGATE_FH_OBJ].len, dot);
	}
	return len;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_fid_len);

/* copy_fid_info_to_user(), into a kernel buffer; returns the record's size. */
static size_t fsgate_fid_rec_fill(u8 *buf, const struct fsgate_fid *fid,
				  u8 type, enum fsgate_fh_slot slot,
				  const u8 *name, unsigned int name_len)
{
	const struct fsgate_fh *fh = &fid->fh[slot];
	size_t len = fsgate_fid_rec_len(fh->len, name_len);
	struct fanotify_event_info_fid info = {
		.hdr = { .info_type = type, .len = len },
		.fsid = fid->fsid,
	};
	struct file_handle handle = {
		.handle_bytes = fh->len,
		.handle_type = fh->type,
	};

	/* Padding and the name's NUL are zeroes. */
	memset(buf, 0, len);
	memcpy(buf, &info, sizeof(info));
	memcpy(buf + sizeof(info), &handle, sizeof(handle));
	memcpy(buf + FSGATE_FID_HDR_LEN, fid->buf + fh->off, fh->len);
	if (name_len)
		memcpy(buf + FSGATE_FID_HDR_LEN + fh->len, name, name_len);
	return len;
}

/**
 * fsgate_fid_fill() - lay out the FID records of an event
 * @buf: where they go, with room for fsgate_fid_len() bytes
 * @fid: its handles and names
 * @group_flags: FSGATE_* flags of the group reading it
 * @mask: its FAN_* bits, as read
 *
 * In fanotify's order and types: the directory and name (OLD_DFID_NAME
 * for FAN_RENAME), FAN_RENAME's new directory and name, then the object
 * (FID; DFID for a directory or a directory entry event of a group
 * without FSGATE_REPORT_FID; DFID_NAME with the name "." for a directory
 * of a group with FSGATE_REPORT_NAME).
 *
 * Context: any.
 * Return: the bytes written, fsgate_fid_len()'s.
 */
size_t fsgate_fid_fill(void *buf, const struct fsgate_fid *fid,
		       u32 group_flags, u32 mask)
{
	u8 dir_type = fsgate_fid_dir_type(fid, mask), type;
	size_t len = 0;
	bool dot;

	if (fid->fh[FSGATE_FH_DIR].len)
		len += fsgate_fid_rec_fill(buf + len, fid, dir_type,
					   FSGATE_FH_DIR,
					   fid->buf + fid->name_off,
					   fid->name_len);
	if (fid->fh[FSGATE_FH_DIR2].len)
		len += fsgate_fid_rec_fill(buf + len, fid,
					   FAN_EVENT_INFO_TYPE_NEW_DFID_NAME,
					   FSGATE_FH_DIR2,
					   fid->buf + fid->name2_off,
					   fid->name2_len);
	if (fid->fh[FSGATE_FH_OBJ].len || (mask & FSGATE_FS_ERROR)) {
		type = fsgate_fid_obj_type(group_flags, mask, dir_type, &dot);
		len += fsgate_fid_rec_fill(buf + len, fid, type, FSGATE_FH_OBJ,
					   dot ? (const u8 *)"." : NULL, dot);
	}
	return len;
}
EXPORT_SYMBOL_FOR_FSGATE_KUNIT(fsgate_fid_fill);

/**
 * fsgate_fid_check_object() - whether a FID-mode group may mark an object
 * @dentry: the object
 * @inode_mark: the mark is an inode mark (not a mount or filesystem mark)
 * @fsid: set to its filesystem's fsid
 *
 * As fanotify_test_fsid() and fanotify_test_fid(): the filesystem must
 * have a non-zero fsid, the object the fsid of its filesystem's root
 * (not a btrfs subvolume's own), and the filesystem must have file
 * handles as the running kernel's fanotify asks for @inode_mark
 * (fsgate_compat_fid_handles_ok(): decodable ones on 6.1, on 6.12 an
 * inode mark takes handles it only encodes, an overlayfs file's).
 *
 * Context: process context, may sleep (statfs).
 * Return: 0; -ENODEV for a zero fsid, -EXDEV for a subvolume's,
 * -EOPNOTSUPP without such handles, or statfs's error.
 */
int fsgate_fid_check_object(struct dentry *dentry, bool inode_mark,
			    __kernel_fsid_t *fsid)
{
	__kernel_fsid_t root_fsid;
	int err;

	err = vfs_get_fsid(dentry, fsid);
	if (err)
		return err;
	if (!fsid->val[0] && !fsid->val[1])
		return -ENODEV;
	err = vfs_get_fsid(dentry->d_sb->s_root, &root_fsid);
	if (err)
		return err;
	if (root_fsid.val[0] != fsid->val[0] ||
	    root_fsid.val[1] != fsid->val[1])
		return -EXDEV;
	if (!fsgate_compat_fid_handles_ok(dentry->d_sb->s_export_op,
					  inode_mark))
		return -EOPNOTSUPP;
	return 0;
}
