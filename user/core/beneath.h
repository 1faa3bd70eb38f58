/* SPDX-License-Identifier: GPL-2.0-only */
/* beneath.h - open a path inside a directory tree as if that directory were
 * "/": a recorded node (`check --sysroot DIR`) or a process's own root
 * (/proc/PID/root).  An absolute symlink, ".." or a magic link in the tree
 * cannot lead out of it: an absolute symlink starts again at the tree's
 * top, ".." stops there, and /proc magic links are refused.
 *
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) does it where the kernel
 * has it (5.6+); elsewhere (or where a seccomp filter refuses it) a walk
 * one component at a time with O_NOFOLLOW does the same, following at most
 * 40 symlinks (the kernel's limit).
 *
 * What is finally opened is checked before it is opened for reading: only
 * regular files are read (a FIFO would block, /dev/zero never ends, some
 * devices act when opened), and never more than a stated size. */
#ifndef MRTRACE_CORE_BENEATH_H
#define MRTRACE_CORE_BENEATH_H
#include <stddef.h>

/* The O_PATH descriptor of a tree's top directory, opened once per path and
 * kept (a check reads thousands of files below one --sysroot).  -errno when
 * it is not a directory.  Do not close it. */
int beneath_root(const char *dir);

/* An O_PATH descriptor of path below rootfd (path absolute or relative to
 * the top; the last component's symlink is followed inside the tree).
 * Returns the fd or -errno. */
int beneath_path(int rootfd, const char *path);

/* Opens path below rootfd for reading if it is a regular file: -EINVAL when
 * it is something else (a FIFO, a device, a directory: nothing is opened
 * but an O_PATH descriptor).  Permissions are those of the caller's current
 * filesystem credentials (core/fscreds.h).  Returns the fd or -errno. */
int beneath_open_regular(int rootfd, const char *path);

/* Opens an O_PATH descriptor's object for reading, only if it is a regular
 * file (-EINVAL otherwise). */
int beneath_reopen_regular(int pathfd);

/* The checked walk alone (what beneath_path falls back to without
 * openat2), for the tests. */
int beneath_path_walk(int rootfd, const char *path);

/* Reads a whole regular file below rootfd, at most max bytes (-EFBIG when
 * larger), NUL-terminated, malloc'd.  0 or -errno. */
int beneath_read(int rootfd, const char *path, size_t max, char **buf, size_t *len);

#endif
