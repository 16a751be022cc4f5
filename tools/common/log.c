// SPDX-License-Identifier: GPL-2.0
/*
 * See log.h. libsystemd is loaded only when there is a journal to write
 * to or a service manager to notify: a tool started by hand, or in a
 * test guest, does not pay for loading it and its libraries on every
 * exec. systemd sets JOURNAL_STREAM to the device and inode of the
 * stream it connected to stdout/stderr; when stderr is that stream, the
 * journal is where a line would go anyway, so send it there with its
 * fields (sd_journal_stream_fd(3) describes the check).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "log.h"

#define LOG_FIELDS_MAX 16
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static const char *log_ident = "fsgate";
static int journal;

/* sd_journal_sendv() and sd_notify(), from libsystemd once loaded. */
static int (*journal_sendv)(const struct iovec *iov, int n);
static int (*notify)(int unset_environment, const char *state);

static int load_libsystemd(void)
{
	static void *lib;

	if (lib)
		return 0;
	lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	journal_sendv = (int (*)(const struct iovec *, int))
			dlsym(lib, "sd_journal_sendv");
	notify = (int (*)(int, const char *))dlsym(lib, "sd_notify");
	return journal_sendv && notify ? 0 : -1;
}

static int stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(2, &st) < 0)
		return 0;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_open(const char *ident, enum log_target target)
{
	log_ident = ident;
	switch (target) {
	case LOG_TO_JOURNAL:
		/*
		 * sd_journal_send() drops lines silently where there is no
		 * journal: stderr then.
		 */
		journal = access(JOURNAL_SOCKET, W_OK) == 0;
		break;
	case LOG_TO_STDERR:
		journal = 0;
		break;
	default:
		journal = stderr_is_journal();
	}
	if (journal && load_libsystemd() < 0)
		journal = 0;
}

void log_notify(const char *state)
{
	/* Not started by a service manager that wants to hear: nothing. */
	if (!getenv("NOTIFY_SOCKET") || load_libsystemd() < 0)
		return;
	notify(0, state);
}

int log_to_journal(void)
{
	return journal;
}

static void send_journal(int priority, const char *const *fields,
			 const char *msg)
{
	char prio[16], ident[64], *message;
	struct iovec iov[LOG_FIELDS_MAX + 3];
	int n = 0;

	snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
	snprintf(ident, sizeof(ident), "SYSLOG_IDENTIFIER=%s", log_ident);
	if (asprintf(&message, "MESSAGE=%s", msg) < 0)
		return;
	iov[n++] = (struct iovec){ message, strlen(message) };
	iov[n++] = (struct iovec){ prio, strlen(prio) };
	iov[n++] = (struct iovec){ ident, strlen(ident) };
	for (; fields && *fields && n < LOG_FIELDS_MAX + 3; fields++)
		iov[n++] = (struct iovec){ (void *)*fields, strlen(*fields) };
	/* A journal that cannot take the line: stderr still can. */
	if (journal_sendv(iov, n) < 0)
		fprintf(stderr, "%s: %s\n", log_ident, msg);
	free(message);
}

void log_send(int priority, const char *const *fields, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (journal)
		send_journal(priority, fields, msg);
	else
		fprintf(stderr, "%s: %s\n", log_ident, msg);
}
