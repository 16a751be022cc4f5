// SPDX-License-Identifier: GPL-2.0
/* See conf.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <fsgate.h>

#include "conf.h"
#include "parse.h"

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int conf_read(const char *path, int optional, conf_setter set, void *arg)
{
	char line[4096], *key, *value, *eq;
	const char *why;
	unsigned int n = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (optional && errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "%s:%u: line too long\n", path, n);
			ret = -1;
			break;
		}
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			fprintf(stderr, "%s:%u: not \"key = value\"\n", path, n);
			ret = -1;
			break;
		}
		*eq = '\0';
		key = trim(key);
		value = trim(eq + 1);
		why = set(key, value, arg);
		if (why) {
			fprintf(stderr, "%s:%u: %s: %s\n", path, n, key, why);
			ret = -1;
			break;
		}
	}
	fclose(f);
	return ret;
}

int conf_uint(const char *text, unsigned long max, unsigned long *out)
{
	uint32_t n;

	if (parse_number(text, max, &n) < 0)
		return -1;
	*out = n;
	return 0;
}

int conf_size(const char *text, uint64_t *out)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)*text))
		return -1;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (shift && end[1])
		return -1;
	if (n > (~0ULL >> shift))
		return -1;
	*out = n << shift;
	return 0;
}

int conf_bool(const char *text, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(text, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(text, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

const char *conf_set_priority(const char *value, unsigned int *out)
{
	unsigned long n;

	if (conf_uint(value, FSGATE_PRIORITY_MAX, &n) < 0)
		return "not a number in 0..65535";
	*out = n;
	return NULL;
}

const char *conf_set_timeout_ms(const char *value, unsigned int *out)
{
	unsigned long n;

	if (conf_uint(value, 3600000, &n) < 0 || !n)
		return "not a number in 1..3600000";
	*out = n;
	return NULL;
}

const char *conf_set_deny_errno(const char *value, int *out)
{
	int e = fsgate_deny_errno_parse(value);

	if (e < 0)
		return "not one of EPERM EACCES EIO EBUSY ETXTBSY EAGAIN ENOSPC EDQUOT";
	*out = e;
	return NULL;
}

const char *conf_add_path(const char *value, const char **list, size_t *n,
			  size_t max)
{
	if (value[0] != '/')
		return "not an absolute path";
	if (*n == max)
		return "too many values";
	list[*n] = strdup(value);
	if (!list[*n])
		return "out of memory";
	(*n)++;
	return NULL;
}
