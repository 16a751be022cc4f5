// SPDX-License-Identifier: GPL-2.0
/*
 * FSGATE_IOC_INIT: making listener groups, and what is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fsgate_util.h"

static const struct fsgate_init base = {
	.flags = FSGATE_CLASS_CONTENT,
	.event_f_flags = O_RDONLY,
	.priority = FSGATE_PRIORITY_DEFAULT,
};

TEST(each_class_gets_its_default_priority)
{
	static const struct {
		unsigned int flags;
		const char *class, *priority;
	} classes[] = {
		{ FSGATE_CLASS_NOTIF, "notif", "1000" },
		{ FSGATE_CLASS_CONTENT, "content", "2000" },
		{ FSGATE_CLASS_PRE_CONTENT, "pre-content", "3000" },
	};
	char buf[64];
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		fd = fsgate_init(classes[i].flags, O_RDONLY,
			 FSGATE_PRIORITY_DEFAULT);
		ASSERT_LE(0, fd) TH_LOG("class %s: %s", classes[i].class,
					strerror(errno));
		ASSERT_EQ(0, fsgate_test_fdinfo(fd, "class", buf, sizeof(buf)));
		EXPECT_STREQ(classes[i].class, buf);
		ASSERT_EQ(0, fsgate_test_fdinfo(fd, "priority", buf,
						sizeof(buf)));
		EXPECT_STREQ(classes[i].priority, buf);
		close(fd);
	}
}

TEST(explicit_priority_overrides_class)
{
	struct fsgate_init init = base;
	char buf[64];
	int fd;

	init.flags = FSGATE_CLASS_NOTIF;
	init.priority = 0;
	fd = fsgate_init_ext(&init);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fsgate_test_fdinfo(fd, "priority", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	close(fd);

	init.priority = FSGATE_PRIORITY_MAX;
	fd = fsgate_init_ext(&init);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fsgate_test_fdinfo(fd, "priority", buf, sizeof(buf)));
	EXPECT_STREQ("65535", buf);
	close(fd);
}

TEST(group_fd_is_an_fsgate_anon_inode)
{
	char path[64], target[64] = "";
	int fd = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
			 FSGATE_PRIORITY_DEFAULT);

	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_LT(0, readlink(path, target, sizeof(target) - 1));
	EXPECT_STREQ("anon_inode:[fsgate]", target);
	close(fd);
}

TEST(cloexec_and_nonblock_reach_the_fd)
{
	int fd = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
			 FSGATE_PRIORITY_DEFAULT);

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);

	fd = fsgate_init(FSGATE_CLASS_NOTIF | FSGATE_CLOEXEC |
			       FSGATE_NONBLOCK, O_RDONLY,
			 FSGATE_PRIORITY_DEFAULT);
	ASSERT_LE(0, fd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_NONBLOCK, fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
}

TEST(unknown_flags_are_einval)
{
	struct fsgate_init init = base;
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if ((1u << bit) & FSGATE_INIT_FLAGS)
			continue;
		init.flags = FSGATE_CLASS_CONTENT | (1u << bit);
		errno = 0;
		EXPECT_EQ(-1, fsgate_init_ext(&init)) TH_LOG("bit %u", bit);
		EXPECT_EQ(EINVAL, errno) TH_LOG("bit %u", bit);
	}
	init.flags = FSGATE_CLASS_MASK;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
}

TEST(nonzero_reserved_is_einval)
{
	struct fsgate_init init = base;
	unsigned int i;

	for (i = 0; i < sizeof(init.reserved) / sizeof(init.reserved[0]); i++) {
		init.reserved[i] = 1;
		errno = 0;
		EXPECT_EQ(-1, fsgate_init_ext(&init)) TH_LOG("reserved[%u]", i);
		EXPECT_EQ(EINVAL, errno);
		init.reserved[i] = 0;
	}
}

TEST(out_of_range_priority_is_einval)
{
	struct fsgate_init init = base;

	init.priority = FSGATE_PRIORITY_MAX + 1;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
	init.priority = FSGATE_PRIORITY_DEFAULT - 1;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
}

TEST(bad_verdicts_and_open_flags_are_einval)
{
	struct fsgate_init init = base;

	init.timeout_verdict = 3;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
	init = base;
	init.orphan_verdict = 0x80000000u;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
	init = base;
	init.event_f_flags = O_RDONLY | O_CREAT;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
	init.event_f_flags = O_ACCMODE;
	EXPECT_EQ(-1, fsgate_init_ext(&init));
	EXPECT_EQ(EINVAL, errno);
}

TEST(bad_pointer_is_efault_and_unknown_ioctl_enotty)
{
	int dev = open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, dev);
	EXPECT_EQ(-1, ioctl(dev, FSGATE_IOC_INIT, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(dev, _IOW(FSGATE_IOC_MAGIC, 0x7f, int), 0));
	EXPECT_EQ(ENOTTY, errno);
	/* The same command number with another size is another ioctl. */
	EXPECT_EQ(-1, ioctl(dev, _IOW(FSGATE_IOC_MAGIC, 0x01, int), 0));
	EXPECT_EQ(ENOTTY, errno);
	close(dev);
}

/*
 * Every user may open /dev/fsgate (FSGATE_FEATURE_UNPRIV, as anyone may
 * call fanotify_init(2)), but a content group needs CAP_SYS_ADMIN, as
 * fanotify's; unpriv_test checks the rest of the user's limits.
 */
TEST(non_root_opens_but_cannot_init_content)
{
	int dev, status;
	pid_t pid;

	dev = open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Dropping every uid also drops every capability. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (open(FSGATE_DEVICE, O_RDWR) < 0)
			_exit(11);
		if (ioctl(dev, FSGATE_IOC_INIT, &base) >= 0 || errno != EPERM)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(dev);
}

TEST(proc_lists_groups_in_priority_order)
{
	static const unsigned int prios[] = { 1000, 3000, 2000, 3000 };
	unsigned int want[] = { 3000, 3000, 2000, 1000 };
	struct fsgate_init init = base;
	int fds[4], id, pid, n = 0, i;
	unsigned int prio;
	char line[1024], comm[64], class[32];
	FILE *f;

	for (i = 0; i < 4; i++) {
		init.priority = prios[i];
		fds[i] = fsgate_init_ext(&init);
		ASSERT_LE(0, fds[i]);
	}
	f = fopen("/proc/fsgate/groups", "re");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	EXPECT_EQ(0, strncmp(line, "id pid comm class priority", 26));
	while (fgets(line, sizeof(line), f)) {
		ASSERT_EQ(5, sscanf(line, "%d %d %63s %31s %u", &id, &pid,
				    comm, class, &prio));
		if (pid != getpid())
			continue;
		ASSERT_GT(4, n);
		EXPECT_EQ(want[n], prio);
		EXPECT_STREQ("content", class);
		n++;
	}
	fclose(f);
	EXPECT_EQ(4, n);
	for (i = 0; i < 4; i++)
		close(fds[i]);
}

TEST(closing_groups_frees_them)
{
	int fds[100], i;

	for (i = 0; i < 100; i++) {
		fds[i] = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
			 FSGATE_PRIORITY_DEFAULT);
		ASSERT_LE(0, fds[i]);
	}
	EXPECT_EQ(100, fsgate_test_groups_of(getpid()));
	for (i = 0; i < 100; i++)
		close(fds[i]);
	EXPECT_EQ(0, fsgate_test_groups_of(getpid()));
}

TEST(a_user_has_at_most_max_groups)
{
	int fds[129], i, n = 0;

	/* max_groups is 128, as fanotify's max_user_groups. */
	for (i = 0; i < 129; i++) {
		fds[i] = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
				     FSGATE_PRIORITY_DEFAULT);
		if (fds[i] < 0)
			break;
		n++;
	}
	EXPECT_EQ(128, n);
	EXPECT_EQ(EMFILE, errno);
	ASSERT_LT(0, n);
	/* Closing one makes room for one, and for no more. */
	close(fds[--n]);
	fds[n] = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
			     FSGATE_PRIORITY_DEFAULT);
	EXPECT_LE(0, fds[n]);
	if (fds[n] >= 0)
		n++;
	EXPECT_EQ(-1, fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
				  FSGATE_PRIORITY_DEFAULT));
	EXPECT_EQ(EMFILE, errno);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

TEST(group_of_a_dead_process_goes_away)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(fsgate_init(FSGATE_CLASS_CONTENT, O_RDONLY,
				  FSGATE_PRIORITY_DEFAULT) < 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, fsgate_test_groups_of(pid));
}

TEST(module_cannot_unload_while_a_group_is_open)
{
	int fd = fsgate_init(FSGATE_CLASS_NOTIF, O_RDONLY,
			 FSGATE_PRIORITY_DEFAULT);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, syscall(SYS_delete_module, "fsgate", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(fd);
}

TEST_HARNESS_MAIN
