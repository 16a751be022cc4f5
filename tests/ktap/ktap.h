/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count leaf results in KTAP (KUnit) and TAP (kselftest) output.
 *
 * Feed lines with ktap_parse_line() or ktap_parse_stream(), then call
 * ktap_parser_finish() once: it checks the plans of streams still open
 * (so a truncated run fails), hands every failure to the report
 * callback and returns the counts.
 */
#ifndef _FSGATE_KTAP_H
#define _FSGATE_KTAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KTAP_MAX_DEPTH	16
#define KTAP_NAME_MAX	256

struct ktap_counts {
	unsigned long passed;
	unsigned long failed;
	unsigned long skipped;
};

/*
 * @failure is "<path>" or "<path>/plan (expected N, got M)", where path
 * is the parents' names and the test's own name joined with '/'.
 */
typedef void (*ktap_report_fn)(void *ctx, const char *failure);

/* One open (sub)test stream, identified by its indentation. */
struct ktap_level {
	int indent;
	long plan;		/* -1 until a "1..N" line is seen */
	bool skip_all;		/* the plan was "1..0 # SKIP ..." */
	long nresults;
	/* a deeper line came since our last result: next one is a parent */
	bool has_children;
	size_t child_fail_start;	/* p->nfail when has_children was set */
	size_t fail_start;		/* p->nfail when this level opened */
	char subtest[KTAP_NAME_MAX];	/* from "# Subtest: name" */
};

struct ktap_parser {
	struct ktap_counts counts;
	struct ktap_level levels[KTAP_MAX_DEPTH];
	int depth;
	/*
	 * Failure paths are held back until the end because a parent's
	 * name only appears after its children's results.
	 */
	char **fails;
	size_t nfail;
	size_t fail_cap;
	ktap_report_fn report;
	void *report_ctx;
};

void ktap_parser_init(struct ktap_parser *p, ktap_report_fn report,
		      void *ctx);
void ktap_parse_line(struct ktap_parser *p, const char *line);
/* Returns 0, or -1 with errno set if reading @f failed. */
int ktap_parse_stream(struct ktap_parser *p, FILE *f);
/* Releases all memory; re-init the parser before using it again. */
struct ktap_counts ktap_parser_finish(struct ktap_parser *p);

#endif /* _FSGATE_KTAP_H */
