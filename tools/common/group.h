/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making a daemon's group and marking the filesystems it watches; or
 * attaching to the persistent group a daemon before it left, so that a
 * crash or a restart leaves no window.
 */
#ifndef TOOLS_GROUP_H
#define TOOLS_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include <fsgate.h>

/*
 * A group made from @init, with a filesystem mark for @mask on each of
 * the @n @paths. Its fd, or -1 having logged why in fsgate's terms.
 */
int group_watch(const struct fsgate_init *init, uint64_t mask,
		const char *const *paths, size_t n);

/*
 * A daemon's persistent group, from its persist =, absent =, absent_ms =
 * and linger_ms = settings. @req.name empty: an ordinary group, owned by
 * its fd, as before persistent groups.
 */
struct group_persist {
	struct fsgate_persist req;
	int absent_set;			/* absent = was given */
};

/*
 * The defaults: the group named @name (the daemon's own), its accesses
 * denied with @absent_errno after @absent_ms with nobody attached, kept
 * until removed.
 */
void group_persist_default(struct group_persist *p, const char *name,
			   unsigned int absent_ms, int absent_errno);
/* 1 if @key is one of the settings group_persist_set() takes. */
int group_persist_key(const char *key);
/* For a conf_setter: NULL when @p took the value, else why not. */
const char *group_persist_set(struct group_persist *p, const char *key,
			      const char *value);
/* The absent verdict in those words ("deny:EIO"), in @buf of @len. */
const char *group_absent_name(const struct fsgate_persist *req, char *buf,
			      size_t len);

/* group_attach_or_watch()'s failures, beside a group fd. */
enum {
	GROUP_FAILED = -1,		/* fsgate failed: logged */
	GROUP_DIFFERS = -2,		/* the persistent group is not what
					 * the configuration asks: logged */
};

/*
 * The daemon's group. With @p->req.name set: attached to the persistent
 * group of that name if there is one, checked against @init (class,
 * priority, flags and event fd access mode must match, else
 * GROUP_DIFFERS; other differences are logged as warnings) and marked
 * for @mask on each of the @n @paths again (a watch = added since is
 * marked; one taken away stays marked until the group is removed);
 * else made as group_watch() makes it and then made persistent, last,
 * so that a group that fails before goes with its fd. *@attached says
 * which (1 attached, 0 made). On a module without persistent groups,
 * an ordinary group, with a warning. Without a name, group_watch().
 */
int group_attach_or_watch(const struct fsgate_init *init, uint64_t mask,
			  const char *const *paths, size_t n,
			  const struct group_persist *p, int *attached);

/*
 * A daemon's create-group command, before it makes its group with its
 * own code (group_attach_or_watch() and what it adds): 1 when that is
 * to be done; 0 when there is nothing to make, having said why (persist
 * = no; or a persistent group of that name exists already: left as it
 * is, not attached to, so its absent bound is not restarted); else
 * GROUP_FAILED (no persistent groups in this fsgate) or GROUP_DIFFERS
 * (the group there has another class or priority than @init's).
 */
int group_create_wanted(const struct fsgate_init *init,
			const struct group_persist *p);
/*
 * The persistent group @name in the module's group list (libfsgate's
 * fsgate_groups_read()): 1 with *@found filled, 0 if no group has that
 * name, -1 if the list cannot be read.
 */
int group_listed(const char *name, struct fsgate_group_info *found);
/*
 * After the daemon made it and before its fd closes: says that the
 * group now gates with nobody attached, and for how long.
 */
void group_create_done(const struct group_persist *p, const char *daemon);

#endif /* TOOLS_GROUP_H */
