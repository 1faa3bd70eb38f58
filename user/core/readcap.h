/* SPDX-License-Identifier: GPL-2.0-only */
/* readcap.h - read a whole open file, but never more than a stated limit:
 * a pipe that never ends or /dev/zero cannot make mrtrace read forever or
 * eat the node's memory. */
#ifndef MRTRACE_CORE_READCAP_H
#define MRTRACE_CORE_READCAP_H
#include <stddef.h>

/* Reads fd to its end into a malloc'd, NUL-terminated buffer (*len bytes,
 * NULs inside kept).  Returns 0, -EFBIG when there is more than max bytes
 * (nothing is returned then), -ENOMEM, or -errno of read().  Retries on
 * EINTR; EAGAIN (a non-blocking fd with nothing yet) ends the read. */
int readcap_fd(int fd, size_t max, char **buf, size_t *len);

#endif
