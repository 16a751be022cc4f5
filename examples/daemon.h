/* SPDX-License-Identifier: MIT */
/*
 * What the example daemons (hsm, scanner, monitor) share: their common
 * options, the loop that reads and walks events, and naming the file and
 * the process an event is about. Each daemon keeps only its own concern.
 */
#ifndef EXAMPLES_DAEMON_H
#define EXAMPLES_DAEMON_H

#include <stddef.h>
#include <sys/types.h>

#include <fsgate.h>

#ifndef VERSION
#define VERSION "0"
#endif

/*
 * The extended attribute that makes a file a stub and names its content
 * in the archive. trusted.*, not user.*: tmpfs accepts user.* only from
 * Linux 6.6, and an HSM runs as root anyway (fsgate groups need
 * CAP_SYS_ADMIN, trusted.* needs the same).
 */
#define STUB_XATTR "trusted.fsgate.stub"

/*
 * Called for each event but overflows; it closes ev->fd (an HSM closes its
 * writable fd before it answers: see hsm.c).
 */
typedef void (*event_handler)(int group,
			      const struct fanotify_event_metadata *ev,
			      void *arg);

/*
 * The options every daemon takes, to end its getopt_long() table, and
 * their letters, to start its optstring.
 */
#define COMMON_OPTIONS \
	{ "priority", required_argument, NULL, 'p' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ 0 }
#define COMMON_OPTSTRING "p:hV"

/*
 * Handle an option of COMMON_OPTIONS: --priority sets @init->priority,
 * --help calls @usage(0); anything else calls @usage(2).
 */
void common_option(const char *prog, int opt, struct fsgate_init *init,
		   void (*usage)(int status));

/* Print "PROG VERSION" as GNU programs do for --version, and exit 0. */
void print_version(const char *prog);

/*
 * A number in 0..max from an option's argument (digits only, as
 * common/parse.h says), or exit 2 saying why.
 */
unsigned int option_number(const char *opt, const char *text,
			   unsigned long max);

/* FSGATE_VERDICT_ALLOW or _DENY from "allow" or "deny", or exit 2. */
unsigned int option_verdict(const char *opt, const char *text);

/*
 * Make the group from @init and add a filesystem mark for @mask on
 * @path: every mount of that filesystem is watched. Exit 1 on failure,
 * saying why in fsgate's terms.
 */
int open_group(const struct fsgate_init *init, uint64_t mask,
	       const char *path);

/*
 * Read events from @group and hand each to @handle for as long as the
 * process lives; return 1 once a read fails.
 */
int serve(const char *prog, int group, event_handler handle, void *arg);

/* The path an event fd refers to, into @buf; "?" if it cannot be told. */
const char *fd_path(int fd, char *buf, size_t len);

/*
 * The command name of @pid, into @buf, or "already exited": a process
 * told of by a notification event may be gone when it is read.
 */
const char *pid_comm(pid_t pid, char *buf, size_t len);

#endif /* EXAMPLES_DAEMON_H */
