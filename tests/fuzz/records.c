// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-fuzz: the check of every event a read gives, whoever reads it
 * (a worker's thread, a daemon, a reader, an unprivileged holder, the
 * oracle). An event is its struct fanotify_event_metadata and the info
 * records its group asked for, framed by struct
 * fanotify_event_info_header: fsgate's own (FSGATE_INFO_PERM first,
 * 8-byte aligned, FSGATE_INFO_PROC last) and fanotify's FID records
 * (4-byte aligned, a file handle of a size the handle says, a name where
 * the type has one), which together fill the event exactly. And the
 * event's fd: O_PATH on FUSE, one the reader may open.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fsgate.h>

#include "fuzz.h"

#ifndef MAX_HANDLE_SZ
#define MAX_HANDLE_SZ		128
#endif
#define FZ_FUSE_MAGIC		0x65735546
/* fanotify's FID record: header, fsid, struct file_handle's two words. */
#define FZ_FID_HDR_LEN		(sizeof(struct fanotify_event_info_fid) + 8)
#define FZ_FID_TYPES_MAX	3	/* directory, new directory, object */

static size_t fz_round4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

size_t fz_event_max(unsigned int gflags)
{
	size_t len = FAN_EVENT_METADATA_LEN;

	if (gflags & FSGATE_REPORT_PERM)
		len += FSGATE_INFO_PERM_LEN_V2;
	if (gflags & FSGATE_REPORT_PROC)
		len += FSGATE_INFO_PROC_LEN_V1;
	/* Two directories with a name each, the object with ".". */
	if (gflags & FSGATE_REPORT_FID_BITS)
		len += 2 * fz_round4(FZ_FID_HDR_LEN + MAX_HANDLE_SZ + 256) +
		       fz_round4(FZ_FID_HDR_LEN + MAX_HANDLE_SZ + 2);
	return len;
}

/* Which FID record types a group made with @gflags may get for @mask. */
static bool fz_fid_type_ok(unsigned int gflags, uint8_t type, uint64_t mask)
{
	switch (type) {
	case FAN_EVENT_INFO_TYPE_FID:
		/*
		 * Any mode's: fanotify names a non-directory with it where
		 * it has no directory record (DIR_FID alone included).
		 */
		return gflags & FSGATE_REPORT_FID_BITS;
	case FAN_EVENT_INFO_TYPE_DFID:
		return gflags & FSGATE_REPORT_DIR_FID;
	case FAN_EVENT_INFO_TYPE_DFID_NAME:
		return gflags & FSGATE_REPORT_NAME;
	case FAN_EVENT_INFO_TYPE_OLD_DFID_NAME:
	case FAN_EVENT_INFO_TYPE_NEW_DFID_NAME:
		return (gflags & FSGATE_REPORT_NAME) && (mask & FAN_RENAME);
	default:
		return false;
	}
}

/* A FID record: a handle of its stated size, a name where it has one. */
static bool fz_fid_check(struct fz *fz, const char *rec, size_t len,
			 uint8_t type)
{
	struct fanotify_event_info_fid fid;
	uint32_t bytes;
	int32_t htype;
	const char *name, *end = rec + len;
	size_t want;
	bool named = type == FAN_EVENT_INFO_TYPE_DFID_NAME ||
		     type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME ||
		     type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME;

	if (len < FZ_FID_HDR_LEN) {
		fz_fail(fz, "a FID record of %zu bytes", len);
		return false;
	}
	memcpy(&fid, rec, sizeof(fid));
	memcpy(&bytes, rec + sizeof(fid), 4);
	memcpy(&htype, rec + sizeof(fid) + 4, 4);
	if (!fid.fsid.val[0] && !fid.fsid.val[1]) {
		fz_fail(fz, "a FID record with fsid 0");
		return false;
	}
	if (!bytes || bytes > MAX_HANDLE_SZ || htype <= 0 || htype == 0xff ||
	    FZ_FID_HDR_LEN + bytes > len) {
		fz_fail(fz, "a FID record of %zu bytes with a handle of %u bytes, type %d",
			len, bytes, htype);
		return false;
	}
	name = rec + FZ_FID_HDR_LEN + bytes;
	want = FZ_FID_HDR_LEN + bytes;
	if (named) {
		size_t n = strnlen(name, end - name);

		if (!n || n == (size_t)(end - name) ||
		    (memchr(name, '/', n) && strcmp(name, "."))) {
			fz_fail(fz, "a FID record (type %u) with a bad name", type);
			return false;
		}
		want += n + 1;
	}
	if (fz_round4(want) != len) {
		fz_fail(fz, "a FID record (type %u) of %zu bytes holds %zu",
			type, len, want);
		return false;
	}
	for (name = rec + want; name < end; name++) {
		if (*name) {
			fz_fail(fz, "a FID record's padding is not zero");
			return false;
		}
	}
	return true;
}

static bool fz_perm_check(struct fz *fz, const char *rec, size_t len,
			  uint64_t *id)
{
	struct fsgate_info_perm p;

	if (len != FSGATE_INFO_PERM_LEN_V2) {
		fz_fail(fz, "a perm record of %zu bytes", len);
		return false;
	}
	memcpy(&p, rec, sizeof(p));
	if (!p.id || (p.flags & ~FSGATE_INFO_PERM_UNBOUNDED) ||
	    !(p.flags & FSGATE_INFO_PERM_UNBOUNDED) != !!p.deadline_ns ||
	    !p.deadline_ns != !p.latest_ns || p.latest_ns < p.deadline_ns) {
		fz_fail(fz, "a perm record: id %llu flags 0x%x deadline %llu latest %llu",
			(unsigned long long)p.id, p.flags,
			(unsigned long long)p.deadline_ns,
			(unsigned long long)p.latest_ns);
		return false;
	}
	*id = p.id;
	return true;
}

static bool fz_proc_check(struct fz *fz, unsigned int gflags, const char *rec,
			  size_t len, const struct fanotify_event_metadata *e)
{
	struct fsgate_info_proc p;
	pid_t pid;

	if (len < FSGATE_INFO_PROC_LEN_V1 || len % 8) {
		fz_fail(fz, "a proc record of %zu bytes", len);
		return false;
	}
	/* After FID records it is only 4-byte aligned. */
	memcpy(&p, rec, sizeof(p));
	pid = gflags & FSGATE_REPORT_TID ? p.tid : p.tgid;
	if ((p.flags & ~(FSGATE_PROC_LOGINUID | FSGATE_PROC_SESSIONID |
			 FSGATE_PROC_EXE | FSGATE_PROC_CGROUP)) ||
	    p.reserved || pid != e->pid || p.tgid <= 0 || p.tid <= 0 ||
	    (!(p.flags & FSGATE_PROC_LOGINUID) && p.loginuid != (uint32_t)-1) ||
	    (!(p.flags & FSGATE_PROC_SESSIONID) && p.sessionid != (uint32_t)-1) ||
	    (!(p.flags & FSGATE_PROC_EXE) && (p.exe_dev || p.exe_ino)) ||
	    (!(p.flags & FSGATE_PROC_CGROUP) && p.cgroup_id) ||
	    !p.start_time_ns) {
		fz_fail(fz, "a proc record: flags 0x%x pid %d tgid %d tid %d (event pid %d) loginuid %u sessionid %u exe %llu:%llu cgroup %llu start %llu",
			p.flags, pid, p.tgid, p.tid, e->pid, p.loginuid,
			p.sessionid, (unsigned long long)p.exe_dev,
			(unsigned long long)p.exe_ino,
			(unsigned long long)p.cgroup_id,
			(unsigned long long)p.start_time_ns);
		return false;
	}
	return true;
}

/* The info records after @e's metadata, in order: perm, FID..., proc. */
static bool fz_infos_check(struct fz *fz, unsigned int gflags,
			   const struct fanotify_event_metadata *e,
			   uint64_t *id)
{
	const char *start = (const char *)e, *p = start + e->metadata_len;
	const char *end = start + e->event_len;
	bool perm = (gflags & FSGATE_REPORT_PERM) &&
		    (e->mask & FSGATE_PERM_EVENTS);
	bool proc = gflags & FSGATE_REPORT_PROC;
	unsigned int fids = 0, stage = 0;	/* 0 perm, 1 FID, 2 proc, 3 end */
	struct fanotify_event_info_header h;

	while (p < end) {
		if ((p - start) % 4 || end - p < (long)sizeof(h)) {
			fz_fail(fz, "an info record at %td of an event of %u bytes",
				p - start, e->event_len);
			return false;
		}
		memcpy(&h, p, sizeof(h));
		if (h.len < sizeof(h) || h.len > end - p) {
			fz_fail(fz, "an info record (type 0x%x) of %u bytes at %td of %u",
				h.info_type, h.len, p - start, e->event_len);
			return false;
		}
		if (h.info_type == FSGATE_INFO_PERM && perm && stage == 0) {
			if ((p - start) % 8 || !fz_perm_check(fz, p, h.len, id))
				return false;
			stage = 1;
		} else if (h.info_type == FSGATE_INFO_PROC && proc && stage < 3) {
			if (!fz_proc_check(fz, gflags, p, h.len, e))
				return false;
			stage = 3;
		} else if (stage < 2 && fids < FZ_FID_TYPES_MAX &&
			   fz_fid_type_ok(gflags, h.info_type, e->mask)) {
			if (!fz_fid_check(fz, p, h.len, h.info_type))
				return false;
			stage = 1;
			fids++;
		} else {
			fz_fail(fz, "an info record of type 0x%x (%u bytes) out of place in an event of mask 0x%llx for a group of flags 0x%x",
				h.info_type, h.len, (unsigned long long)e->mask,
				gflags);
			return false;
		}
		p += h.len;
	}
	if ((perm && !*id) || (proc && stage != 3) ||
	    (!fids && (gflags & FSGATE_REPORT_FID_BITS))) {
		fz_fail(fz, "an event of mask 0x%llx lacks a record (perm %d proc %d FID %u) for a group of flags 0x%x",
			(unsigned long long)e->mask, perm, proc, fids, gflags);
		return false;
	}
	return true;
}

size_t fz_event_check(struct fz *fz, unsigned int gflags, const char *buf,
		      size_t left, struct fz_event *ev)
{
	const struct fanotify_event_metadata *e = (const void *)buf;
	bool fid = gflags & FSGATE_REPORT_FID_BITS;
	uint64_t events = FSGATE_EVENTS | FAN_ONDIR |
			  (fid ? FSGATE_DIRENT_EVENTS : 0);

	ev->meta = e;
	ev->id = 0;
	if (left < FAN_EVENT_METADATA_LEN || e->event_len > left ||
	    e->vers != FANOTIFY_METADATA_VERSION ||
	    e->metadata_len != FAN_EVENT_METADATA_LEN ||
	    e->event_len < FAN_EVENT_METADATA_LEN ||
	    e->event_len % (fid ? 4 : 8) || !e->mask ||
	    (e->mask & ~(events | FAN_Q_OVERFLOW)) ||
	    (e->fd < 0 && e->fd != FAN_NOFD) || (fid && e->fd != FAN_NOFD) ||
	    ((e->mask & FAN_Q_OVERFLOW) &&
	     (e->fd != FAN_NOFD || e->event_len != FAN_EVENT_METADATA_LEN)) ||
	    (!(gflags & (FSGATE_REPORT_FID_BITS | FSGATE_REPORT_INFO)) &&
	     e->event_len != FAN_EVENT_METADATA_LEN)) {
		fz_fail(fz, "a bad record at %zu left: len %u vers %u metadata_len %u mask 0x%llx fd %d (group flags 0x%x)",
			left, e->event_len, e->vers, e->metadata_len,
			(unsigned long long)e->mask, e->fd, gflags);
		return 0;
	}
	if (!(e->mask & FAN_Q_OVERFLOW) && !fz_infos_check(fz, gflags, e, &ev->id))
		return 0;
	return e->event_len;
}

/* An event's fd: O_PATH on FUSE; for @unprivileged, one open(2) would give. */
static void fz_event_fd_check(struct fz *fz,
			      const struct fanotify_event_metadata *e,
			      bool unprivileged)
{
	char path[64];
	struct statfs sfs;
	int fl = fcntl(e->fd, F_GETFL), mode;

	if (fl < 0) {
		fz_fail(fz, "an event's fd %d: %s", e->fd, strerror(errno));
		return;
	}
	/* A FUSE server a user runs must never be asked for an open. */
	if (fstatfs(e->fd, &sfs) == 0 && sfs.f_type == FZ_FUSE_MAGIC) {
		atomic_fetch_add(&fz->sh->fuse_events, 1);
		if (!(fl & O_PATH))
			fz_fail(fz, "an event on FUSE came with an fd open 0%o, not O_PATH",
				fl);
	}
	if (!unprivileged || (fl & O_PATH))
		return;
	atomic_fetch_add(&fz->sh->nobody_fds, 1);
	/* What open(2) of the file would give the reader, nothing more. */
	mode = (fl & O_ACCMODE) == O_RDONLY ? R_OK :
	       (fl & O_ACCMODE) == O_WRONLY ? W_OK : R_OK | W_OK;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", e->fd);
	if (access(path, mode))
		fz_fail(fz, "uid %d got an event fd open 0%o of a file it may not open so: %s",
			(int)getuid(), fl, strerror(errno));
}

void fz_answered(struct fz_proc *p, uint64_t id)
{
	if (id)
		atomic_store(&p->answered[atomic_fetch_add(&p->answered_next, 1) %
					  FZ_ANSWERED], id);
}

bool fz_was_answered(struct fz_proc *p, uint64_t id)
{
	unsigned int i;

	for (i = 0; id && i < FZ_ANSWERED; i++)
		if (atomic_load(&p->answered[i]) == id)
			return true;
	return false;
}

bool fz_events(struct fz *fz, unsigned int gflags, const char *buf,
	       ssize_t len, fz_event_fn fn, void *arg)
{
	struct fz_event ev;
	size_t off, n;

	for (off = 0; len > 0 && off < (size_t)len; off += n) {
		n = fz_event_check(fz, gflags, buf + off, len - off, &ev);
		if (!n)
			return false;
		/* Answered, an event is done: never reported again. */
		if (fz_was_answered(fz->proc, ev.id))
			fz_fail(fz, "event %llu was read again after it was answered",
				(unsigned long long)ev.id);
		if (ev.meta->fd < 0)
			continue;
		fz_event_fd_check(fz, ev.meta, getuid() != 0);
		fn(fz, &ev, arg);
	}
	return true;
}

ssize_t fz_read_timed(struct fz *fz, int g, char *buf, size_t count)
{
	bool nonblock = fcntl(g, F_GETFL) & O_NONBLOCK;
	long t0 = fz_now_ms(), ms;
	ssize_t len;
	int err;

	len = read(g, buf, count);
	err = errno;
	ms = fz_now_ms() - t0;
	/*
	 * Not even a leased or FUSE file may keep a read waiting; a blocking
	 * one may wait for its first event.
	 */
	if (nonblock && ms > FZ_READ_MAX_MS)
		fz_fail(fz, "a read of %zu bytes took %ld ms (ended: %zd)",
			count, ms, len);
	errno = err;
	return len;
}
