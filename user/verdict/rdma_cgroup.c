// SPDX-License-Identifier: GPL-2.0-only
/* rdma_cgroup.c - a verbs object the rdma cgroup would not charge
 * (rdma_cgroup.h). */
#include "verdict/rdma_cgroup.h"
#include "verdict/names.h"

#include <errno.h>

bool explain_rdma_cgroup(const struct mrt_event *ev, struct verdict *v, int err)
{
	static const char *const what[MRT_OP_MAX] = {
		[MRT_OP_NONE] = "the MR", [MRT_OP_OPEN_DEVICE] = "the device context (hca_handle)",
		[MRT_OP_ALLOC_PD] = "the PD", [MRT_OP_CREATE_CQ] = "the CQ",
		[MRT_OP_CREATE_QP] = "the QP", [MRT_OP_CREATE_AH] = "the AH",
	};
	const char *obj = ev->kind == MRT_EV_FAILURE && ev->op < MRT_OP_MAX && what[ev->op]
				  ? what[ev->op] : "the MR";
	int i = trail_first_failed(ev, MRT_SITE_RDMACG_CHARGE);

	if (i < 0 && !(err == EAGAIN && trail_first_failed(ev, MRT_SITE_UOBJ_ALLOC) >= 0))
		return false;
	if (i < 0)
		i = trail_first_failed(ev, MRT_SITE_UOBJ_ALLOC);
	v->cause = CAUSE_RDMA_CGROUP_LIMIT;
	v->decisive_step = i;
	verdict_say(v->summary, "the rdma cgroup's %s limit is reached (%s)",
		    rdma_cgroup_charges_handle(ev) ? "hca_handle" : "hca_object", errno_name(err));
	verdict_say(v->explanation,
	    "Every device context (hca_handle) and verbs object (PD, MR, QP, CQ...: hca_object) "
	    "is charged to the process's rdma cgroup before it is created; the charge failed, "
	    "so %s was never allocated. Memory limits are not involved.", obj);
	return true;
}
