// SPDX-License-Identifier: GPL-2.0-only
/* explain.c - explain_event(): the one kind dispatch left in the engine,
 * kept until the table of record kinds calls the entry points itself
 * (explain.h). */
#include "explain/explain.h"

enum cause explain_event(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct nccl_info *nccl, struct verdict *v)
{
	/* Transitional: the record-kind table replaces this switch. */
	switch (ev->kind) {
	case MRT_EV_USER_CALL: return explain_user_call(ev, ctx, nccl, NULL, v);
	case MRT_EV_FAILURE: return explain_failure(ev, ctx, NULL, v);
	case MRT_EV_MLOCK_FAILURE: return explain_mlock(ev, ctx, nccl, v);
	default: return explain_registration(ev, ctx, nccl, NULL, v);
	}
}
