// SPDX-License-Identifier: GPL-2.0-only
/* user_call.c - a failed libibverbs call with no kernel trail to join
 * (MRT_EV_USER_CALL: the kernel sites are not armed, or libibverbs refused
 * before asking the kernel).  Written as "reg_failure" (docs/json.md);
 * "user_call" is read as well.  A call that comes while a kernel trail of
 * its thread waits joins it instead (watch/correlate.c). */
#include "record/kind.h"
#include "record/json_util.h"

#include "verdict/explain.h"

static enum cause call_explain(struct report *r)
{
	return explain_user_call(r->ev, r->ctx, r->nccl, r->have_gates ? &r->gates : NULL, &r->v);
}

static const char *call_what(const struct mrt_event *ev)
{
	(void)ev;
	return "registration";
}

static unsigned long long call_len(const struct mrt_event *ev)
{
	return ev->cmd_length;
}

static void call_evidence(struct json_object *e, const struct report *r)
{
	const struct mrt_event *ev = r->ev;
	bool dmabuf = ev->opener == MRT_API_REG_DMABUF_MR;

	if (ev->ml.valid)
		evidence_memlock(e, ev);
	evidence_command(e, ev, dmabuf || ev->cmd_valid == MRT_CMD_DMABUF);
	if (dmabuf)
		jput_i64(e, "dmabuf_fd", ev->dmabuf_fd);
	evidence_decisive(e, r);
	evidence_ids(e, ev);
}

static const struct record_explained call_cells = {
	.explain = call_explain,
	.what = call_what, /* the API is the call's own (ev->opener) */
	.len = call_len,
	.evidence = call_evidence,
	.priority = "3",
	.message_id = "8f2c6d1a9e4b4f7c8d3e5a6b7c0d1e2f", /* as reg_failure: its event */
};

const struct record_kind record_kind_user_call = {
	.name = "libibverbs call",
	.event = "reg_failure",
	.alias = "user_call",
	.ring = MRT_EV_USER_CALL,
	.flags = RECORD_EXPLAINED | RECORD_GATES, /* GPU memory's facts (gpu_record_wants_facts) */
	.join = RECORD_IS_CALL,
	.explained = &call_cells,
	.ts_ns = explained_ts_ns,
	.to_json = explained_to_json,
	.to_text = explained_to_text,
	.from_json = explained_call_from_json,
};
