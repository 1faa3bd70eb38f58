// SPDX-License-Identifier: GPL-2.0-only
/* build.c - one report from the records and what is known of the process:
 * the same for `mrtrace watch` (live records) and `mrtrace explain`
 * (recorded ones), so both explain with the same engine. */
#include "report/report.h"

#include <string.h>

const char *report_api(const struct mrt_event *ev, const struct mrt_event *uev)
{
	if (uev && uev->opener != MRT_API_NONE)
		return api_name(uev->opener);
	switch (ev->kind) {
	case MRT_EV_MLOCK_FAILURE:
		if (ev->syscall == MRT_SYS_MLOCK2)
			return "mlock2";
		return ev->syscall == MRT_SYS_MLOCKALL ? "mlockall" : "mlock";
	case MRT_EV_REG_FAILURE:
		if (ev->opener == MRT_SITE_UVERBS_REG_DMABUF)
			return "reg_dmabuf_mr";
		return "reg_mr";
	default: return NULL;
	}
}

void report_explain(struct report *r, const struct mrt_event *ev, const struct mrt_event *uev,
		    const struct proc_context *ctx, const struct nccl_info *nccl,
		    const struct gate_facts *gates)
{
	memset(r, 0, sizeof(*r));
	r->ev = ev;
	r->uev = uev;
	r->ctx = ctx;
	r->nccl = nccl;
	r->api = report_api(ev, uev);
	if (gates) {
		r->have_gates = true;
		r->gates = *gates;
	}
	switch (ev->kind) {
	case MRT_EV_FAILURE: explain_failure(ev, ctx, gates, &r->v); break;
	case MRT_EV_MLOCK_FAILURE: explain_mlock(ev, ctx, nccl, &r->v); break;
	case MRT_EV_USER_CALL: explain_user_call(ev, ctx, nccl, gates, &r->v); break;
	default: explain_registration(ev, ctx, nccl, gates, &r->v); break;
	}
}
