/* SPDX-License-Identifier: GPL-2.0-only */
/* verdict.h - what every explainer (explain.c for registrations, failure.c
 * for the other refusals) uses to read a trail and write a verdict. */
#ifndef MRTRACE_EXPLAIN_VERDICT_H
#define MRTRACE_EXPLAIN_VERDICT_H

#include "explain/explain.h"

/* IB access bits (include/rdma/ib_verbs.h, enum ib_access_flags). */
#define IB_LOCAL_WRITE 0x1
#define IB_REMOTE_WRITE 0x2
#define IB_REMOTE_READ 0x4
#define IB_REMOTE_ATOMIC 0x8
#define IB_MW_BIND 0x10
#define IB_ZERO_BASED 0x20
#define IB_ON_DEMAND 0x40
#define IB_HUGETLB 0x80
#define IB_OPTIONAL_FIRST (1u << 20)
#define IB_OPTIONAL_LAST (1u << 29)
#define IB_RELAXED_ORDERING IB_OPTIONAL_FIRST
/* ib_check_mr_access: bits 0..7 plus the optional range */
#define IB_ACCESS_SUPPORTED \
	(((IB_HUGETLB << 1) - 1) | (((IB_OPTIONAL_LAST << 1) - 1) & ~(IB_OPTIONAL_FIRST - 1)))

/* vm_flags bits (include/linux/mm.h), stable for decades */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_PFNMAP 0x400
#define VM_IO 0x4000
#define VM_HUGETLB 0x400000

/* Steps actually recorded (a trail longer than MRT_TRAIL_MAX lost the rest). */
int trail_nsteps(const struct mrt_event *ev);
/* First step of `site` that failed, or -1. */
int trail_first_failed(const struct mrt_event *ev, unsigned int site);
/* First step of `site`, or -1. */
int trail_find(const struct mrt_event *ev, unsigned int site);

/* "16 MiB" into a 32-byte buffer, for the numbers in a summary. */
const char *verdict_bytes(uint64_t bytes, char *buf);

/* printf into a verdict text field (summary, explanation). */
void verdict_say(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a fix that does not depend on where the job runs. */
void verdict_fix(struct verdict *v, enum fix_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Shared causes, from explain.c: a failed rdma cgroup charge (any verbs
 * object), and ib_umem_get's memlock refusal (MRs, and the CQ/QP buffers a
 * driver pins).  Each returns true when it decided the verdict. */
bool explain_rdma_cgroup(const struct mrt_event *ev, struct verdict *v, int err);
bool explain_memlock(const struct mrt_event *ev, const struct proc_context *ctx,
		     const struct nccl_info *nccl, struct verdict *v, int umem_step);

/* The memlock fixes for where the process runs (explain.c), shared with the
 * user-level verdicts. */
void memlock_fixes(const struct proc_context *ctx, const struct nccl_info *nccl, struct verdict *v,
		   bool have_pinned);
/* hardware.c: an IOMMU that could not map the pages, mlx5 firmware refusals. */
bool explain_dma_map(const struct mrt_event *ev, struct verdict *v);
bool explain_mlx5_cmd(const struct mrt_event *ev, struct verdict *v);

#endif
