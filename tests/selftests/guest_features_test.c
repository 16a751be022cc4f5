// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel features that real programs in the guest (clamd, fatrace,
 * inotifywait, daemons on glib or libuv) rely on. The debug kernel is
 * built from tinyconfig; these tests keep its fragment honest.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

TEST(unix_socketpair_carries_data)
{
	int sv[2];
	char buf[4] = "";

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	ASSERT_EQ(3, write(sv[0], "abc", 3));
	ASSERT_EQ(3, read(sv[1], buf, 3));
	EXPECT_STREQ("abc", buf);
	close(sv[0]);
	close(sv[1]);
}

TEST(futex_wake_without_waiters)
{
	uint32_t word = 0;

	EXPECT_EQ(0, syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0));
}

TEST(epoll_sees_eventfd)
{
	struct epoll_event ev = { .events = EPOLLIN }, got;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int efd = eventfd(0, EFD_CLOEXEC);
	uint64_t one = 1;

	ASSERT_LE(0, ep);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev));
	ASSERT_EQ(8, write(efd, &one, 8));
	EXPECT_EQ(1, epoll_wait(ep, &got, 1, 1000));
	close(efd);
	close(ep);
}

TEST(inotify_reports_a_create)
{
	char buf[4096] __attribute__((aligned(8)));
	char dir[] = "/tmp/featXXXXXX", path[64];
	int in = inotify_init1(IN_CLOEXEC);
	int fd;

	ASSERT_LE(0, in);
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_LE(0, inotify_add_watch(in, dir, IN_CREATE));
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	EXPECT_LT(0, read(in, buf, sizeof(buf)));
	close(fd);
	unlink(path);
	rmdir(dir);
	close(in);
}

TEST(signalfd_receives_a_signal)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, kill(getpid(), SIGUSR1));
	ASSERT_EQ(sizeof(si), read(sfd, &si, sizeof(si)));
	EXPECT_EQ(SIGUSR1, si.ssi_signo);
	close(sfd);
}

TEST(posix_timer_can_be_armed)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { .it_value = { .tv_sec = 10 } };
	timer_t t;

	ASSERT_EQ(0, timer_create(CLOCK_MONOTONIC, &sev, &t));
	EXPECT_EQ(0, timer_settime(t, 0, &its, NULL));
	EXPECT_EQ(0, timer_delete(t));
}

TEST(posix_and_sysv_shared_memory)
{
	int fd = shm_open("/fsgate-feature", O_CREAT | O_RDWR, 0600);
	int id;
	void *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4096));
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 4096);
	close(fd);
	shm_unlink("/fsgate-feature");

	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	ASSERT_LE(0, id);
	EXPECT_EQ(0, shmctl(id, IPC_RMID, NULL));
}

TEST_HARNESS_MAIN
