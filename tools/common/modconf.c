// SPDX-License-Identifier: GPL-2.0
/* See modconf.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modconf.h"
#include "replace.h"

#define WORDS " \t\n"

/* The file as it will be: its lines, and the options in one list. */
struct modconf {
	char **lines;		/* NULL where the options line goes */
	size_t nlines;
	char **opts;		/* "NAME=VALUE", malloc()ed */
	size_t nopts;
	int placed;		/* a NULL in @lines holds the options */
};

static int push(char ***list, size_t *n, char *s)
{
	char **more = realloc(*list, (*n + 1) * sizeof(**list));

	if (!more)
		return -1;
	more[(*n)++] = s;
	*list = more;
	return 0;
}

/* NAME=VALUE into @c: in place of its NAME's value, or appended. */
static int set_opt(struct modconf *c, const char *opt)
{
	size_t len = strcspn(opt, "=");
	char *copy;
	size_t i;

	for (i = 0; i < c->nopts; i++)
		if (!strncmp(c->opts[i], opt, len) && c->opts[i][len] == '=')
			break;
	copy = strdup(opt);
	if (!copy)
		return -1;
	if (i < c->nopts) {
		free(c->opts[i]);
		c->opts[i] = copy;
		return 0;
	}
	if (push(&c->opts, &c->nopts, copy) < 0) {
		free(copy);
		return -1;
	}
	return 0;
}

/* An "options @module" line's words into @c; 0 if @line is another. */
static int take_options(struct modconf *c, const char *line,
			const char *module, int *taken)
{
	char *copy = strdup(line), *save, *word;
	int ret = 0;

	*taken = 0;
	if (!copy)
		return -1;
	word = strtok_r(copy, WORDS, &save);
	if (!word || strcmp(word, "options"))
		goto out;
	word = strtok_r(NULL, WORDS, &save);
	if (!word || strcmp(word, module))
		goto out;
	*taken = 1;
	while (!ret && (word = strtok_r(NULL, WORDS, &save)))
		ret = set_opt(c, word);
out:
	free(copy);
	return ret;
}

static int read_conf(struct modconf *c, const char *path, const char *module)
{
	char *line = NULL;
	size_t cap = 0;
	int taken, ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (!ret && getline(&line, &cap, f) >= 0) {
		ret = take_options(c, line, module, &taken);
		if (ret || (taken && c->placed))
			continue;
		c->placed |= taken;
		ret = push(&c->lines, &c->nlines, taken ? NULL : line);
		if (!taken)
			line = NULL, cap = 0;
	}
	if (!ret && ferror(f)) {
		errno = EIO;
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

struct write_arg {
	const struct modconf *c;
	const char *module;
	int fresh;
};

static void write_options(FILE *f, const struct write_arg *a)
{
	size_t i;

	fprintf(f, "options %s", a->module);
	for (i = 0; i < a->c->nopts; i++)
		fprintf(f, " %s", a->c->opts[i]);
	putc('\n', f);
}

static int write_conf(FILE *f, void *arg)
{
	const struct write_arg *a = arg;
	size_t i;

	if (a->fresh)
		fprintf(f, "# %s's parameters at load, written by fsgatectl params --persist\n",
			a->module);
	for (i = 0; i < a->c->nlines; i++) {
		if (!a->c->lines[i]) {
			write_options(f, a);
			continue;
		}
		fputs(a->c->lines[i], f);
		if (!strchr(a->c->lines[i], '\n'))
			putc('\n', f);
	}
	if (!a->c->placed)
		write_options(f, a);
	return 0;
}

int modconf_set(const char *path, const char *module,
		const char *const *set, size_t n)
{
	struct modconf c = { 0 };
	struct write_arg a = { &c, module, 0 };
	int ret = -1, err;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr(set[i], '=') || set[i][0] == '=' ||
		    set[i][strcspn(set[i], WORDS)]) {
			errno = EINVAL;
			return -1;
		}
	if (read_conf(&c, path, module) < 0)
		goto out;
	a.fresh = !c.nlines && !c.placed;
	for (i = 0; i < n; i++)
		if (set_opt(&c, set[i]) < 0)
			goto out;
	ret = file_replace(path, 0644, write_conf, &a);
out:
	err = errno;
	for (i = 0; i < c.nlines; i++)
		free(c.lines[i]);
	for (i = 0; i < c.nopts; i++)
		free(c.opts[i]);
	free(c.lines);
	free(c.opts);
	errno = err;
	return ret;
}
