// SPDX-License-Identifier: GPL-2.0-only
/* slurp.c - read a whole file, growing the buffer as it goes (files under
 * /proc report size 0, so stat cannot size it). */
#include "core/slurp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 16, got = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		got += fread(buf + got, 1, cap - got - 1, f);
		if (got < cap - 1)
			break;
		char *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			errno = ENOMEM;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	int rerr = ferror(f);
	fclose(f);
	if (buf && rerr) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	if (buf) {
		buf[got] = '\0';
		if (len)
			*len = got;
	}
	return buf;
}
