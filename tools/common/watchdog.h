/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service manager's watchdog (WatchdogSec= in a unit): an event loop
 * that calls watchdog_poll_ms() before each poll() pings it
 * (sd_notify "WATCHDOG=1") at least every half period, and never sleeps
 * past the next ping. A loop that hangs stops pinging, and systemd
 * kills and restarts the daemon (Restart=on-failure).
 */
#ifndef TOOLS_WATCHDOG_H
#define TOOLS_WATCHDOG_H

#include <stdint.h>

/*
 * The watchdog's ping interval in microseconds (half of WATCHDOG_USEC,
 * the unit's WatchdogSec=), from @usec and @pid, the environment's
 * WATCHDOG_USEC and WATCHDOG_PID (either NULL when unset); 0 when the
 * watchdog is off or meant for another process than @self.
 */
uint64_t watchdog_interval(const char *usec, const char *pid, long self);

/*
 * Ping the watchdog if half its period has gone by since the last ping;
 * @wait_ms, poll()'s timeout (-1 for none), bounded by the time to the
 * next ping. Without a watchdog, @wait_ms as it is.
 */
int watchdog_poll_ms(int wait_ms);

#endif /* TOOLS_WATCHDOG_H */
