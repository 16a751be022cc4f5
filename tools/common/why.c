// SPDX-License-Identifier: GPL-2.0
/* See why.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <fsgate.h>

#include "json.h"
#include "why.h"

/* The trace events why reads, by the name trace_pipe gives them. */
static const struct {
	const char *name;
	enum why_kind kind;
} events[] = {
	{ "fsgate_perm_ask", WHY_ASK },
	{ "fsgate_perm_answer", WHY_ANSWER },
	{ "fsgate_access_verdict", WHY_VERDICT },
};

static void copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * The header before "fsgate_...:", "  comm-tid  [cpu] flags  ts: " (with
 * "(tgid)" after tid where the record-tgid option is set): the task id,
 * its comm and the timestamp. The comm may hold any byte, '-' and ' '
 * too, so the header is read from its end. Return: 0, or -1.
 */
static int parse_header(const char *line, const char *end, struct why_event *ev)
{
	const char *p = end, *ts, *dash;

	/* "ts:" right before the event's name. */
	while (p > line && p[-1] == ' ')
		p--;
	if (p == line || p[-1] != ':')
		return -1;
	p--;
	ts = p;
	while (ts > line && ((ts[-1] >= '0' && ts[-1] <= '9') || ts[-1] == '.'))
		ts--;
	if (ts == p)
		return -1;
	ev->ts = strtod(ts, NULL);
	/* The cpu's "[" is the last one: flags and ts have none. */
	while (p > line && *p != '[')
		p--;
	if (*p != '[')
		return -1;
	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ')') {
		while (p > line && p[-1] != '(')
			p--;
		if (p == line)
			return -1;
		p--;
		while (p > line && p[-1] == ' ')
			p--;
	}
	dash = p;
	while (dash > line && dash[-1] >= '0' && dash[-1] <= '9')
		dash--;
	if (dash == p || dash == line || dash[-1] != '-')
		return -1;
	ev->tid = atoi(dash);
	dash--;
	while (line < dash && *line == ' ')
		line++;
	copy(ev->task, sizeof(ev->task), line, (size_t)(dash - line));
	return 0;
}

/* One "key=value" of an event into @ev; unknown keys are skipped. */
static void parse_field(const char *key, size_t klen, const char *value,
			size_t vlen, struct why_event *ev)
{
	char v[64];

#define IS(name) (klen == sizeof(name) - 1 && !memcmp(key, name, klen))
	copy(v, sizeof(v), value, vlen);
	if (IS("group"))
		ev->group = strtoull(v, NULL, 10);
	else if (IS("id"))
		ev->id = strtoull(v, NULL, 10);
	else if (IS("priority"))
		ev->priority = (unsigned int)strtoul(v, NULL, 10);
	else if (IS("class"))
		copy(ev->class_name, sizeof(ev->class_name), v, strlen(v));
	else if (IS("pid"))
		ev->pid = atoi(v);
	else if (IS("dev"))
		sscanf(v, "%u:%u", &ev->major, &ev->minor);
	else if (IS("ino"))
		ev->ino = strtoull(v, NULL, 10);
	else if (IS("mask"))
		copy(ev->mask, sizeof(ev->mask), v, strlen(v));
	else if (IS("errno"))
		ev->verdict = atoi(v);
	else if (IS("by"))
		copy(ev->by, sizeof(ev->by), v, strlen(v));
	else if (IS("latency_ns"))
		ev->latency_ns = strtoull(v, NULL, 10);
	else if (IS("groups"))
		ev->groups = (unsigned int)strtoul(v, NULL, 10);
#undef IS
}

int why_parse_line(const char *line, struct why_event *ev)
{
	const char *p, *name, *key, *eq, *end;
	size_t i, len;

	memset(ev, 0, sizeof(*ev));
	for (p = line; (p = strstr(p, " fsgate_")); p++) {
		name = p + 1;
		len = strcspn(name, ": \n");
		if (name[len] != ':' || name[len + 1] != ' ')
			continue;
		for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
			if (strlen(events[i].name) == len &&
			    !memcmp(events[i].name, name, len))
				break;
		if (i == sizeof(events) / sizeof(events[0]))
			return 0;
		ev->kind = events[i].kind;
		if (parse_header(line, name, ev) < 0)
			return 0;
		for (key = name + len + 2; *key && *key != '\n'; key = end) {
			while (*key == ' ')
				key++;
			end = key + strcspn(key, " \n");
			eq = memchr(key, '=', (size_t)(end - key));
			if (eq)
				parse_field(key, (size_t)(eq - key), eq + 1,
					    (size_t)(end - eq - 1), ev);
		}
		return 1;
	}
	return 0;
}

/* The access @tid is in, or NULL. */
static struct why_access *access_of_task(struct why_state *s, int tid)
{
	size_t i;

	for (i = 0; i < WHY_OPEN_MAX; i++)
		if (s->open[i].in_use && s->open[i].tid == tid)
			return &s->open[i];
	return NULL;
}

/* The access whose group @group was asked as event @id, or NULL. */
static struct why_asked *asked_of_id(struct why_state *s, uint64_t group,
				     uint64_t id)
{
	size_t i, j;

	for (i = 0; i < WHY_OPEN_MAX; i++)
		for (j = 0; s->open[i].in_use && j < s->open[i].n; j++)
			if (s->open[i].asked[j].id == id &&
			    s->open[i].asked[j].group == group)
				return &s->open[i].asked[j];
	return NULL;
}

static void end_access(struct why_access *a, why_emit emit, void *arg)
{
	emit(a, arg);
	a->in_use = 0;
}

/* The oldest access: the one to give up when there is no room. */
static struct why_access *oldest(struct why_state *s)
{
	struct why_access *o = &s->open[0];
	size_t i;

	for (i = 1; i < WHY_OPEN_MAX; i++)
		if (s->open[i].ts < o->ts)
			o = &s->open[i];
	return o;
}

/*
 * The access @ev's task is in, begun if it has none; one it was in for
 * another file or event ended undecided first.
 */
static struct why_access *task_access(struct why_state *s,
				      const struct why_event *ev,
				      why_emit emit, void *arg)
{
	struct why_access *a = access_of_task(s, ev->tid);
	size_t i;

	if (a && (a->ino != ev->ino || a->major != ev->major ||
		  a->minor != ev->minor || strcmp(a->mask, ev->mask)))
		end_access(a, emit, arg);
	else if (a)
		return a;
	for (i = 0; i < WHY_OPEN_MAX && s->open[i].in_use; i++)
		;
	a = i < WHY_OPEN_MAX ? &s->open[i] : oldest(s);
	if (a->in_use)
		end_access(a, emit, arg);
	memset(a, 0, sizeof(*a));
	a->in_use = 1;
	a->tid = ev->tid;
	a->pid = ev->pid;
	memcpy(a->task, ev->task, sizeof(a->task));
	a->ts = ev->ts;
	a->major = ev->major;
	a->minor = ev->minor;
	a->ino = ev->ino;
	memcpy(a->mask, ev->mask, sizeof(a->mask));
	return a;
}

/* A new entry of @a for @ev's group, or NULL when there is no room. */
static struct why_asked *add_asked(struct why_access *a,
				   const struct why_event *ev)
{
	struct why_asked *q;

	if (a->n == WHY_ASKED_MAX) {
		a->dropped++;
		return NULL;
	}
	q = &a->asked[a->n++];
	memset(q, 0, sizeof(*q));
	q->group = ev->group;
	q->id = ev->id;
	q->priority = ev->priority;
	memcpy(q->class_name, ev->class_name, sizeof(q->class_name));
	return q;
}

static void answer(struct why_asked *q, const struct why_event *ev)
{
	q->answered = 1;
	q->verdict = ev->verdict;
	memcpy(q->by, ev->by, sizeof(q->by));
	q->latency_ns = ev->latency_ns;
}

void why_feed(struct why_state *s, const struct why_event *ev,
	      why_emit emit, void *arg)
{
	struct why_access *a;
	struct why_asked *q;

	switch (ev->kind) {
	case WHY_ASK:
		add_asked(task_access(s, ev, emit, arg), ev);
		return;
	case WHY_ANSWER:
		/*
		 * An answer to an event comes from any task (the daemon's,
		 * a closing one's) with the event's id: an ask not seen
		 * (lost) leaves nothing to add it to.
		 */
		if (ev->id)
			q = asked_of_id(s, ev->group, ev->id);
		else
			q = add_asked(task_access(s, ev, emit, arg), ev);
		if (q)
			answer(q, ev);
		return;
	case WHY_VERDICT:
		a = task_access(s, ev, emit, arg);
		a->decided = 1;
		a->verdict = ev->verdict;
		a->group = ev->group;
		memcpy(a->by, ev->by, sizeof(a->by));
		a->groups = ev->groups;
		end_access(a, emit, arg);
		return;
	}
}

/* "deny EIO" or "allow" for a verdict: 0 or an errno. */
static const char *verdict_text(int verdict, char *buf, size_t len)
{
	const char *name;

	if (!verdict)
		return "allow";
	name = fsgate_deny_errno_name(verdict);
	if (name)
		snprintf(buf, len, "deny %s", name);
	else
		snprintf(buf, len, "deny errno %d", verdict);
	return buf;
}

static void print_group(FILE *f, uint64_t group, why_group_name name,
			void *arg)
{
	const char *comm = name ? name(group, arg) : NULL;

	fprintf(f, "group %" PRIu64, group);
	if (comm)
		fprintf(f, " %s", comm);
}

void why_print_text(FILE *f, const struct why_access *a, unsigned long seq,
		    const char *path, why_group_name name, void *arg)
{
	char buf[48];
	size_t i;

	fprintf(f, "access %lu at %.6f: pid %d (%s) %s on %u:%u inode %llu",
		seq, a->ts, a->pid, a->task, a->mask, a->major, a->minor,
		a->ino);
	if (path)
		fprintf(f, " %s", path);
	fputc('\n', f);
	for (i = 0; i < a->n; i++) {
		const struct why_asked *q = &a->asked[i];

		fprintf(f, "  %zu. ", i + 1);
		print_group(f, q->group, name, arg);
		if (*q->class_name)
			fprintf(f, " (%s, priority %u)", q->class_name,
				q->priority);
		if (!q->answered) {
			fputs(": asked, no answer traced\n", f);
			continue;
		}
		fprintf(f, ": %s by %s", verdict_text(q->verdict, buf,
						      sizeof(buf)), q->by);
		if (q->latency_ns)
			fprintf(f, " after %.3f ms", q->latency_ns / 1e6);
		fputc('\n', f);
	}
	if (a->dropped)
		fprintf(f, "  (%zu more groups not shown)\n", a->dropped);
	if (!a->decided) {
		fputs("  verdict: not traced (events lost)\n", f);
		return;
	}
	fprintf(f, "  verdict: %s", verdict_text(a->verdict, buf, sizeof(buf)));
	if (a->group) {
		fputs(", decided by ", f);
		print_group(f, a->group, name, arg);
		fprintf(f, " (%s)", a->by);
	} else if (strcmp(a->by, "none")) {
		fprintf(f, " (%s)", a->by);
	}
	fprintf(f, "; %u group%s matched\n", a->groups,
		a->groups == 1 ? "" : "s");
}

/* "allow" or "deny", and the errno's name or null. */
static void verdict_json(FILE *f, int verdict)
{
	const char *name = verdict ? fsgate_deny_errno_name(verdict) : NULL;

	fprintf(f, "\"verdict\":\"%s\",\"errno\":", verdict ? "deny" : "allow");
	if (name)
		fprintf(f, "\"%s\"", name);
	else if (verdict)
		fprintf(f, "%d", verdict);
	else
		fputs("null", f);
}

static void group_json(FILE *f, const char *key, uint64_t group,
		       why_group_name name, void *arg)
{
	const char *comm = name && group ? name(group, arg) : NULL;

	fprintf(f, "\"%s\":%" PRIu64 ",\"%s_comm\":", key, group, key);
	if (comm)
		json_string(f, comm);
	else
		fputs("null", f);
}

void why_print_json(FILE *f, const struct why_access *a, unsigned long seq,
		    const char *path, why_group_name name, void *arg)
{
	size_t i;

	fprintf(f, "{\"access\":%lu,\"ts\":%.6f,\"pid\":%d,\"tid\":%d,"
		"\"comm\":", seq, a->ts, a->pid, a->tid);
	json_string(f, a->task);
	fprintf(f, ",\"dev\":\"%u:%u\",\"ino\":%llu,\"path\":", a->major,
		a->minor, a->ino);
	if (path)
		json_string(f, path);
	else
		fputs("null", f);
	fputs(",\"mask\":", f);
	json_string(f, a->mask);
	fputs(",\"asked\":[", f);
	for (i = 0; i < a->n; i++) {
		const struct why_asked *q = &a->asked[i];

		fputs(i ? ",{" : "{", f);
		group_json(f, "group", q->group, name, arg);
		fputs(",\"class\":", f);
		if (*q->class_name) {
			json_string(f, q->class_name);
			fprintf(f, ",\"priority\":%u,\"id\":%" PRIu64 ",",
				q->priority, q->id);
		} else {
			fputs("null,\"priority\":null,\"id\":null,", f);
		}
		if (q->answered) {
			verdict_json(f, q->verdict);
			fputs(",\"by\":", f);
			json_string(f, q->by);
			fprintf(f, ",\"latency_ns\":%llu}", q->latency_ns);
		} else {
			fputs("\"verdict\":null,\"errno\":null,\"by\":null,"
			      "\"latency_ns\":null}", f);
		}
	}
	fprintf(f, "],\"more\":%zu,", a->dropped);
	if (a->decided) {
		verdict_json(f, a->verdict);
		fputs(",", f);
		group_json(f, "decided_by", a->group, name, arg);
		fputs(",\"by\":", f);
		json_string(f, a->by);
		fprintf(f, ",\"groups\":%u}\n", a->groups);
	} else {
		fputs("\"verdict\":null,\"errno\":null,\"decided_by\":null,"
		      "\"decided_by_comm\":null,\"by\":null,\"groups\":null}\n", f);
	}
}
