/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count leaf results in KTAP (KUnit) and TAP (kselftest) output.
 *
 * Feed lines with ktap_parse_line() or ktap_parse_stream(), then call
 * ktap_parser_finish() once: it checks the plans of streams still open
 * (so a truncated run fails), hands every failure to the report
 * callback and returns the counts. With ktap_parser_list() it also hands
 * every leaf result, passed, failed or skipped, to a list callback.
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

enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

/*
 * Every leaf in the order of the input, @path as for failures; @reason
 * is a skip's directive text ("" if none, and for the other results).
 */
typedef void (*ktap_list_fn)(void *ctx, enum ktap_status status,
			     const char *path, const char *reason);

/* One leaf held back until the end: its path grows as parents close. */
struct ktap_entry {
	enum ktap_status status;
	char *path;
	char *reason;
};

/* One open (sub)test stream, identified by its indentation. */
struct ktap_level {
	int indent;
	long plan;		/* -1 until a "1..N" line is seen */
	bool skip_all;		/* the plan was "1..0 # SKIP ..." */
	char skip_reason[KTAP_NAME_MAX];	/* what followed that SKIP */
	long nresults;
	/* a deeper line came since our last result: next one is a parent */
	bool has_children;
	/* p->counts.failed when has_children was set */
	unsigned long child_failed;
	size_t entry_start;		/* p->nentries when this level opened */
	unsigned long failed_start;	/* p->counts.failed then */
	char subtest[KTAP_NAME_MAX];	/* from "# Subtest: name" */
	/*
	 * From the kselftest harness's "#  RUN name ...": the name of a
	 * result that has none of its own (6.1's harness prints a skipped
	 * case as "ok 4 # SKIP reason").
	 */
	char run[KTAP_NAME_MAX];
};

struct ktap_parser {
	struct ktap_counts counts;
	struct ktap_level levels[KTAP_MAX_DEPTH];
	int depth;
	/*
	 * Failures (and, when listing, every leaf) are held back until the
	 * end because a parent's name only appears after its children's
	 * results.
	 */
	struct ktap_entry *entries;
	size_t nentries;
	size_t entry_cap;
	ktap_report_fn report;
	void *report_ctx;
	ktap_list_fn list;
	void *list_ctx;
};

void ktap_parser_init(struct ktap_parser *p, ktap_report_fn report,
		      void *ctx);
/* Call before the first line to have every leaf handed to @list. */
void ktap_parser_list(struct ktap_parser *p, ktap_list_fn list, void *ctx);
void ktap_parse_line(struct ktap_parser *p, const char *line);
/* Returns 0, or -1 with errno set if reading @f failed. */
int ktap_parse_stream(struct ktap_parser *p, FILE *f);
/* Releases all memory; re-init the parser before using it again. */
struct ktap_counts ktap_parser_finish(struct ktap_parser *p);

#endif /* _FSGATE_KTAP_H */
