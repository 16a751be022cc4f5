/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsgatectl why and trace: the module's trace events (events/fsgate/ in
 * tracefs) put together into one record per access: which groups were
 * asked, in what order, what each answered, and which verdict stood.
 *
 * The events are read as trace_pipe's text lines. An access's events are
 * found by what they carry: fsgate_perm_ask and the answer to it share
 * the permission event's id (the answer may come from the daemon's own
 * task); answers without an id (cache, mute, filter, consensus, a group
 * that is not there) and fsgate_access_verdict come from the accessing
 * task itself, the line's task id, between its first event and the
 * verdict that ends the access.
 */
#ifndef TOOLS_WHY_H
#define TOOLS_WHY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Groups one access records; more are counted, not kept. */
#define WHY_ASKED_MAX 16
/* Accesses being put together at once (one per waiting task). */
#define WHY_OPEN_MAX 64

enum why_kind { WHY_ASK, WHY_ANSWER, WHY_VERDICT };

/* One trace line, parsed. */
struct why_event {
	enum why_kind kind;
	int tid;		/* the task the line was traced in */
	char task[17];		/* its comm, as the trace names it */
	double ts;		/* the trace's timestamp, seconds */
	uint64_t group;
	uint64_t id;		/* the permission event's id; 0 for none */
	unsigned int priority;
	char class_name[16];
	int pid;		/* the accessing process (tgid) */
	unsigned int major, minor;
	unsigned long long ino;
	char mask[48];
	int verdict;		/* 0: allow, else the errno of a deny */
	char by[16];		/* answer, cache, timeout, ... */
	unsigned long long latency_ns;
	unsigned int groups;	/* verdict: groups that matched */
};

/* One group's part in an access, in the order it was asked or decided. */
struct why_asked {
	uint64_t group;
	uint64_t id;
	unsigned int priority;
	char class_name[16];
	int answered;
	int verdict;
	char by[16];
	unsigned long long latency_ns;
};

/* One access, as why and trace print it. */
struct why_access {
	int tid;
	int pid;
	char task[17];
	double ts;
	unsigned int major, minor;
	unsigned long long ino;
	char mask[48];
	struct why_asked asked[WHY_ASKED_MAX];
	size_t n;		/* entries of @asked */
	size_t dropped;		/* groups past WHY_ASKED_MAX */
	int decided;		/* fsgate_access_verdict was seen */
	int verdict;
	uint64_t group;		/* the deciding group, 0 for none */
	char by[16];
	unsigned int groups;
	int in_use;
};

/* Accesses being put together. */
struct why_state {
	struct why_access open[WHY_OPEN_MAX];
};

/*
 * Parse one line of trace_pipe into @ev. Return: 1 for an fsgate access
 * event (ask, answer, verdict), 0 for any other line.
 */
int why_parse_line(const char *line, struct why_event *ev);

/* Called with each access put together, in the order they end. */
typedef void (*why_emit)(const struct why_access *a, void *arg);

/*
 * Add @ev to the access it belongs to. An access ends with its verdict,
 * or undecided (its verdict lost: the trace buffer was full) when its
 * task's next event is for another file or there is no room; either
 * way it goes to @emit.
 */
void why_feed(struct why_state *s, const struct why_event *ev,
	      why_emit emit, void *arg);

/* A group's name as the module lists it ("scanner"), or NULL. */
typedef const char *(*why_group_name)(uint64_t group, void *arg);

/*
 * @a as text for an operator, numbered @seq, on @f; @path, if not NULL,
 * names the file. @name, if not NULL, names the groups.
 */
void why_print_text(FILE *f, const struct why_access *a, unsigned long seq,
		    const char *path, why_group_name name, void *arg);

/* @a as one JSON object on one line, numbered @seq, on @f. */
void why_print_json(FILE *f, const struct why_access *a, unsigned long seq,
		    const char *path, why_group_name name, void *arg);

#endif /* TOOLS_WHY_H */
