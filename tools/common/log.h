/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools' log: to the journal with structured fields when the process
 * runs under systemd (its stderr is the journal stream) or is told to,
 * else one line "PROG: MESSAGE" on stderr.
 */
#ifndef TOOLS_LOG_H
#define TOOLS_LOG_H

#include <stddef.h>
#include <syslog.h>

enum log_target {
	LOG_TO_AUTO,	/* the journal if stderr is connected to it */
	LOG_TO_JOURNAL,	/* the journal if there is one */
	LOG_TO_STDERR,
};

/* Where log_send() writes from now on, and the identifier it uses. */
void log_open(const char *ident, enum log_target target);

/* Whether log_send() writes to the journal. */
int log_to_journal(void);

/*
 * Log MESSAGE (printf @fmt) at syslog @priority with @fields, a NULL-ended
 * list of "KEY=value" journal fields (NULL for none); on stderr the
 * fields are left out, the message says what matters.
 */
__attribute__((format(printf, 3, 4)))
void log_send(int priority, const char *const *fields, const char *fmt, ...);

/* Tell the service manager @state ("READY=1") if one asked to hear. */
void log_notify(const char *state);

#define log_err(...)	log_send(LOG_ERR, NULL, __VA_ARGS__)
#define log_warn(...)	log_send(LOG_WARNING, NULL, __VA_ARGS__)
#define log_info(...)	log_send(LOG_INFO, NULL, __VA_ARGS__)

#endif /* TOOLS_LOG_H */
