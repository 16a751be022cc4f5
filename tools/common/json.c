// SPDX-License-Identifier: GPL-2.0
/* See json.h. */
#include "json.h"

void json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}
