// SPDX-License-Identifier: GPL-2.0
/* See report.h. */
#include <errno.h>
#include <inttypes.h>

#include "json.h"
#include "report.h"

/*
 * struct fsgate_stats, field by field in its order: the name JSON and
 * the metrics give it, whether it only grows (a counter) or goes up and
 * down (a gauge), and what it counts.
 */
static const struct stat_field {
	const char *name;
	int counter;
	const char *help;
} stat_fields[] = {
	{ "marks", 0, "Objects the group marks." },
	{ "queued", 0, "Events waiting to be read, permission events included." },
	{ "delivered", 1, "Events read since the group was made." },
	{ "overflows", 1, "Times the queue was full and events were dropped." },
	{ "pending", 0, "Permission events asked and not yet resolved." },
	{ "asked", 1, "Permission events the group was asked." },
	{ "answered", 1, "Permission events the group answered." },
	{ "denied", 1, "Permission events the group answered with a deny." },
	{ "timedout", 1, "Permission events resolved by the timeout verdict." },
	{ "orphaned", 1, "Permission events resolved by the orphan verdict." },
	{ "cancelled", 1, "Permission events withdrawn before an answer." },
	{ "perm_overflows", 1,
	  "Permission events resolved at once: max_pending_events were pending." },
	{ "cached", 1, "Accesses decided from the group's verdict cache." },
	{ "unopened", 1,
	  "Permission events denied because their fd could not be opened." },
	{ "cache_entries", 0, "Files the group has cached verdicts on." },
	{ "cache_evictions", 1, "Cached verdicts evicted to make room." },
	{ "cache_flushes", 1, "Verdict cache flushes the group asked for." },
	{ "muted", 1, "Events the group's mutes kept from it." },
	{ "extended", 1, "Requests for more time the group made." },
	{ "filtered", 1, "Events the group's filter decided itself." },
	{ "absent", 1,
	  "Permission events resolved by a persistent group's absent verdict." },
	{ "rereported", 1,
	  "Events queued again after the fd that read them closed." },
};
#define STAT_FIELDS (sizeof(stat_fields) / sizeof(stat_fields[0]))
_Static_assert(STAT_FIELDS * sizeof(__u64) == sizeof(struct fsgate_stats),
	       "a counter of struct fsgate_stats is missing here");

static unsigned long long stat_value(const struct fsgate_group_info *g,
				     size_t i)
{
	return ((const __u64 *)&g->stats)[i];
}

const char *report_verdict_name(unsigned int verdict, unsigned int err,
				char *buf, size_t len)
{
	const char *name;

	if (verdict != FSGATE_VERDICT_DENY)
		return "allow";
	if (!err || err == EPERM)
		return "deny";
	name = fsgate_deny_errno_name((int)err);
	if (name)
		snprintf(buf, len, "deny:%s", name);
	else
		snprintf(buf, len, "deny:%u", err);
	return buf;
}

const char *report_absent_name(const struct fsgate_group_info *g, char *buf,
			       size_t len)
{
	return report_verdict_name(g->absent_verdict, g->absent_errno, buf, len);
}

/* A bound's time left in JSON: null for one that is not running. */
static void ms_left_json(FILE *f, const char *key, unsigned int ms)
{
	if (ms == FSGATE_GROUP_NO_DEADLINE)
		fprintf(f, ",\"%s\":null", key);
	else
		fprintf(f, ",\"%s\":%u", key, ms);
}

/* A persistent group's name and bounds, or null for another group. */
static void persist_json(FILE *f, const struct fsgate_group_info *g)
{
	char absent[32];

	if (!*g->name) {
		fputs("null", f);
		return;
	}
	fputs("{\"name\":", f);
	json_string(f, g->name);
	fprintf(f, ",\"owner\":%u,\"absent_ms\":%u,\"absent_verdict\":\"%s\","
		"\"linger_ms\":",
		(unsigned int)g->owner, g->absent_ms,
		report_absent_name(g, absent, sizeof(absent)));
	if (g->persist_flags & FSGATE_PERSIST_UNTIL_REMOVED)
		fputs("null", f);
	else
		fprintf(f, "%u", g->linger_ms);
	ms_left_json(f, "absent_left_ms", g->absent_left_ms);
	ms_left_json(f, "linger_left_ms", g->linger_left_ms);
	fprintf(f, ",\"attaches\":%" PRIu64 ",\"handovers\":%" PRIu64 "}",
		g->attaches, g->handovers);
}

/*
 * The group's wait bounds, verdict policies and marks by type, or null
 * for both where the module does not say (timeout_verdict 0).
 */
static void policy_json(FILE *f, const struct fsgate_group_info *g)
{
	char timeout[32], orphan[32];

	if (!g->timeout_verdict) {
		fputs(",\"policy\":null,\"marks_by_type\":null", f);
		return;
	}
	fputs(",\"policy\":{\"timeout_ms\":", f);
	if (g->timeout_ms == FSGATE_TIMEOUT_NONE)
		fputs("null", f);
	else
		fprintf(f, "%u", g->timeout_ms);
	fprintf(f, ",\"max_wait_ms\":%u,\"timeout_verdict\":\"%s\","
		"\"orphan_verdict\":\"%s\"}", g->max_wait_ms,
		report_verdict_name(g->timeout_verdict, g->timeout_errno,
				    timeout, sizeof(timeout)),
		report_verdict_name(g->orphan_verdict, g->orphan_errno,
				    orphan, sizeof(orphan)));
	fprintf(f, ",\"marks_by_type\":{\"inode\":%u,\"mount\":%u,"
		"\"filesystem\":%u}", g->inode_marks, g->mount_marks,
		g->filesystem_marks);
}

/*
 * The counters in groups --json: those it had first in their order, with
 * the ones added since between perm_overflows and cached, so that a
 * reader matching the older record's text still finds it.
 */
static const unsigned char json_order[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	13, 14, 15, 16, 17, 18, 19,
	12, 20, 21,
};
_Static_assert(sizeof(json_order) == STAT_FIELDS,
	       "a counter is missing from groups --json");

void report_group_json(FILE *f, const struct fsgate_group_info *g)
{
	size_t i;

	fprintf(f, "{\"id\":%" PRIu64 ",\"pid\":%d,\"comm\":", g->id, g->pid);
	json_string(f, g->comm);
	fputs(",\"class\":", f);
	json_string(f, g->class_name);
	fprintf(f, ",\"priority\":%u", g->priority);
	for (i = 0; i < STAT_FIELDS; i++)
		fprintf(f, ",\"%s\":%llu", stat_fields[json_order[i]].name,
			stat_value(g, json_order[i]));
	fprintf(f, ",\"attached\":%u,\"persist\":", g->attached);
	persist_json(f, g);
	policy_json(f, g);
	putc('}', f);
}

void report_label_value(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c >= 0x7f)
			putc('?', f);
		else
			putc(c, f);
	}
	putc('"', f);
}

static void family(FILE *f, const char *name, const char *suffix,
		   const char *type, const char *help)
{
	fprintf(f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help,
		name, suffix, type);
}

/* @g's labels, and one more, @key="@value", unless @key is NULL. */
static void group_labels_with(FILE *f, const struct fsgate_group_info *g,
			      const char *key, const char *value)
{
	char priority[16];

	fprintf(f, "{id=\"%" PRIu64 "\",comm=", g->id);
	report_label_value(f, g->comm);
	fputs(",class=", f);
	report_label_value(f, g->class_name);
	snprintf(priority, sizeof(priority), "%u", g->priority);
	fprintf(f, ",priority=\"%s\"", priority);
	if (*g->name) {
		fputs(",name=", f);
		report_label_value(f, g->name);
	}
	if (key) {
		fprintf(f, ",%s=", key);
		report_label_value(f, value);
	}
	putc('}', f);
}

static void group_labels(FILE *f, const struct fsgate_group_info *g)
{
	group_labels_with(f, g, NULL, NULL);
}

/* Per-group values that are not counters of struct fsgate_stats. */
enum group_value {
	GV_ATTACHED, GV_ATTACHES, GV_HANDOVERS, GV_ABSENT_BOUND,
	GV_ABSENT_LEFT, GV_LINGER_LEFT, GV_TIMEOUT, GV_MAX_WAIT,
};

static const struct group_field {
	const char *name;
	int counter;
	const char *help;
	enum group_value what;
	int persistent_only;
} group_fields[] = {
	{ "fsgate_group_attached", 0, "Group fds open on the group.",
	  GV_ATTACHED, 0 },
	{ "fsgate_group_attaches", 1,
	  "Attaches that gave an fd on a persistent group.", GV_ATTACHES, 1 },
	{ "fsgate_group_handovers", 1,
	  "Attaches made while another fd was attached.", GV_HANDOVERS, 1 },
	{ "fsgate_group_absent_bound_seconds", 0,
	  "How long a persistent group waits for its daemon before its absent verdict.",
	  GV_ABSENT_BOUND, 1 },
	{ "fsgate_group_absent_left_seconds", 0,
	  "With nobody attached, the time until the absent verdict decides.",
	  GV_ABSENT_LEFT, 1 },
	{ "fsgate_group_linger_left_seconds", 0,
	  "With nobody attached, the time until the group is torn down.",
	  GV_LINGER_LEFT, 1 },
	{ "fsgate_group_timeout_seconds", 0,
	  "How long an access waits for the group's answer (none: no bound).",
	  GV_TIMEOUT, 0 },
	{ "fsgate_group_max_wait_seconds", 0,
	  "The longest an access waits for the group when it asks for more time.",
	  GV_MAX_WAIT, 0 },
};

/* The value of @what for @g in *@v, or 0 when it has none. */
static int group_value(const struct fsgate_group_info *g,
		       enum group_value what, double *v)
{
	switch (what) {
	case GV_ATTACHED:
		*v = g->attached;
		return 1;
	case GV_ATTACHES:
		*v = (double)g->attaches;
		return 1;
	case GV_HANDOVERS:
		*v = (double)g->handovers;
		return 1;
	case GV_ABSENT_BOUND:
		*v = g->absent_ms / 1000.0;
		return 1;
	case GV_ABSENT_LEFT:
		*v = g->absent_left_ms / 1000.0;
		return g->absent_left_ms != FSGATE_GROUP_NO_DEADLINE;
	case GV_LINGER_LEFT:
		*v = g->linger_left_ms / 1000.0;
		return g->linger_left_ms != FSGATE_GROUP_NO_DEADLINE;
	case GV_TIMEOUT:
		*v = g->timeout_ms / 1000.0;
		return g->timeout_verdict && g->timeout_ms != FSGATE_TIMEOUT_NONE;
	case GV_MAX_WAIT:
		*v = g->max_wait_ms / 1000.0;
		return !!g->timeout_verdict;
	}
	return 0;
}

static void module_metrics(FILE *f, const struct report_module *m, size_t n)
{
	size_t i;

	family(f, "fsgate_loaded", "", "gauge",
	       "1 if fsgate.ko is loaded, else 0.");
	fprintf(f, "fsgate_loaded %d\n", !!m->loaded);
	if (!m->loaded)
		return;
	family(f, "fsgate_info", "", "gauge",
	       "The loaded module's version and ABI version.");
	fputs("fsgate_info{version=", f);
	report_label_value(f, m->version ? m->version : "");
	fprintf(f, ",abi=\"%u\"} 1\n", m->abi);
	family(f, "fsgate_groups", "", "gauge", "Groups there are.");
	fprintf(f, "fsgate_groups %zu\n", n);
	if (!m->nparams)
		return;
	family(f, "fsgate_parameter", "", "gauge",
	       "The module's parameters, by name.");
	for (i = 0; i < m->nparams; i++) {
		fputs("fsgate_parameter{name=", f);
		report_label_value(f, m->params[i].name);
		fprintf(f, "} %llu\n", m->params[i].value);
	}
}

/*
 * The timeout (@orphan 0) or orphan verdict of each group that says, as
 * an info-style gauge: 1, the verdict its label.
 */
static void verdict_family(FILE *f, const struct fsgate_group_info *g,
			   size_t n, int orphan)
{
	const char *name = orphan ? "fsgate_group_orphan_verdict" :
				    "fsgate_group_timeout_verdict";
	char buf[32];
	size_t j;

	family(f, name, "", "gauge", orphan ?
	       "1, labelled with the verdict pending events get when the group goes away." :
	       "1, labelled with the verdict a timeout gives: allow, deny or deny:ERRNO.");
	for (j = 0; j < n; j++) {
		if (!g[j].timeout_verdict)
			continue;
		fputs(name, f);
		group_labels_with(f, &g[j], "verdict",
				  orphan ? report_verdict_name(g[j].orphan_verdict,
							       g[j].orphan_errno,
							       buf, sizeof(buf)) :
					   report_verdict_name(g[j].timeout_verdict,
							       g[j].timeout_errno,
							       buf, sizeof(buf)));
		fputs(" 1\n", f);
	}
}

/*
 * The groups' verdict policies, as info-style gauges (1, the verdict a
 * label), and their marks by type; none where the module does not say.
 */
static void policy_metrics(FILE *f, const struct fsgate_group_info *g,
			   size_t n)
{
	static const char *const types[] = { "inode", "mount", "filesystem" };
	size_t i, j, known = 0;

	for (j = 0; j < n; j++)
		known += !!g[j].timeout_verdict;
	if (!known)
		return;
	verdict_family(f, g, n, 0);
	verdict_family(f, g, n, 1);
	family(f, "fsgate_group_marks_by_type", "", "gauge",
	       "Objects the group marks, by mark type: inode, mount, filesystem.");
	for (j = 0; j < n; j++) {
		const unsigned int count[] = {
			g[j].inode_marks, g[j].mount_marks,
			g[j].filesystem_marks,
		};

		if (!g[j].timeout_verdict)
			continue;
		for (i = 0; i < 3; i++) {
			fputs("fsgate_group_marks_by_type", f);
			group_labels_with(f, &g[j], "type", types[i]);
			fprintf(f, " %u\n", count[i]);
		}
	}
}

void report_metrics(FILE *f, const struct report_module *m,
		    const struct fsgate_group_info *g, size_t n)
{
	size_t i, j, persistent = 0;
	char help[128];
	double v;

	module_metrics(f, m, n);
	if (!m->loaded || !n)
		return;
	for (j = 0; j < n; j++)
		persistent += !!*g[j].name;
	for (i = 0; i < STAT_FIELDS; i++) {
		const struct stat_field *s = &stat_fields[i];

		snprintf(help, sizeof(help), "fsgate_group_%s", s->name);
		family(f, help, s->counter ? "_total" : "",
		       s->counter ? "counter" : "gauge", s->help);
		for (j = 0; j < n; j++) {
			fprintf(f, "fsgate_group_%s%s", s->name,
				s->counter ? "_total" : "");
			group_labels(f, &g[j]);
			fprintf(f, " %llu\n", stat_value(&g[j], i));
		}
	}
	for (i = 0; i < sizeof(group_fields) / sizeof(group_fields[0]); i++) {
		const struct group_field *gf = &group_fields[i];
		int header = 0;

		if (gf->persistent_only && !persistent)
			continue;
		for (j = 0; j < n; j++) {
			if (gf->persistent_only && !*g[j].name)
				continue;
			if (!group_value(&g[j], gf->what, &v))
				continue;
			if (!header++)
				family(f, gf->name, gf->counter ? "_total" : "",
				       gf->counter ? "counter" : "gauge",
				       gf->help);
			fprintf(f, "%s%s", gf->name, gf->counter ? "_total" : "");
			group_labels(f, &g[j]);
			fprintf(f, " %.15g\n", v);
		}
	}
	policy_metrics(f, g, n);
}
