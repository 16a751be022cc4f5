// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-check: whether fsgate protects what it is configured to, for
 * monitoring and for the units' ExecStartPre=.
 *
 *   fsgate-check [-j|--json] [-u|--unit UNIT[=COMM]]...
 *   fsgate-check -m|--module
 *
 * The module: fsgate.ko loaded and its device present; when it is not,
 * why: not built for the running kernel (not in modules.dep), refused
 * by Secure Boot (an unsigned module with Secure Boot on), or built but
 * not loaded. The daemons: each unit (fsgate-scan.service and
 * fsgate-hsm.service by default) that is enabled must be active, and
 * its group in the module's list (a group whose process or persistent
 * name is the daemon's, read from by the daemon); a persistent group
 * with no daemon attached is a problem of its own. One line per problem,
 * exit status 1 when there is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fsgate.h>

#include "common/json.h"
#include "common/opts.h"

#ifndef VERSION
#define VERSION "0"
#endif

#define EXIT_PROBLEM 1
#define EXIT_USAGE 2
#define EXIT_NOT_LOADED 3

#define UNITS_MAX 16
#define PROBLEMS_MAX 64
#define SECURE_BOOT_VAR \
	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0f5b4ab0b8c"
#define SIG_MAGIC "~Module signature appended~\n"

static const char prog[] = "fsgate-check";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]...\n"
"Exit non-zero, with a line per problem, when fsgate does not protect what\n"
"it is configured to: fsgate.ko not loaded (and why), a daemon's unit\n"
"enabled but not active, its group missing from the module's list, or a\n"
"persistent group with no daemon attached.\n"
"\n"
"  -m, --module           check only that fsgate.ko is loaded and its device\n"
"                         present, saying why not (the units' ExecStartPre=)\n"
"  -u, --unit UNIT[=COMM] check UNIT's daemon, whose groups' process is COMM\n"
"                         (default: UNIT without .service); repeatable, in\n"
"                         place of fsgate-scan.service and fsgate-hsm.service\n"
"  -j, --json             one JSON object: ok and the problems\n"
"  -d, --device PATH      the device to check (default " FSGATE_DEVICE ")\n"
"      --kmod NAME        the module's name (default fsgate)\n"
"      --groups FILE      read the group list from FILE (the format of\n"
"                         " FSGATE_GROUPS_FILE ") instead of the module\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"Exit status: 0 when fsgate protects as configured, 1 for a problem,\n"
"2 for bad usage, 3 when fsgate.ko is not loaded. See fsgate-check(8).\n",
		prog);
}

struct unit {
	char name[256];
	char comm[17];
};

struct problem {
	const char *what;	/* "module", "unit" or "group" */
	char subject[256];
	char reason[768];
};

static struct problem problems[PROBLEMS_MAX];
static size_t nproblems;

__attribute__((format(printf, 3, 4)))
static void problem(const char *what, const char *subject, const char *fmt, ...)
{
	struct problem *p;
	va_list ap;

	if (nproblems == PROBLEMS_MAX)
		return;
	p = &problems[nproblems++];
	p->what = what;
	snprintf(p->subject, sizeof(p->subject), "%s", subject);
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof(p->reason), fmt, ap);
	va_end(ap);
}

/* Whether the module's file for @rel is in its modules.dep: its path. */
static int module_built(const char *name, const char *rel, char *path,
			size_t len)
{
	char dep[512], line[4096], want[128];
	FILE *f;
	int found = 0;

	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", rel);
	snprintf(want, sizeof(want), "%s.ko", name);
	f = fopen(dep, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (!strncmp(base, want, strlen(want)) &&
		    (!base[strlen(want)] || base[strlen(want)] == '.')) {
			found = snprintf(path, len, "/lib/modules/%s/%s", rel,
					 line) < (int)len;
		}
	}
	fclose(f);
	return found;
}

/* 1 with Secure Boot on, 0 off or not an EFI boot. */
static int secure_boot(void)
{
	unsigned char v[5];
	int fd = open(SECURE_BOOT_VAR, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, v, sizeof(v));
	close(fd);
	/* Four bytes of attributes, then the value. */
	return n == 5 && v[4] == 1;
}

/*
 * Whether the module file at @path carries a signature: 1, 0, or -1
 * when that cannot be told (compressed).
 */
static int module_signed(const char *path)
{
	char tail[sizeof(SIG_MAGIC) - 1];
	size_t len = strlen(path);
	int fd, ret = 0;

	if (len < 3 || strcmp(path + len - 3, ".ko"))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (lseek(fd, -(off_t)sizeof(tail), SEEK_END) >= 0 &&
	    read(fd, tail, sizeof(tail)) == (ssize_t)sizeof(tail))
		ret = !memcmp(tail, SIG_MAGIC, sizeof(tail));
	close(fd);
	return ret;
}

/*
 * The module and its device: 0 when usable, else a problem saying why
 * and EXIT_NOT_LOADED.
 */
static int check_module(const char *name, const char *device)
{
	char sys[256], path[1024];
	struct utsname u;
	struct stat st;
	int sig;

	snprintf(sys, sizeof(sys), "/sys/module/%s", name);
	if (stat(sys, &st) == 0) {
		if (stat(device, &st) == 0 && S_ISCHR(st.st_mode))
			return 0;
		problem("module", name,
			"%s.ko is loaded but %s is missing: udev has not made it (udevadm trigger --sysname-match=fsgate; journalctl -b -u systemd-udevd)",
			name, device);
		return EXIT_NOT_LOADED;
	}
	uname(&u);
	if (!module_built(name, u.release, path, sizeof(path))) {
		problem("module", name,
			"%s.ko is not loaded: it is not built for the running kernel %s (not in /lib/modules/%s/modules.dep): see dkms status %s, or install fsgate-modules-%s",
			name, u.release, u.release, name, u.release);
		return EXIT_NOT_LOADED;
	}
	sig = secure_boot() ? module_signed(path) : 1;
	if (sig == 0)
		problem("module", name,
			"%s.ko is not loaded: %s is not signed and Secure Boot is on (mokutil --sb-state): the kernel refuses it (Key was rejected by service); sign it with an enrolled key (mokutil --import)",
			name, path);
	else if (sig < 0)
		problem("module", name,
			"%s.ko is not loaded: %s is built, and Secure Boot is on (mokutil --sb-state): if modprobe %s says Key was rejected by service, it is not signed with an enrolled key",
			name, path, name);
	else
		problem("module", name,
			"%s.ko is not loaded: %s is built for %s but was not loaded: modprobe %s says why; journalctl -b -u systemd-modules-load",
			name, path, u.release, name);
	return EXIT_NOT_LOADED;
}

/* What systemctl show says of @unit: its properties, "" when not said. */
struct unit_state {
	char load[32], active[32], file[32];
};

static void unit_state(const char *unit, struct unit_state *s)
{
	char cmd[512], line[512];
	FILE *f;

	memset(s, 0, sizeof(*s));
	/* Unit names are [A-Za-z0-9:_.\\@-]: nothing a shell would take. */
	if (strspn(unit, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.\\@-") != strlen(unit))
		return;
	snprintf(cmd, sizeof(cmd),
		 "systemctl show -p LoadState -p ActiveState -p UnitFileState '%s' 2>/dev/null",
		 unit);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, '=');

		if (!v)
			continue;
		*v++ = '\0';
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "LoadState"))
			snprintf(s->load, sizeof(s->load), "%s", v);
		else if (!strcmp(line, "ActiveState"))
			snprintf(s->active, sizeof(s->active), "%s", v);
		else if (!strcmp(line, "UnitFileState"))
			snprintf(s->file, sizeof(s->file), "%s", v);
	}
	pclose(f);
}

static int enabled(const char *file_state)
{
	return !strncmp(file_state, "enabled", 7) ||
	       !strcmp(file_state, "static") || !strcmp(file_state, "alias");
}

/*
 * The daemon's group: its process's or persistent name, attached. Never
 * a notification group: any user may make one (/dev/fsgate is 0666),
 * under any command name, and none decides an access.
 */
static const struct fsgate_group_info *
daemon_group(const struct unit *u, const struct fsgate_group_info *g, ssize_t n,
	     int *unattached)
{
	ssize_t i;

	*unattached = 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(g[i].class_name, "notif"))
			continue;
		if (strcmp(g[i].comm, u->comm) && strcmp(g[i].name, u->comm))
			continue;
		if (*g[i].name && !g[i].attached) {
			*unattached = 1;
			continue;
		}
		return &g[i];
	}
	return NULL;
}

static void check_unit(const struct unit *u, const struct fsgate_group_info *g,
		       ssize_t n)
{
	const struct fsgate_group_info *mine;
	struct unit_state s;
	int unattached;

	unit_state(u->name, &s);
	/* Not installed, or no systemd: not configured. */
	if (strcmp(s.load, "loaded") || !enabled(s.file))
		return;
	if (strcmp(s.active, "active")) {
		problem("unit", u->name,
			"%s is enabled but %s: not protecting (systemctl status %s)",
			u->name, *s.active ? s.active : "in an unknown state",
			u->name);
		return;
	}
	if (n < 0)
		return;
	mine = daemon_group(u, g, n, &unattached);
	if (!mine)
		problem("unit", u->name,
			"%s is active but no group of %s %s the module's list: not protecting (fsgatectl groups)",
			u->name, u->comm,
			unattached ? "with the daemon attached is in" : "is in");
}

static void check_groups(const struct fsgate_group_info *g, ssize_t n)
{
	ssize_t i;

	for (i = 0; i < n; i++) {
		if (!*g[i].name || g[i].attached)
			continue;
		problem("group", g[i].name,
			"persistent group %s (id %llu) has no daemon attached: accesses on its marks wait up to absent_ms, then get its absent verdict",
			g[i].name, (unsigned long long)g[i].id);
	}
}

static void print_json(void)
{
	size_t i;

	printf("{\"ok\":%s,\"problems\":[", nproblems ? "false" : "true");
	for (i = 0; i < nproblems; i++) {
		printf("%s{\"what\":\"%s\",\"subject\":", i ? "," : "",
		       problems[i].what);
		json_string(stdout, problems[i].subject);
		printf(",\"reason\":");
		json_string(stdout, problems[i].reason);
		printf("}");
	}
	printf("]}\n");
}

static int add_unit(struct unit *units, size_t *n, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	struct unit *u;
	const char *comm;

	if (*n == UNITS_MAX || !len || len >= sizeof(u->name))
		return -1;
	u = &units[(*n)++];
	snprintf(u->name, sizeof(u->name), "%.*s", (int)len, arg);
	if (eq) {
		comm = eq + 1;
		len = strlen(comm);
	} else {
		comm = u->name;
		if (len > 8 && !strcmp(u->name + len - 8, ".service"))
			len -= 8;
	}
	if (!len)
		return -1;
	snprintf(u->comm, sizeof(u->comm), "%.*s", (int)len, comm);
	return 0;
}

enum { O_KMOD = 256, O_GROUPS };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "module", no_argument, NULL, 'm' },
		{ "unit", required_argument, NULL, 'u' },
		{ "json", no_argument, NULL, 'j' },
		{ "device", required_argument, NULL, 'd' },
		{ "kmod", required_argument, NULL, O_KMOD },
		{ "groups", required_argument, NULL, O_GROUPS },
		OPTS_HELP_VERSION
	};
	const char *device = FSGATE_DEVICE, *kmod = "fsgate", *groups = NULL;
	struct fsgate_group_info *g = NULL;
	struct unit units[UNITS_MAX];
	int c, json = 0, module_only = 0, ret;
	size_t nunits = 0, i;
	ssize_t n = -1;

	while ((c = getopt_long(argc, argv, "mu:jd:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			module_only = 1;
			break;
		case 'u':
			if (add_unit(units, &nunits, optarg) < 0) {
				fprintf(stderr, "%s: bad --unit %s (see --help)\n",
					prog, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'd':
			device = optarg;
			break;
		case O_KMOD:
			kmod = optarg;
			break;
		case O_GROUPS:
			groups = optarg;
			break;
		default:
			opts_exit(c, prog, VERSION, usage, EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: no argument expected: %s (see --help)\n",
			prog, argv[optind]);
		return EXIT_USAGE;
	}
	if (!nunits) {
		add_unit(units, &nunits, "fsgate-scan.service");
		add_unit(units, &nunits, "fsgate-hsm.service");
	}
	ret = groups ? 0 : check_module(kmod, device);
	if (!module_only) {
		if (!ret || groups) {
			n = fsgate_groups_read(groups, &g);
			if (n < 0)
				problem("module", kmod, "cannot list groups: %s",
					strerror(errno));
		}
		for (i = 0; i < nunits; i++)
			check_unit(&units[i], g, n);
		if (n > 0)
			check_groups(g, n);
		free(g);
	}
	if (json) {
		print_json();
	} else {
		for (i = 0; i < nproblems; i++)
			printf("%s: %s\n", problems[i].subject, problems[i].reason);
		if (!nproblems && groups)
			printf("ok: every enabled daemon is protecting\n");
		else if (!nproblems)
			printf("ok: %s is loaded%s\n", kmod, module_only ? "" :
			       " and every enabled daemon is protecting");
	}
	if (ret)
		return ret;
	return nproblems ? EXIT_PROBLEM : 0;
}
