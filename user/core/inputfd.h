/* SPDX-License-Identifier: GPL-2.0-only */
/* inputfd.h - open a file a user of the node named, as root: explain's logs
 * and records, diff's and `explain --facts`' reports.  The name is resolved
 * once, to an O_PATH descriptor (nothing opened: a FIFO's writer is not
 * woken, a device's open does not run); that inode is checked with fstat,
 * and only that inode is then opened for reading (through /proc/self/fd),
 * O_NONBLOCK|O_NOCTTY|O_CLOEXEC.  No stat() of the name before an open() of
 * it, which a swap in between turned into root opening a FIFO or a device
 * (issues 34 and 48).
 *
 * Refused: a directory, a device, a socket and a named FIFO (reading one
 * waits on whoever holds it open).  Read: a regular file, and an anonymous
 * pipe named by /dev/fd/N (what <(...) gives).  The descriptor is left
 * O_NONBLOCK; a caller that reads a pipe clears it. */
#ifndef MRTRACE_CORE_INPUTFD_H
#define MRTRACE_CORE_INPUTFD_H
#include <sys/stat.h>

/* The descriptor, with *st its fstat; -errno of open(2); or -EINVAL with
 * *why set ("is a directory", "not a regular file (a device)", ...) when
 * refused. */
int input_open(const char *path, struct stat *st, const char **why);

/* Why a descriptor of mode m is not read, NULL when it is: a directory, a
 * device or a socket (for standard input, the operator's own, where a FIFO
 * is read). */
const char *input_refused(mode_t m);

#endif
