// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-scan's YARA rules: sources (.yar, .yara) are compiled together,
 * a compiled file (yarac's output) is loaded as it is; a directory
 * stands for the rule files in it. YARA scans with one set of rules from
 * up to YR_MAX_THREADS threads at once.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yara.h>

#include "common/log.h"
#include "scan.h"

struct rules {
	YR_RULES *yr;
	unsigned int count;
};

int rules_init(void)
{
	int err = yr_initialize();

	if (err != ERROR_SUCCESS) {
		log_err("cannot initialize libyara (error %d)", err);
		return -1;
	}
	return 0;
}

void rules_exit(void)
{
	yr_finalize();
}

static void compiler_message(int level, const char *file, int line,
			     const YR_RULE *rule, const char *message,
			     void *arg)
{
	(void)rule;
	(void)arg;
	if (level == YARA_ERROR_LEVEL_ERROR)
		log_err("rules: %s:%d: %s", file ? file : "?", line, message);
	else
		log_warn("rules: %s:%d: %s", file ? file : "?", line, message);
}

/* Whether @path holds compiled rules: they start with "YARA". */
static int is_compiled(const char *path)
{
	char magic[4];
	FILE *f = fopen(path, "rbe");
	int yes;

	if (!f)
		return 0;
	yes = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "YARA", 4);
	fclose(f);
	return yes;
}

static int is_source_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && (!strcmp(dot, ".yar") || !strcmp(dot, ".yara"));
}

static int add_source(YR_COMPILER *c, const char *path)
{
	FILE *f = fopen(path, "re");
	int errors;

	if (!f) {
		log_err("rules: cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	errors = yr_compiler_add_file(c, f, NULL, path);
	fclose(f);
	return errors ? -1 : 0;
}

/*
 * Add @path to @c (a source, or each source in a directory); a compiled
 * file goes to *@compiled instead, and must be the only rules given.
 */
static int add_path(YR_COMPILER *c, const char *path, unsigned int *sources,
		    const char **compiled)
{
	char file[PATH_MAX];
	struct dirent **names;
	struct stat st;
	int n, i, ret = 0;

	if (stat(path, &st) < 0) {
		log_err("rules: %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (is_compiled(path)) {
			*compiled = path;
			return 0;
		}
		(*sources)++;
		return add_source(c, path);
	}
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		log_err("rules: %s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!ret && is_source_name(names[i]->d_name)) {
			snprintf(file, sizeof(file), "%s/%s", path,
				 names[i]->d_name);
			(*sources)++;
			ret = add_source(c, file);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

static int count_rules(YR_RULES *yr)
{
	const YR_RULE *rule;
	unsigned int n = 0;

	yr_rules_foreach(yr, rule)
		n++;
	return n;
}

struct rules *rules_load(const struct settings *s)
{
	const char *compiled = NULL;
	unsigned int sources = 0;
	struct rules *r;
	YR_COMPILER *c;
	size_t i;
	int err;

	if (!s->nrules) {
		log_err("rules: none given (rules = in the configuration, or --rules)");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || yr_compiler_create(&c) != ERROR_SUCCESS) {
		log_err("rules: out of memory");
		free(r);
		return NULL;
	}
	yr_compiler_set_callback(c, compiler_message, NULL);
	for (i = 0; i < s->nrules; i++)
		if (add_path(c, s->rules[i], &sources, &compiled) < 0)
			goto fail;
	if (compiled && (sources || s->nrules > 1)) {
		log_err("rules: compiled rules (%s) must be the only rules given",
			compiled);
		goto fail;
	}
	if (compiled)
		err = yr_rules_load(compiled, &r->yr);
	else if (!sources) {
		log_err("rules: no .yar or .yara file in %s", s->rules[0]);
		goto fail;
	} else
		err = yr_compiler_get_rules(c, &r->yr);
	if (err != ERROR_SUCCESS) {
		log_err("rules: cannot load%s%s (YARA error %d)",
			compiled ? " " : "", compiled ? compiled : "", err);
		goto fail;
	}
	yr_compiler_destroy(c);
	r->count = count_rules(r->yr);
	return r;
fail:
	yr_compiler_destroy(c);
	free(r);
	return NULL;
}

void rules_free(struct rules *r)
{
	if (!r)
		return;
	yr_rules_destroy(r->yr);
	free(r);
}

unsigned int rules_count(const struct rules *r)
{
	return r->count;
}

struct match {
	char *name;
	size_t len;
	int found;
};

static int on_scan(YR_SCAN_CONTEXT *ctx, int message, void *data, void *arg)
{
	struct match *m = arg;
	const YR_RULE *rule = data;

	(void)ctx;
	if (message != CALLBACK_MSG_RULE_MATCHING)
		return CALLBACK_CONTINUE;
	snprintf(m->name, m->len, "%s", rule->identifier);
	m->found = 1;
	return CALLBACK_ABORT;
}

int rules_scan(struct rules *r, const void *buf, size_t len, char *match,
	       size_t matchlen)
{
	struct match m = { .name = match, .len = matchlen };
	int err;

	err = yr_rules_scan_mem(r->yr, buf, len, SCAN_FLAGS_FAST_MODE,
				on_scan, &m, 0);
	if (err != ERROR_SUCCESS && !m.found) {
		snprintf(match, matchlen, "YARA error %d", err);
		return -1;
	}
	return m.found;
}
