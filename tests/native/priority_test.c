// SPDX-License-Identifier: GPL-2.0
/*
 * Explicit priorities inside a fanotify class (patches/fanotify-priority/
 * 1-3), with the plain fanotify API on a patched kernel: an HSM and a
 * scanner of one class are asked by priority whichever is created first
 * and whatever marks they use; a deny is never overridden; equal
 * priorities go in creation order; the classes still come first; the
 * errnos and the fdinfo line.
 */
#include "native_util.h"
#include "kselftest_harness.h"

#define HSM_CONTENT "restored by the HSM"

FIXTURE(prio) {
	int g[4];
};

FIXTURE_SETUP(prio)
{
	int i;

	for (i = 0; i < 4; i++)
		self->g[i] = -1;
	ASSERT_EQ(0, native_tmpfs()) TH_LOG("tmpfs: %s", strerror(errno));
}

FIXTURE_TEARDOWN(prio)
{
	int i;

	for (i = 0; i < 4; i++)
		if (self->g[i] >= 0)
			close(self->g[i]);
}

/* The mark types of the HSM and of the scanner. */
FIXTURE_VARIANT(prio) {
	int hsm_mark, scanner_mark;
};

FIXTURE_VARIANT_ADD(prio, inode_and_filesystem) {
	.hsm_mark = 0, .scanner_mark = 2,
};

FIXTURE_VARIANT_ADD(prio, filesystem_and_inode) {
	.hsm_mark = 2, .scanner_mark = 0,
};

FIXTURE_VARIANT_ADD(prio, mount_and_inode) {
	.hsm_mark = 1, .scanner_mark = 0,
};

FIXTURE_VARIANT_ADD(prio, filesystem_and_mount) {
	.hsm_mark = 2, .scanner_mark = 1,
};

/*
 * An HSM (priority 20, writable event fds) and a scanner (priority 10) of
 * FAN_CLASS_CONTENT, created in the order @hsm_first says. The HSM must
 * be asked first: it fills the empty file through its event fd, then the
 * scanner reads what was filled.
 */
static void hsm_then_scanner(struct __test_metadata *_metadata,
			     FIXTURE_DATA(prio) *self,
			     const FIXTURE_VARIANT(prio) *variant, int hsm_first)
{
	struct fanotify_event_metadata ev;
	int hsm = hsm_first ? 0 : 1, scanner = 1 - hsm;
	char buf[64] = "";
	ssize_t n;
	pid_t pid;
	int fd;

	fd = open(NATIVE_FILE, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	close(fd);
	if (hsm_first) {
		self->g[0] = native_group(FAN_CLASS_CONTENT, 20, O_RDWR);
		self->g[1] = native_group(FAN_CLASS_CONTENT, 10, O_RDONLY);
	} else {
		self->g[0] = native_group(FAN_CLASS_CONTENT, 10, O_RDONLY);
		self->g[1] = native_group(FAN_CLASS_CONTENT, 20, O_RDWR);
	}
	ASSERT_LE(0, self->g[0]) TH_LOG("fanotify_init: %s", strerror(errno));
	ASSERT_LE(0, self->g[1]) TH_LOG("fanotify_init: %s", strerror(errno));
	ASSERT_EQ(0, native_mark(self->g[hsm], variant->hsm_mark,
				 FAN_OPEN_PERM, NATIVE_FILE));
	ASSERT_EQ(0, native_mark(self->g[scanner], variant->scanner_mark,
				 FAN_OPEN_PERM, NATIVE_FILE));

	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(hsm, native_next(self->g, 2, 5000, &ev))
		TH_LOG("the HSM (%s mark, created %s) was not asked alone first",
		       mark_names[variant->hsm_mark], hsm_first ? "first" : "second");
	n = pwrite(ev.fd, HSM_CONTENT, strlen(HSM_CONTENT), 0);
	EXPECT_EQ((ssize_t)strlen(HSM_CONTENT), n);
	ASSERT_EQ(0, native_answer(self->g[hsm], &ev, FAN_ALLOW));

	ASSERT_EQ(scanner, native_next(self->g, 2, 5000, &ev));
	n = pread(ev.fd, buf, sizeof(buf) - 1, 0);
	EXPECT_EQ((ssize_t)strlen(HSM_CONTENT), n);
	EXPECT_STREQ(HSM_CONTENT, buf);
	ASSERT_EQ(0, native_answer(self->g[scanner], &ev, FAN_ALLOW));
	EXPECT_EQ(0, native_reap(pid));
	close(self->g[0]);
	close(self->g[1]);
	self->g[0] = self->g[1] = -1;
}

TEST_F(prio, hsm_before_scanner_hsm_created_first)
{
	hsm_then_scanner(_metadata, self, variant, 1);
}

TEST_F(prio, hsm_before_scanner_scanner_created_first)
{
	hsm_then_scanner(_metadata, self, variant, 0);
}

/*
 * Of two groups of one class, the first asked denies: the access fails
 * with EPERM and the second is never asked. The second asked denies
 * after the first allowed: EPERM too; an allow never overrides a deny.
 */
TEST_F(prio, a_deny_is_never_overridden)
{
	struct fanotify_event_metadata ev;
	int round, denier, other;
	pid_t pid;

	for (round = 0; round < 2; round++) {
		/* Round 0: the higher priority denies; round 1: the lower. */
		self->g[0] = native_group(FAN_CLASS_CONTENT, 30, O_RDONLY);
		self->g[1] = native_group(FAN_CLASS_CONTENT, 5, O_RDONLY);
		ASSERT_LE(0, self->g[0]);
		ASSERT_LE(0, self->g[1]);
		ASSERT_EQ(0, native_mark(self->g[0], variant->hsm_mark,
					 FAN_OPEN_PERM, NATIVE_FILE));
		ASSERT_EQ(0, native_mark(self->g[1], variant->scanner_mark,
					 FAN_OPEN_PERM, NATIVE_FILE));
		denier = round;
		other = 1 - round;
		pid = native_open_child(NATIVE_FILE);
		ASSERT_EQ(0, native_next(self->g, 2, 5000, &ev));
		ASSERT_EQ(0, native_answer(self->g[0], &ev,
					   denier == 0 ? FAN_DENY : FAN_ALLOW));
		if (denier == 1) {
			ASSERT_EQ(1, native_next(self->g, 2, 5000, &ev));
			ASSERT_EQ(0, native_answer(self->g[1], &ev, FAN_DENY));
		}
		EXPECT_EQ(EPERM, native_reap(pid));
		/* After a deny by the first, the second heard nothing. */
		if (denier == 0)
			EXPECT_EQ(-1, native_next(&self->g[other], 1, 200, &ev));
		close(self->g[0]);
		close(self->g[1]);
		self->g[0] = self->g[1] = -1;
	}
}

/* Three groups of one class and priority: asked in creation order, in
 * whatever order their marks were added. */
TEST_F(prio, equal_priorities_go_in_creation_order)
{
	struct fanotify_event_metadata ev;
	int i, round;
	pid_t pid;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < 3; i++) {
			self->g[i] = native_group(FAN_CLASS_CONTENT,
						  round == 2 ? -1 : 7, O_RDONLY);
			ASSERT_LE(0, self->g[i]);
		}
		/* Marks in reverse order of creation, alternating types. */
		for (i = 2; i >= 0; i--)
			ASSERT_EQ(0, native_mark(self->g[i], i % 2 ?
						 variant->hsm_mark :
						 variant->scanner_mark,
						 FAN_OPEN_PERM, NATIVE_FILE));
		pid = native_open_child(NATIVE_FILE);
		for (i = 0; i < 3; i++) {
			ASSERT_EQ(i, native_next(self->g, 3, 5000, &ev))
				TH_LOG("round %d: group %d was not asked %s",
				       round, i, i ? "next" : "first");
			ASSERT_EQ(0, native_answer(self->g[i], &ev, FAN_ALLOW));
		}
		EXPECT_EQ(0, native_reap(pid));
		for (i = 0; i < 3; i++) {
			close(self->g[i]);
			self->g[i] = -1;
		}
	}
}

/* The classes come first: a pre-content group of priority 0 is asked
 * before a content group of priority FAN_PRIORITY_MAX. */
TEST_F(prio, classes_come_before_priorities)
{
	struct fanotify_event_metadata ev;
	pid_t pid;

	self->g[0] = native_group(FAN_CLASS_CONTENT, FAN_PRIORITY_MAX, O_RDONLY);
	self->g[1] = native_group(FAN_CLASS_PRE_CONTENT, 0, O_RDONLY);
	ASSERT_LE(0, self->g[0]);
	ASSERT_LE(0, self->g[1]);
	ASSERT_EQ(0, native_mark(self->g[0], variant->hsm_mark, FAN_OPEN_PERM,
				 NATIVE_FILE));
	ASSERT_EQ(0, native_mark(self->g[1], variant->scanner_mark,
				 FAN_OPEN_PERM, NATIVE_FILE));
	pid = native_open_child(NATIVE_FILE);
	ASSERT_EQ(1, native_next(self->g, 2, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g[1], &ev, FAN_ALLOW));
	ASSERT_EQ(0, native_next(self->g, 2, 5000, &ev));
	ASSERT_EQ(0, native_answer(self->g[0], &ev, FAN_ALLOW));
	EXPECT_EQ(0, native_reap(pid));
}

/* Valid priorities in every class; 128 and up, and bit 31, are EINVAL;
 * an unprivileged caller gets EPERM. */
TEST(priority_errnos)
{
	int g, status;
	pid_t pid;

	/* Every valid priority, in every class. */
	g = fanotify_init(FAN_CLASS_NOTIF | FAN_PRIORITY(FAN_PRIORITY_MAX), O_RDONLY);
	ASSERT_LE(0, g) TH_LOG("no native priorities: %s", strerror(errno));
	close(g);
	g = fanotify_init(FAN_CLASS_PRE_CONTENT | FAN_PRIORITY(1), O_RDONLY);
	ASSERT_LE(0, g);
	close(g);
	/* 128 sets bit 31, which is no flag: EINVAL. */
	EXPECT_EQ(-1, fanotify_init(FAN_CLASS_CONTENT | FAN_PRIORITY(128), O_RDONLY));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, fanotify_init(FAN_CLASS_CONTENT | 0x80000000u, O_RDONLY));
	EXPECT_EQ(EINVAL, errno);

	/* Unprivileged: EPERM, even for a notification group with FID. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (native_drop_privileges())
			_exit(100);
		g = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
		if (g < 0)
			_exit(101);	/* unprivileged fanotify is off */
		close(g);
		g = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID |
				  FAN_PRIORITY(1), O_RDONLY);
		_exit(g >= 0 ? 0 : errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
}

/* fdinfo: the priority in the flags and as "priority:N"; a group without
 * one keeps the line it always had. */
TEST(fdinfo_shows_the_priority)
{
	char line[256], want[128];
	int g;

	g = fanotify_init(FAN_CLASS_CONTENT | FAN_PRIORITY(42), O_RDONLY);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, native_fdinfo_line(g, line, sizeof(line)));
	snprintf(want, sizeof(want), "fanotify flags:%x event-flags:%x priority:42",
		 FAN_CLASS_CONTENT | FAN_PRIORITY(42), O_RDONLY | KERNEL_O_LARGEFILE);
	EXPECT_STREQ(want, line);
	close(g);

	g = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, native_fdinfo_line(g, line, sizeof(line)));
	snprintf(want, sizeof(want), "fanotify flags:%x event-flags:%x",
		 FAN_CLASS_CONTENT, O_RDONLY | KERNEL_O_LARGEFILE);
	EXPECT_STREQ(want, line);
	close(g);
}

TEST_HARNESS_MAIN
