// SPDX-License-Identifier: GPL-2.0
/*
 * stallfs MOUNTPOINT: a FUSE filesystem of two files, as a local user's
 * server may serve them (fuse is mountable by any user, through
 * fusermount3 or in a user namespace): /file, whose every open its server
 * receives and never answers, and /unread, which opens but whose reads
 * are never answered, so that a page of it mapped into memory is a fault
 * that waits for ever. It prints "ready" once mounted and serves until
 * killed; killing it aborts the connection, which ends the opens and
 * reads it left waiting. harden_test starts it to show that a group's
 * read() never waits on it, and that a system call stuck in such a fault
 * stalls nobody else.
 */
#define FUSE_USE_VERSION 34
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define STALLFS_FILE_INO 2
#define STALLFS_UNREAD_INO 3
static const char stallfs_content[] = "never opened\n";

static void stallfs_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ino == STALLFS_UNREAD_INO) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = 1 << 20;
	} else {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = sizeof(stallfs_content) - 1;
	}
}

static void stallfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { .ino = STALLFS_FILE_INO,
				      .attr_timeout = 3600,
				      .entry_timeout = 3600 };

	if (parent == FUSE_ROOT_ID && !strcmp(name, "unread")) {
		e.ino = STALLFS_UNREAD_INO;
	} else if (parent != FUSE_ROOT_ID || strcmp(name, "file")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	stallfs_stat(e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void stallfs_getattr(fuse_req_t req, fuse_ino_t ino,
			    struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	stallfs_stat(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

/* Opens of /file and of the root directory: never answered. */
static void stallfs_open(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	if (ino == STALLFS_UNREAD_INO)
		fuse_reply_open(req, fi);
}

/* Reads (of /unread, the one file that opens): never answered. */
static void stallfs_read(fuse_req_t req, fuse_ino_t ino, size_t size,
			 off_t off, struct fuse_file_info *fi)
{
	(void)req;
	(void)ino;
	(void)size;
	(void)off;
	(void)fi;
}

static const struct fuse_lowlevel_ops stallfs_ops = {
	.lookup = stallfs_lookup,
	.getattr = stallfs_getattr,
	.open = stallfs_open,
	.opendir = stallfs_open,
	.read = stallfs_read,
};

int main(int argc, char **argv)
{
	char *fuse_argv[] = { argv[0], NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, fuse_argv);
	struct fuse_session *se;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s MOUNTPOINT\n", argv[0]);
		return 2;
	}
	se = fuse_session_new(&args, &stallfs_ops, sizeof(stallfs_ops), NULL);
	if (!se)
		return 1;
	if (fuse_session_mount(se, argv[1])) {
		fuse_session_destroy(se);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	ret = fuse_session_loop(se);
	fuse_session_unmount(se);
	fuse_session_destroy(se);
	return ret ? 1 : 0;
}
