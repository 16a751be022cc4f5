// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The one parser of numbers and verdicts; see parse.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fsgate.h>

#include "parse.h"

int parse_number(const char *s, unsigned long max, uint32_t *out)
{
	unsigned long n;
	char *end;

	/* strtoul() would take leading space, a sign, and wrap "-1". */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max || n > UINT32_MAX)
		return -1;
	*out = n;
	return 0;
}

int parse_absent(const char *s, int (*deny_errno)(const char *name),
		 uint32_t *verdict, uint32_t *err)
{
	int e;

	if (s && !strncmp(s, "deny:", 5)) {
		e = deny_errno(s + 5);
		if (e <= 0)
			return -1;
		*verdict = FSGATE_VERDICT_DENY;
		*err = (uint32_t)e;
		return 0;
	}
	if (parse_verdict(s, verdict))
		return -1;
	*err = 0;
	return 0;
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

int parse_persist_name(const char *s, size_t len, char *name)
{
	size_t i;

	if (!len || len >= FSGATE_NAME_MAX || !is_alnum(s[0]))
		return -1;
	for (i = 1; i < len; i++)
		if (!is_alnum(s[i]) && !strchr("._@:-", s[i]))
			return -1;
	memset(name, 0, FSGATE_NAME_MAX);
	memcpy(name, s, len);
	return 0;
}

int parse_persist(const char *s, int (*deny_errno)(const char *name),
		  struct fsgate_persist *out)
{
	struct fsgate_persist p = {
		.size = sizeof(p),
		.owner = FSGATE_PERSIST_OWNER_SELF,
		.absent_verdict = FSGATE_VERDICT_DENY,
		.absent_ms = 30000,
		.flags = FSGATE_PERSIST_UNTIL_REMOVED,
	};
	const char *end, *field;
	char word[64];
	size_t len;

	if (!s)
		return -1;
	end = strchr(s, ',');
	if (parse_persist_name(s, end ? (size_t)(end - s) : strlen(s), p.name))
		return -1;
	while (end) {
		field = end + 1;
		end = strchr(field, ',');
		len = end ? (size_t)(end - field) : strlen(field);
		if (len >= sizeof(word))
			return -1;
		memcpy(word, field, len);
		word[len] = '\0';
		if (!strncmp(word, "absent=", 7)) {
			if (parse_absent(word + 7, deny_errno, &p.absent_verdict,
					 &p.absent_errno))
				return -1;
		} else if (!strncmp(word, "absent-ms=", 10)) {
			if (parse_number(word + 10, UINT32_MAX, &p.absent_ms))
				return -1;
		} else if (!strncmp(word, "linger-ms=", 10)) {
			if (parse_number(word + 10, UINT32_MAX, &p.linger_ms) ||
			    !p.linger_ms)
				return -1;
			p.flags &= ~FSGATE_PERSIST_UNTIL_REMOVED;
		} else {
			return -1;
		}
	}
	*out = p;
	return 0;
}

int parse_verdict(const char *s, uint32_t *out)
{
	if (s && !strcmp(s, "allow"))
		*out = FSGATE_VERDICT_ALLOW;
	else if (s && !strcmp(s, "deny"))
		*out = FSGATE_VERDICT_DENY;
	else
		return -1;
	return 0;
}
