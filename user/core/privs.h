/* SPDX-License-Identifier: GPL-2.0-only */
/* privs.h - whether this process may load and attach BPF programs, asked
 * before anything tries: without it the first message a non-root user saw
 * was "cannot mount tracefs", which says nothing about what to do. */
#ifndef MRTRACE_CORE_PRIVS_H
#define MRTRACE_CORE_PRIVS_H
#include <stddef.h>

/* 0 when the effective capabilities allow it (CAP_SYS_ADMIN, or CAP_BPF
 * and CAP_PERFMON); -1 with a message saying what is needed and what this
 * process has. */
int privs_for_bpf(char *msg, size_t len);

#endif
