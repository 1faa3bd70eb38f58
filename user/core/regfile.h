/* SPDX-License-Identifier: GPL-2.0-only */
/* regfile.h - open and read a file whose name somebody else can influence
 * (a configuration file, a cache, a file below --host-root), so that what
 * lies there cannot stall or flood mrtrace:
 *
 *   - opened O_NONBLOCK: a FIFO with no writer cannot hang open(2) (and a
 *     FIFO is refused below before anything reads it);
 *   - O_NOCTTY, O_CLOEXEC; O_NOFOLLOW where the caller asks for it;
 *   - checked with fstat(2) on the open descriptor before any read: only a
 *     regular file is read (a FIFO, a socket, /dev/zero or another device
 *     is "not a regular file");
 *   - read with a bound: a file larger than the caller's maximum is "too
 *     large" and not read at all.
 *
 * Files below a recorded tree or a process's root are read with
 * core/beneath.h instead, which applies the same rules inside the tree. */
#ifndef MRTRACE_CORE_REGFILE_H
#define MRTRACE_CORE_REGFILE_H
#include <stddef.h>

/* Opens path for reading if it is a regular file.  flags: 0 or O_NOFOLLOW
 * (a symlink is then -ELOOP).  Returns the descriptor, -EINVAL when it is
 * not a regular file (nothing was read from it), or -errno of open(2). */
int regfile_open(const char *path, int flags);

/* Reads the whole regular file at path into a malloc'd, NUL-terminated
 * buffer (*len bytes, NULs inside kept): -EFBIG when it holds more than max
 * bytes (nothing is returned then), otherwise as regfile_open, or -errno
 * of read(2). */
int regfile_read(const char *path, int flags, size_t max, char **buf, size_t *len);

/* The words for an error of the two above: "not a regular file", "too
 * large", else strerror(-err). */
const char *regfile_strerror(int err);

#endif
