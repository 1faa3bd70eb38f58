/* SPDX-License-Identifier: GPL-2.0-only */
/* slurp.h - read a whole file into memory. */
#ifndef MRTRACE_SLURP_H
#define MRTRACE_SLURP_H
#include <stddef.h>

/* Returns a malloc'd, NUL-terminated copy of the file (len = bytes read,
 * without the NUL), or NULL with errno set (EIO for a read error). */
char *slurp_file(const char *path, size_t *len);

#endif
