// SPDX-License-Identifier: GPL-2.0
/* fsgate-scan's settings from its configuration file; see scan.conf(5). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "parse.h"
#include "scan.h"

void settings_default(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->priority = FSGATE_PRIORITY_CONTENT;
	s->threads = 4;
	s->queue = 256;
	s->max_size = 64ULL << 20;
	s->large_allow = 1;
	s->deny_errno = EPERM;
	s->cache = 1;
	group_persist_default(&s->persist, "fsgate-scan", 30000, 0);
}

/* Keep a copy of @value at the end of a list; NULL or why not. */
static const char *add(const char **list, size_t *n, const char *value)
{
	if (*n == LIST_MAX)
		return "too many values";
	if (!*value)
		return "empty value";
	list[*n] = strdup(value);
	if (!list[*n])
		return "out of memory";
	(*n)++;
	return NULL;
}

static const char *verdict(const char *value, int *allow)
{
	uint32_t v;

	if (parse_verdict(value, &v) < 0)
		return "neither allow nor deny";
	*allow = v == FSGATE_VERDICT_ALLOW;
	return NULL;
}

static const char *set(const char *key, const char *value, void *arg)
{
	struct settings *s = arg;
	unsigned long n;

	if (!strcmp(key, "watch"))
		return conf_add_path(value, s->watch, &s->nwatch, LIST_MAX);
	if (!strcmp(key, "rules"))
		return add(s->rules, &s->nrules, value);
	if (!strcmp(key, "exclude_path"))
		return conf_add_path(value, s->exclude_path, &s->nexclude_path,
				     LIST_MAX);
	if (!strcmp(key, "mute_exe"))
		return conf_add_path(value, s->mute_exe, &s->nmute_exe,
				     LIST_MAX);
	/*
	 * Gone, but named: a command name is whatever a process calls itself
	 * (prctl(PR_SET_NAME), or an exec through a link of that name), so
	 * it let any process's opens pass unscanned. A configuration that
	 * still has it is refused, saying why and what to use instead.
	 */
	if (!strcmp(key, "exclude_comm"))
		return "removed: any process can take a command name, so it "
		       "let anyone's opens pass unscanned; see exclude_path and "
		       "mute_exe in fsgate-scan(8)";
	if (!strcmp(key, "priority"))
		return conf_set_priority(value, &s->priority);
	if (!strcmp(key, "threads")) {
		if (conf_uint(value, 32, &n) < 0 || !n)
			return "not a number in 1..32";
		s->threads = n;
		return NULL;
	}
	if (!strcmp(key, "max_size"))
		return conf_size(value, &s->max_size) < 0 || !s->max_size ?
		       "not a size above 0 (bytes, or with K, M or G)" : NULL;
	if (!strcmp(key, "large_files"))
		return verdict(value, &s->large_allow);
	if (!strcmp(key, "fail")) {
		if (!strcmp(value, "open"))
			s->fail_closed = 0;
		else if (!strcmp(value, "closed"))
			s->fail_closed = 1;
		else
			return "neither open nor closed";
		return NULL;
	}
	if (!strcmp(key, "queue")) {
		if (conf_uint(value, 65536, &n) < 0 || !n)
			return "not a number in 1..65536";
		s->queue = n;
		return NULL;
	}
	if (!strcmp(key, "overload")) {
		s->overload_set = 1;
		return verdict(value, &s->overload_allow);
	}
	if (!strcmp(key, "timeout_ms"))
		return conf_set_timeout_ms(value, &s->timeout_ms);
	if (!strcmp(key, "deny_errno"))
		return conf_set_deny_errno(value, &s->deny_errno);
	if (!strcmp(key, "cache"))
		return conf_bool(value, &s->cache) < 0 ? "neither yes nor no" : NULL;
	if (group_persist_key(key))
		return group_persist_set(&s->persist, key, value);
	return "unknown setting";
}

int settings_read(struct settings *s, const char *path, int optional)
{
	if (conf_read(path, optional, set, s) < 0)
		return -1;
	/* Unset, overload follows fail, as absent does. */
	if (!s->overload_set)
		s->overload_allow = !s->fail_closed;
	/* With the scanner away as when it fails: fail = open allows. */
	if (!s->persist.absent_set) {
		s->persist.req.absent_verdict = s->fail_closed ?
			FSGATE_VERDICT_DENY : FSGATE_VERDICT_ALLOW;
		s->persist.req.absent_errno = 0;
	}
	return 0;
}
