// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-hsm's backing store: a directory, on another filesystem than the
 * files it holds the content of, with one file per distinct content,
 * named by its SHA-256 (objects/ab/cdef...). Objects are written under a
 * temporary name and renamed into place once whole, so an object that
 * exists is complete; a restore checks its checksum all the same.
 *
 * FSGATE_HSM_TEST_THROTTLE=BYTES in the environment makes the store a
 * slow one: restores read it at most BYTES a second. For tests only (a
 * restore that outlasts the group's timeout, without a slow device).
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "hsm.h"

#define CHUNK 65536

int store_open(struct store *st, const char *path, int create)
{
	const char *env = getenv("FSGATE_HSM_TEST_THROTTLE");

	st->path = path;
	st->throttle = env ? strtoull(env, NULL, 10) : 0;
	if (create && mkdir(path, 0700) < 0 && errno != EEXIST) {
		log_err("cannot make the store %s: %s", path, strerror(errno));
		return -1;
	}
	st->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->dirfd < 0) {
		log_err("cannot open the store %s: %s", path, strerror(errno));
		return -1;
	}
	if (create && mkdirat(st->dirfd, "objects", 0700) < 0 && errno != EEXIST) {
		log_err("cannot make %s/objects: %s", path, strerror(errno));
		close(st->dirfd);
		return -1;
	}
	return 0;
}

static void hex(const unsigned char *md, char *out)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 32; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[HSM_KEY_LEN] = '\0';
}

/* objects/ab/cdef... of @key; the directory alone when @dir_only. */
static void object_name(const char *key, char *buf, size_t len, int dir_only)
{
	if (dir_only)
		snprintf(buf, len, "objects/%.2s", key);
	else
		snprintf(buf, len, "objects/%.2s/%s", key, key + 2);
}

static int write_all(int fd, const char *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Sleep till @total bytes at @rate a second have taken their time. */
static void throttle(uint64_t rate, long long total,
		     const struct timespec *start)
{
	uint64_t due = (uint64_t)total * 1000000000ULL / rate, now;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)(ts.tv_sec - start->tv_sec) * 1000000000ULL +
	      ts.tv_nsec - start->tv_nsec;
	if (due <= now)
		return;
	ts.tv_sec = (due - now) / 1000000000ULL;
	ts.tv_nsec = (due - now) % 1000000000ULL;
	nanosleep(&ts, NULL);
}

/*
 * Copy @in (from offset 0, up to EOF) to @out (if >= 0) and hash it, at
 * most @rate bytes a second (0: as fast as it goes). Bytes copied, or -1
 * with errno set.
 */
static long long copy_hash(int in, int out, char key[HSM_KEY_LEN + 1],
			   uint64_t rate)
{
	struct timespec start;
	unsigned char md[EVP_MAX_MD_SIZE];
	static __thread char buf[CHUNK];
	long long total = 0;
	EVP_MD_CTX *ctx;
	unsigned int mdlen;
	ssize_t n;

	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		errno = ENOMEM;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((n = pread(in, buf, sizeof(buf), total)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (out >= 0 && write_all(out, buf, n, total) < 0)) {
			EVP_MD_CTX_free(ctx);
			return -1;
		}
		EVP_DigestUpdate(ctx, buf, n);
		total += n;
		if (rate)
			throttle(rate, total, &start);
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	hex(md, key);
	return total;
}

int store_put(struct store *st, int fd, struct stub *stub)
{
	char tmp[64], name[HSM_KEY_LEN + 16], dir[16];
	long long size;
	int out, saved;

	snprintf(tmp, sizeof(tmp), "tmp.%d", (int)getpid());
	out = openat(st->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		     0600);
	if (out < 0)
		return -1;
	size = copy_hash(fd, out, stub->key, 0);
	if (size < 0 || fsync(out) < 0)
		goto fail;
	close(out);
	out = -1;
	stub->size = size;
	object_name(stub->key, dir, sizeof(dir), 1);
	if (mkdirat(st->dirfd, dir, 0700) < 0 && errno != EEXIST)
		goto fail;
	object_name(stub->key, name, sizeof(name), 0);
	/* The same content is there already: share it. */
	if (faccessat(st->dirfd, name, F_OK, 0) == 0) {
		unlinkat(st->dirfd, tmp, 0);
		return 0;
	}
	if (renameat(st->dirfd, tmp, st->dirfd, name) < 0)
		goto fail;
	return 0;
fail:
	saved = errno;
	if (out >= 0)
		close(out);
	unlinkat(st->dirfd, tmp, 0);
	errno = saved;
	return -1;
}

int store_get(struct store *st, const struct stub *stub, int fd)
{
	char name[HSM_KEY_LEN + 16], key[HSM_KEY_LEN + 1];
	long long size;
	int in, saved;

	object_name(stub->key, name, sizeof(name), 0);
	in = openat(st->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -1;
	size = copy_hash(in, fd, key, st->throttle);
	saved = errno;
	close(in);
	if (size < 0) {
		errno = saved;
		return -1;
	}
	if ((uint64_t)size != stub->size || strcmp(key, stub->key)) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

const char *store_strerror(int err)
{
	switch (err) {
	case ENOENT:
		return "its object is missing from the store";
	case EBADMSG:
		return "its object's size or checksum is wrong";
	default:
		return strerror(err);
	}
}
