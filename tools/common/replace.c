// SPDX-License-Identifier: GPL-2.0
/* See replace.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replace.h"

int file_replace(const char *path, mode_t mode,
		 int (*write)(FILE *f, void *arg), void *arg)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	char *tmp = malloc(len);
	FILE *f = NULL;
	int fd, err;

	if (!tmp)
		return -1;
	snprintf(tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail_free;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
		goto fail_unlink;
	}
	errno = 0;
	if (fchmod(fd, mode) < 0 || write(f, arg) < 0 || fflush(f) == EOF ||
	    ferror(f) || fsync(fd) < 0) {
		err = errno ? errno : EIO;
		fclose(f);
		errno = err;
		goto fail_unlink;
	}
	if (fclose(f) == EOF || rename(tmp, path) < 0)
		goto fail_unlink;
	free(tmp);
	return 0;
fail_unlink:
	err = errno;
	unlink(tmp);
	errno = err;
fail_free:
	err = errno;
	free(tmp);
	errno = err;
	return -1;
}
