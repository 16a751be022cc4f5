/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest selftests. Groups are made with libfsgate,
 * whose fsgate_init_ext() is the bare FSGATE_IOC_INIT ioctl.
 */
#ifndef FSGATE_UTIL_H
#define FSGATE_UTIL_H

#include <stddef.h>
#include <fsgate.h>

/* Copy the value of @key from the fdinfo of @fd into @buf. */
int fsgate_test_fdinfo(int fd, const char *key, char *buf, size_t len);

/* Number of lines of /proc/fsgate/groups whose pid column is @pid. */
int fsgate_test_groups_of(int pid);

/*
 * Give the calling process a mount namespace of its own, with every
 * mount private, so that what a test mounts stays its own.
 * Return: 0, or -1 with errno set.
 */
int fsgate_test_own_mounts(void);

/*
 * fsgate_test_own_mounts(), then a fresh tmpfs on /tmp/@name.<pid>,
 * whose path goes to @dir (@len bytes). Return: 0, or -1 with errno set.
 */
int fsgate_test_tmpfs(const char *name, char *dir, size_t len);

/* Unmount and remove the directory fsgate_test_tmpfs() made. */
void fsgate_test_tmpfs_done(const char *dir);

/* What fsgate_test_drain() read. */
struct fsgate_test_tally {
	long events;		/* records, overflows included */
	long close_writes;	/* records with FAN_CLOSE_WRITE */
	long overflows;		/* FAN_Q_OVERFLOW records */
};

/*
 * Read every event waiting on the non-blocking group @g, close their
 * fds and add them up in @t (which may be NULL).
 * Return: the number of records read, or -1 if a read failed other than
 * with EAGAIN.
 */
int fsgate_test_drain(int g, struct fsgate_test_tally *t);

/*
 * Write @value to the module parameter @name; its value before goes to
 * @old (@len bytes, without the newline) unless @old is NULL.
 * Return: 0, or -1 with errno set.
 */
int fsgate_test_param(const char *name, const char *value, char *old,
		      size_t len);

/*
 * Attach the image file @img to a free loop device, whose path goes to
 * @dev (@len bytes). Return: 0, or -1 with errno set.
 */
int fsgate_test_loop_attach(const char *img, char *dev, size_t len);

/* Detach the loop device @dev, if it is attached. */
void fsgate_test_loop_detach(const char *dev);

/*
 * Make an 8 MB ext4 image @img and attach it to a free loop device,
 * whose path goes to @dev (@len bytes). Return: 0, or -1.
 */
int fsgate_test_ext4(const char *img, char *dev, size_t len);

/*
 * Become uid and gid 65534 with no capabilities. With @keep the saved
 * uid stays 0, so that setresuid(-1, 0, -1) takes root back.
 * Return: 0, or -1 with errno set.
 */
int fsgate_test_nobody(int keep);

/*
 * Run @fn(@arg, @out) in a child that became uid 65534 (no
 * capabilities), and copy the @len bytes it leaves in @out back.
 * Return: 0, or -1 if the child failed or did not report.
 */
int fsgate_test_as_nobody(void (*fn)(const void *arg, void *out),
			  const void *arg, void *out, size_t len);

#endif /* FSGATE_UTIL_H */
