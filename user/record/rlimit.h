/* SPDX-License-Identifier: GPL-2.0-only */
/* rlimit.h - a change of RLIMIT_MEMLOCK (MRT_EV_RLIMIT_SET: setrlimit or
 * prlimit64, seen by the syscall tracepoints), read from the kernel's flat
 * record into what it means: JSON "memlock_limit_set" (docs/json.md), and
 * one line in text. */
#ifndef MRTRACE_RECORD_RLIMIT_H
#define MRTRACE_RECORD_RLIMIT_H

#include <stdint.h>

#include "mrtrace.h"

struct rlimit_change {
	unsigned long long ts_ns;
	unsigned int pid, ns_pid; /* the caller; ns_pid 0: not read */
	char comm[MRT_COMM_LEN];
	unsigned int syscall; /* enum mrt_syscall: setrlimit or prlimit64 */
	long long target_pid; /* prlimit64's pid (0: the caller itself) */
	uint64_t soft, hard; /* bytes, UINT64_MAX: unlimited */
	int err; /* 0: done; else its errno (refused changes are reported too) */
};

/* The change an RLIMIT_SET record holds (bpf/mrtrace.h says where). */
void rlimit_from_event(const struct mrt_event *ev, struct rlimit_change *out);

#endif
