/* SPDX-License-Identifier: GPL-2.0-only */
/* procstat.h - what the kernel's memlock check will see for this process:
 * RLIMIT_MEMLOCK, CAP_IPC_LOCK, and the pages already pinned (VmPin, the
 * kernel's mm->pinned_vm; docs/design.md section 2). */
#ifndef MRPROBE_PROCSTAT_H
#define MRPROBE_PROCSTAT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_state {
	uint64_t memlock_soft; /* UINT64_MAX: unlimited */
	uint64_t memlock_hard;
	bool cap_ipc_lock;     /* in the effective set */
	bool user_ns;          /* in a non-initial user namespace, where a held
				* CAP_IPC_LOCK does not count: capable() asks the
				* initial namespace */
	int64_t vmpin_bytes;   /* -1: unknown */
	int64_t vmlck_bytes;
	uid_t uid;
	gid_t gid;
};

void mp_proc_state_read(struct proc_state *s);

/* VmPin of this process in bytes, or -1. */
int64_t mp_proc_vmpin_bytes(void);

/* MemAvailable in bytes, or 0. */
uint64_t mp_proc_mem_available(void);

#endif
