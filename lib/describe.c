// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names for what events, responses and processes are: event masks to and
 * from text ("open,close_write"), a deny errno from its name ("EIO"),
 * the path behind an event fd and the command name of a pid. Every tool
 * that prints or reads events needs them, and each got them slightly
 * wrong on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fsgate.h"

struct event_name {
	const char *name;
	uint64_t mask;
};

/* Single events first, in the order fsgate_mask_format() prints them. */
static const struct event_name event_names[] = {
	{ "access", FAN_ACCESS },
	{ "modify", FAN_MODIFY },
	{ "close_write", FAN_CLOSE_WRITE },
	{ "close_nowrite", FAN_CLOSE_NOWRITE },
	{ "open", FAN_OPEN },
	{ "open_exec", FAN_OPEN_EXEC },
	{ "open_perm", FAN_OPEN_PERM },
	{ "access_perm", FAN_ACCESS_PERM },
	{ "open_exec_perm", FAN_OPEN_EXEC_PERM },
	/* FSGATE_DIRENT_EVENTS, for groups reporting file handles. */
	{ "attrib", FAN_ATTRIB },
	{ "moved_from", FAN_MOVED_FROM },
	{ "moved_to", FAN_MOVED_TO },
	{ "create", FAN_CREATE },
	{ "delete", FAN_DELETE },
	{ "delete_self", FAN_DELETE_SELF },
	{ "move_self", FAN_MOVE_SELF },
	{ "rename", 0x10000000 /* FAN_RENAME */ },
	{ "ondir", FAN_ONDIR },
	{ "q_overflow", FAN_Q_OVERFLOW },
};
#define SINGLE_EVENTS (sizeof(event_names) / sizeof(event_names[0]))

/* Names of several events at once, for parsing only. */
static const struct event_name event_groups[] = {
	{ "close", FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE },
	{ "notif", FSGATE_NOTIF_EVENTS },
	{ "perm", FSGATE_PERM_EVENTS },
	{ "all", FSGATE_NOTIF_EVENTS },
};

static int lookup(const char *name, size_t len, uint64_t *mask)
{
	size_t i;

	for (i = 0; i < SINGLE_EVENTS; i++)
		if (strlen(event_names[i].name) == len &&
		    !strncasecmp(name, event_names[i].name, len)) {
			*mask = event_names[i].mask;
			return 0;
		}
	for (i = 0; i < sizeof(event_groups) / sizeof(event_groups[0]); i++)
		if (strlen(event_groups[i].name) == len &&
		    !strncasecmp(name, event_groups[i].name, len)) {
			*mask = event_groups[i].mask;
			return 0;
		}
	return -1;
}

int fsgate_mask_parse(const char *text, uint64_t *mask, size_t *bad)
{
	const char *p = text;
	uint64_t m = 0, one;
	size_t len;

	for (;;) {
		len = strcspn(p, ",");
		if (!len || lookup(p, len, &one) < 0) {
			if (bad)
				*bad = p - text;
			errno = EINVAL;
			return -1;
		}
		m |= one;
		if (!p[len])
			break;
		p += len + 1;
	}
	*mask = m;
	return 0;
}

size_t fsgate_mask_format(uint64_t mask, char *buf, size_t len)
{
	size_t i, need = 0, n;

	for (i = 0; i < SINGLE_EVENTS; i++) {
		const char *name = event_names[i].name;

		if (!(mask & event_names[i].mask))
			continue;
		n = strlen(name) + (need ? 1 : 0);
		if (need + n < len) {
			char *p = buf + need;

			if (need)
				*p++ = ',';
			while (*name)
				*p++ = (char)(*name >= 'a' && *name <= 'z' ?
					      *name - 'a' + 'A' : *name), name++;
		}
		need += n;
	}
	if (len)
		buf[need < len ? need : 0] = '\0';
	return need;
}

/* The errnos a deny may carry, with fsgate's own EPERM default first. */
static const struct {
	const char *name;
	int errnum;
} deny_errnos[] = {
	{ "EPERM", EPERM }, { "EACCES", EACCES }, { "EIO", EIO },
	{ "EBUSY", EBUSY }, { "ETXTBSY", ETXTBSY }, { "EAGAIN", EAGAIN },
	{ "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT },
};

int fsgate_deny_errno_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(deny_errnos) / sizeof(deny_errnos[0]); i++)
		if (!strcasecmp(name, deny_errnos[i].name))
			return deny_errnos[i].errnum;
	errno = EINVAL;
	return -1;
}

const char *fsgate_deny_errno_name(int errnum)
{
	size_t i;

	for (i = 0; i < sizeof(deny_errnos) / sizeof(deny_errnos[0]); i++)
		if (deny_errnos[i].errnum == errnum)
			return deny_errnos[i].name;
	return NULL;
}

int fsgate_fd_path(int fd, char *buf, size_t len)
{
	char link[40];
	ssize_t n;

	if (len < 2) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len);
	if (n < 0)
		return -1;
	if ((size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int fsgate_pid_comm(pid_t pid, char *buf, size_t len)
{
	char path[40];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok) {
		errno = ESRCH;
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int fsgate_pid_uid(pid_t pid, uid_t *uid)
{
	char path[40], line[256];
	unsigned long id;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Uid: %lu", &id) == 1;
	fclose(f);
	if (!found) {
		errno = ESRCH;
		return -1;
	}
	*uid = (uid_t)id;
	return 0;
}
