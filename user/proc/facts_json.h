/* SPDX-License-Identifier: GPL-2.0-only */
/* facts_json.h - the evidence members of the facts read at a failure that
 * are not the record's own (docs/json.md): for GPU memory
 * `evidence.peer_memory`, `evidence.dmabuf`, `evidence.dmabuf_blocked`,
 * BAR1 numbers and `evidence.gpu` (gate_facts.gpu, gpu_facts.h); for a
 * /dev/shm refusal whose tmpfs it is (`evidence.gates.shm_owner` and the
 * mount's source and namespaces); for a failed long-term pin the node's
 * CMA pageblocks (`evidence.gates.cma`, gate_facts.cma, cma_facts.h).  One writer, called once by the record's
 * JSON writer, and one reader, called once where a recorded record's gates
 * are read back, so a replay judges with the facts the failure had. */
#ifndef MRTRACE_PROC_FACTS_JSON_H
#define MRTRACE_PROC_FACTS_JSON_H
#include <json-c/json.h>
#include <stdbool.h>

#include "proc/gates.h"

struct nccl_info;

/* Adds to `evidence` what g holds beyond the gates' own members (nothing
 * for g NULL).  nccl: the process's, for the dma-buf judgement (may be
 * NULL). */
void facts_evidence_add(struct json_object *evidence, const struct gate_facts *g,
			const struct nccl_info *nccl);

/* Reads those members of a recorded record (its "evidence") into g, which
 * the gates' own reader has filled (or cleared) before.  True when any
 * was there. */
bool facts_evidence_read(struct json_object *record, struct gate_facts *g);

#endif
