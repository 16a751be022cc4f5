// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP/TAP leaf result counter, see Documentation/dev-tools/ktap.rst.
 *
 * Nesting is tracked by indentation only: a stack of open levels with
 * strictly increasing indent.  A result is a parent when some deeper
 * line came since the previous result at its indent.
 */
#include <ctype.h>
#include <err.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

struct ktap_result {
	enum ktap_status status;
	bool unnamed;			/* @name is only its number */
	char name[KTAP_NAME_MAX];
	char reason[KTAP_NAME_MAX];	/* a skip's directive text */
};

void ktap_parser_init(struct ktap_parser *p, ktap_report_fn report,
		      void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->report = report;
	p->report_ctx = ctx;
}

void ktap_parser_list(struct ktap_parser *p, ktap_list_fn list, void *ctx)
{
	p->list = list;
	p->list_ctx = ctx;
}

/*
 * Hold back a leaf: every failure, and every other leaf when listing.
 * An empty @path stands for the name of the parent that closes it.
 */
static void add_entry(struct ktap_parser *p, enum ktap_status status,
		      const char *reason, const char *path)
{
	struct ktap_entry *e;

	if (p->nentries == p->entry_cap) {
		p->entry_cap = p->entry_cap ? 2 * p->entry_cap : 16;
		p->entries = reallocarray(p->entries, p->entry_cap,
					  sizeof(*p->entries));
		if (!p->entries)
			err(2, "ktap");
	}
	e = &p->entries[p->nentries++];
	e->status = status;
	e->path = strdup(path);
	e->reason = strdup(reason);
	if (!e->path || !e->reason)
		err(2, "ktap");
}

static void add_failure(struct ktap_parser *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		err(2, "ktap");
	va_end(ap);
	add_entry(p, KTAP_FAIL, "", s);
	free(s);
	p->counts.failed++;
}

/* A leaf that passed or was skipped: only a list needs its name. */
static void add_leaf(struct ktap_parser *p, enum ktap_status status,
		     const char *reason, const char *path)
{
	if (status == KTAP_PASS)
		p->counts.passed++;
	else
		p->counts.skipped++;
	if (p->list)
		add_entry(p, status, reason, path);
}

/*
 * @name is the parent result that closes this level, or NULL when the
 * stream just ended without one (then "# Subtest:" is the best name).
 */
static void close_level(struct ktap_parser *p, const char *name)
{
	struct ktap_level *l = &p->levels[--p->depth];
	char *path;

	/*
	 * A crash mid-stream leaves fewer results than planned. "1..0" is
	 * a skipped test program when it says SKIP, and counts as one
	 * skip; without SKIP it ran nothing, which is no pass.
	 */
	if (l->plan == 0 && !l->nresults && l->skip_all)
		add_leaf(p, KTAP_SKIP, l->skip_reason, "");
	else if (l->plan == 0 && !l->nresults)
		add_failure(p, "plan (1..0: nothing ran)");
	else if (l->plan >= 0 && l->nresults != l->plan)
		add_failure(p, "plan (expected %ld, got %ld)",
			    l->plan, l->nresults);
	if (!name)
		name = l->subtest;
	/* Everything held back from this stream is below @name. */
	for (size_t i = l->entry_start; *name && i < p->nentries; i++) {
		struct ktap_entry *e = &p->entries[i];

		if (asprintf(&path, *e->path ? "%s/%s" : "%s", name,
			     e->path) < 0)
			err(2, "ktap");
		free(e->path);
		e->path = path;
	}
}

static struct ktap_level *top_level(struct ktap_parser *p)
{
	return p->depth ? &p->levels[p->depth - 1] : NULL;
}

static struct ktap_level *push_level(struct ktap_parser *p, int indent)
{
	struct ktap_level *parent = top_level(p), *l;

	/* Absurdly deep nesting: fold it into the deepest level we have. */
	if (p->depth == KTAP_MAX_DEPTH)
		return parent;
	if (parent && !parent->has_children) {
		parent->has_children = true;
		parent->child_failed = p->counts.failed;
	}
	l = &p->levels[p->depth++];
	memset(l, 0, sizeof(*l));
	l->indent = indent;
	l->plan = -1;
	l->entry_start = p->nentries;
	l->failed_start = p->counts.failed;
	return l;
}

/*
 * Make the level at @indent the innermost one: close deeper levels (the
 * shallowest of them is named @name, if given) and open one if needed.
 */
static struct ktap_level *enter_level(struct ktap_parser *p, int indent,
				      const char *name)
{
	struct ktap_level *l;
	unsigned long closed_failed = 0;
	bool closed = false;

	while ((l = top_level(p)) && l->indent > indent) {
		bool shallowest = p->depth == 1 ||
				  p->levels[p->depth - 2].indent <= indent;

		/* the last one closed is the shallowest */
		closed_failed = l->failed_start;
		closed = true;
		close_level(p, shallowest ? name : NULL);
	}
	if (l && l->indent == indent)
		return l;
	l = push_level(p, indent);
	/* Deeper lines came before any at this indent: still a parent. */
	if (closed && !l->has_children) {
		l->has_children = true;
		l->child_failed = closed_failed;
	}
	return l;
}

/* A version line always starts a fresh stream at its indent. */
static void start_stream(struct ktap_parser *p, int indent)
{
	if (enter_level(p, indent, NULL)->indent == indent)
		close_level(p, NULL);
	push_level(p, indent);
}

static void count_result(struct ktap_parser *p, int indent,
			 const struct ktap_result *r)
{
	struct ktap_level *l = enter_level(p, indent, r->name);
	const char *name = r->name;

	l->nresults++;
	if (l->has_children) {
		/*
		 * Parents aren't leaves, but a failed parent whose leaves
		 * all passed means the test died half-way: count it.
		 */
		l->has_children = false;
		if (r->status == KTAP_FAIL &&
		    p->counts.failed == l->child_failed)
			add_failure(p, "%s", r->name);
		l->run[0] = '\0';
		return;
	}
	if (r->unnamed && l->run[0])
		name = l->run;
	if (r->status == KTAP_FAIL)
		add_failure(p, "%s", name);
	else
		add_leaf(p, r->status, r->reason, name);
	l->run[0] = '\0';
}

/* "ok N [-] [name] [# directive]" and "not ok ..." */
static bool parse_result(const char *s, struct ktap_result *r)
{
	const char *hash, *end;
	char *num_end;
	long num;

	r->status = KTAP_PASS;
	r->reason[0] = '\0';
	if (!strncmp(s, "ok ", 3)) {
		s += 3;
	} else if (!strncmp(s, "not ok ", 7)) {
		r->status = KTAP_FAIL;
		s += 7;
	} else {
		return false;
	}
	if (!isdigit((unsigned char)*s))
		return false;
	num = strtol(s, &num_end, 10);
	s = num_end;
	if (*s && *s != ' ')
		return false;
	s += strspn(s, " ");
	if (s[0] == '-' && (s[1] == ' ' || !s[1]))
		s += 1 + strspn(s + 1, " ");

	hash = *s == '#' ? s : strstr(s, " #");
	end = hash ? hash : s + strlen(s);
	while (end > s && end[-1] == ' ')
		end--;
	if (hash) {
		hash += strspn(hash, " #");
		/* TAP: skipped and to-do results are neither pass nor fail */
		if (!strncasecmp(hash, "SKIP", 4) ||
		    !strncasecmp(hash, "TODO", 4)) {
			r->status = KTAP_SKIP;
			hash += 4;
			snprintf(r->reason, sizeof(r->reason), "%s",
				 hash + strspn(hash, " "));
		}
	}
	/* An unnamed test still needs a path component: use its number. */
	r->unnamed = end == s;
	if (end == s)
		snprintf(r->name, sizeof(r->name), "%ld", num);
	else
		snprintf(r->name, sizeof(r->name), "%.*s", (int)(end - s), s);
	return true;
}

/*
 * "1..N [# SKIP reason]": @skip tells whether the directive is SKIP,
 * @reason (KTAP_NAME_MAX long) what follows it.
 */
static bool parse_plan(const char *s, long *plan, bool *skip, char *reason)
{
	char *end;

	if (strncmp(s, "1..", 3) || !isdigit((unsigned char)s[3]))
		return false;
	*plan = strtol(s + 3, &end, 10);
	if (*end && *end != ' ')
		return false;
	end += strspn(end, " ");
	*skip = *end == '#' &&
		!strncasecmp(end + 1 + strspn(end + 1, " "), "SKIP", 4);
	reason[0] = '\0';
	if (*skip) {
		end += 1 + strspn(end + 1, " ") + 4;
		snprintf(reason, KTAP_NAME_MAX, "%s", end + strspn(end, " "));
	}
	return true;
}

static bool parse_subtest(const char *s, char *name)
{
	if (*s != '#')
		return false;
	s += 1 + strspn(s + 1, " ");
	if (strncmp(s, "Subtest:", 8))
		return false;
	snprintf(name, KTAP_NAME_MAX, "%s", s + 8 + strspn(s + 8, " "));
	return true;
}

static void set_plan(struct ktap_level *l, long plan, bool skip,
		     const char *reason)
{
	l->plan = plan;
	l->skip_all = skip;
	snprintf(l->skip_reason, sizeof(l->skip_reason), "%s", reason);
}

/*
 * The kselftest harness's "#  RUN           name ...": @name is what a
 * following unnamed result at this indent stands for.
 */
static bool parse_run(const char *s, char *name)
{
	size_t len;

	if (*s != '#')
		return false;
	s += 1 + strspn(s + 1, " ");
	if (strncmp(s, "RUN ", 4))
		return false;
	s += 4 + strspn(s + 4, " ");
	len = strlen(s);
	if (len > 4 && !strcmp(s + len - 4, " ..."))
		len -= 4;
	snprintf(name, KTAP_NAME_MAX, "%.*s", (int)len, s);
	return true;
}

/* "[    1.234567] " as printed in front of every dmesg line */
static const char *skip_timestamp(const char *s)
{
	size_t n;

	if (*s != '[')
		return s;
	n = 1 + strspn(s + 1, " 0123456789.");
	if (s[n] != ']')
		return s;
	return s + n + 1 + (s[n + 1] == ' ');
}

void ktap_parse_line(struct ktap_parser *p, const char *line)
{
	const char *s = skip_timestamp(line);
	char name[KTAP_NAME_MAX], reason[KTAP_NAME_MAX], *text;
	struct ktap_level *l;
	struct ktap_result r;
	int indent = 0;
	bool skip;
	long plan;

	for (; *s == ' ' || *s == '\t'; s++)
		indent += *s == '\t' ? 4 : 1;
	/* a copy without the line end, so names never carry a '\r' */
	text = strndup(s, strcspn(s, "\r\n"));
	if (!text)
		err(2, "ktap");
	if (!strncmp(text, "KTAP version ", 13) ||
	    !strncmp(text, "TAP version ", 12))
		start_stream(p, indent);
	else if (parse_plan(text, &plan, &skip, reason))
		set_plan(enter_level(p, indent, NULL), plan, skip, reason);
	else if (parse_result(text, &r))
		count_result(p, indent, &r);
	else if (parse_subtest(text, name))
		strcpy(enter_level(p, indent, NULL)->subtest, name);
	/* Only within a stream at this indent: it opens or closes nothing. */
	else if (parse_run(text, name) && (l = top_level(p)) &&
		 l->indent == indent)
		strcpy(l->run, name);
	/* anything else is a diagnostic or unrelated log noise */
	free(text);
}

int ktap_parse_stream(struct ktap_parser *p, FILE *f)
{
	char *line = NULL;
	size_t size = 0;

	while (getline(&line, &size, f) >= 0)
		ktap_parse_line(p, line);
	free(line);
	return ferror(f) ? -1 : 0;
}

struct ktap_counts ktap_parser_finish(struct ktap_parser *p)
{
	while (p->depth)
		close_level(p, NULL);
	for (size_t i = 0; i < p->nentries; i++) {
		struct ktap_entry *e = &p->entries[i];

		if (e->status == KTAP_FAIL && p->report)
			p->report(p->report_ctx, e->path);
		if (p->list)
			p->list(p->list_ctx, e->status, e->path, e->reason);
		free(e->path);
		free(e->reason);
	}
	free(p->entries);
	return p->counts;
}
