// SPDX-License-Identifier: GPL-2.0
/*
 * opentime FILE...: open each FILE in turn, read a byte of it and close
 * it, and print one line each: the milliseconds the open took
 * (CLOCK_MONOTONIC, to the microsecond), 0 or the errno's name, and the
 * FILE. Exit status 0 when every open succeeded, 1 otherwise. Scenarios
 * use it to show that an open was not stalled behind something else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int i, fd, err, ret = 0;
	double t0, t1;
	char c;

	for (i = 1; i < argc; i++) {
		t0 = now_ms();
		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
		t1 = now_ms();
		if (fd >= 0) {
			if (read(fd, &c, 1) < 0)
				err = errno;
			close(fd);
		}
		printf("%.3f %s %s\n", t1 - t0, err ? strerrorname_np(err) : "0",
		       argv[i]);
		if (err)
			ret = 1;
	}
	return ret;
}
