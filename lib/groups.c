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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fsgate.h"

#define LINE_MAX_LEN 1024
#define COLUMNS_MAX 64

enum column {
	COL_ID, COL_PID, COL_COMM, COL_CLASS, COL_PRIORITY, COL_STAT,
	COL_UNKNOWN,
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
	static const char *const fixed[] = { "id", "pid", "comm", "class",
					     "priority" };
	char *save, *name;
	size_t i;
	int have_id = 0;

	l->n = 0;
	for (name = strtok_r(line, " \t\n", &save); name;
	     name = strtok_r(NULL, " \t\n", &save)) {
		if (l->n == COLUMNS_MAX)
			return -1;
		l->col[l->n] = COL_UNKNOWN;
		for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			if (!strcmp(name, fixed[i]))
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
	for (field = strtok_r(line, " \t\n", &save); field;
	     field = strtok_r(NULL, " \t\n", &save), i++) {
		if (i >= l->n)
			return -1;
		switch (l->col[i]) {
		case COL_COMM:
			unescape(g->comm, sizeof(g->comm), field);
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

/* The records this library asks for are the module's first version. */
_Static_assert(sizeof(struct fsgate_group_entry) == FSGATE_GROUP_ENTRY_SIZE_VER0,
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

static void group_info_from_entry(struct fsgate_group_info *g,
				  const struct fsgate_group_entry *e)
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

static ssize_t groups_from_device(struct fsgate_group_info **groups)
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
		group_info_from_entry(&list[i], &entries[i]);
	free(entries);
	*groups = list;
	return n;
}

/* Whether the loaded module lists its groups with FSGATE_IOC_GROUPS. */
static int module_lists_groups(void)
{
	struct fsgate_version v;

	return !fsgate_version(&v) && (v.features & FSGATE_FEATURE_GROUPS);
}

ssize_t fsgate_groups_read(const char *path, struct fsgate_group_info **groups)
{
	*groups = NULL;
	if (path)
		return groups_from_file(path, groups);
	if (module_lists_groups())
		return groups_from_device(groups);
	return groups_from_file(FSGATE_GROUPS_FILE, groups);
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
