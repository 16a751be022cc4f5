// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module as a whole: every group with its counters, and the
 * module's parameters, from /sys/module/fsgate/parameters.
 *
 * Groups come from FSGATE_IOC_GROUPS where the module offers it
 * (FSGATE_FEATURE_GROUPS): fixed-width records, read into a buffer that
 * grows until the list fits. An older module has only the text of
 * /proc/fsgate/groups, read instead. That file starts with a header
 * line naming its columns; columns are found by name, so one the module
 * adds later is skipped and one it lacks reads as 0. The module escapes
 * whitespace and backslashes in comm as \ooo; they are unescaped here.
 * The file is root's (mode 0400): others get EACCES.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fsgate.h"

#define LINE_MAX_LEN 1024
#define COLUMNS_MAX 64

/* Columns other than counters, in the order of fixed_names. */
enum column {
	COL_ID, COL_PID, COL_COMM, COL_CLASS, COL_PRIORITY, COL_ATTACHED,
	COL_NAME, COL_ABSENT_LEFT, COL_LINGER_LEFT, COL_ATTACHES,
	COL_HANDOVERS, COL_STAT, COL_UNKNOWN,
};

static const char *const fixed_names[] = {
	"id", "pid", "comm", "class", "priority", "attached", "name",
	"absent_left_ms", "linger_left_ms", "attaches", "handovers",
};

/* The counters' columns, in struct fsgate_stats order. */
static const char *const stat_names[] = {
	"marks", "queued", "delivered", "overflows", "pending", "asked",
	"answered", "denied", "timedout", "orphaned", "cancelled",
	"perm_overflows", "cached", "unopened", "cache_entries",
	"cache_evictions", "cache_flushes", "muted", "extended",
	"filtered", "absent", "rereported",
};
#define STATS (sizeof(stat_names) / sizeof(stat_names[0]))

struct layout {
	enum column col[COLUMNS_MAX];
	unsigned int stat[COLUMNS_MAX];
	size_t n;
};

static int parse_header(char *line, struct layout *l)
{
	char *save, *name;
	size_t i;
	int have_id = 0;

	l->n = 0;
	for (name = strtok_r(line, " \t\n", &save); name;
	     name = strtok_r(NULL, " \t\n", &save)) {
		if (l->n == COLUMNS_MAX)
			return -1;
		l->col[l->n] = COL_UNKNOWN;
		for (i = 0; i < sizeof(fixed_names) / sizeof(fixed_names[0]); i++)
			if (!strcmp(name, fixed_names[i]))
				l->col[l->n] = (enum column)i;
		for (i = 0; i < STATS; i++)
			if (!strcmp(name, stat_names[i])) {
				l->col[l->n] = COL_STAT;
				l->stat[l->n] = i;
			}
		have_id |= l->col[l->n] == COL_ID;
		l->n++;
	}
	return have_id ? 0 : -1;
}

static int parse_number(const char *text, unsigned long long *out)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -1;
	errno = 0;
	*out = strtoull(text, &end, 10);
	return errno || *end ? -1 : 0;
}

/*
 * Copy the field @text to @dst (@len bytes), turning the module's \ooo
 * escapes (whitespace and backslash in comm) back into their bytes.
 */
static void unescape(char *dst, size_t len, const char *text)
{
	size_t n = 0;

	while (*text && n + 1 < len) {
		if (text[0] == '\\' && text[1] >= '0' && text[1] <= '3' &&
		    text[2] >= '0' && text[2] <= '7' &&
		    text[3] >= '0' && text[3] <= '7') {
			dst[n++] = (char)((text[1] - '0') << 6 |
					  (text[2] - '0') << 3 | (text[3] - '0'));
			text += 4;
		} else {
			dst[n++] = *text++;
		}
	}
	dst[n] = '\0';
}

static int parse_group(char *line, const struct layout *l,
		       struct fsgate_group_info *g)
{
	unsigned long long n;
	char *save, *field;
	size_t i = 0;

	memset(g, 0, sizeof(*g));
	g->absent_left_ms = FSGATE_GROUP_NO_DEADLINE;
	g->linger_left_ms = FSGATE_GROUP_NO_DEADLINE;
	for (field = strtok_r(line, " \t\n", &save); field;
	     field = strtok_r(NULL, " \t\n", &save), i++) {
		if (i >= l->n)
			return -1;
		/* "-": no name, or a bound that is not running. */
		if (!strcmp(field, "-") && (l->col[i] == COL_NAME ||
					    l->col[i] == COL_ABSENT_LEFT ||
					    l->col[i] == COL_LINGER_LEFT))
			continue;
		switch (l->col[i]) {
		case COL_COMM:
			unescape(g->comm, sizeof(g->comm), field);
			continue;
		case COL_NAME:
			unescape(g->name, sizeof(g->name), field);
			continue;
		case COL_CLASS:
			snprintf(g->class_name, sizeof(g->class_name), "%s",
				 field);
			continue;
		case COL_UNKNOWN:
			continue;
		default:
			break;
		}
		if (parse_number(field, &n) < 0)
			return -1;
		if (l->col[i] == COL_ID)
			g->id = n;
		else if (l->col[i] == COL_PID)
			g->pid = (pid_t)n;
		else if (l->col[i] == COL_PRIORITY)
			g->priority = (unsigned int)n;
		else if (l->col[i] == COL_ATTACHED)
			g->attached = (unsigned int)n;
		else if (l->col[i] == COL_ABSENT_LEFT)
			g->absent_left_ms = (unsigned int)n;
		else if (l->col[i] == COL_LINGER_LEFT)
			g->linger_left_ms = (unsigned int)n;
		else if (l->col[i] == COL_ATTACHES)
			g->attaches = n;
		else if (l->col[i] == COL_HANDOVERS)
			g->handovers = n;
		else
			((__u64 *)&g->stats)[l->stat[i]] = n;
	}
	return i == l->n ? 0 : -1;
}

static ssize_t groups_from_file(const char *path,
				struct fsgate_group_info **groups)
{
	struct fsgate_group_info *list = NULL, *more;
	char line[LINE_MAX_LEN];
	struct layout l;
	size_t n = 0, cap = 0;
	FILE *f;
	int err = EBADMSG;

	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || parse_header(line, &l) < 0)
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			more = realloc(list, cap * sizeof(*list));
			if (!more) {
				err = ENOMEM;
				goto fail;
			}
			list = more;
		}
		if (!strchr(line, '\n') || parse_group(line, &l, &list[n]) < 0)
			goto fail;
		n++;
	}
	if (ferror(f)) {
		err = EIO;
		goto fail;
	}
	fclose(f);
	*groups = list;
	return n;
fail:
	fclose(f);
	free(list);
	errno = err;
	return -1;
}

/* The records this library asks for: the policies' and bounds' version. */
_Static_assert(sizeof(struct fsgate_group_entry) == FSGATE_GROUP_ENTRY_SIZE_VER2,
	       "struct fsgate_group_entry changed size");
_Static_assert(sizeof(struct fsgate_groups) == 40,
	       "struct fsgate_groups changed size");

/* Records asked for at first; the list grows to what the module says. */
#define GROUPS_ROOM 16
/* Asking again when groups came meanwhile ends at some point: EAGAIN. */
#define GROUPS_TRIES 8

/* The module's name for a group class, as /proc/fsgate/groups has it. */
static const char *class_name(__u32 class)
{
	switch (class) {
	case FSGATE_CLASS_PRE_CONTENT:
		return "pre-content";
	case FSGATE_CLASS_CONTENT:
		return "content";
	default:
		return "notif";
	}
}

/* What the module fills of its records (FSGATE_FEATURE_*). */
enum entry_has {
	HAS_PERSIST = 1,	/* FSGATE_FEATURE_GROUPS_PERSIST */
	HAS_VER2 = 2,		/* FSGATE_FEATURE_GROUPS_VER2 */
};

/* @e's policies, wait bounds and marks by type (FSGATE_GROUP_ENTRY_SIZE_VER2). */
static void group_info_ver2(struct fsgate_group_info *g,
			    const struct fsgate_group_entry *e)
{
	g->timeout_ms = e->timeout_ms;
	g->max_wait_ms = e->max_wait_ms;
	g->timeout_verdict = e->timeout_verdict;
	g->timeout_errno = e->timeout_errno;
	g->orphan_verdict = e->orphan_verdict;
	g->orphan_errno = e->orphan_errno;
	g->inode_marks = e->inode_marks;
	g->mount_marks = e->mount_marks;
	g->filesystem_marks = e->filesystem_marks;
}

/*
 * @e as the library describes a group; @has: what the module fills,
 * where an older one leaves the rest zero.
 */
static void group_info_from_entry(struct fsgate_group_info *g,
				  const struct fsgate_group_entry *e,
				  unsigned int has)
{
	memset(g, 0, sizeof(*g));
	g->id = e->id;
	g->pid = e->pid;
	snprintf(g->comm, sizeof(g->comm), "%.*s", (int)sizeof(e->comm),
		 e->comm);
	snprintf(g->class_name, sizeof(g->class_name), "%s",
		 class_name(e->group_class));
	g->priority = e->priority;
	g->stats = e->stats;
	g->attached = e->attached;
	g->absent_left_ms = FSGATE_GROUP_NO_DEADLINE;
	g->linger_left_ms = FSGATE_GROUP_NO_DEADLINE;
	if (has & HAS_VER2)
		group_info_ver2(g, e);
	if (!(has & HAS_PERSIST))
		return;
	/* The module NUL-terminates it: names are at most 63 bytes. */
	snprintf(g->name, sizeof(g->name), "%.*s", (int)sizeof(e->name) - 1,
		 e->name);
	g->owner = e->owner;
	g->persist_flags = e->persist_flags;
	g->absent_ms = e->absent_ms;
	g->absent_verdict = e->absent_verdict;
	g->absent_errno = e->absent_errno;
	g->linger_ms = e->linger_ms;
	g->absent_left_ms = e->absent_left_ms;
	g->linger_left_ms = e->linger_left_ms;
	g->attaches = e->attaches;
	g->handovers = e->handovers;
}

/*
 * Every group's record from FSGATE_IOC_GROUPS on @dev into *@entries
 * (malloc()ed), asking again with more room while the list does not fit.
 * Return: how many, or -1 with errno set.
 */
static int read_entries(int dev, struct fsgate_group_entry **entries)
{
	struct fsgate_group_entry *list = NULL, *more;
	unsigned int room = GROUPS_ROOM;
	int n, tries;

	for (tries = 0; tries < GROUPS_TRIES; tries++) {
		struct fsgate_groups req = {
			.size = sizeof(*list),
			.count = room,
		};

		more = realloc(list, room * sizeof(*list));
		if (!more)
			break;
		list = more;
		req.entries = (uintptr_t)list;
		n = ioctl(dev, FSGATE_IOC_GROUPS, &req);
		if (n < 0)
			break;
		if ((unsigned int)n <= room) {
			*entries = list;
			return n;
		}
		/* Room for a few more, in case groups come meanwhile. */
		room = (unsigned int)n + GROUPS_ROOM;
		errno = EAGAIN;
	}
	n = errno;
	free(list);
	errno = n;
	return -1;
}

static ssize_t groups_from_device(struct fsgate_group_info **groups,
				  unsigned int has)
{
	struct fsgate_group_entry *entries = NULL;
	struct fsgate_group_info *list;
	int dev, n, i, saved;

	dev = open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	n = read_entries(dev, &entries);
	saved = errno;
	close(dev);
	errno = saved;
	if (n <= 0) {
		free(entries);
		return n;
	}
	list = calloc((size_t)n, sizeof(*list));
	if (!list) {
		free(entries);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++)
		group_info_from_entry(&list[i], &entries[i], has);
	free(entries);
	*groups = list;
	return n;
}

/* FSGATE_0.2's struct fsgate_group_info ended with @stats. */
#define GROUP_INFO_SIZE_0_2 offsetof(struct fsgate_group_info, attached)
/* Nothing between: a 0.2 array's records are this long. */
_Static_assert(GROUP_INFO_SIZE_0_2 % _Alignof(struct fsgate_group_info) == 0,
	       "FSGATE_0.2's records had padding after stats");

/*
 * The @n groups at @list as records of @size bytes: moved down within
 * @list where the caller knows fewer fields, copied into a longer,
 * zeroed array where it knows more. Return: the array, or NULL (@list
 * freed) with errno ENOMEM.
 */
static void *records_of(struct fsgate_group_info *list, size_t n, size_t size)
{
	char *out;
	size_t i;

	if (size <= sizeof(*list)) {
		for (i = 0; i < n; i++)
			memmove((char *)list + i * size, &list[i], size);
		return list;
	}
	out = calloc(n, size);
	if (out)
		for (i = 0; i < n; i++)
			memcpy(out + i * size, &list[i], sizeof(*list));
	free(list);
	if (!out)
		errno = ENOMEM;
	return out;
}

static ssize_t groups_of_module(struct fsgate_group_info **groups)
{
	struct fsgate_version v;
	unsigned int has = 0;

	if (fsgate_version(&v) || !(v.features & FSGATE_FEATURE_GROUPS))
		return groups_from_file(FSGATE_GROUPS_FILE, groups);
	if (v.features & FSGATE_FEATURE_GROUPS_PERSIST)
		has |= HAS_PERSIST;
	if (v.features & FSGATE_FEATURE_GROUPS_VER2)
		has |= HAS_VER2;
	return groups_from_device(groups, has);
}

ssize_t fsgate_groups_get(const char *path, struct fsgate_group_info **groups,
			  size_t size)
{
	struct fsgate_group_info *list = NULL;
	ssize_t n;

	*groups = NULL;
	if (size < GROUP_INFO_SIZE_0_2) {
		errno = EINVAL;
		return -1;
	}
	n = path ? groups_from_file(path, &list) : groups_of_module(&list);
	if (n <= 0)
		return n;
	*groups = records_of(list, (size_t)n, size);
	return *groups ? n : -1;
}

/* FSGATE_0.6's struct fsgate_group_info ended with @handovers. */
#define GROUP_INFO_SIZE_0_6 offsetof(struct fsgate_group_info, timeout_ms)
_Static_assert(GROUP_INFO_SIZE_0_6 % _Alignof(struct fsgate_group_info) == 0,
	       "FSGATE_0.6's records had padding after handovers");

/*
 * FSGATE_0.6's entry point, which programs built before 0.7 call: their
 * records end at @handovers. A larger @size gets zeroes past it, as a
 * 0.6 library gives them.
 */
ssize_t fsgate_groups_list(const char *path, struct fsgate_group_info **groups,
			   size_t size)
{
	ssize_t n, i;

	n = fsgate_groups_get(path, groups, size);
	for (i = 0; size > GROUP_INFO_SIZE_0_6 && i < n; i++)
		memset((char *)*groups + (size_t)i * size + GROUP_INFO_SIZE_0_6,
		       0, size - GROUP_INFO_SIZE_0_6);
	return n;
}

/* FSGATE_0.2's entry point, which programs built before 0.6 call. */
#undef fsgate_groups_read
ssize_t fsgate_groups_read(const char *path, struct fsgate_group_info **groups);
ssize_t fsgate_groups_read(const char *path, struct fsgate_group_info **groups)
{
	return fsgate_groups_get(path, groups, GROUP_INFO_SIZE_0_2);
}

static int param_path(const char *name, char *buf, size_t len)
{
	if (!*name || strchr(name, '/') || name[0] == '.') {
		errno = EINVAL;
		return -1;
	}
	snprintf(buf, len, "%s/%s", FSGATE_PARAMS_DIR, name);
	return 0;
}

int fsgate_param_get(const char *name, unsigned long long *value)
{
	char path[256], text[32];
	ssize_t n;
	int fd;

	if (param_path(name, path, sizeof(path)) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -1;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (parse_number(text, value) < 0) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int fsgate_param_set(const char *name, unsigned long long value)
{
	char path[256], text[32];
	int fd, len, saved;
	ssize_t n;

	if (param_path(name, path, sizeof(path)) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(text, sizeof(text), "%llu\n", value);
	n = write(fd, text, len);
	saved = errno;
	close(fd);
	if (n != len) {
		errno = n < 0 ? saved : EIO;
		return -1;
	}
	return 0;
}
