// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Group creation, persistent groups and the module's version: open
 * /dev/fsgate, ask it for a group (a new one, or a persistent one by
 * name) or what it offers, close it again. The device fd is only a
 * door; a group lives in the fd it returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
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

int fsgate_persist(int fd, const struct fsgate_persist *req)
{
	struct fsgate_persist copy = *req;

	copy.size = sizeof(copy);
	return ioctl(fd, FSGATE_IOC_PERSIST, &copy);
}

/* A struct fsgate_attach for @name; -1 with ENAMETOOLONG if it is too long. */
static int attach_req(struct fsgate_attach *req, const char *name,
		      unsigned int flags)
{
	size_t len = strlen(name);

	if (len >= sizeof(req->name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*req = (struct fsgate_attach){ .flags = flags };
	memcpy(req->name, name, len);
	return 0;
}

int fsgate_attach(const char *name, unsigned int flags)
{
	struct fsgate_attach req;

	if (attach_req(&req, name, flags) < 0)
		return -1;
	return dev_ioctl(FSGATE_IOC_ATTACH, &req);
}

int fsgate_remove(const char *name)
{
	struct fsgate_attach req;

	if (attach_req(&req, name, 0) < 0)
		return -1;
	return dev_ioctl(FSGATE_IOC_REMOVE, &req);
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
