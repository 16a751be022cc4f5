// SPDX-License-Identifier: GPL-2.0
/*
 * The timed access loops and their statistics. Time is CLOCK_MONOTONIC:
 * under QEMU's -icount it advances with the instructions the guest
 * executes, so a pass measures work, not the host's load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
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

/*
 * One accessor's share of the pass, accesses @lo to @hi, in a child. It
 * says it is ready on @ready, waits for the parent to close @go's write end,
 * runs and exits 0 or 1.
 */
static void accessor(int dirfd, const char (*names)[BENCH_NAME_LEN],
		     long nnames, long lo, long hi, enum loop_kind kind,
		     uint64_t *lat, int ready, const int go[2])
{
	char c = 0;

	close(go[1]);
	if (write(ready, &c, 1) != 1 || read(go[0], &c, 1) != 0)
		_exit(1);
	/* One file for every access (loop "one"), or a slice of them. */
	if (nnames > 1) {
		names += lo;
		nnames = hi - lo;
	}
	_exit(loop_pass(dirfd, names, nnames, hi - lo, kind, lat + lo) < 0);
}

/* Start @nproc accessors; 0 once all are ready, -1 on error. */
static int start_accessors(int dirfd, const char (*names)[BENCH_NAME_LEN],
			   long nnames, long count, enum loop_kind kind,
			   uint64_t *lat, int nproc, pid_t *pid, const int go[2])
{
	int ready[2], j, started;
	char c;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return -1;
	for (j = 0; j < nproc; j++) {
		pid[j] = fork();
		if (pid[j] < 0)
			break;
		if (!pid[j]) {
			close(ready[0]);
			accessor(dirfd, names, nnames, count * j / nproc,
				 count * (j + 1) / nproc, kind, lat, ready[1],
				 go);
		}
	}
	started = j;
	close(ready[1]);
	while (j > 0 && read(ready[0], &c, 1) == 1)
		j--;
	close(ready[0]);
	return started == nproc && !j ? 0 : -1;
}

double loop_pass_parallel(int dirfd, const char (*names)[BENCH_NAME_LEN],
			  long nnames, long count, enum loop_kind kind,
			  uint64_t *lat, int nproc)
{
	size_t size = count * sizeof(*lat);
	uint64_t *shared, start, t;
	pid_t pid[LOOP_MAX_ACCESSORS];
	int go[2], j, st, failed = 0;

	if (nproc < 1 || nproc > LOOP_MAX_ACCESSORS) {
		errno = EINVAL;
		return -1;
	}
	shared = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -1;
	if (pipe2(go, O_CLOEXEC) < 0) {
		munmap(shared, size);
		return -1;
	}
	memset(pid, 0, sizeof(pid));
	failed = start_accessors(dirfd, names, nnames, count, kind, shared,
				 nproc, pid, go) < 0;
	/* Every accessor is at the barrier: start them at once. */
	start = now_ns();
	close(go[1]);
	for (j = 0; j < nproc && pid[j] > 0; j++)
		if (waitpid(pid[j], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed = 1;
	t = now_ns() - start;
	close(go[0]);
	memcpy(lat, shared, size);
	munmap(shared, size);
	if (failed || !t) {
		errno = failed ? EIO : ERANGE;
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
