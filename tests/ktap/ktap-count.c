// SPDX-License-Identifier: GPL-2.0
/*
 * ktap-count - count leaf results of KTAP/TAP test output.
 *
 * With --list it prints every leaf instead of the counts, one a line:
 * "ok", "not ok" or "skip", a tab, its path (parents' names and its own
 * joined with '/'), and for a skip a tab and its reason. tests/check
 * holds that list against tests/manifest and tests/skips.
 *
 * Exit status: 0 all counted results passed, 1 some failed, 2 nothing
 * was counted (a run that ran nothing must not look like a pass) or a
 * usage or I/O error.
 */
#include <err.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: ktap-count [--name LABEL] [--quiet] [--list] FILE...\n"
		"FILE may be '-' for standard input.\n");
	exit(2);
}

static void print_failure(void *ctx, const char *failure)
{
	bool quiet = *(bool *)ctx;

	if (!quiet)
		printf("not ok: %s\n", failure);
}

static void print_leaf(void *ctx, enum ktap_status status, const char *path,
		       const char *reason)
{
	static const char *const word[] = {
		[KTAP_PASS] = "ok", [KTAP_FAIL] = "not ok", [KTAP_SKIP] = "skip",
	};

	(void)ctx;
	printf("%s\t%s", word[status], path);
	if (status == KTAP_SKIP)
		printf("\t%s", reason);
	putchar('\n');
}

/* The default label names the inputs: "a.log,b.log". */
static char *join_names(char **names, int n)
{
	size_t len = 1;
	char *label;

	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	label = calloc(1, len);
	if (!label)
		err(2, "label");
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(label, ",");
		strcat(label, names[i]);
	}
	return label;
}

/* Each file is its own set of streams: parser state never leaks across. */
static void count_file(const char *path, bool *quiet, bool list,
		       struct ktap_counts *total)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	struct ktap_parser p;
	struct ktap_counts c;

	if (!f)
		err(2, "%s", path);
	ktap_parser_init(&p, print_failure, quiet);
	if (list)
		ktap_parser_list(&p, print_leaf, NULL);
	if (ktap_parse_stream(&p, f))
		err(2, "%s", path);
	c = ktap_parser_finish(&p);
	if (!is_stdin)
		fclose(f);
	total->passed += c.passed;
	total->failed += c.failed;
	total->skipped += c.skipped;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ktap_counts total = { 0 };
	char *label = NULL, *default_label = NULL;
	bool quiet = false, list = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "n:qlh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			label = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'l':
			/* the failures are in the list already */
			list = quiet = true;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	if (!label)
		label = default_label = join_names(argv + optind,
						   argc - optind);

	for (int i = optind; i < argc; i++)
		count_file(argv[i], &quiet, list, &total);

	if (!list)
		printf("%s: %lu passed, %lu failed, %lu skipped\n", label,
		       total.passed, total.failed, total.skipped);
	if (fflush(stdout))
		err(2, "stdout");
	free(default_label);
	if (total.failed)
		return 1;
	return total.passed + total.skipped ? 0 : 2;
}
