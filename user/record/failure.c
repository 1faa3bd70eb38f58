// SPDX-License-Identifier: GPL-2.0-only
/* failure.c - another refusal behind ncclSystemError (MRT_EV_FAILURE: a
 * verbs command, a device open, a /dev/shm allocation, an fd import): JSON
 * "failure" with its "op" (docs/json.md).  The gate facts are read at the
 * failure (proc/gates.h) and judged with the kernel's evidence
 * (verdict/failure.c). */
#include "record/kind.h"
#include "record/json_util.h"
#include "record/parts.h"

#include "verdict/explain.h"

static enum cause failure_explain(struct report *r)
{
	return explain_failure(r->ev, r->ctx, r->have_gates ? &r->gates : NULL, &r->v);
}

static const char *failure_what(const struct mrt_event *ev)
{
	return op_name(ev->op) ? op_name(ev->op) : "operation";
}

static void failure_head(struct json_object *o, const struct report *r)
{
	jput_str(o, "op", op_name(r->ev->op));
}

static void failure_evidence(struct json_object *e, const struct report *r)
{
	const struct mrt_event *ev = r->ev;

	if (ev->ml.valid)
		evidence_memlock(e, ev);
	evidence_command(e, ev, ev->cmd_valid == MRT_CMD_DMABUF);
	evidence_decisive(e, r);
	evidence_ids(e, ev);
	gates_evidence_add(e, ev, r->have_gates ? &r->gates : NULL);
}

static const struct record_explained failure_cells = {
	.explain = failure_explain,
	.what = failure_what,
	.head = failure_head,
	.len = evidence_reg_len,
	.evidence = failure_evidence,
	.priority = "3",
	.message_id = "6b1d4f2e8a3c4d9b9e7f1a2c3d4e5f60",
};

const struct record_kind record_kind_failure = {
	.name = "refusal",
	.event = "failure",
	.ring = MRT_EV_FAILURE,
	.flags = RECORD_EXPLAINED | RECORD_GATES | RECORD_NO_PROBE,
	.explained = &failure_cells,
	.ts_ns = explained_ts_ns,
	.to_json = explained_to_json,
	.to_text = explained_to_text,
	.from_json = explained_from_json,
};
