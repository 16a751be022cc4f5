/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_PROC_H
#define _FSGATE_PROC_H

int fsgate_proc_init(void);
void fsgate_proc_exit(void);

#endif /* _FSGATE_PROC_H */
