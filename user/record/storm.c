// SPDX-License-Identifier: GPL-2.0-only
/* storm.c - a storm summary: failures the kernel folded instead of sending
 * (bpf/mrtrace.h, "storms"), decoded from its storm table rather than from
 * the ring buffer, and reported as the record that opened their run again
 * with "count", "first_ts_ns", "last_ts_ns" (docs/json.md, "Storms").  Its
 * event, engine and members are that record's; in text it is one line. */
#include "record/kind.h"

static const struct record_explained storm_cells = {
	.priority = NULL, /* the record's it stands for */
};

const struct record_kind record_kind_storm = {
	.name = "storm summary",
	.flags = RECORD_EXPLAINED,
	.explained = &storm_cells,
	.ts_ns = explained_ts_ns,
	.to_json = explained_to_json,
	.to_text = explained_to_text,
	.from_json = explained_from_json,
};
