/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_USER_H
#define _FSGATE_USER_H

#include <linux/types.h>

struct fsgate_answer;
struct fsgate_attach;
struct fsgate_init;
struct fsgate_mark;

int fsgate_init_check(const struct fsgate_init *init);
int fsgate_mark_check(const struct fsgate_mark *mark, u32 group_flags);
int fsgate_response_check(u32 response, int *verdict);
ssize_t fsgate_responses_parse(const u8 *buf, size_t count,
			       struct fsgate_answer *answers);
int fsgate_group_create(const struct fsgate_init *init, bool unpriv);
int fsgate_group_attach(const struct fsgate_attach *req);

#endif /* _FSGATE_USER_H */
