// SPDX-License-Identifier: GPL-2.0-only
/* strbuf.c - see strbuf.h. */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void str_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strnlen(buf, len);
	if (l + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

void str_copy_n(char *dst, size_t len, const char *src, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}
