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

enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

struct ktap_result {
	enum ktap_status status;
	char name[KTAP_NAME_MAX];
};

void ktap_parser_init(struct ktap_parser *p, ktap_report_fn report,
		      void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->report = report;
	p->report_ctx = ctx;
}

static void add_failure(struct ktap_parser *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (p->nfail == p->fail_cap) {
		p->fail_cap = p->fail_cap ? 2 * p->fail_cap : 16;
		p->fails = reallocarray(p->fails, p->fail_cap,
					sizeof(*p->fails));
		if (!p->fails)
			err(2, "ktap");
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		err(2, "ktap");
	va_end(ap);
	p->fails[p->nfail++] = s;
	p->counts.failed++;
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
		p->counts.skipped++;
	else if (l->plan == 0 && !l->nresults)
		add_failure(p, "plan (1..0: nothing ran)");
	else if (l->plan >= 0 && l->nresults != l->plan)
		add_failure(p, "plan (expected %ld, got %ld)",
			    l->plan, l->nresults);
	if (!name)
		name = l->subtest;
	/* Everything that failed in this stream is below @name. */
	for (size_t i = l->fail_start; *name && i < p->nfail; i++) {
		if (asprintf(&path, "%s/%s", name, p->fails[i]) < 0)
			err(2, "ktap");
		free(p->fails[i]);
		p->fails[i] = path;
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
		parent->child_fail_start = p->nfail;
	}
	l = &p->levels[p->depth++];
	memset(l, 0, sizeof(*l));
	l->indent = indent;
	l->plan = -1;
	l->fail_start = p->nfail;
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
	size_t closed_start = SIZE_MAX;

	while ((l = top_level(p)) && l->indent > indent) {
		bool shallowest = p->depth == 1 ||
				  p->levels[p->depth - 2].indent <= indent;

		closed_start = l->fail_start;
		close_level(p, shallowest ? name : NULL);
	}
	if (l && l->indent == indent)
		return l;
	l = push_level(p, indent);
	/* Deeper lines came before any at this indent: still a parent. */
	if (closed_start != SIZE_MAX && !l->has_children) {
		l->has_children = true;
		l->child_fail_start = closed_start;
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

	l->nresults++;
	if (l->has_children) {
		/*
		 * Parents aren't leaves, but a failed parent whose leaves
		 * all passed means the test died half-way: count it.
		 */
		l->has_children = false;
		if (r->status == KTAP_FAIL && p->nfail == l->child_fail_start)
			add_failure(p, "%s", r->name);
		return;
	}
	if (r->status == KTAP_PASS)
		p->counts.passed++;
	else if (r->status == KTAP_SKIP)
		p->counts.skipped++;
	else
		add_failure(p, "%s", r->name);
}

/* "ok N [-] [name] [# directive]" and "not ok ..." */
static bool parse_result(const char *s, struct ktap_result *r)
{
	const char *hash, *end;
	char *num_end;
	long num;

	r->status = KTAP_PASS;
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
		    !strncasecmp(hash, "TODO", 4))
			r->status = KTAP_SKIP;
	}
	/* An unnamed test still needs a path component: use its number. */
	if (end == s)
		snprintf(r->name, sizeof(r->name), "%ld", num);
	else
		snprintf(r->name, sizeof(r->name), "%.*s", (int)(end - s), s);
	return true;
}

/* "1..N [# SKIP reason]": @skip tells whether the directive is SKIP. */
static bool parse_plan(const char *s, long *plan, bool *skip)
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

static void set_plan(struct ktap_level *l, long plan, bool skip)
{
	l->plan = plan;
	l->skip_all = skip;
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
	char name[KTAP_NAME_MAX], *text;
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
	else if (parse_plan(text, &plan, &skip))
		set_plan(enter_level(p, indent, NULL), plan, skip);
	else if (parse_result(text, &r))
		count_result(p, indent, &r);
	else if (parse_subtest(text, name))
		strcpy(enter_level(p, indent, NULL)->subtest, name);
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
	for (size_t i = 0; i < p->nfail; i++) {
		if (p->report)
			p->report(p->report_ctx, p->fails[i]);
		free(p->fails[i]);
	}
	free(p->fails);
	return p->counts;
}
