// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka: the watchdog's period from the environment as
 * sd_watchdog_enabled(3) reads it, and watchdog_poll_ms() pinging a
 * notification socket of the test's own ("WATCHDOG=1") and bounding
 * poll()'s timeout by the next ping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "watchdog.h"

static void interval_is_half_the_period(void **state)
{
	(void)state;
	assert_int_equal(watchdog_interval("30000000", NULL, 42), 15000000);
	assert_int_equal(watchdog_interval("30000000", "42", 42), 15000000);
	assert_int_equal(watchdog_interval("30000000", "", 42), 15000000);
}

static void interval_off_unless_meant_for_us(void **state)
{
	(void)state;
	assert_int_equal(watchdog_interval(NULL, NULL, 42), 0);
	assert_int_equal(watchdog_interval("", NULL, 42), 0);
	assert_int_equal(watchdog_interval("30000000", "41", 42), 0);
	assert_int_equal(watchdog_interval("30s", NULL, 42), 0);
	assert_int_equal(watchdog_interval("0", NULL, 42), 0);
}

/* A datagram socket at a temporary path, as systemd's NOTIFY_SOCKET. */
static int notify_socket(char *path, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(path, len, "/tmp/watchdog_test.%d", (int)getpid());
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void pings_and_bounds_the_wait(void **state)
{
	char path[64], msg[64];
	ssize_t n;
	int fd, ms;

	(void)state;
	fd = notify_socket(path, sizeof(path));
	setenv("NOTIFY_SOCKET", path, 1);
	setenv("WATCHDOG_USEC", "2000000", 1);
	unsetenv("WATCHDOG_PID");
	/* The first call pings at once, then waits at most 1 s. */
	ms = watchdog_poll_ms(-1);
	assert_in_range(ms, 900, 1000);
	n = recv(fd, msg, sizeof(msg) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	msg[n] = '\0';
	assert_string_equal(msg, "WATCHDOG=1");
	/* A shorter wait stays; no second ping before the interval. */
	assert_int_equal(watchdog_poll_ms(10), 10);
	assert_true(recv(fd, msg, sizeof(msg), MSG_DONTWAIT) < 0);
	usleep(1000 * 1000);
	ms = watchdog_poll_ms(5000);
	assert_in_range(ms, 1, 1000);
	assert_true(recv(fd, msg, sizeof(msg), MSG_DONTWAIT) > 0);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interval_is_half_the_period),
		cmocka_unit_test(interval_off_unless_meant_for_us),
		cmocka_unit_test(pings_and_bounds_the_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
