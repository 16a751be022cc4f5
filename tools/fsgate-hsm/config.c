// SPDX-License-Identifier: GPL-2.0
/* fsgate-hsm's settings from its configuration file; see fsgate-hsm(8). */
#include <errno.h>
#include <string.h>

#include "common/conf.h"
#include "hsm.h"

void hsm_settings_default(struct hsm_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->store = "/var/lib/fsgate-hsm";
	s->priority = FSGATE_PRIORITY_PRE_CONTENT;
	s->error_errno = EIO;
	s->threads = 4;
	s->queue = 64;
	/* A stub must never read as zeros, the daemon away or not. */
	group_persist_default(&s->persist, "fsgate-hsm", 60000, EIO);
}

static const char *set(const char *key, const char *value, void *arg)
{
	struct hsm_settings *s = arg;
	unsigned long n;

	if (!strcmp(key, "store")) {
		if (value[0] != '/')
			return "not an absolute path";
		s->store = strdup(value);
		return s->store ? NULL : "out of memory";
	}
	if (!strcmp(key, "watch"))
		return conf_add_path(value, s->watch, &s->nwatch, HSM_LIST_MAX);
	if (!strcmp(key, "priority"))
		return conf_set_priority(value, &s->priority);
	if (!strcmp(key, "timeout_ms"))
		return conf_set_timeout_ms(value, &s->timeout_ms);
	if (!strcmp(key, "threads")) {
		if (conf_uint(value, 64, &n) < 0 || !n)
			return "not a number in 1..64";
		s->threads = n;
		return NULL;
	}
	if (!strcmp(key, "queue")) {
		if (conf_uint(value, 4096, &n) < 0)
			return "not a number in 0..4096";
		s->queue = n;
		return NULL;
	}
	if (!strcmp(key, "error_errno"))
		return conf_set_deny_errno(value, &s->error_errno);
	if (group_persist_key(key))
		return group_persist_set(&s->persist, key, value);
	return "unknown setting";
}

int hsm_settings_read(struct hsm_settings *s, const char *path, int optional)
{
	return conf_read(path, optional, set, s);
}
