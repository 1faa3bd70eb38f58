/* SPDX-License-Identifier: GPL-2.0-only */
/* plan.h - the list of registrations to make, before any memory exists:
 * either N x --size, or NCCL's per-connection buffers. */
#ifndef MRPROBE_PLAN_H
#define MRPROBE_PLAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nccl/layout.h"

struct plan_entry {
	uint64_t len;
	bool on_gpu;     /* NCCL with GDR: this buffer lives in GPU memory */
	char label[48];  /* "ch0 peer1 recv LL128", or "" */
};

struct plan {
	struct plan_entry *v;
	size_t n;
	size_t skipped_gpu; /* GDR buffers left out because no GPU was asked for */
};

/* count x size.  Returns 0 or -1 (out of memory). */
int mp_plan_sized(struct plan *p, uint64_t size, unsigned count);

/* NCCL's layout (nccl_layout.h): for each channel, for each peer, a send and a
 * receive connection, each with its LL, LL128 and Simple buffers.  GPU
 * buffers are included only when with_gpu; otherwise they are counted in
 * skipped_gpu, since they would not be pinned host memory anyway. */
int mp_plan_nccl(struct plan *p, const struct nccl_layout *l, uint64_t page, bool with_gpu);

uint64_t mp_plan_bytes(const struct plan *p);
void mp_plan_free(struct plan *p);

#endif
