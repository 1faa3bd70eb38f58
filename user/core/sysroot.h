/* SPDX-License-Identifier: GPL-2.0-only */
/* sysroot.h - read /proc, /sys, /etc and /dev below a chosen root.
 *
 * `mrtrace check --sysroot DIR` reads every path below DIR instead of "/",
 * so the unit tests run on small recorded trees (tests/fixtures/check/) and
 * an operator can inspect a node's copied /sys from elsewhere.  All paths
 * given to these helpers are absolute paths *as seen on the node* ("/sys/...");
 * the root is prefixed here and nowhere else.  A NULL or "/" root means the
 * live system.
 *
 * Functions returning int return 0 on success and -errno on failure. */
#ifndef MRTRACE_SYSROOT_H
#define MRTRACE_SYSROOT_H
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Joins root and path into out; -ENAMETOOLONG if it does not fit. */
int sr_path(const char *root, const char *path, char *out, size_t len);

FILE *sr_fopen(const char *root, const char *path);
int sr_open(const char *root, const char *path, int flags);
int sr_exists(const char *root, const char *path);

/* First line of a file, trailing whitespace removed. */
int sr_read_line(const char *root, const char *path, char *buf, size_t len);
/* The whole (small) file, NUL-terminated, up to len-1 bytes; NULs inside
 * (as in /proc/PID/cmdline) are kept, *got says how many bytes were read. */
int sr_read_all(const char *root, const char *path, char *buf, size_t len, size_t *got);
/* Decimal or 0x-hex number at the start of the first line. */
int sr_read_u64(const char *root, const char *path, uint64_t *out);
int sr_read_int(const char *root, const char *path, long *out);

/* Last component of a symlink's target ("mlx5_core" for .../driver). */
int sr_link_base(const char *root, const char *path, char *buf, size_t len);
/* Canonical path of path, as seen on the node (root stripped again).
 * -EXDEV when the link leads out of the root (an absolute symlink in a
 * recorded tree), since what it names is not part of the recording. */
int sr_realpath(const char *root, const char *path, char *buf, size_t len);

/* Sorted directory entries (version order: uverbs2 before uverbs10), without
 * "." and "..".  *names is an array of n malloc'd strings; free with
 * sr_free_names.  Returns n >= 0 or -errno. */
int sr_list(const char *root, const char *dir, char ***names);
void sr_free_names(char **names, int n);

#endif
