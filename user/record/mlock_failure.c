// SPDX-License-Identifier: GPL-2.0-only
/* mlock_failure.c - a failed mlock(), mlock2() or mlockall()
 * (MRT_EV_MLOCK_FAILURE, syscall tracepoints): JSON "mlock_failure"
 * (docs/json.md).  Evidence about the same RLIMIT_MEMLOCK a registration is
 * held to; the record always carries the memlock numbers. */
#include "record/kind.h"
#include "record/json_util.h"

#include "verdict/explain.h"
#include "verdict/names.h"

static enum cause mlock_explain(struct report *r)
{
	return explain_mlock(r->ev, r->ctx, r->nccl, &r->v);
}

/* the variant called: mlock unless the record says mlock2 or mlockall */
static const char *mlock_api(const struct mrt_event *ev)
{
	if (ev->syscall == MRT_SYS_MLOCK2 || ev->syscall == MRT_SYS_MLOCKALL)
		return syscall_name(ev->syscall);
	return syscall_name(MRT_SYS_MLOCK);
}

static const char *mlock_what(const struct mrt_event *ev)
{
	(void)ev;
	return "mlock";
}

static unsigned long long mlock_len(const struct mrt_event *ev)
{
	return ev->sys_len;
}

static void mlock_evidence(struct json_object *e, const struct report *r)
{
	const struct mrt_event *ev = r->ev;

	evidence_memlock(e, ev);
	evidence_command(e, ev, ev->cmd_valid == MRT_CMD_DMABUF);
	evidence_decisive(e, r);
	jput_u64(e, "mlock_len", ev->sys_len);
	evidence_ids(e, ev);
}

static const struct record_explained mlock_cells = {
	.explain = mlock_explain,
	.api = mlock_api,
	.what = mlock_what,
	.len = mlock_len,
	.evidence = mlock_evidence,
	.priority = "4",
	.message_id = "5a0e3c8f1b7d4e2a9c6f0d1e2b3a4c5d",
};

const struct record_kind record_kind_mlock_failure = {
	.name = "mlock failure",
	.event = "mlock_failure",
	.ring = MRT_EV_MLOCK_FAILURE,
	.flags = RECORD_EXPLAINED | RECORD_MEMLOCK,
	.explained = &mlock_cells,
	.ts_ns = explained_ts_ns,
	.to_json = explained_to_json,
	.to_text = explained_to_text,
	.from_json = explained_from_json,
};
