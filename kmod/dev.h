/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_DEV_H
#define _FSGATE_DEV_H

int fsgate_dev_init(void);
void fsgate_dev_exit(void);

#endif /* _FSGATE_DEV_H */
