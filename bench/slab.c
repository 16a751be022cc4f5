// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory as /proc/slabinfo counts it: active objects times object
 * size, per cache. SLUB merges caches of similar size, so a delta is
 * taken over all caches and the ones that grew most are named.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

int slab_snapshot(struct slab_snap *s)
{
	char line[512], name[64];
	long active, total, size;
	FILE *f = fopen("/proc/slabinfo", "re");

	if (!f)
		return -1;
	s->n = 0;
	while (fgets(line, sizeof(line), f) && s->n < SLAB_MAX_CACHES) {
		if (sscanf(line, "%63s %ld %ld %ld", name, &active, &total,
			   &size) != 4)
			continue;	/* the version and header lines */
		snprintf(s->cache[s->n].name, sizeof(s->cache[s->n].name),
			 "%s", name);
		s->cache[s->n].bytes = active * size;
		s->n++;
	}
	fclose(f);
	return 0;
}

static long bytes_of(const struct slab_snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->cache[i].name, name))
			return s->cache[i].bytes;
	return 0;
}

long slab_growth(const struct slab_snap *a, const struct slab_snap *b,
		 const char *name)
{
	return bytes_of(b, name) - bytes_of(a, name);
}

long slab_delta(const struct slab_snap *a, const struct slab_snap *b,
		char *top, size_t len)
{
	long total = 0, best[3] = { 0, 0, 0 };
	int who[3] = { -1, -1, -1 }, i, j, k;
	size_t off = 0;

	for (i = 0; i < b->n; i++) {
		long d = b->cache[i].bytes - bytes_of(a, b->cache[i].name);

		total += d;
		for (j = 0; j < 3; j++) {
			if (d <= best[j])
				continue;
			for (k = 2; k > j; k--) {
				best[k] = best[k - 1];
				who[k] = who[k - 1];
			}
			best[j] = d;
			who[j] = i;
			break;
		}
	}
	top[0] = '\0';
	for (j = 0; j < 3 && who[j] >= 0 && off < len; j++)
		off += snprintf(top + off, len - off, "%s%s:+%ld", j ? " " : "",
				b->cache[who[j]].name, best[j]);
	return total;
}
