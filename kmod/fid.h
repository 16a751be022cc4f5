/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_FID_H
#define _FSGATE_FID_H

#include <linux/statfs.h>
#include <linux/types.h>

struct dentry;
struct inode;
struct qstr;

/* The file handles an event may carry, as fanotify's struct fanotify_info. */
enum fsgate_fh_slot {
	FSGATE_FH_DIR,		/* the directory (old one for FAN_RENAME) */
	FSGATE_FH_DIR2,		/* FAN_RENAME's new directory */
	FSGATE_FH_OBJ,		/* the object, or the child of a name event */
	FSGATE_FH_SLOTS,
};

/**
 * struct fsgate_fh - one encoded file handle in a struct fsgate_fid
 * @type: FILEID_* of the handle
 * @len: its bytes, a multiple of 4; 0: none (not encodable, or absent)
 * @off: where they start in @buf of the struct fsgate_fid
 */
struct fsgate_fh {
	u8 type;
	u8 len;
	u16 off;
};

/**
 * struct fsgate_fid - what a FID-mode event reports, taken when it happens
 * @fsid: the filesystem's fsid, as the mark found it
 * @name_event: fanotify's FANOTIFY_EVENT_TYPE_FID_NAME (else _FID); events
 *	of different types never merge
 * @fh: handles by enum fsgate_fh_slot
 * @name_len: bytes of the entry's name (0: none), at @name_off of @buf
 * @name_off: see @name_len
 * @name2_len: bytes of FAN_RENAME's new name, at @name2_off of @buf
 * @name2_off: see @name2_len
 * @buf: handles (4-byte aligned), then names, not NUL-terminated
 *
 * Records are laid out at read time (fsgate_fid_fill()), since their
 * types depend on the mask, which merging may still widen.
 */
struct fsgate_fid {
	__kernel_fsid_t fsid;
	bool name_event;
	struct fsgate_fh fh[FSGATE_FH_SLOTS];
	u16 name_len;
	u16 name_off;
	u16 name2_len;
	u16 name2_off;
	u8 buf[] __aligned(4);
};

u32 fsgate_fid_event_mask(u32 group_flags, u32 event, u32 marks, u32 ignore,
			  const struct inode *dir);
struct fsgate_fid *fsgate_fid_alloc(u32 group_flags, u32 mask,
				    const void *data, int data_type,
				    struct inode *dir, const struct qstr *name,
				    const __kernel_fsid_t *fsid,
				    u32 match_types, size_t head, gfp_t gfp);
void fsgate_fid_error_init(struct fsgate_fid *fid, struct inode *inode,
			   const __kernel_fsid_t *fsid);
bool fsgate_fid_mergeable(u32 old_mask, const struct fsgate_fid *old,
			  u32 new_mask, const struct fsgate_fid *new);
size_t fsgate_fid_len(const struct fsgate_fid *fid, u32 group_flags, u32 mask);
size_t fsgate_fid_fill(void *buf, const struct fsgate_fid *fid,
		       u32 group_flags, u32 mask);
int fsgate_fid_check_object(struct dentry *dentry, bool inode_mark,
			    __kernel_fsid_t *fsid);

#endif /* _FSGATE_FID_H */
