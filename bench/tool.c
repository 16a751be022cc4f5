// SPDX-License-Identifier: GPL-2.0
/*
 * Real programs as watchers (fatrace, clamonacc, fsgate's tools): fsbench
 * starts one, waits for its marks, times the loop, stops it. A program is
 * ready when its fdinfo shows a mark, fanotify's or fsgate's, as the
 * fatrace scenario waits for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Whether a line of any fdinfo of @pid names a mark. */
static int has_mark(int pid)
{
	static const char *const marks[] = {
		"fsgate-mark ", "fanotify ino:", "fanotify mnt_id:",
		"fanotify sdev:",
	};
	char path[64], cmd[128], line[256];
	FILE *f;
	int found = 0;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	/* busybox has no grep -r over /proc: cat the files. */
	snprintf(cmd, sizeof(cmd), "cat %s/* 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (!strncmp(line, marks[i], strlen(marks[i])))
				found = 1;
	pclose(f);
	return found;
}

static pid_t spawn(const char *cmd)
{
	pid_t pid = fork();

	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int tool_start(const char *cmd, char *why, size_t len)
{
	pid_t pid = spawn(cmd);
	int i, st;

	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 600; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			snprintf(why, len, "the program ended (status %d)",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			return -1;
		}
		if (has_mark(pid)) {
			sleep_ms(1000);
			return pid;
		}
		sleep_ms(100);
	}
	snprintf(why, len, "no mark after 60 s");
	tool_stop(pid);
	return -1;
}

int tool_stop(int pid)
{
	int i, st;

	/* SIGINT as at a terminal (fatrace writes its log out then). */
	kill(pid, SIGINT);
	for (i = 0; i < 100; i++) {
		if (i == 50)
			kill(pid, SIGTERM);
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		sleep_ms(100);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

uint64_t tool_time(const char *cmd)
{
	uint64_t t = now_ns();
	pid_t pid = spawn(cmd);
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return 0;
	return now_ns() - t;
}
