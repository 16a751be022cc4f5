// SPDX-License-Identifier: GPL-2.0
/*
 * Stubs. A released file is replaced by a stub: a new file with the
 * same mode, owner, times and size, no data blocks (a hole as long as
 * the content), and the attribute HSM_XATTR naming the content in the
 * store. The stub keeps the content's size so that stat(2), ls -l, find
 * -size and backup tools that compare sizes see the file as it is, while
 * st_blocks (du) shows that nothing is resident; any open of it waits
 * for the daemon to fill the hole.
 *
 * The stub is made beside the file and renamed over it: readers see the
 * whole file or the whole stub, never a file half released; and the
 * stub is a new inode, without the ignore marks the daemon put on the
 * file when it last restored it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/log.h"
#include "hsm.h"

static int stub_parse(const char *val, ssize_t len, struct stub *stub)
{
	char text[128], *end;
	size_t i;

	if (len <= 0 || len >= (ssize_t)sizeof(text))
		goto bad;
	memcpy(text, val, len);
	text[len] = '\0';
	if (strncmp(text, "sha256:", 7) || strlen(text) < 7 + HSM_KEY_LEN + 2 ||
	    text[7 + HSM_KEY_LEN] != ' ')
		goto bad;
	for (i = 0; i < HSM_KEY_LEN; i++)
		if (!strchr("0123456789abcdef", text[7 + i]) || !text[7 + i])
			goto bad;
	memcpy(stub->key, text + 7, HSM_KEY_LEN);
	stub->key[HSM_KEY_LEN] = '\0';
	errno = 0;
	stub->size = strtoull(text + 8 + HSM_KEY_LEN, &end, 10);
	if (errno || *end || end == text + 8 + HSM_KEY_LEN)
		goto bad;
	return 1;
bad:
	errno = EBADMSG;
	return -1;
}

static int stub_result(ssize_t n, const char *val, struct stub *stub)
{
	if (n < 0)
		return errno == ENODATA || errno == ENOTSUP ? 0 : -1;
	return stub_parse(val, n, stub);
}

int stub_of_fd(int fd, struct stub *stub)
{
	char val[128];

	return stub_result(fgetxattr(fd, HSM_XATTR, val, sizeof(val)), val, stub);
}

int stub_of_path(const char *path, struct stub *stub)
{
	char val[128];

	return stub_result(lgetxattr(path, HSM_XATTR, val, sizeof(val)), val,
			   stub);
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Make the stub of @stub beside @path, as @st; its fd, or -1. */
static int make_stub(const char *path, const struct stat *st,
		     const struct stub *stub, char *tmp, size_t tmplen)
{
	const char *slash = strrchr(path, '/');
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	char val[128];
	int fd;

	snprintf(tmp, tmplen, "%.*s.fsgate-hsm.XXXXXX",
		 slash ? (int)(slash - path + 1) : 0, path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(val, sizeof(val), "sha256:%s %" PRIu64, stub->key, stub->size);
	if (fchown(fd, st->st_uid, st->st_gid) < 0 ||
	    fchmod(fd, st->st_mode & 07777) < 0 ||
	    fsetxattr(fd, HSM_XATTR, val, strlen(val), XATTR_CREATE) < 0 ||
	    ftruncate(fd, stub->size) < 0 || futimens(fd, times) < 0) {
		int saved = errno;

		close(fd);
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return fd;
}

int hsm_release(struct store *store, const char *path)
{
	struct stat before, after;
	char tmp[PATH_MAX + 32];
	struct stub stub;
	int fd, sfd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &before) < 0) {
		log_err("release: %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(before.st_mode)) {
		log_err("release: %s: not a regular file", path);
		goto fail;
	}
	/* The stub replaces one name; other links would keep the content. */
	if (before.st_nlink > 1) {
		log_err("release: %s: has %ju links; only a file with one can be released",
			path, (uintmax_t)before.st_nlink);
		goto fail;
	}
	if (stub_of_fd(fd, &stub) != 0) {
		log_err("release: %s: already a stub", path);
		goto fail;
	}
	if (store_put(store, fd, &stub) < 0) {
		log_err("release: %s: cannot copy it to the store %s: %s", path,
			store->path, strerror(errno));
		goto fail;
	}
	sfd = make_stub(path, &before, &stub, tmp, sizeof(tmp));
	if (sfd < 0) {
		log_err("release: %s: cannot make its stub: %s", path,
			strerror(errno));
		goto fail;
	}
	close(sfd);
	/* A write since it was copied: keep the file, drop the stub. */
	if (fstat(fd, &after) < 0 || !same_file(&before, &after) ||
	    (uint64_t)after.st_size != stub.size) {
		log_err("release: %s: changed while it was released; left as it is",
			path);
		unlink(tmp);
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		log_err("release: %s: %s", path, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	close(fd);
	log_info("released %s (%" PRIu64 " bytes) as sha256:%.16s", path,
		 stub.size, stub.key);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int hsm_restore_fd(struct store *store, int fd, const struct stub *stub)
{
	int saved;

	if (store_get(store, stub, fd) == 0 && fremovexattr(fd, HSM_XATTR) == 0)
		return 0;
	/* Back to a stub: a hole as long as the content, nothing in it. */
	saved = errno;
	if (ftruncate(fd, 0) < 0 || ftruncate(fd, stub->size) < 0)
		log_err("cannot make a failed restore a stub again: %s",
			strerror(errno));
	errno = saved;
	return -1;
}
