// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka: fsgatectl why and trace put the module's trace events, as
 * trace_pipe prints them, together into one record per access: the
 * header's task id read from its end (a comm may hold '-' and ' '), an
 * answer from the daemon's task found by its event's id, answers without
 * one (cache, mute, filter) by the accessing task, the verdict ending
 * the access; an access whose verdict was lost ends undecided. Issue 40,
 * item 2.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "why.h"

#define ASK(task, tid, ts, group, prio, id, ino) \
	"  " task "-" #tid "     [001] .....  " ts ": fsgate_perm_ask: group=" \
	#group " priority=" #prio " class=content id=" #id " pid=" #tid \
	" dev=0:21 ino=" #ino " mask=OPEN_PERM deadline_ns=99"
#define ANSWER(task, tid, ts, group, prio, id, pid, ino, verdict, err, by) \
	"  " task "-" #tid "     [000] d..1.  " ts ": fsgate_perm_answer: group=" \
	#group " priority=" #prio " class=content id=" #id " pid=" #pid \
	" dev=0:21 ino=" #ino " mask=OPEN_PERM verdict=" verdict " errno=" \
	#err " by=" by " latency_ns=1500000"
#define VERDICT(task, tid, ts, ino, verdict, err, group, by, groups) \
	"  " task "-" #tid "     [001] .....  " ts ": fsgate_access_verdict: pid=" \
	#tid " dev=0:21 ino=" #ino " mask=OPEN_PERM verdict=" verdict \
	" errno=" #err " group=" #group " by=" by " groups=" #groups

static struct why_access got[8];
static size_t ngot;

static void collect(const struct why_access *a, void *arg)
{
	(void)arg;
	assert_true(ngot < 8);
	got[ngot++] = *a;
}

static void feed(struct why_state *s, const char *line)
{
	struct why_event ev;

	assert_int_equal(why_parse_line(line, &ev), 1);
	why_feed(s, &ev, collect, NULL);
}

static const char *name_of(uint64_t group, void *arg)
{
	(void)arg;
	return group == 3 ? "scanner" : group == 5 ? "fsgate-hsm" : NULL;
}

static void the_header_is_read_from_its_end(void **state)
{
	struct why_event ev;

	(void)state;
	assert_int_equal(why_parse_line(
		"   my -odd- cat-4242   (   4240) [003] ..... 1234.500001: "
		"fsgate_access_verdict: pid=4240 dev=8:1 ino=77 mask=OPEN_PERM "
		"verdict=deny errno=5 group=9 by=cache groups=2", &ev), 1);
	assert_int_equal(ev.kind, WHY_VERDICT);
	assert_int_equal(ev.tid, 4242);
	assert_string_equal(ev.task, "my -odd- cat");
	assert_true(ev.ts > 1234.5 && ev.ts < 1234.50001);
	assert_int_equal(ev.pid, 4240);
	assert_int_equal(ev.major, 8);
	assert_int_equal(ev.minor, 1);
	assert_int_equal(ev.ino, 77);
	assert_int_equal(ev.verdict, EIO);
	assert_int_equal(ev.group, 9);
	assert_string_equal(ev.by, "cache");
	assert_int_equal(ev.groups, 2);
	/* Other events and other lines are not an access's. */
	assert_int_equal(why_parse_line(
		"  cat-1 [000] ..... 1.0: fsgate_group_create: group=1", &ev), 0);
	assert_int_equal(why_parse_line(
		"  cat-1 [000] ..... 1.0: sched_switch: prev=fsgate_perm_ask: x",
		&ev), 0);
	assert_int_equal(why_parse_line("", &ev), 0);
}

/*
 * Two groups asked in turn, the scanner's deny answered from its own
 * task; another task's access in between stays apart.
 */
static void an_access_is_its_asks_answers_and_verdict(void **state)
{
	static struct why_state s;
	char *text;
	size_t len;
	FILE *f;

	(void)state;
	ngot = 0;
	feed(&s, ASK("cat", 812, "10.000100", 5, 3000, 41, 12));
	feed(&s, ASK("ls", 900, "10.000150", 5, 3000, 42, 13));
	feed(&s, ANSWER("fsgate-hsm", 700, "10.000200", 5, 3000, 41, 812, 12,
			"allow", 0, "answer"));
	feed(&s, ASK("cat", 812, "10.000300", 3, 2000, 43, 12));
	feed(&s, ANSWER("scanner", 701, "10.000400", 3, 2000, 43, 812, 12,
			"deny", 1, "answer"));
	assert_int_equal(ngot, 0);
	feed(&s, VERDICT("cat", 812, "10.000500", 12, "deny", 1, 3, "answer", 2));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].pid, 812);
	assert_int_equal(got[0].n, 2);
	assert_int_equal(got[0].asked[0].group, 5);
	assert_int_equal(got[0].asked[0].verdict, 0);
	assert_int_equal(got[0].asked[1].group, 3);
	assert_int_equal(got[0].asked[1].verdict, EPERM);
	assert_int_equal(got[0].group, 3);

	f = open_memstream(&text, &len);
	why_print_text(f, &got[0], 1, "/srv/secret", name_of, NULL);
	fclose(f);
	assert_string_equal(text,
		"access 1 at 10.000100: pid 812 (cat) OPEN_PERM on 0:21 inode 12 /srv/secret\n"
		"  1. group 5 fsgate-hsm (content, priority 3000): allow by answer after 1.500 ms\n"
		"  2. group 3 scanner (content, priority 2000): deny EPERM by answer after 1.500 ms\n"
		"  verdict: deny EPERM, decided by group 3 scanner (answer); 2 groups matched\n");
	free(text);

	f = open_memstream(&text, &len);
	why_print_json(f, &got[0], 1, NULL, name_of, NULL);
	fclose(f);
	assert_string_equal(text,
		"{\"access\":1,\"ts\":10.000100,\"pid\":812,\"tid\":812,\"comm\":\"cat\","
		"\"dev\":\"0:21\",\"ino\":12,\"path\":null,\"mask\":\"OPEN_PERM\","
		"\"asked\":[{\"group\":5,\"group_comm\":\"fsgate-hsm\",\"class\":\"content\","
		"\"priority\":3000,\"id\":41,\"verdict\":\"allow\",\"errno\":null,"
		"\"by\":\"answer\",\"latency_ns\":1500000},{\"group\":3,"
		"\"group_comm\":\"scanner\",\"class\":\"content\",\"priority\":2000,"
		"\"id\":43,\"verdict\":\"deny\",\"errno\":\"EPERM\",\"by\":\"answer\","
		"\"latency_ns\":1500000}],\"more\":0,\"verdict\":\"deny\",\"errno\":\"EPERM\","
		"\"decided_by\":3,\"decided_by_comm\":\"scanner\",\"by\":\"answer\","
		"\"groups\":2}\n");
	free(text);

	/* ls's access goes on, on its own. */
	feed(&s, VERDICT("ls", 900, "10.000600", 13, "allow", 0, 0, "none", 1));
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].pid, 900);
	assert_int_equal(got[1].n, 1);
	assert_int_equal(got[1].asked[0].answered, 0);
}

/* Answers without an event (id 0) come from the accessing task. */
static void a_cached_answer_is_the_accessing_tasks(void **state)
{
	static struct why_state s;

	(void)state;
	ngot = 0;
	feed(&s, ANSWER("cat", 812, "11.0", 3, 2000, 0, 812, 12, "deny", 5,
			"cache"));
	feed(&s, VERDICT("cat", 812, "11.1", 12, "deny", 5, 3, "cache", 1));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].n, 1);
	assert_int_equal(got[0].asked[0].verdict, EIO);
	assert_string_equal(got[0].asked[0].by, "cache");
	assert_string_equal(got[0].by, "cache");
}

/*
 * A verdict lost (a full buffer): the task's next access, to another
 * file, ends the one before undecided; an answer to an ask not seen is
 * dropped, not made an access of the daemon.
 */
static void a_lost_verdict_ends_the_access_undecided(void **state)
{
	static struct why_state s;

	(void)state;
	ngot = 0;
	feed(&s, ASK("cat", 812, "12.0", 3, 2000, 50, 12));
	feed(&s, ANSWER("scanner", 701, "12.1", 3, 2000, 49, 812, 12, "allow",
			0, "answer"));
	feed(&s, ASK("cat", 812, "12.2", 3, 2000, 51, 14));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].decided, 0);
	assert_int_equal(got[0].ino, 12);
	assert_int_equal(got[0].asked[0].answered, 0);
	feed(&s, VERDICT("cat", 812, "12.3", 14, "allow", 0, 0, "none", 1));
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].decided, 1);
	assert_int_equal(got[1].ino, 14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_header_is_read_from_its_end),
		cmocka_unit_test(an_access_is_its_asks_answers_and_verdict),
		cmocka_unit_test(a_cached_answer_is_the_accessing_tasks),
		cmocka_unit_test(a_lost_verdict_ends_the_access_undecided),
	};

	return cmocka_run_group_tests_name("tools_why", tests, NULL, NULL);
}
