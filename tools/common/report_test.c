// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka: fsgatectl's groups --json record and its metrics, checked
 * against a checker of the Prometheus text exposition format (0.0.4):
 * HELP and TYPE once per family and before its samples, a family's
 * samples together, names and label names by the format's patterns,
 * label values with only its three escapes, no series twice, counters
 * named _total.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"

#define LINES_MAX 512
#define NAME_MAX_LEN 128

static int name_char(int c, int first, int colon)
{
	return isalpha(c) || c == '_' || (colon && c == ':') ||
	       (!first && isdigit(c));
}

/* The metric or label name at *@p into @out; 0, or -1 if there is none. */
static int take_name(const char **p, char *out, int colon)
{
	size_t n = 0;

	if (!name_char((unsigned char)**p, 1, colon))
		return -1;
	while (name_char((unsigned char)**p, 0, colon) && n + 1 < NAME_MAX_LEN)
		out[n++] = *(*p)++;
	out[n] = '\0';
	return 0;
}

/* A quoted label value at *@p, with only \\, \" and \n escapes. */
static int take_label_value(const char **p)
{
	const char *s = *p;

	if (*s++ != '"')
		return -1;
	for (; *s != '"'; s++) {
		if (!*s || *s == '\n')
			return -1;
		if (*s == '\\') {
			s++;
			if (*s != '\\' && *s != '"' && *s != 'n')
				return -1;
		}
	}
	*p = s + 1;
	return 0;
}

/* {name="value",...} at *@p, label names unique and not reserved. */
static int take_labels(const char **p)
{
	char names[16][NAME_MAX_LEN];
	size_t n = 0, i;

	if (**p != '{')
		return 0;
	(*p)++;
	while (**p != '}') {
		if (n == 16 || take_name(p, names[n], 0) < 0 ||
		    !strncmp(names[n], "__", 2))
			return -1;
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], names[n]))
				return -1;
		n++;
		if (*(*p)++ != '=' || take_label_value(p) < 0)
			return -1;
		if (**p == ',')
			(*p)++;
		else if (**p != '}')
			return -1;
	}
	(*p)++;
	return 0;
}

struct family {
	char name[NAME_MAX_LEN];
	char type[16];
	int help, samples, closed;
};

/*
 * Whether @text is valid exposition: 0, or the 1-based line that is not.
 * Every line ends in \n; the comments are HELP and TYPE lines only.
 */
static int check_exposition(const char *text)
{
	static struct family fam[LINES_MAX];
	static char series[LINES_MAX][512];
	size_t nfam = 0, nseries = 0, i;
	struct family *cur = NULL;
	char name[NAME_MAX_LEN];
	int line = 0;

	while (*text) {
		const char *end = strchr(text, '\n'), *p = text;
		struct family *f = NULL;

		line++;
		if (!end || line >= LINES_MAX)
			return line;
		if (!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7)) {
			int help = p[2] == 'H';

			p += 7;
			if (take_name(&p, name, 1) < 0 || *p != ' ')
				return line;
			p++;
			for (i = 0; i < nfam; i++)
				if (!strcmp(fam[i].name, name))
					f = &fam[i];
			if (!f) {
				if (cur)
					cur->closed = 1;
				f = &fam[nfam++];
				memset(f, 0, sizeof(*f));
				snprintf(f->name, sizeof(f->name), "%s", name);
				cur = f;
			}
			if (f != cur || f->samples || (help ? f->help : !!*f->type))
				return line;
			if (help) {
				f->help = 1;
			} else {
				size_t len = (size_t)(end - p);

				if (len >= sizeof(f->type))
					return line;
				memcpy(f->type, p, len);
				f->type[len] = '\0';
				if (strcmp(f->type, "counter") &&
				    strcmp(f->type, "gauge"))
					return line;
				if (!strcmp(f->type, "counter") &&
				    (strlen(name) < 6 ||
				     strcmp(name + strlen(name) - 6, "_total")))
					return line;
			}
		} else {
			char *num_end;
			size_t len;

			if (take_name(&p, name, 1) < 0)
				return line;
			/* Our families have no _sum, _count or _bucket. */
			if (!cur || strcmp(cur->name, name) || !cur->help ||
			    !*cur->type)
				return line;
			if (take_labels(&p) < 0 || *p++ != ' ')
				return line;
			strtod(p, &num_end);
			if (num_end == p || num_end != end)
				return line;
			len = (size_t)(p - 1 - text);
			if (len >= sizeof(series[0]))
				return line;
			for (i = 0; i < nseries; i++)
				if (strlen(series[i]) == len &&
				    !strncmp(series[i], text, len))
					return line;
			if (nseries == LINES_MAX)
				return line;
			memcpy(series[nseries], text, len);
			series[nseries++][len] = '\0';
			cur->samples++;
		}
		text = end + 1;
	}
	for (i = 0; i < nfam; i++)
		if (!fam[i].samples)
			return line;
	return 0;
}

/* What @write printed into a static buffer, for one check. */
static char out[65536];

static const char *captured(FILE *f)
{
	long n;

	fflush(f);
	n = ftell(f);
	assert_true(n >= 0 && (size_t)n < sizeof(out));
	rewind(f);
	assert_int_equal(fread(out, 1, (size_t)n, f), (size_t)n);
	out[n] = '\0';
	fclose(f);
	return out;
}

static const char *metrics_of(const struct report_module *m,
			      const struct fsgate_group_info *g, size_t n)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	report_metrics(f, m, g, n);
	return captured(f);
}

static const char *json_of(const struct fsgate_group_info *g)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	report_group_json(f, g);
	return captured(f);
}

/* A group whose counters are 1, 2, 3, ... in struct order. */
static void counting_group(struct fsgate_group_info *g, uint64_t id,
			   const char *comm)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g->id = id;
	g->pid = 100 + (int)id;
	snprintf(g->comm, sizeof(g->comm), "%s", comm);
	snprintf(g->class_name, sizeof(g->class_name), "content");
	g->priority = 2000;
	g->attached = 1;
	g->absent_left_ms = FSGATE_GROUP_NO_DEADLINE;
	g->linger_left_ms = FSGATE_GROUP_NO_DEADLINE;
	for (i = 0; i < sizeof(g->stats) / sizeof(__u64); i++)
		((__u64 *)&g->stats)[i] = i + 1;
}

static void persistent(struct fsgate_group_info *g, const char *name)
{
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->attached = 0;
	g->absent_ms = 30000;
	g->absent_verdict = FSGATE_VERDICT_DENY;
	g->absent_errno = 5;	/* EIO */
	g->persist_flags = FSGATE_PERSIST_UNTIL_REMOVED;
	g->absent_left_ms = 12500;
	g->attaches = 3;
	g->handovers = 1;
}

/* A group's policies, wait bounds and marks by type (issue 40, item 3). */
static void with_policy(struct fsgate_group_info *g)
{
	g->timeout_ms = 1500;
	g->max_wait_ms = 7000;
	g->timeout_verdict = FSGATE_VERDICT_DENY;
	g->timeout_errno = 5;	/* EIO */
	g->orphan_verdict = FSGATE_VERDICT_ALLOW;
	g->inode_marks = 2;
	g->mount_marks = 0;
	g->filesystem_marks = 1;
}

static const struct report_param params[] = {
	{ "default_timeout_ms", 5000 },
	{ "max_groups", 128 },
};

static const struct report_module loaded = {
	.loaded = 1, .version = "0.9.0", .abi = 9,
	.params = params, .nparams = 2,
};

static void checker_refuses_what_the_format_does_not_allow(void **state)
{
	static const char *const bad[] = {
		/* a sample before its TYPE */
		"# HELP a_total x\na_total 1\n",
		/* an unknown escape, a raw quote, an unterminated value */
		"# HELP a x\n# TYPE a gauge\na{l=\"\\x\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na{l=\"\"\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na{l=\"x} 1\n",
		/* the same series twice, the same label twice */
		"# HELP a x\n# TYPE a gauge\na{l=\"1\"} 1\na{l=\"1\"} 2\n",
		"# HELP a x\n# TYPE a gauge\na{l=\"1\",l=\"2\"} 1\n",
		/* a counter not named _total, a value that is not a number */
		"# HELP a x\n# TYPE a counter\na 1\n",
		"# HELP a x\n# TYPE a gauge\na one\n",
		/* a family's samples apart, a bad label name, no newline */
		"# HELP a x\n# TYPE a gauge\na{l=\"1\"} 1\n"
		"# HELP b x\n# TYPE b gauge\nb 1\n# HELP a x\n",
		"# HELP a x\n# TYPE a gauge\na{1l=\"1\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na 1",
	};
	size_t i;

	(void)state;
	assert_int_equal(check_exposition("# HELP a_total x\n# TYPE a_total counter\n"
					  "a_total{l=\"\\\\\\\"\\n\"} 1\n"), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(check_exposition(bad[i]), 0);
}

static void metrics_are_valid_exposition(void **state)
{
	struct fsgate_group_info g[3];
	const char *text, *sample;

	(void)state;
	counting_group(&g[0], 4, "fsgate-hsm");
	persistent(&g[0], "fsgate-hsm");
	counting_group(&g[1], 3, "fsgate-scan");
	counting_group(&g[2], 7, "we\"ird\\ name\n");
	/* One group with policies (a module with groups-ver2), one too with
	 * a label value to escape, one without. */
	with_policy(&g[1]);
	with_policy(&g[2]);
	g[2].timeout_ms = FSGATE_TIMEOUT_NONE;
	text = metrics_of(&loaded, g, 3);
	assert_int_equal(check_exposition(text), 0);
	/* For tests/harness/metrics.sh: the same text to promtool. */
	sample = getenv("FSGATE_METRICS_SAMPLE");
	if (sample) {
		FILE *f = fopen(sample, "w");

		assert_non_null(f);
		fputs(text, f);
		assert_int_equal(fclose(f), 0);
	}
}

static void label_values_are_escaped(void **state)
{
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	report_label_value(f, "a\"b\\c\nd\te\x80");
	assert_string_equal(captured(f), "\"a\\\"b\\\\c\\nd?e?\"");
}

static void every_counter_is_a_total_and_states_are_gauges(void **state)
{
	static const char *const counters[] = {
		"delivered", "overflows", "asked", "answered", "denied",
		"timedout", "orphaned", "cancelled", "perm_overflows", "cached",
		"unopened", "cache_evictions", "cache_flushes", "muted",
		"extended", "filtered", "absent", "rereported",
	};
	static const char *const gauges[] = {
		"marks", "queued", "pending", "cache_entries", "attached",
	};
	struct fsgate_group_info g;
	char want[128];
	const char *text;
	size_t i;

	(void)state;
	counting_group(&g, 3, "fsgate-scan");
	text = metrics_of(&loaded, &g, 1);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(want, sizeof(want), "# TYPE fsgate_group_%s_total counter\n",
			 counters[i]);
		assert_non_null(strstr(text, want));
	}
	for (i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++) {
		snprintf(want, sizeof(want), "# TYPE fsgate_group_%s gauge\n",
			 gauges[i]);
		assert_non_null(strstr(text, want));
	}
	/* unopened is the 14th counter of struct fsgate_stats */
	assert_non_null(strstr(text,
		"fsgate_group_unopened_total{id=\"3\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\"} 14\n"));
}

static void only_persistent_groups_are_named(void **state)
{
	struct fsgate_group_info g[2];
	const char *text;

	(void)state;
	counting_group(&g[0], 4, "fsgate-hsm");
	persistent(&g[0], "hsm \"archive\"");
	counting_group(&g[1], 3, "fsgate-scan");
	text = metrics_of(&loaded, g, 2);
	assert_non_null(strstr(text,
		"fsgate_group_pending{id=\"4\",comm=\"fsgate-hsm\",class=\"content\","
		"priority=\"2000\",name=\"hsm \\\"archive\\\"\"} 5\n"));
	assert_non_null(strstr(text,
		"fsgate_group_pending{id=\"3\",comm=\"fsgate-scan\",class=\"content\","
		"priority=\"2000\"} 5\n"));
	assert_non_null(strstr(text,
		"fsgate_group_absent_left_seconds{id=\"4\",comm=\"fsgate-hsm\","
		"class=\"content\",priority=\"2000\",name=\"hsm \\\"archive\\\"\"} 12.5\n"));
	assert_null(strstr(text, "fsgate_group_attaches_total{id=\"3\""));
	assert_null(strstr(text, "fsgate_group_linger_left_seconds{"));
}

static void module_wide_metrics(void **state)
{
	static const struct report_module unloaded = { 0 };
	const char *text;

	(void)state;
	text = metrics_of(&loaded, NULL, 0);
	assert_int_equal(check_exposition(text), 0);
	assert_non_null(strstr(text, "\nfsgate_loaded 1\n"));
	assert_non_null(strstr(text, "\nfsgate_info{version=\"0.9.0\",abi=\"9\"} 1\n"));
	assert_non_null(strstr(text, "\nfsgate_groups 0\n"));
	assert_non_null(strstr(text,
		"\nfsgate_parameter{name=\"default_timeout_ms\"} 5000\n"));
	assert_null(strstr(text, "fsgate_group_"));
	text = metrics_of(&unloaded, NULL, 0);
	assert_int_equal(check_exposition(text), 0);
	assert_string_equal(text, "# HELP fsgate_loaded 1 if fsgate.ko is loaded, else 0.\n"
			    "# TYPE fsgate_loaded gauge\nfsgate_loaded 0\n");
}

static void json_carries_every_counter(void **state)
{
	static const char *const fields[] = {
		"\"marks\":1,", "\"queued\":2,", "\"delivered\":3,",
		"\"overflows\":4,", "\"pending\":5,", "\"asked\":6,",
		"\"answered\":7,", "\"denied\":8,", "\"timedout\":9,",
		"\"orphaned\":10,", "\"cancelled\":11,",
		"\"perm_overflows\":12,", "\"cached\":13,",
		"\"unopened\":14,", "\"cache_entries\":15,",
		"\"cache_evictions\":16,", "\"cache_flushes\":17,",
		"\"muted\":18,", "\"extended\":19,", "\"filtered\":20,",
		"\"absent\":21,", "\"rereported\":22,",
	};
	struct fsgate_group_info g;
	const char *text;
	size_t i;

	(void)state;
	counting_group(&g, 3, "fsgate-scan");
	text = json_of(&g);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		assert_non_null(strstr(text, fields[i]));
	assert_non_null(strstr(text, "\"attached\":1,\"persist\":null,"
				     "\"policy\":null,\"marks_by_type\":null}"));
}

/* The counters groups --json had first keep their order and neighbours. */
static void json_keeps_the_older_record_in_order(void **state)
{
	struct fsgate_group_info g;

	(void)state;
	counting_group(&g, 3, "fsgate-scan");
	assert_non_null(strstr(json_of(&g),
		"{\"id\":3,\"pid\":103,\"comm\":\"fsgate-scan\",\"class\":\"content\","
		"\"priority\":2000,\"marks\":1,\"queued\":2,\"delivered\":3,"
		"\"overflows\":4,\"pending\":5,\"asked\":6,\"answered\":7,"
		"\"denied\":8,\"timedout\":9,\"orphaned\":10,\"cancelled\":11,"
		"\"perm_overflows\":12,\"unopened\":14,\"cache_entries\":15,"
		"\"cache_evictions\":16,\"cache_flushes\":17,\"muted\":18,"
		"\"extended\":19,\"filtered\":20,\"cached\":13,\"absent\":21,"
		"\"rereported\":22,\"attached\":1,\"persist\":null,"
		"\"policy\":null,\"marks_by_type\":null}"));
}

static void json_persist_object(void **state)
{
	struct fsgate_group_info g;

	(void)state;
	counting_group(&g, 4, "fsgate-hsm");
	persistent(&g, "fsgate-hsm");
	assert_non_null(strstr(json_of(&g),
		"\"persist\":{\"name\":\"fsgate-hsm\",\"owner\":0,\"absent_ms\":30000,"
		"\"absent_verdict\":\"deny:EIO\",\"linger_ms\":null,"
		"\"absent_left_ms\":12500,\"linger_left_ms\":null,"
		"\"attaches\":3,\"handovers\":1},\"policy\":null,"
		"\"marks_by_type\":null}"));
}

static void json_policy_and_marks_by_type(void **state)
{
	struct fsgate_group_info g;

	(void)state;
	counting_group(&g, 5, "fsgate-scan");
	with_policy(&g);
	assert_non_null(strstr(json_of(&g),
		"\"persist\":null,\"policy\":{\"timeout_ms\":1500,"
		"\"max_wait_ms\":7000,\"timeout_verdict\":\"deny:EIO\","
		"\"orphan_verdict\":\"allow\"},\"marks_by_type\":{\"inode\":2,"
		"\"mount\":0,\"filesystem\":1}}"));
	/* No bound: null, as a bound that is not running. */
	g.timeout_ms = FSGATE_TIMEOUT_NONE;
	g.timeout_errno = 1;	/* EPERM */
	assert_non_null(strstr(json_of(&g),
		"\"policy\":{\"timeout_ms\":null,\"max_wait_ms\":7000,"
		"\"timeout_verdict\":\"deny\","));
}

static void metrics_policy_and_marks_by_type(void **state)
{
	struct fsgate_group_info g[2];
	const char *text;

	(void)state;
	counting_group(&g[0], 5, "fsgate-scan");
	with_policy(&g[0]);
	counting_group(&g[1], 6, "older");
	text = metrics_of(&loaded, g, 2);
	assert_int_equal(check_exposition(text), 0);
	assert_non_null(strstr(text,
		"# TYPE fsgate_group_timeout_seconds gauge\n"
		"fsgate_group_timeout_seconds{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\"} 1.5\n#"));
	assert_non_null(strstr(text,
		"fsgate_group_max_wait_seconds{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\"} 7\n#"));
	assert_non_null(strstr(text,
		"# TYPE fsgate_group_timeout_verdict gauge\n"
		"fsgate_group_timeout_verdict{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\",verdict=\"deny:EIO\"} 1\n#"));
	assert_non_null(strstr(text,
		"fsgate_group_orphan_verdict{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\",verdict=\"allow\"} 1\n#"));
	assert_non_null(strstr(text,
		"# TYPE fsgate_group_marks_by_type gauge\n"
		"fsgate_group_marks_by_type{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\",type=\"inode\"} 2\n"
		"fsgate_group_marks_by_type{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\",type=\"mount\"} 0\n"
		"fsgate_group_marks_by_type{id=\"5\",comm=\"fsgate-scan\","
		"class=\"content\",priority=\"2000\",type=\"filesystem\"} 1\n"));
	/* A module that does not say: no sample for that group. */
	assert_null(strstr(text, "_verdict{id=\"6\""));
	assert_null(strstr(text, "marks_by_type{id=\"6\""));
	assert_null(strstr(text, "timeout_seconds{id=\"6\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_refuses_what_the_format_does_not_allow),
		cmocka_unit_test(metrics_are_valid_exposition),
		cmocka_unit_test(label_values_are_escaped),
		cmocka_unit_test(every_counter_is_a_total_and_states_are_gauges),
		cmocka_unit_test(only_persistent_groups_are_named),
		cmocka_unit_test(module_wide_metrics),
		cmocka_unit_test(json_policy_and_marks_by_type),
		cmocka_unit_test(metrics_policy_and_marks_by_type),
		cmocka_unit_test(json_carries_every_counter),
		cmocka_unit_test(json_keeps_the_older_record_in_order),
		cmocka_unit_test(json_persist_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
