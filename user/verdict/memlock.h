/* SPDX-License-Identifier: GPL-2.0-only */
/* memlock.h - inside verdict/: the RLIMIT_MEMLOCK rules, in one unit for
 * every explainer that meets them.  ib_umem_get's check (docs/design.md
 * sections 2-3): RLIMIT_MEMLOCK 0 without CAP_IPC_LOCK refuses with EPERM
 * before pinning (can_do_mlock()); pinned_vm + the request over the limit,
 * without CAP_IPC_LOCK in the initial user namespace, refuses with ENOMEM.
 * mlock() is held to the same limit (explain_mlock(), explain.h). */
#ifndef MRTRACE_VERDICT_MEMLOCK_H
#define MRTRACE_VERDICT_MEMLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "verdict/verdict.h"

struct proc_context;
struct nccl_info;

/* The kernel's memlock refusal at a trail's ib_umem_get step (umem_step,
 * -1 when absent): an MR's pages, or the CQ/QP buffer a driver pins (an
 * MRT_EV_FAILURE record).  True when it decided v (cause, numbers, texts;
 * the fixes are the caller's), false with v untouched. */
bool explain_memlock(const struct mrt_event *ev, struct verdict *v, int umem_step);

/* The same check judged from the process's /proc numbers (VmPin, the soft
 * limit, CAP_IPC_LOCK outside a user namespace) for a request of `len`
 * bytes at `start` that failed with err, where ib_umem_get was not
 * observed.  True when the numbers explain it: v gets the cause, marked
 * inferred, its numbers and texts (not its fixes); false with v untouched. */
bool memlock_infer(const struct proc_context *ctx, int err, uint64_t start, uint64_t len,
		   uint64_t page_size, struct verdict *v);

#endif
