/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsgate-hsm's parts: the backing store of content-addressed objects
 * (store.c), stubs and moving content in and out (stub.c), the daemon
 * that restores stubs as they are opened (daemon.c), and the commands
 * (main.c).
 */
#ifndef FSGATE_HSM_H
#define FSGATE_HSM_H

#include <stddef.h>
#include <stdint.h>

#include <fsgate.h>

#include "common/group.h"

/*
 * The attribute that makes a file a stub: "sha256:HEX SIZE", the key of
 * its content in the store, which is also the checksum a restore
 * verifies, and the content's size. trusted.*: tmpfs takes user.* only
 * from Linux 6.6, and only root may make fsgate groups anyway.
 */
#define HSM_XATTR "trusted.fsgate.hsm"
#define HSM_KEY_LEN 64			/* hex digits of a SHA-256 */
#define HSM_LIST_MAX 64

struct hsm_settings {
	const char *store;
	const char *watch[HSM_LIST_MAX];
	size_t nwatch;
	unsigned int priority;
	unsigned int timeout_ms;
	int error_errno;		/* a stub that cannot be restored */
	unsigned int threads;		/* restores at once */
	unsigned int queue;		/* restores waiting for a worker */
	struct group_persist persist;	/* persist =, absent = ... */
};

void hsm_settings_default(struct hsm_settings *s);
int hsm_settings_read(struct hsm_settings *s, const char *path, int optional);

/* What a stub's attribute says. */
struct stub {
	char key[HSM_KEY_LEN + 1];
	uint64_t size;
};

/* The store: STORE/objects/ab/cdef..., each object named by its SHA-256. */
struct store {
	int dirfd;
	const char *path;
	uint64_t throttle;		/* bytes a second restores read, 0 */
};

/* Open the store at @path, made if @create; 0, or -1 having logged why. */
int store_open(struct store *st, const char *path, int create);
/*
 * Copy what @fd holds into the store, hashing it on the way; an object
 * of the same key is kept and the copy dropped (duplicates share one).
 * Fills @stub. 0, or -1 with errno set.
 */
int store_put(struct store *st, int fd, struct stub *stub);
/*
 * Write the object of @stub into @fd from offset 0 and check its size
 * and checksum. 0, or -1 with errno: ENOENT for a missing object,
 * EBADMSG for one whose size or checksum is wrong, else what failed.
 */
int store_get(struct store *st, const struct stub *stub, int fd);
/* What an errno of store_get() means, in words. */
const char *store_strerror(int err);

/* 1 and @stub filled if @fd is a stub, 0 if not, -1 with errno set. */
int stub_of_fd(int fd, struct stub *stub);
/* The same for a path, without opening it (no fsgate event). */
int stub_of_path(const char *path, struct stub *stub);

/*
 * Move @path's content to the store and leave a stub in its place. 0,
 * or -1 having logged why.
 */
int hsm_release(struct store *st, const char *path);
/*
 * Restore the stub @fd refers to (whose attribute is @stub) through @fd,
 * then drop the attribute. On failure the file is a stub again (the
 * content written is dropped). 0, or -1 with errno as store_get().
 */
int hsm_restore_fd(struct store *st, int fd, const struct stub *stub);

/*
 * create-group: the daemon's persistent group, made, marked and made
 * persistent as the daemon makes it, then left with nobody attached
 * until the daemon attaches; one there already is left as it is. The
 * exit status: 0, 1 when fsgate failed, 2 for a configuration that
 * asks for no group to watch anything, or for another group than the
 * one of that name.
 */
int hsm_create_group(const struct hsm_settings *s);

/* The daemon: serve until SIGTERM or SIGINT; the exit status. */
int hsm_daemon(const struct hsm_settings *s, struct store *st);

#endif /* FSGATE_HSM_H */
