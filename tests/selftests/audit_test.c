// SPDX-License-Identifier: GPL-2.0
/*
 * Audit: FSGATE_ENABLE_AUDIT and answers with FSGATE_AUDIT (and
 * FSGATE_INFO) write AUDIT_FANOTIFY records as in-tree fanotify does on
 * the same kernel. The test reads the records itself: it registers as
 * the audit daemon on a NETLINK_AUDIT socket (no auditd in the guest),
 * enables audit and adds a rule that matches nothing, so that system
 * calls are audited (fanotify records only those). Each answer is given
 * once to a fanotify group and once to an fsgate group, and the two
 * records must be the same text. A kernel without audit (the debug
 * kernel) has no NETLINK_AUDIT: the record tests skip, and fsgate must
 * not offer the feature.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

/* A pid no process has: the audit rule below matches nothing. */
#define NO_SUCH_PID 0x7ffffff0

/* An answer as fanotify's write() takes it, with or without a rule. */
struct wire {
	struct fanotify_response r;
	struct fsgate_response_audit_rule rule;
};

static uint64_t fsgate_features(void)
{
	struct fsgate_version v;

	return fsgate_version(&v) ? 0 : v.features;
}

/* A NETLINK_AUDIT socket, or -1 where the kernel has no audit. */
static int audit_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);

	if (s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		close(s);
		return -1;
	}
	return s;
}

/*
 * The next message on @s within @timeout_ms into @buf: its type, or -1.
 * NLMSG_ERROR carries the kernel's ack.
 */
static int audit_recv(int s, char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t n;

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	n = recv(s, buf, len - 1, 0);
	if (n < (ssize_t)sizeof(*h) || !NLMSG_OK(h, (size_t)n))
		return -1;
	buf[n] = 0;
	return h->nlmsg_type;
}

/* Send a request to the audit subsystem and wait for its ack: 0 or -errno. */
static int audit_request(int s, int type, const void *data, size_t len)
{
	static unsigned int seq;
	char buf[8192] __attribute__((aligned(8)));
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsgerr *err;
	int t;

	memset(buf, 0, NLMSG_SPACE(len));
	h->nlmsg_len = NLMSG_LENGTH(len);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = ++seq;
	memcpy(NLMSG_DATA(h), data, len);
	if (sendto(s, buf, h->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	while ((t = audit_recv(s, buf, sizeof(buf), 5000)) >= 0) {
		if (t != NLMSG_ERROR || h->nlmsg_seq != seq)
			continue;
		err = NLMSG_DATA(h);
		return err->error;
	}
	return -ETIMEDOUT;
}

/* Audit on, with this process as its daemon (@on), or off and no daemon. */
static int audit_daemon(int s, int on)
{
	struct audit_status st = {
		.mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID,
		.enabled = on,
		.pid = on ? getpid() : 0,
	};

	return audit_request(s, AUDIT_SET, &st, sizeof(st));
}

/*
 * Add (AUDIT_ADD_RULE) or remove (AUDIT_DEL_RULE) "never,exit -F
 * pid=NO_SUCH_PID": it matches nothing, but a syscall rule makes the
 * kernel audit system calls, and only then does fanotify write records.
 */
static int audit_rule(int s, int op)
{
	struct audit_rule_data r;

	memset(&r, 0, sizeof(r));
	r.flags = AUDIT_FILTER_EXIT;
	r.action = AUDIT_NEVER;
	r.field_count = 1;
	memset(r.mask, 0xff, sizeof(r.mask));
	r.fields[0] = AUDIT_PID;
	r.fieldflags[0] = AUDIT_EQUAL;
	r.values[0] = NO_SUCH_PID;
	return audit_request(s, op, &r, sizeof(r));
}

/* Forget every record waiting on @s. */
static void audit_drain(int s)
{
	char buf[8192];

	while (audit_recv(s, buf, sizeof(buf), 100) >= 0)
		;
}

/*
 * The text of the next AUDIT_FANOTIFY record within @timeout_ms, after
 * its "audit(time:serial): " stamp, into @out; "" if none came.
 */
static void audit_next_fanotify(int s, char *out, size_t len, int timeout_ms)
{
	char buf[8192] __attribute__((aligned(8)));
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	const char *text;
	int t;

	out[0] = 0;
	while ((t = audit_recv(s, buf, sizeof(buf), timeout_ms)) >= 0) {
		if (t != AUDIT_FANOTIFY)
			continue;
		text = strstr((char *)NLMSG_DATA(h), "): ");
		snprintf(out, len, "%s", text ? text + 3 : "?");
		return;
	}
}

/* Drop @cap from this process's effective set. */
static int drop_capability(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[cap / 32].effective &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &hdr, data);
}

/* What one answer did: the write, the access, the record. */
struct outcome {
	int write_ret;
	int write_errno;
	int access;		/* the opener's exit: 0 or its errno */
	char record[256];	/* the AUDIT_FANOTIFY record's text, or "" */
};

/*
 * Let a forked process open @file under @g (a fanotify or fsgate group
 * gating opens of it), answer its event with @w (@len bytes, the event's
 * fd put in) and collect what happened. A refused answer is followed by
 * a plain allow so that the opener goes on.
 */
static int answer_once(int g, int s, const char *file, struct wire *w,
		       size_t len, struct outcome *o)
{
	struct fanotify_event_metadata ev;
	pid_t pid;

	audit_drain(s);
	pid = spawn_open(file, O_RDONLY, 0);
	if (pid < 0 || next_event(g, 10000, &ev))
		return -1;
	w->r.fd = ev.fd;
	o->write_ret = write(g, w, len);
	o->write_errno = o->write_ret < 0 ? errno : 0;
	if (o->write_ret < 0)
		answer(g, ev.fd, FAN_ALLOW);
	else
		close(ev.fd);
	o->access = reap(pid);
	audit_next_fanotify(s, o->record, sizeof(o->record), 2000);
	return 0;
}

static int fanotify_gate(const char *file)
{
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC |
			      FAN_ENABLE_AUDIT, O_RDONLY);

	if (g >= 0 && fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				    file)) {
		close(g);
		return -1;
	}
	return g;
}

static int fsgate_gate(const char *file, unsigned int flags)
{
	struct fsgate_init init = {
		.flags = FSGATE_CLASS_CONTENT | FSGATE_CLOEXEC | flags,
		.event_f_flags = O_RDONLY,
		.priority = FSGATE_PRIORITY_DEFAULT,
		.timeout_ms = PERM_LONG_MS,
	};
	int g = fsgate_init_ext(&init);

	if (g >= 0 && fsgate_mark(g, FSGATE_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				  file)) {
		close(g);
		return -1;
	}
	return g;
}

/* Where the guest keeps fsgate-run, which preloads the fanotify layer. */
#define FSGATE_RUN "/fsgate/bin/fsgate-run"
/* Set for this program run under fsgate-run: the file it gates. */
#define LAYER_FILE_ENV "FSGATE_AUDIT_TEST_LAYER_FILE"

/*
 * What a fanotify program with fapolicyd's deny_audit does, run under the
 * fanotify layer: FAN_ENABLE_AUDIT, then FAN_DENY | FAN_AUDIT. Returns 0
 * when every step went as on fanotify, else the step that did not.
 */
static int layer_program(const char *file)
{
	struct fanotify_event_metadata ev;
	struct fsgate_stats st;
	int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC |
			      FAN_ENABLE_AUDIT, O_RDONLY);
	pid_t pid;

	if (g < 0)
		return 10;
	/* The layer made an fsgate group, not an in-tree one. */
	if (fsgate_stats(g, &st))
		return 11;
	if (fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file))
		return 12;
	pid = spawn_open(file, O_RDONLY, 0);
	if (pid < 0 || next_event(g, 10000, &ev))
		return 13;
	if (answer(g, ev.fd, FAN_DENY | FAN_AUDIT) !=
	    sizeof(struct fanotify_response))
		return 14;
	return reap(pid) == EPERM ? 0 : 15;
}

/* Run as that program, and nothing else, when fsgate-run starts us so. */
static void __attribute__((constructor)) layer_program_mode(void)
{
	const char *file = getenv(LAYER_FILE_ENV);

	if (file)
		_exit(layer_program(file));
}

FIXTURE(audit) {
	char dir[64];
	char file[96];
	int s;		/* NETLINK_AUDIT, or -1 without audit */
	int ruled;	/* the rule was added */
};

FIXTURE_SETUP(audit)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("audit", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
	self->ruled = 0;
	self->s = audit_socket();
	if (self->s < 0)
		return;
	ASSERT_EQ(0, audit_daemon(self->s, 1));
	ASSERT_EQ(0, audit_rule(self->s, AUDIT_ADD_RULE));
	self->ruled = 1;
}

FIXTURE_TEARDOWN(audit)
{
	if (self->s >= 0) {
		if (self->ruled)
			EXPECT_EQ(0, audit_rule(self->s, AUDIT_DEL_RULE));
		EXPECT_EQ(0, audit_daemon(self->s, 0));
		close(self->s);
	}
	fsgate_test_tmpfs_done(self->dir);
}

/*
 * The feature bits say what the kernel can do: audit where it has it,
 * rules where fanotify takes FAN_INFO (its probe: a FAN_NOFD response
 * with a rule). fsgate answers the probe as fanotify does.
 */
TEST_F(audit, features_follow_the_kernel)
{
	const struct wire probe = {
		.r = { .fd = FAN_NOFD,
		       .response = FSGATE_ALLOW | FSGATE_INFO },
		.rule = { .type = FSGATE_RESPONSE_INFO_AUDIT_RULE,
			  .len = sizeof(probe.rule), .rule_number = 1 },
	};
	uint64_t features = fsgate_features();
	int fa, g, fa_ret, g_ret, fa_errno;

	if (self->s < 0) {
		TH_LOG("this kernel has no audit (no NETLINK_AUDIT): neither bit");
		EXPECT_EQ(0, features & (FSGATE_FEATURE_AUDIT |
					 FSGATE_FEATURE_AUDIT_RULE));
		EXPECT_EQ(-1, fsgate_gate(self->file, FSGATE_ENABLE_AUDIT));
		EXPECT_EQ(EINVAL, errno);
		return;
	}
	EXPECT_NE(0, features & FSGATE_FEATURE_AUDIT);
	fa = fanotify_gate(self->file);
	ASSERT_LE(0, fa);
	g = fsgate_gate(self->file, FSGATE_ENABLE_AUDIT);
	ASSERT_LE(0, g);
	fa_ret = write(fa, &probe, sizeof(probe));
	fa_errno = errno;
	g_ret = write(g, &probe, sizeof(probe));
	EXPECT_EQ(fa_ret, g_ret);
	if (fa_ret < 0)
		EXPECT_EQ(fa_errno, errno);
	EXPECT_EQ(fa_ret == (int)sizeof(probe),
		  !!(features & FSGATE_FEATURE_AUDIT_RULE));
	close(g);
	close(fa);
}

/* Each answer, given to fanotify and to fsgate: the same record. */
static const struct {
	const char *name;
	uint32_t response;	/* fanotify's answer */
	uint32_t fsgate_extra;	/* fsgate's own bits added to it */
	int rule;		/* followed by a rule */
	uint16_t rule_len;
	int fsgate_access;	/* the opener's exit under fsgate, if not 0 */
} cases[] = {
	{ .name = "allow, audited", .response = FAN_ALLOW | FAN_AUDIT },
	{ .name = "deny, audited", .response = FAN_DENY | FAN_AUDIT },
	{ .name = "allow, not audited", .response = FAN_ALLOW },
	{ .name = "deny, not audited", .response = FAN_DENY },
	{ .name = "deny with a rule",
	  .response = FAN_DENY | FAN_AUDIT | FSGATE_INFO, .rule = 1,
	  .rule_len = sizeof(struct fsgate_response_audit_rule) },
	{ .name = "allow with a rule",
	  .response = FAN_ALLOW | FAN_AUDIT | FSGATE_INFO, .rule = 1,
	  .rule_len = sizeof(struct fsgate_response_audit_rule) },
	{ .name = "rule of a bad length",
	  .response = FAN_DENY | FAN_AUDIT | FSGATE_INFO, .rule = 1,
	  .rule_len = 12 },
	/* fsgate's errno and cache bits are not in the record. */
	{ .name = "deny with an errno", .response = FAN_DENY | FAN_AUDIT,
	  .fsgate_extra = FSGATE_DENY_ERRNO(EIO) & ~FSGATE_DENY,
	  .fsgate_access = EIO },
	{ .name = "cached allow", .response = FAN_ALLOW | FAN_AUDIT,
	  .fsgate_extra = FSGATE_CACHE },
};

static void fill_wire(struct wire *w, unsigned int i, uint32_t extra)
{
	memset(w, 0, sizeof(*w));
	w->r.response = cases[i].response | extra;
	w->rule = (struct fsgate_response_audit_rule){
		.type = FSGATE_RESPONSE_INFO_AUDIT_RULE,
		.len = cases[i].rule_len,
		.rule_number = 0x3137 + i,
		.subj_trust = i % 3,
		.obj_trust = (i + 1) % 3,
	};
}

TEST_F_TIMEOUT(audit, records_match_fanotify, 600)
{
	struct outcome fa_o, g_o;
	struct wire w;
	unsigned int i;
	size_t len;
	int g;

	if (self->s < 0)
		SKIP(return, "this kernel has no audit (no NETLINK_AUDIT)");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = cases[i].rule ? sizeof(w) : sizeof(w.r);

		memset(&fa_o, 0, sizeof(fa_o));
		fill_wire(&w, i, 0);
		g = fanotify_gate(self->file);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, answer_once(g, self->s, self->file, &w, len, &fa_o))
			TH_LOG("%s: fanotify asked nothing", cases[i].name);
		close(g);

		memset(&g_o, 0, sizeof(g_o));
		fill_wire(&w, i, cases[i].fsgate_extra);
		g = fsgate_gate(self->file, FSGATE_ENABLE_AUDIT);
		ASSERT_LE(0, g);
		ASSERT_EQ(0, answer_once(g, self->s, self->file, &w, len, &g_o))
			TH_LOG("%s: fsgate asked nothing", cases[i].name);
		close(g);

		TH_LOG("%s: fanotify write %d (%s), record \"%s\"",
		       cases[i].name, fa_o.write_ret, strerror(fa_o.write_errno),
		       fa_o.record);
		EXPECT_EQ(fa_o.write_ret, g_o.write_ret) TH_LOG("%s", cases[i].name);
		EXPECT_EQ(fa_o.write_errno, g_o.write_errno)
			TH_LOG("%s", cases[i].name);
		EXPECT_STREQ(fa_o.record, g_o.record) TH_LOG("%s", cases[i].name);
		EXPECT_EQ(cases[i].fsgate_access ? cases[i].fsgate_access : fa_o.access,
			  g_o.access)
			TH_LOG("%s", cases[i].name);
		/* An audited answer that was taken has its record. */
		if ((cases[i].response & FAN_AUDIT) && fa_o.write_ret > 0)
			EXPECT_STRNE("", fa_o.record) TH_LOG("%s", cases[i].name);
	}
}

/*
 * Where the kernel's audit records have no rule (6.1), a rule answer is
 * refused with EINVAL and the event can still be answered. Skipped, before
 * any check, where they have one: a skip after failed checks would hide
 * them (6.1's harness reports such a test as skipped).
 */
TEST_F_TIMEOUT(audit, respond_rule_is_refused_without_rule_records, 120)
{
	const struct fsgate_response_audit_rule rule = {
		.type = FSGATE_RESPONSE_INFO_AUDIT_RULE,
		.len = sizeof(rule),
		.rule_number = 42,
	};
	struct fanotify_event_metadata ev;
	pid_t pid;
	int g;

	if (self->s < 0)
		SKIP(return, "this kernel has no audit (no NETLINK_AUDIT)");
	if (fsgate_features() & FSGATE_FEATURE_AUDIT_RULE)
		SKIP(return, "this kernel's audit records have a rule");
	g = fsgate_gate(self->file, FSGATE_ENABLE_AUDIT);
	ASSERT_LE(0, g);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, 10000, &ev));
	EXPECT_EQ(-1, fsgate_respond_rule(g, ev.fd, FSGATE_DENY | FSGATE_AUDIT,
					  &rule));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, answer(g, ev.fd, FSGATE_ALLOW) < 0);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/* fsgate_respond_rule() writes what fanotify's FAN_INFO answer is. */
TEST_F_TIMEOUT(audit, respond_rule_is_fanotify_info, 120)
{
	const struct fsgate_response_audit_rule rule = {
		.type = FSGATE_RESPONSE_INFO_AUDIT_RULE,
		.len = sizeof(rule),
		.rule_number = 42,
		.subj_trust = 1,
		.obj_trust = 2,
	};
	struct fanotify_event_metadata ev;
	char record[256];
	pid_t pid;
	int g;

	if (self->s < 0)
		SKIP(return, "this kernel has no audit (no NETLINK_AUDIT)");
	if (!(fsgate_features() & FSGATE_FEATURE_AUDIT_RULE))
		SKIP(return, "this kernel's audit records have no rule");
	g = fsgate_gate(self->file, FSGATE_ENABLE_AUDIT);
	ASSERT_LE(0, g);
	audit_drain(self->s);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, 10000, &ev));
	EXPECT_EQ(0, fsgate_respond_rule(g, ev.fd, FSGATE_DENY | FSGATE_AUDIT,
					 &rule));
	close(ev.fd);
	EXPECT_EQ(EPERM, reap(pid));
	audit_next_fanotify(self->s, record, sizeof(record), 2000);
	EXPECT_STREQ("resp=2 fan_type=1 fan_info=2A subj_trust=1 obj_trust=2",
		     record);
	close(g);
}

/*
 * The fanotify layer serves FAN_ENABLE_AUDIT and lets FAN_AUDIT through:
 * a fanotify program's audited deny gives the record fanotify gives.
 */
TEST_F_TIMEOUT(audit, fanotify_layer_passes_audit_through, 300)
{
	char exe[256], record[256];
	struct outcome fa_o = {};
	struct wire w = {};
	ssize_t n;
	pid_t pid;
	int g;

	if (self->s < 0)
		SKIP(return, "this kernel has no audit (no NETLINK_AUDIT)");
	/* The guest always has it: missing, it is a broken build. */
	ASSERT_EQ(0, access(FSGATE_RUN, X_OK)) TH_LOG("%s: %m", FSGATE_RUN);
	w.r.response = FAN_DENY | FAN_AUDIT;
	g = fanotify_gate(self->file);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, answer_once(g, self->s, self->file, &w, sizeof(w.r),
				 &fa_o));
	close(g);
	ASSERT_STRNE("", fa_o.record);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = 0;
	audit_drain(self->s);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		setenv(LAYER_FILE_ENV, self->file, 1);
		execl(FSGATE_RUN, FSGATE_RUN, "--", exe, (char *)NULL);
		_exit(127);
	}
	EXPECT_EQ(0, reap(pid));
	audit_next_fanotify(self->s, record, sizeof(record), 2000);
	EXPECT_STREQ(fa_o.record, record);
}

/* FSGATE_AUDIT on a group made without FSGATE_ENABLE_AUDIT: EINVAL. */
TEST_F(audit, audit_needs_enable_audit)
{
	struct fanotify_event_metadata ev;
	pid_t pid;
	int g = fsgate_gate(self->file, 0);

	ASSERT_LE(0, g);
	pid = spawn_open(self->file, O_RDONLY, 0);
	ASSERT_EQ(0, next_event(g, 10000, &ev));
	EXPECT_EQ(-1, fsgate_respond(g, ev.fd, FSGATE_DENY | FSGATE_AUDIT));
	EXPECT_EQ(EINVAL, errno);
	/* Refused as a whole: the event is still pending. */
	EXPECT_EQ(0, fsgate_respond(g, ev.fd, FSGATE_ALLOW));
	close(ev.fd);
	EXPECT_EQ(0, reap(pid));
	close(g);
}

/* FSGATE_ENABLE_AUDIT needs CAP_AUDIT_WRITE, as FAN_ENABLE_AUDIT does. */
TEST_F(audit, enable_audit_needs_cap_audit_write)
{
	int g;

	if (self->s < 0)
		SKIP(return, "this kernel has no audit (no NETLINK_AUDIT)");
	g = fsgate_gate(self->file, FSGATE_ENABLE_AUDIT);
	ASSERT_LE(0, g);
	close(g);
	/* The harness runs each test in a process of its own. */
	ASSERT_EQ(0, drop_capability(CAP_AUDIT_WRITE));
	EXPECT_EQ(-1, fanotify_init(FAN_CLASS_CONTENT | FAN_ENABLE_AUDIT,
				    O_RDONLY));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, fsgate_gate(self->file, FSGATE_ENABLE_AUDIT));
	EXPECT_EQ(EPERM, errno);
	/* Without the flag the capability is not needed. */
	g = fsgate_gate(self->file, 0);
	EXPECT_LE(0, g);
	close(g);
}

TEST_HARNESS_MAIN
