// SPDX-License-Identifier: GPL-2.0
/* See tracefs.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefs.h"

/* Where tracefs is mounted: its own mount point, then under debugfs. */
static const char *const roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static int write_text(const char *path, const char *text)
{
	ssize_t n;
	int fd, saved;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The tracefs mount's instances directory into @buf, or an error. */
static enum tracefs_error find_instances(char *buf, size_t len)
{
	enum tracefs_error err = TRACEFS_NOT_MOUNTED;
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(buf, len, "%s/instances", roots[i]);
		if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
			return TRACEFS_OK;
		/* tracefs is root's (0700): a user cannot even look. */
		if (errno == EACCES || errno == EPERM)
			err = TRACEFS_NO_PRIVILEGE;
	}
	errno = err == TRACEFS_NO_PRIVILEGE ? EACCES : ENOENT;
	return err;
}

static enum tracefs_error privilege_or_failed(void)
{
	return errno == EACCES || errno == EPERM ? TRACEFS_NO_PRIVILEGE :
						   TRACEFS_FAILED;
}

/* Enable each event; the instance exists. */
static enum tracefs_error enable(struct tracefs_instance *t, const char *system,
				 const char *const *events)
{
	char path[PATH_MAX + 128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events/%s", t->dir, system);
	if (stat(path, &st) < 0) {
		errno = ENOENT;
		return TRACEFS_NO_EVENTS;
	}
	for (; *events; events++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", t->dir,
			 system, *events);
		if (write_text(path, "1") < 0)
			return errno == ENOENT ? TRACEFS_NO_EVENTS :
						 privilege_or_failed();
	}
	return TRACEFS_OK;
}

enum tracefs_error tracefs_create(struct tracefs_instance *t,
				  const char *name, const char *system,
				  const char *const *events)
{
	char path[PATH_MAX + 32];
	enum tracefs_error err;
	size_t n;
	int saved;

	t->pipe = -1;
	err = find_instances(t->dir, sizeof(t->dir));
	if (err)
		return err;
	n = strlen(t->dir);
	snprintf(t->dir + n, sizeof(t->dir) - n, "/%s", name);
	if (mkdir(t->dir, 0700) < 0) {
		if (errno != EEXIST)
			return privilege_or_failed();
		/* A killed run's: an instance name is the run's pid. */
		if (rmdir(t->dir) < 0 || mkdir(t->dir, 0700) < 0)
			return privilege_or_failed();
	}
	err = enable(t, system, events);
	if (err)
		goto out_remove;
	snprintf(path, sizeof(path), "%s/trace_pipe", t->dir);
	t->pipe = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->pipe >= 0)
		return TRACEFS_OK;
	err = privilege_or_failed();
out_remove:
	saved = errno;
	rmdir(t->dir);
	errno = saved;
	return err;
}

int tracefs_remove(struct tracefs_instance *t)
{
	if (t->pipe >= 0)
		close(t->pipe);
	t->pipe = -1;
	return rmdir(t->dir);
}
