/* SPDX-License-Identifier: GPL-2.0-only */
/* atomicfile.h - replace a file whole: a reader (a node_exporter scrape, the
 * next mrtrace start) sees the old file or the new one, never half. */
#ifndef MRTRACE_ATOMICFILE_H
#define MRTRACE_ATOMICFILE_H
#include <stddef.h>
#include <sys/types.h>

/* Writes data to a temporary file next to path (same directory, so rename()
 * is atomic), sets its mode, then renames it over path.  The temporary name
 * (PATH.<16 random hex digits>.tmp) is created with O_EXCL | O_NOFOLLOW:
 * never a file, FIFO or symlink somebody prepared in a shared directory.
 * 0, or -errno (the temporary file is removed). */
int atomic_write_file(const char *path, const void *data, size_t len, mode_t mode);

#endif
