// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Group creation: open /dev/fsgate, ask it for a group, close it again.
 * The device fd is only a door; the group lives in the fd it returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fsgate.h"

int fsgate_init_ext(const struct fsgate_init *init)
{
	int dev, fd, saved;

	dev = open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	fd = ioctl(dev, FSGATE_IOC_INIT, init);
	saved = errno;
	close(dev);
	errno = saved;
	return fd;
}

int fsgate_init(unsigned int flags, unsigned int event_f_flags,
		unsigned int priority)
{
	const struct fsgate_init init = {
		.flags = flags,
		.event_f_flags = event_f_flags,
		.priority = priority,
	};

	return fsgate_init_ext(&init);
}
