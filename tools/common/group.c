// SPDX-License-Identifier: GPL-2.0
/* See group.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "group.h"
#include "log.h"
#include "parse.h"

/* A filesystem mark for @mask on each of the @n @paths; 0, or -1 logged. */
static int mark_all(int g, uint64_t mask, const char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fsgate_mark(g, FSGATE_MARK_ADD | FSGATE_MARK_FILESYSTEM,
				mask, AT_FDCWD, paths[i]) < 0) {
			log_err("cannot watch %s: %s", paths[i],
				fsgate_strerror(FSGATE_CALL_MARK, errno));
			return -1;
		}
	return 0;
}

int group_watch(const struct fsgate_init *init, uint64_t mask,
		const char *const *paths, size_t n)
{
	int g;

	g = fsgate_init_ext(init);
	if (g < 0) {
		log_err("cannot make a group: %s",
			fsgate_strerror(FSGATE_CALL_INIT, errno));
		return -1;
	}
	if (mark_all(g, mask, paths, n) < 0) {
		close(g);
		return -1;
	}
	return g;
}

void group_persist_default(struct group_persist *p, const char *name,
			   unsigned int absent_ms, int absent_errno)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->req.name, sizeof(p->req.name), "%s", name);
	p->req.owner = FSGATE_PERSIST_OWNER_SELF;
	p->req.absent_ms = absent_ms;
	p->req.absent_verdict = FSGATE_VERDICT_DENY;
	p->req.absent_errno = (uint32_t)absent_errno;
	p->req.flags = FSGATE_PERSIST_UNTIL_REMOVED;
}

int group_persist_key(const char *key)
{
	return !strcmp(key, "persist") || !strcmp(key, "absent") ||
	       !strcmp(key, "absent_ms") || !strcmp(key, "linger_ms");
}

const char *group_absent_name(const struct fsgate_persist *req, char *buf,
			      size_t len)
{
	if (req->absent_verdict == FSGATE_VERDICT_ALLOW)
		snprintf(buf, len, "allow");
	else
		snprintf(buf, len, "deny:%s",
			 fsgate_deny_errno_name(req->absent_errno ?
						(int)req->absent_errno : EPERM));
	return buf;
}

const char *group_persist_set(struct group_persist *p, const char *key,
			      const char *value)
{
	unsigned long n;

	if (!strcmp(key, "persist")) {
		if (!*value || !strcmp(value, "no")) {
			p->req.name[0] = '\0';
			return NULL;
		}
		if (parse_persist_name(value, strlen(value), p->req.name) < 0)
			return "not a group name (1 to 63 of A-Z a-z 0-9 . _ @ : -, a letter or digit first) nor no";
		return NULL;
	}
	if (!strcmp(key, "absent")) {
		if (parse_absent(value, fsgate_deny_errno_parse,
				 &p->req.absent_verdict, &p->req.absent_errno) < 0)
			return "not allow, deny or deny:ERRNO (EPERM EACCES EIO EBUSY ETXTBSY EAGAIN ENOSPC EDQUOT)";
		p->absent_set = 1;
		return NULL;
	}
	if (!strcmp(key, "absent_ms")) {
		if (conf_uint(value, 3600000, &n) < 0)
			return "not a number in 0..3600000";
		p->req.absent_ms = n;
		return NULL;
	}
	if (!strcmp(key, "linger_ms")) {
		if (!strcmp(value, "until-removed")) {
			p->req.flags |= FSGATE_PERSIST_UNTIL_REMOVED;
			p->req.linger_ms = 0;
			return NULL;
		}
		if (conf_uint(value, UINT32_MAX, &n) < 0 || !n)
			return "neither a number in 1..4294967295 nor until-removed";
		p->req.flags &= ~FSGATE_PERSIST_UNTIL_REMOVED;
		p->req.linger_ms = n;
		return NULL;
	}
	return "unknown setting";
}

/* What a group fd's fdinfo says of its group. */
struct seen {
	char class[16];
	unsigned int priority, flags, event_flags, timeout_ms;
	char absent[8];
	int absent_errno;
	unsigned int absent_ms, linger_ms;
	int group, persist;
};

static int fdinfo(int fd, struct seen *s)
{
	char path[64], line[512];
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "fsgate-group id:%*u class:%15s priority:%u flags:0x%x event-flags:0x%x timeout-ms:%u",
			   s->class, &s->priority, &s->flags, &s->event_flags,
			   &s->timeout_ms) == 5)
			s->group = 1;
		if (sscanf(line, "fsgate-persist name:%*s owner:%*u absent-ms:%u absent-verdict:%7s absent-errno:%d linger-ms:%u",
			   &s->absent_ms, s->absent, &s->absent_errno,
			   &s->linger_ms) == 4)
			s->persist = 1;
	}
	fclose(f);
	return s->group && s->persist ? 0 : -1;
}

/*
 * Flags of the fd, not of the group, and those only worth a warning:
 * without FSGATE_EXCLUDE_SELF the daemon's own accesses are asked too;
 * without FSGATE_REPORT_PERM (a group an older fsgate-scan made) events
 * come without ids and deadlines, and a busy daemon cannot ask for more
 * time, as before it could.
 */
#define FD_FLAGS (FSGATE_CLOEXEC | FSGATE_NONBLOCK | FSGATE_EXCLUDE_SELF | \
		  FSGATE_REPORT_PERM)

/*
 * The group attached through @g against what @init and @p ask: 0 when it
 * gates as asked (differences in what it does while nobody is attached
 * are warnings), GROUP_DIFFERS having said why.
 */
static int check(int g, const struct fsgate_init *init,
		 const struct group_persist *p)
{
	const char *name = p->req.name;
	uint32_t want_errno = p->req.absent_errno ? p->req.absent_errno : EPERM;
	char want[32];
	struct seen s;

	if (fdinfo(g, &s) < 0) {
		log_warn("persistent group %s: cannot read what it is from /proc/self/fdinfo/%d; taken as it is",
			 name, g);
		return 0;
	}
	/* The class is in the flags too. */
	if (s.priority != init->priority ||
	    (s.flags & ~FD_FLAGS) != (init->flags & ~FD_FLAGS) ||
	    (s.event_flags & O_ACCMODE) != (init->event_f_flags & O_ACCMODE)) {
		log_err("persistent group %s is a %s group at priority %u (flags 0x%x, event fds 0x%x), not what the configuration asks for (priority %u, flags 0x%x, event fds 0x%x): remove it (fsgatectl group remove %s) and start again, or give persist = another name",
			name, s.class, s.priority, s.flags & ~FD_FLAGS,
			s.event_flags & O_ACCMODE, init->priority,
			init->flags & ~FD_FLAGS,
			init->event_f_flags & O_ACCMODE, name);
		return GROUP_DIFFERS;
	}
	if ((init->flags & FSGATE_EXCLUDE_SELF) &&
	    !(s.flags & FSGATE_EXCLUDE_SELF))
		log_warn("persistent group %s was made without FSGATE_EXCLUDE_SELF: the daemon's own accesses are asked too",
			 name);
	if ((init->flags & FSGATE_REPORT_PERM) &&
	    !(s.flags & FSGATE_REPORT_PERM))
		log_warn("persistent group %s was made without FSGATE_REPORT_PERM (by an older daemon): accesses held while the daemon is busy cannot be given more time; remove it (fsgatectl group remove %s) to have it made anew",
			 name, name);
	if (strcmp(s.absent, p->req.absent_verdict == FSGATE_VERDICT_ALLOW ?
		   "allow" : "deny") ||
	    (p->req.absent_verdict == FSGATE_VERDICT_DENY &&
	     (uint32_t)s.absent_errno != want_errno) ||
	    s.absent_ms != p->req.absent_ms ||
	    s.linger_ms != p->req.linger_ms)
		log_warn("persistent group %s keeps absent = %s%s%s, absent_ms = %u, linger_ms = %u; the configuration's %s, %u, %u take effect once it is removed (fsgatectl group remove %s) and made again",
			 name, s.absent, s.absent_errno ? ":" : "",
			 s.absent_errno ? fsgate_deny_errno_name(s.absent_errno) : "",
			 s.absent_ms, s.linger_ms,
			 group_absent_name(&p->req, want, sizeof(want)),
			 p->req.absent_ms, p->req.linger_ms, name);
	return 0;
}

/* The persistent group @p names attached, checked and marked again. */
static int attached(int g, const struct fsgate_init *init, uint64_t mask,
		    const char *const *paths, size_t n,
		    const struct group_persist *p)
{
	struct fsgate_stats st = { 0 };
	int ret;

	ret = check(g, init, p);
	if (!ret && mark_all(g, mask, paths, n) < 0)
		ret = GROUP_FAILED;
	if (ret) {
		/* Detached again: the group gates on with its absent verdict. */
		close(g);
		return ret;
	}
	fsgate_stats(g, &st);
	log_info("attached to persistent group %s: waiting %llu, re-reported %llu, decided absent %llu",
		 p->req.name, (unsigned long long)st.pending,
		 (unsigned long long)st.rereported,
		 (unsigned long long)st.absent);
	return g;
}

int group_attach_or_watch(const struct fsgate_init *init, uint64_t mask,
			  const char *const *paths, size_t n,
			  const struct group_persist *p, int *attach)
{
	unsigned int flags = FSGATE_CLOEXEC | (init->flags & FSGATE_NONBLOCK);
	struct fsgate_version v;
	char absent[32];
	int g, tries, err = 0;

	*attach = 0;
	if (!p->req.name[0])
		return group_watch(init, mask, paths, n);
	if (fsgate_version(&v) == 0 && !(v.features & FSGATE_FEATURE_PERSIST)) {
		log_warn("fsgate %s has no persistent groups: an ordinary group, gone while the daemon is",
			 v.version);
		return group_watch(init, mask, paths, n);
	}
	/* A second try when another daemon made the group meanwhile. */
	for (tries = 0; tries < 2; tries++) {
		g = fsgate_attach(p->req.name, flags);
		if (g >= 0) {
			*attach = 1;
			return attached(g, init, mask, paths, n, p);
		}
		if (errno != ENOENT) {
			log_err("cannot attach to persistent group %s: %s",
				p->req.name,
				fsgate_strerror(FSGATE_CALL_ATTACH, errno));
			return GROUP_FAILED;
		}
		g = group_watch(init, mask, paths, n);
		if (g < 0)
			return GROUP_FAILED;
		/* Last: a group that fails before this goes with its fd. */
		if (fsgate_persist(g, &p->req) == 0) {
			log_info("made persistent group %s: with nobody attached, accesses wait %u ms, then %s",
				 p->req.name, p->req.absent_ms,
				 group_absent_name(&p->req, absent,
						   sizeof(absent)));
			return g;
		}
		err = errno;
		close(g);
		if (err != EEXIST)
			break;
	}
	log_err("cannot make group %s persistent: %s", p->req.name,
		fsgate_strerror(FSGATE_CALL_PERSIST, err));
	return GROUP_FAILED;
}

/* The class a group's flags give, as the module's group list names it. */
static const char *class_name(uint32_t flags)
{
	switch (flags & FSGATE_CLASS_MASK) {
	case FSGATE_CLASS_PRE_CONTENT:
		return "pre-content";
	case FSGATE_CLASS_CONTENT:
		return "content";
	default:
		return "notif";
	}
}

int group_listed(const char *name, struct fsgate_group_info *found)
{
	struct fsgate_group_info *rows;
	ssize_t n, i;
	int ret = 0;

	n = fsgate_groups_read(NULL, &rows);
	if (n < 0)
		return -1;
	for (i = 0; i < n && !ret; i++)
		if (!strcmp(rows[i].name, name)) {
			*found = rows[i];
			ret = 1;
		}
	free(rows);
	return ret;
}

int group_create_wanted(const struct fsgate_init *init,
			const struct group_persist *p)
{
	struct fsgate_group_info g;
	struct fsgate_version v;

	if (!p->req.name[0]) {
		log_warn("persist = no: no group to make; the daemon makes one of its own when it starts, and until then nothing is asked");
		return 0;
	}
	if (fsgate_version(&v) == 0 && !(v.features & FSGATE_FEATURE_PERSIST)) {
		log_err("fsgate %s has no persistent groups: none made",
			v.version);
		return GROUP_FAILED;
	}
	if (group_listed(p->req.name, &g) <= 0)
		return 1;
	if (strcmp(g.class_name, class_name(init->flags)) ||
	    g.priority != init->priority) {
		log_err("persistent group %s is a %s group at priority %u, not what the configuration asks for (%s, priority %u): remove it (fsgatectl group remove %s) and start again, or give persist = another name",
			p->req.name, g.class_name, g.priority,
			class_name(init->flags), init->priority, p->req.name);
		return GROUP_DIFFERS;
	}
	log_info("persistent group %s is there already (%u attached): left as it is",
		 p->req.name, g.attached);
	return 0;
}

void group_create_done(const struct group_persist *p, const char *daemon)
{
	char absent[32];

	if (p->req.flags & FSGATE_PERSIST_UNTIL_REMOVED)
		log_info("persistent group %s gates from now on: until %s attaches, accesses wait up to %u ms (then %s); kept until removed",
			 p->req.name, daemon, p->req.absent_ms,
			 group_absent_name(&p->req, absent, sizeof(absent)));
	else
		log_info("persistent group %s gates from now on: until %s attaches, accesses wait up to %u ms (then %s); removed if nobody attaches within %u ms",
			 p->req.name, daemon, p->req.absent_ms,
			 group_absent_name(&p->req, absent, sizeof(absent)),
			 p->req.linger_ms);
}
