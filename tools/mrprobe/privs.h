/* SPDX-License-Identifier: GPL-2.0-only */
/* privs.h - become the kind of process that fails: a lower memlock limit,
 * no CAP_IPC_LOCK, an unprivileged user.
 *
 * Order matters and is the caller's job: set the limit first (raising a hard
 * limit needs CAP_SYS_RESOURCE, which the later steps give up), then drop
 * CAP_IPC_LOCK, then change user.  Each returns 0, or -1 with one sentence
 * in err. */
#ifndef MRPROBE_PRIVS_H
#define MRPROBE_PRIVS_H
#include <stddef.h>
#include <stdint.h>

/* RLIMIT_MEMLOCK soft = hard = bytes (UINT64_MAX: unlimited). */
int mp_privs_set_memlock(uint64_t bytes, char *err, size_t errlen);

/* CAP_IPC_LOCK out of the effective, permitted, inheritable and ambient sets
 * and the bounding set, with capset/prctl (no libcap).  A bounding-set drop
 * that needs CAP_SETPCAP and fails is reported in warn, not as an error:
 * ib_umem_get checks only the effective set. */
int mp_privs_drop_ipc_lock(char *err, size_t errlen, char *warn, size_t warnlen);

/* setgroups(0), setresgid(nogroup), setresuid(nobody). */
int mp_privs_become_nobody(char *err, size_t errlen);

#endif
