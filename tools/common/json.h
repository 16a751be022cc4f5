/* SPDX-License-Identifier: GPL-2.0 */
/* JSON output for the tools' --json. */
#ifndef TOOLS_JSON_H
#define TOOLS_JSON_H

#include <stdio.h>

/*
 * @s as a JSON string on @f: quotes, backslashes and control characters
 * escaped; other bytes as they are (paths are bytes, not always UTF-8).
 */
void json_string(FILE *f, const char *s);

#endif /* TOOLS_JSON_H */
