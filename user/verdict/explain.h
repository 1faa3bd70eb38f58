/* SPDX-License-Identifier: GPL-2.0-only */
/* explain.h - evidence in, verdict out.
 *
 * The explanation engine is pure: it reads a struct mrt_event (what the BPF
 * programs recorded, or a recorded trail replayed from a fixture) and an
 * optional process context, and fills a struct verdict (verdict.h).  No
 * libbpf, no /proc, no state kept between calls, so every cause is testable
 * by replaying recorded evidence.  One entry point per record kind; each
 * decides the cause with its numbers, then takes the cause's fixes from the
 * generator its row names (causes.c).
 */
#ifndef MRTRACE_VERDICT_H
#define MRTRACE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrtrace.h"
#include "verdict/verdict.h"
#include "verdict/names.h"
#include "verdict/fixes.h"

struct proc_context;
struct nccl_info;
struct gate_facts;

/* A failed registration's kernel trail (MRT_EV_REG_FAILURE, and the NCCL
 * dma-buf probe it may be).  ctx and nccl may be NULL (process gone, or
 * replay).  gates: for a registration of GPU memory, the node's and the
 * process's GPU facts read at the failure (gates->gpu, proc/gpu_facts.h:
 * peer memory, dma-buf, BAR1, NCCL's probe in this process); NULL or
 * without them, the verdict and its fixes say only what the record
 * proves.  Returns v->cause. */
enum cause explain_registration(const struct mrt_event *ev, const struct proc_context *ctx,
				const struct nccl_info *nccl, const struct gate_facts *gates,
				struct verdict *v);

/* A failed mlock(), mlock2() or mlockall() (MRT_EV_MLOCK_FAILURE): evidence
 * about the same RLIMIT_MEMLOCK.  Returns v->cause. */
enum cause explain_mlock(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct nccl_info *nccl, struct verdict *v);

/* A failed libibverbs call seen by the uprobes with no kernel trail to join
 * (MRT_EV_USER_CALL): the kernel sites are not armed here, or libibverbs
 * refused before the kernel.  Kernel-free causes are proven (no command was
 * issued); the rest are inferred from the errno and the process's /proc
 * numbers (ctx), and marked CERT_INFERRED.  gates as for
 * explain_registration (a dma-buf or EFAULT call of GPU memory).  v->err receives the errno the
 * call failed with (set by libibverbs when no command was issued). */
enum cause explain_user_call(const struct mrt_event *uev, const struct proc_context *ctx,
			     const struct nccl_info *nccl, const struct gate_facts *gates,
			     struct verdict *v);

/* A MRT_EV_FAILURE record (a verbs command, device open, /dev/shm
 * allocation or fd import the kernel refused).  gates: what stood in the
 * way, read from /proc and sysfs at the failure (proc/gates.h); NULL in a
 * replay without them, when only the kernel's own evidence decides. */
enum cause explain_failure(const struct mrt_event *ev, const struct proc_context *ctx,
			   const struct gate_facts *gates, struct verdict *v);


#endif
