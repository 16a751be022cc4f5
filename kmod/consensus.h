/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_CONSENSUS_H
#define _FSGATE_CONSENSUS_H

#include <linux/types.h>

struct fsgate_match;
struct fsgate_obj;
struct path;

bool fsgate_consensus_allows(struct fsgate_obj *obj, u32 mask,
			     const struct path *path, const void *parent);
void fsgate_consensus_store(struct fsgate_obj *obj,
			    const struct fsgate_match *matches, unsigned int n,
			    u32 mask, const struct path *path,
			    const void *parent, u64 gen);

#endif /* _FSGATE_CONSENSUS_H */
