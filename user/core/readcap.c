// SPDX-License-Identifier: GPL-2.0-only
/* readcap.c - bounded whole-file reads (see readcap.h). */
#include "core/readcap.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int readcap_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap);
	*out = NULL;
	if (len)
		*len = 0;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - got < 2) {
			/* one byte past max tells "exactly max" from "more" */
			size_t nc = cap * 2 > max + 2 ? max + 2 : cap * 2;
			char *nb = nc > cap ? realloc(buf, nc) : NULL;
			if (!nb) {
				free(buf);
				return nc > cap ? -ENOMEM : -EFBIG;
			}
			buf = nb;
			cap = nc;
		}
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[got] = '\0';
	*out = buf;
	if (len)
		*len = got;
	return 0;
}
