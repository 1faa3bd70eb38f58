// SPDX-License-Identifier: GPL-2.0-only
/* reg_failure.c - a failed memory registration, as the kernel trail saw it
 * (MRT_EV_REG_FAILURE): JSON "reg_failure" (docs/json.md).  It waits for its
 * libibverbs call (watch/correlate.c) and is judged by the registration
 * engine (verdict/explain.c). */
#include "record/kind.h"
#include "record/json_util.h"

#include "verdict/explain.h"

static enum cause reg_explain(struct report *r)
{
	return explain_registration(r->ev, r->ctx, r->nccl, r->have_gates ? &r->gates : NULL, &r->v);
}

/* the uverbs command, when no libibverbs call names the API */
static const char *reg_api(const struct mrt_event *ev)
{
	return ev->opener == MRT_SITE_UVERBS_REG_DMABUF ? "reg_dmabuf_mr" : "reg_mr";
}

static const char *reg_what(const struct mrt_event *ev)
{
	(void)ev;
	return "registration";
}

static void reg_evidence(struct json_object *e, const struct report *r)
{
	const struct mrt_event *ev = r->ev;

	if (ev->ml.valid)
		evidence_memlock(e, ev);
	evidence_command(e, ev, ev->cmd_valid == MRT_CMD_DMABUF);
	if (ev->opener == MRT_SITE_UVERBS_REG_DMABUF)
		jput_i64(e, "dmabuf_fd", ev->dmabuf_fd);
	evidence_decisive(e, r);
	evidence_ids(e, ev);
}

static const struct record_explained reg_cells = {
	.explain = reg_explain,
	.api = reg_api,
	.what = reg_what,
	.len = evidence_reg_len,
	.evidence = reg_evidence,
	.priority = "3",
	.message_id = "8f2c6d1a9e4b4f7c8d3e5a6b7c0d1e2f",
};

const struct record_kind record_kind_reg_failure = {
	.name = "registration failure",
	.event = "reg_failure",
	.ring = MRT_EV_REG_FAILURE,
	.flags = RECORD_EXPLAINED | RECORD_GATES, /* GPU memory's or CMA's facts (gates_record_wants_facts) */
	.join = RECORD_WAITS_FOR_CALL,
	.explained = &reg_cells,
	.ts_ns = explained_ts_ns,
	.to_json = explained_to_json,
	.to_text = explained_to_text,
	.from_json = explained_from_json,
};
