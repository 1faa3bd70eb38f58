/* SPDX-License-Identifier: GPL-2.0-only */
/* procfs.h - the two primitives every /proc and sysfs reader shares: a path
 * under a root (the live system is "/", tests use recorded trees) and a
 * bounded read of a small file. */
#ifndef MRTRACE_CORE_PROCFS_H
#define MRTRACE_CORE_PROCFS_H
#include <stddef.h>

/* "<root>/proc/<pid>/<rel>", or "<root>/<rel>" when pid < 0.
 * Returns 0, or -ENAMETOOLONG. */
int procfs_path(char *buf, size_t len, const char *root, int pid, const char *rel);
/* Reads at most len-1 bytes and NUL-terminates; returns the byte count or
 * -errno. */
long procfs_read(const char *path, char *buf, size_t len);

#endif
