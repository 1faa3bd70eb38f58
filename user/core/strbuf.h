/* SPDX-License-Identifier: GPL-2.0-only */
/* strbuf.h - appending to fixed-size, NUL-terminated buffers (lists that
 * end up in one line of a report).  Cuts at the buffer's end, never past it. */
#ifndef MRTRACE_CORE_STRBUF_H
#define MRTRACE_CORE_STRBUF_H
#include <stddef.h>

/* The first n bytes of src (not NUL-terminated), cut to fit. */
void str_copy_n(char *dst, size_t len, const char *src, size_t n);
void str_appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
