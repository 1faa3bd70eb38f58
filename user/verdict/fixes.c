// SPDX-License-Identifier: GPL-2.0-only
/* fixes.c - the fixes of a cause (see fixes.h) from the generator its row
 * names (causes.c), and the input a verdict gives them.  The generators
 * live in fixes_memlock.c, fixes_registration.c, fixes_gpu.c and
 * fixes_failure.c. */
#include "verdict/fixes.h"
#include "verdict/causes.h"

#include <errno.h>
#include <string.h>

int fixes_for(const struct fix_input *in, struct fix_list *out)
{
	memset(out, 0, sizeof(*out));
	if (!in || in->cause < 0 || in->cause >= CAUSE__COUNT)
		return -EINVAL;
	if (!cause_row(in->cause)->fix)
		return -ENOENT;
	cause_row(in->cause)->fix(in, out);
	return out->n;
}

void fixes_for_verdict(const struct mrt_event *ev, const struct proc_context *ctx,
		       const struct nccl_info *nccl, const struct gate_facts *gates,
		       struct verdict *v)
{
	struct fix_input in = {
		.cause = v->cause,
		.ctx = ctx,
		.nccl = nccl,
		.ev = ev,
		.gates = gates,
		.v = v,
	};

	if (v->has_memlock) {
		in.have_limit = true;
		in.limit_bytes = v->limit_bytes;
		/* A registration's "already pinned" is the pinned_vm every MR adds
		 * to (the kernel's number, or VmPin for a library call); mlock's is
		 * VmLck, and a CQ/QP buffer (MRT_EV_FAILURE) is advised on its
		 * request alone. */
		in.have_pinned = ev && (ev->kind == MRT_EV_REG_FAILURE || ev->kind == MRT_EV_USER_CALL);
		in.pinned_before = v->pinned_before_bytes;
		in.have_request = v->request_bytes > 0;
		in.request_bytes = v->request_bytes;
	}
	/* a cause without a generator leaves the list empty */
	fixes_for(&in, &v->fixes);
}

const char *fix_kind_name(enum fix_kind k)
{
	switch (k) {
	case FIX_PRIMARY: return "primary";
	case FIX_ALTERNATIVE: return "alternative";
	case FIX_STOPGAP: return "stopgap";
	case FIX_NOTE: return "note";
	}
	return "note";
}
