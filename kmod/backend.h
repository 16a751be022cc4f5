/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_BACKEND_H
#define _FSGATE_BACKEND_H

struct fsnotify_group;

/* fsgate's one fsnotify group; set at module init, read-only after. */
extern struct fsnotify_group *fsgate_fsn_group;
extern struct fsnotify_group *fsgate_recalc_group;

void fsgate_backend_mark_made(void);

int fsgate_backend_init(void);
void fsgate_backend_exit(void);

#endif /* _FSGATE_BACKEND_H */
