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
	if (!strcmp(key, "watch")) {
		if (value[0] != '/')
			return "not an absolute path";
		if (s->nwatch == HSM_LIST_MAX)
			return "too many values";
		s->watch[s->nwatch] = strdup(value);
		return s->watch[s->nwatch++] ? NULL : "out of memory";
	}
	if (!strcmp(key, "priority")) {
		if (conf_uint(value, FSGATE_PRIORITY_MAX, &n) < 0)
			return "not a number in 0..65535";
		s->priority = n;
		return NULL;
	}
	if (!strcmp(key, "timeout_ms")) {
		if (conf_uint(value, 3600000, &n) < 0 || !n)
			return "not a number in 1..3600000";
		s->timeout_ms = n;
		return NULL;
	}
	if (!strcmp(key, "error_errno")) {
		int e = fsgate_deny_errno_parse(value);

		if (e < 0)
			return "not one of EPERM EACCES EIO EBUSY ETXTBSY EAGAIN ENOSPC EDQUOT";
		s->error_errno = e;
		return NULL;
	}
	return "unknown setting";
}

int hsm_settings_read(struct hsm_settings *s, const char *path, int optional)
{
	return conf_read(path, optional, set, s);
}
