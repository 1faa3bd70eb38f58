/* SPDX-License-Identifier: GPL-2.0-only */
/* access.h - IBV_ACCESS_* flags by name, both ways.
 *
 * NCCL registers with LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ, adding
 * REMOTE_ATOMIC (2.28.7+) and RELAXED_ORDERING (when the stack supports it).
 * Tests also need combinations the kernel rejects (REMOTE_WRITE without
 * LOCAL_WRITE -> EINVAL in ib_check_mr_access), so any name list or raw
 * number is accepted here and left for the kernel to judge. */
#ifndef MRPROBE_ACCESS_H
#define MRPROBE_ACCESS_H
#include <stddef.h>

#include <infiniband/verbs.h>

#define ACCESS_NCCL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* Parses "local-write,remote-read", "LOCAL_WRITE|REMOTE_READ", "none", or a
 * number ("0x7", "7").  Names are case-insensitive; '-' and '_' are the same.
 * Returns 0, or -1 naming nothing known (*bad then points at the token). */
int mp_access_parse(const char *s, unsigned *out, const char **bad);

/* "LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ"; unknown bits as "0x..."; "0x0" for none. */
const char *mp_access_format(unsigned flags, char *buf, size_t len);

/* The accepted names, for --help and error messages. */
const char *mp_access_names_help(void);

#endif
