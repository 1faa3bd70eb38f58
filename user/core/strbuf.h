/* SPDX-License-Identifier: GPL-2.0-only */
/* strbuf.h - appending to fixed-size, NUL-terminated buffers (lists that
 * end up in one line of a report).  Cuts at the buffer's end, never past it. */
#ifndef MRTRACE_CORE_STRBUF_H
#define MRTRACE_CORE_STRBUF_H
#include <stddef.h>

void str_appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
