// SPDX-License-Identifier: GPL-2.0-only
/* nccl_probe.c - NCCL's dma-buf capability probe at init (fd -1, length 0):
 * a registration failure (or a libibverbs call) the engine judged harmless.
 * Written as that record with "event" "nccl_probe" (docs/json.md);
 * `mrtrace explain` shows it with --all only. */
#include "record/kind.h"

static const struct record_explained probe_cells = {
	/* the engine and the members are those of the record it is */
	.priority = "7",
	.message_id = "c3d9a1e7f20b4b8e8a5d6c7b1e0f9a2b",
};

const struct record_kind record_kind_nccl_probe = {
	.name = "NCCL dma-buf probe",
	.event = "nccl_probe",
	.flags = RECORD_EXPLAINED,
	.explained = &probe_cells,
	.ts_ns = explained_ts_ns,
	.to_json = explained_to_json,
	.to_text = explained_to_text,
	.from_json = explained_from_json,
};
