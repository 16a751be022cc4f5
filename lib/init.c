// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Group creation and the module's version: open /dev/fsgate, ask it for
 * a group or what it offers, close it again. The device fd is only a
 * door; a group lives in the fd it returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fsgate.h"

/* One ioctl on a device fd of its own; its result, errno kept. */
static int dev_ioctl(unsigned long cmd, void *arg)
{
	int dev, ret, saved;

	dev = open(FSGATE_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	ret = ioctl(dev, cmd, arg);
	saved = errno;
	close(dev);
	errno = saved;
	return ret;
}

int fsgate_init_ext(const struct fsgate_init *init)
{
	return dev_ioctl(FSGATE_IOC_INIT, (void *)init);
}

int fsgate_version(struct fsgate_version *version)
{
	struct fsgate_version v = { 0 };

	if (dev_ioctl(FSGATE_IOC_VERSION, &v) < 0)
		return -1;
	v.version[sizeof(v.version) - 1] = '\0';
	*version = v;
	return 0;
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
