/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FSGATE_BACKEND_H
#define _FSGATE_BACKEND_H

int fsgate_backend_init(void);
void fsgate_backend_exit(void);

#endif /* _FSGATE_BACKEND_H */
