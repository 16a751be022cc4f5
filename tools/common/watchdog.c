// SPDX-License-Identifier: GPL-2.0
/*
 * See watchdog.h. The environment is read once, as sd_watchdog_enabled(3)
 * reads it (WATCHDOG_USEC, and WATCHDOG_PID naming this process when
 * set); the ping goes through log_notify(), which loads libsystemd only
 * when NOTIFY_SOCKET is set.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "watchdog.h"

uint64_t watchdog_interval(const char *usec, const char *pid, long self)
{
	unsigned long long us;
	char *end;

	if (!usec || !*usec)
		return 0;
	if (pid && *pid && strtol(pid, &end, 10) != self)
		return 0;
	us = strtoull(usec, &end, 10);
	if (*end || us < 2)
		return 0;
	return us / 2;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int watchdog_poll_ms(int wait_ms)
{
	static uint64_t interval, next;
	static int read_env;
	uint64_t now, left_ms;

	if (!read_env) {
		read_env = 1;
		interval = watchdog_interval(getenv("WATCHDOG_USEC"),
					     getenv("WATCHDOG_PID"), (long)getpid());
	}
	if (!interval)
		return wait_ms;
	now = now_us();
	if (now >= next) {
		log_notify("WATCHDOG=1");
		next = now + interval;
	}
	left_ms = (next - now + 999) / 1000;
	if (wait_ms < 0 || (uint64_t)wait_ms > left_ms)
		return (int)left_ms;
	return wait_ms;
}
