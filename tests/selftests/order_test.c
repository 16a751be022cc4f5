// SPDX-License-Identifier: GPL-2.0
/*
 * One order against in-tree fanotify groups on every kernel: with the
 * module's fanotify_order=content (the default), fsgate's groups are
 * asked after in-tree FAN_CLASS_PRE_CONTENT groups (an in-tree HSM fills
 * a file before fsgate's scanners read it) and tie with in-tree content
 * groups (perm_test); with fanotify_order=first (6.1 only) they are
 * asked before every in-tree group.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"
#include "perm_util.h"

#define WAIT_MS 5000	/* for events that must come */
#define NONE_MS 300	/* for events that must not */

FIXTURE(order) {
	char dir[64];
	char file[80];
	char mode[16];
};

FIXTURE_SETUP(order)
{
	ASSERT_EQ(0, fsgate_test_tmpfs("order", self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	write_file(self->file, "content\n");
	ASSERT_EQ(0, fanotify_order(self->mode, sizeof(self->mode)));
}

FIXTURE_TEARDOWN(order)
{
	fsgate_test_tmpfs_done(self->dir);
}

TEST_F(order, the_parameter_is_content_or_first_and_fixed_once_loaded)
{
	/* The one this boot asked for (tests/check), "content" by default. */
	EXPECT_STREQ(fanotify_order_wanted(), self->mode);
	errno = 0;
	EXPECT_EQ(-1, fsgate_test_param("fanotify_order", "first", NULL, 0));
	EXPECT_EQ(EACCES, errno);
}

/*
 * An in-tree pre-content group (an HSM) and an fsgate scanner mark one
 * filesystem: with fanotify_order=content the in-tree group is asked
 * first and fsgate hears nothing until it allows; with first, the
 * other way round. The one asked first denies the second time: the
 * other is not asked at all.
 */
TEST_F(order, an_in_tree_pre_content_group_and_fsgate_in_one_order)
{
	struct fanotify_event_metadata ev;
	int first_is_fsgate = !strcmp(self->mode, "first");
	int fan, g, fds[2], round;
	pid_t pid;

	fan = fanotify_init(FAN_CLASS_PRE_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			    O_RDONLY);
	ASSERT_LE(0, fan);
	g = content_group(2000);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_OPEN_PERM, AT_FDCWD, self->dir));
	ASSERT_EQ(0, perm_mark(g, FAN_OPEN_PERM, self->dir));
	fds[0] = first_is_fsgate ? g : fan;
	fds[1] = first_is_fsgate ? fan : g;

	for (round = 0; round < 2; round++) {
		pid = spawn_open(self->file, O_RDONLY, 0);
		ASSERT_EQ(0, next_event(fds[0], WAIT_MS, &ev))
			TH_LOG("round %d: the first (%s) was not asked",
			       round, first_is_fsgate ? "fsgate" : "fanotify");
		EXPECT_FALSE(readable(fds[1], NONE_MS));
		if (round) {
			EXPECT_EQ(sizeof(struct fanotify_response),
				  answer(fds[0], ev.fd, FAN_DENY));
			EXPECT_EQ(EPERM, reap(pid));
			EXPECT_FALSE(readable(fds[1], NONE_MS));
			continue;
		}
		EXPECT_EQ(sizeof(struct fanotify_response),
			  answer(fds[0], ev.fd, FAN_ALLOW));
		ASSERT_EQ(0, next_event(fds[1], WAIT_MS, &ev));
		EXPECT_EQ(sizeof(struct fanotify_response),
			  answer(fds[1], ev.fd, FAN_ALLOW));
		EXPECT_EQ(0, reap(pid));
	}
	close(fan);
	close(g);
}

TEST_HARNESS_MAIN
