// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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
