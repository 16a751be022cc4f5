// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsgate_util.h"

int fsgate_test_fdinfo(int fd, const char *key, char *buf, size_t len)
{
	char path[64], line[512], *p;
	size_t klen = strlen(key);
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		for (p = strstr(line, key); p; p = strstr(p + 1, key)) {
			if ((p != line && p[-1] != ' ') || p[klen] != ':')
				continue;
			p += klen + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int fsgate_test_groups_of(int pid)
{
	char line[512];
	int n = 0, id, gpid;
	FILE *f;

	f = fopen("/proc/fsgate/groups", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d", &id, &gpid) == 2 && gpid == pid)
			n++;
	fclose(f);
	return n;
}

int fsgate_test_own_mounts(void)
{
	if (unshare(CLONE_NEWNS))
		return -1;
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

int fsgate_test_tmpfs(const char *name, char *dir, size_t len)
{
	if (fsgate_test_own_mounts())
		return -1;
	snprintf(dir, len, "/tmp/%s.%d", name, getpid());
	if (mkdir(dir, 0755))
		return -1;
	return mount("tmpfs", dir, "tmpfs", 0, NULL);
}

void fsgate_test_tmpfs_done(const char *dir)
{
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

int fsgate_test_drain(int g, struct fsgate_test_tally *t)
{
	char buf[8192] __attribute__((aligned(8)));
	const struct fanotify_event_metadata *ev;
	struct fsgate_test_tally unused;
	ssize_t len;
	int n = 0;

	if (!t) {
		memset(&unused, 0, sizeof(unused));
		t = &unused;
	}
	while ((len = read(g, buf, sizeof(buf))) > 0) {
		for (ev = (void *)buf; FAN_EVENT_OK(ev, len);
		     ev = FAN_EVENT_NEXT(ev, len)) {
			n++;
			t->events++;
			if (ev->mask & FAN_Q_OVERFLOW)
				t->overflows++;
			if (ev->mask & FAN_CLOSE_WRITE)
				t->close_writes++;
			if (ev->fd >= 0)
				close(ev->fd);
		}
	}
	return len < 0 && errno != EAGAIN ? -1 : n;
}

int fsgate_test_param(const char *name, const char *value, char *old,
		      size_t len)
{
	char path[128];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/fsgate/parameters/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (old)
		n = read(fd, old, len - 1);
	if (n < 0 || pwrite(fd, value, strlen(value), 0) < 0) {
		close(fd);
		return -1;
	}
	if (old) {
		old[n] = '\0';
		old[strcspn(old, "\n")] = '\0';
	}
	close(fd);
	return 0;
}

int fsgate_test_loop_attach(const char *img, char *dev, size_t len)
{
	int ctl, nr, fd, loop;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return -1;
	snprintf(dev, len, "/dev/loop%d", nr);
	fd = open(img, O_RDWR | O_CLOEXEC);
	loop = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0 || loop < 0 || ioctl(loop, LOOP_SET_FD, fd) < 0) {
		close(fd);
		close(loop);
		return -1;
	}
	close(fd);
	close(loop);
	return 0;
}

void fsgate_test_loop_detach(const char *dev)
{
	int loop = open(dev, O_RDWR | O_CLOEXEC);

	if (loop >= 0) {
		ioctl(loop, LOOP_CLR_FD, 0);
		close(loop);
	}
}

int fsgate_test_ext4(const char *img, char *dev, size_t len)
{
	char cmd[256];
	int status;

	snprintf(cmd, sizeof(cmd),
		 "dd if=/dev/zero of=%s bs=1M count=8 2>/dev/null && mke2fs -F %s >/dev/null 2>&1",
		 img, img);
	status = system(cmd);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return fsgate_test_loop_attach(img, dev, len);
}

int fsgate_test_nobody(int keep)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, keep ? 0 : 65534))
		return -1;
	return 0;
}

int fsgate_test_as_nobody(void (*fn)(const void *arg, void *out),
			  const void *arg, void *out, size_t len)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[0]);
		if (fsgate_test_nobody(0))
			_exit(1);
		fn(arg, out);
		_exit(write(p[1], out, len) != (ssize_t)len);
	}
	close(p[1]);
	n = read(p[0], out, len);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n != (ssize_t)len)
		return -1;
	return 0;
}
