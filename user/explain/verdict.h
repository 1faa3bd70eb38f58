/* SPDX-License-Identifier: GPL-2.0-only */
/* verdict.h - what every explainer (explain.c for registrations, failure.c
 * for the other refusals) uses to read a trail and write a verdict. */
#ifndef MRTRACE_EXPLAIN_VERDICT_H
#define MRTRACE_EXPLAIN_VERDICT_H

#include "explain/explain.h"

/* Steps actually recorded (a trail longer than MRT_TRAIL_MAX lost the rest). */
int trail_nsteps(const struct mrt_event *ev);
/* First step of `site` that failed, or -1. */
int trail_first_failed(const struct mrt_event *ev, unsigned int site);
/* First step of `site`, or -1. */
int trail_find(const struct mrt_event *ev, unsigned int site);

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

#endif
