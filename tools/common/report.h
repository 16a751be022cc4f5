/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The group list as fsgatectl prints it for other programs: one group
 * as a JSON object (groups --json), and the module with every group in
 * the Prometheus text exposition format (metrics), for node_exporter's
 * textfile collector.
 */
#ifndef TOOLS_REPORT_H
#define TOOLS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <fsgate.h>

/* A module parameter's value, as fsgatectl reads it. */
struct report_param {
	const char *name;
	unsigned long long value;
};

/*
 * What metrics says of the module as a whole. @loaded 0: the rest is
 * not looked at. @abi 0: the module did not report its version.
 */
struct report_module {
	int loaded;
	const char *version;
	unsigned int abi;
	const struct report_param *params;
	size_t nparams;
};

/*
 * A verdict policy as `fsgatectl group create` takes it: "allow", "deny"
 * or "deny:ERRNO" (@verdict FSGATE_VERDICT_*, @err its errno), in @buf.
 */
const char *report_verdict_name(unsigned int verdict, unsigned int err,
				char *buf, size_t len);

/*
 * A persistent group's absent verdict as `fsgatectl group create
 * --absent` takes it: "allow", "deny" or "deny:ERRNO", in @buf of @len.
 */
const char *report_absent_name(const struct fsgate_group_info *g, char *buf,
			       size_t len);

/*
 * @g as a JSON object on @f: every counter, persist null or an object,
 * and policy and marks_by_type null or objects.
 */
void report_group_json(FILE *f, const struct fsgate_group_info *g);

/*
 * @s as the exposition format's label value, quotes included, on @f:
 * backslash, double quote and newline escaped (\\, \", \n). Other control
 * bytes and bytes past ASCII (a comm is bytes, not always UTF-8, which
 * the format requires) are written as '?'.
 */
void report_label_value(FILE *f, const char *s);

/*
 * @m and the @n groups at @g in the text exposition format (version
 * 0.0.4) on @f: each family's HELP and TYPE lines, then its samples.
 * Counters are named _total; queued, pending, marks, cache entries and
 * attached fds are gauges. Groups are labelled id, comm, class and
 * priority, and name for a persistent group.
 */
void report_metrics(FILE *f, const struct report_module *m,
		    const struct fsgate_group_info *g, size_t n);

#endif /* TOOLS_REPORT_H */
