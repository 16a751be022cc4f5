// SPDX-License-Identifier: GPL-2.0
/*
 * The timed access loops and their statistics. Time is CLOCK_MONOTONIC:
 * under QEMU's -icount it advances with the instructions the guest
 * executes, so a pass measures work, not the host's load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double loop_pass(int dirfd, const char (*names)[BENCH_NAME_LEN], long nnames,
		 long count, enum loop_kind kind, uint64_t *lat)
{
	static char buf[4096];
	uint64_t start = now_ns(), t;
	long i;
	int fd;

	for (i = 0; i < count; i++) {
		t = now_ns();
		if (kind == LOOP_CREATE)
			fd = openat(dirfd, names[i % nnames],
				    O_CREAT | O_EXCL | O_WRONLY, 0644);
		else
			fd = openat(dirfd, names[i % nnames], O_RDONLY);
		lat[i] = now_ns() - t;
		if (fd < 0)
			return -1;
		if (kind == LOOP_READ && read(fd, buf, sizeof(buf)) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
		if (kind == LOOP_CREATE &&
		    unlinkat(dirfd, names[i % nnames], 0) < 0)
			return -1;
	}
	t = now_ns() - start;
	if (!t) {
		errno = ERANGE;
		return -1;
	}
	return count * 1e9 / t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t percentile(uint64_t *v, size_t n, double pct)
{
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	/* Nearest rank: the smallest sample with pct% at or below it. */
	i = (size_t)(pct / 100 * n + 0.999999);
	return v[i ? i - 1 : 0];
}
