/* SPDX-License-Identifier: GPL-2.0-only */
/* gpu_memory.h - inside verdict/: what the GPU facts read at a failure
 * (gate_facts.gpu, proc/gpu_facts.h) decide and add to a verdict about GPU
 * memory.  Pure: the facts are plain data, recorded in the evidence and
 * read back on replay. */
#ifndef MRTRACE_VERDICT_GPU_MEMORY_H
#define MRTRACE_VERDICT_GPU_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "verdict/verdict.h"
#include "proc/gates.h"

struct nccl_info;

/* The GPU facts of gates, or NULL when none were read. */
const struct gpu_facts *gpu_facts_of(const struct gate_facts *g);

/* An exporter's (dma-buf) or a peer-memory client's refusal at trail step
 * `step`, of a registration of `need` bytes: gpu_bar1_exhausted when a
 * GPU's BAR1 (NVML's numbers at the failure) has less room than that.
 * True with v decided; false with v untouched. */
bool explain_bar1(const struct mrt_event *ev, const struct gate_facts *g, int step, uint64_t need,
		  struct verdict *v);

/* After the cause is decided, for pin_device_memory, pin_fault,
 * dmabuf_unsupported and dmabuf_attach: says in the summary and the
 * explanation what the node's facts mean for the two paths GPU memory
 * has (peer memory, dma-buf), and tells NCCL's dma-buf probe of the same
 * process and this failure as one chain.  Nothing without facts. */
void gpu_verdict_facts(const struct mrt_event *ev, const struct gate_facts *g,
		       const struct nccl_info *nccl, struct verdict *v);

#endif
