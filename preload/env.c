// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The variables that configure the groups the layer makes. Values are
 * parsed strictly, by the parser the examples share (common/parse.c): a
 * typo must not quietly give a scanner the default priority or a
 * fail-open timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "preload.h"

int preload_parse_priority(const char *s, uint32_t *out)
{
	return parse_number(s, FSGATE_PRIORITY_MAX, out);
}

/* Milliseconds, 0 for the module's default, or "none" for no bound. */
int preload_parse_timeout(const char *s, uint32_t *out)
{
	if (s && !strcmp(s, "none")) {
		*out = FSGATE_TIMEOUT_NONE;
		return 0;
	}
	return parse_number(s, FSGATE_TIMEOUT_NONE - 1, out);
}

int preload_parse_verdict(const char *s, uint32_t *out)
{
	return parse_verdict(s, out);
}

/* "NAME[,absent=...][,absent-ms=MS][,linger-ms=MS]": see parse.h. */
int preload_parse_persist(const char *s, struct fsgate_persist *out)
{
	return parse_persist(s, fsgate_deny_errno_parse, out);
}

int preload_parse_switch(const char *s, bool *out)
{
	if (!s || (strcmp(s, "0") && strcmp(s, "1")))
		return -1;
	*out = s[0] == '1';
	return 0;
}

static int set_priority(const char *s, struct preload_env *env)
{
	return preload_parse_priority(s, &env->priority);
}

static int set_timeout(const char *s, struct preload_env *env)
{
	return preload_parse_timeout(s, &env->timeout_ms);
}

static int set_verdict(const char *s, struct preload_env *env)
{
	return preload_parse_verdict(s, &env->timeout_verdict);
}

static int set_orphan_verdict(const char *s, struct preload_env *env)
{
	return preload_parse_verdict(s, &env->orphan_verdict);
}

static int set_fallback(const char *s, struct preload_env *env)
{
	return preload_parse_switch(s, &env->fallback);
}

static int set_exclude_self(const char *s, struct preload_env *env)
{
	return preload_parse_switch(s, &env->exclude_self);
}

static int set_report_proc(const char *s, struct preload_env *env)
{
	return preload_parse_switch(s, &env->report_proc);
}

static int set_persist(const char *s, struct preload_env *env)
{
	env->persist = true;
	return preload_parse_persist(s, &env->persist_req);
}

static const struct variable {
	const char *name;
	const char *want;
	int (*set)(const char *s, struct preload_env *env);
} variables[] = {
	{ "FSGATE_PRIORITY", "a priority from 0 to 65535", set_priority },
	{ "FSGATE_TIMEOUT_MS", "milliseconds or \"none\"", set_timeout },
	{ "FSGATE_TIMEOUT_VERDICT", "\"allow\" or \"deny\"", set_verdict },
	{ "FSGATE_ORPHAN_VERDICT", "\"allow\" or \"deny\"", set_orphan_verdict },
	{ "FSGATE_FALLBACK", "0 or 1", set_fallback },
	{ "FSGATE_EXCLUDE_SELF", "0 or 1", set_exclude_self },
	{ "FSGATE_REPORT_PROC", "0 or 1", set_report_proc },
	{ "FSGATE_PERSIST",
	  "NAME[,absent=allow|deny[:ERRNO]][,absent-ms=MS][,linger-ms=MS]",
	  set_persist },
};

const char *preload_env_read(struct preload_env *env)
{
	static _Thread_local char msg[160];
	const struct variable *var;
	const char *v;

	*env = (struct preload_env){
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = FSGATE_TIMEOUT_DEFAULT,
		.timeout_verdict = FSGATE_VERDICT_DEFAULT,
		.orphan_verdict = FSGATE_VERDICT_DEFAULT,
	};
	for (var = variables; var < variables + sizeof(variables) /
	     sizeof(variables[0]); var++) {
		v = getenv(var->name);
		if (v && var->set(v, env)) {
			snprintf(msg, sizeof(msg), "%s=%.40s is not valid: want %s",
				 var->name, v, var->want);
			return msg;
		}
	}
	return NULL;
}
