/* SPDX-License-Identifier: GPL-2.0-only */
/* execmaps.h - the executable mappings of /proc/PID/maps, read with bounds.
 *
 * A process's maps are its to shape: tens of thousands of mappings of
 * files with 4,000-byte names are a few mmap calls away, and watch reads
 * them as root at every failure of that process (and keeps them per
 * process).  Only the executable mappings are of use (return addresses lie
 * in code), so only those are kept, and never more than the bounds below:
 * what is left out is said (cut), for the caller to count. */
#ifndef MRTRACE_PROC_EXECMAPS_H
#define MRTRACE_PROC_EXECMAPS_H
#include <stdbool.h>

#define EXECMAPS_MAX_KEPT 4096          /* executable mappings kept */
#define EXECMAPS_MAX_BYTES (512 * 1024) /* of their text */
#define EXECMAPS_MAX_READ 262144        /* lines read (max_map_count is 65,530 by default) */
#define EXECMAPS_LINE_MAX 4352          /* a line: PATH_MAX + the fields */

/* The lines of the executable mappings of the maps file at path
 * ("lo-hi r-xp off dev ino path\n"...), malloc'd and NUL-terminated, or
 * NULL when it cannot be read.  *cut: a line too long, or a bound reached
 * (the text holds what came before). */
char *execmaps_read(const char *path, bool *cut);

#endif
