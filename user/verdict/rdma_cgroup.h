/* SPDX-License-Identifier: GPL-2.0-only */
/* rdma_cgroup.h - inside verdict/: a failed rdma cgroup charge, which any
 * verbs object can meet (an MR, a device context, a PD, CQ, QP or AH). */
#ifndef MRTRACE_VERDICT_RDMA_CGROUP_H
#define MRTRACE_VERDICT_RDMA_CGROUP_H

#include <stdbool.h>

#include "verdict/verdict.h"

/* A device context is charged as hca_handle; every other object (the MR of
 * a registration too) as hca_object: the verdict and its fix both say which. */
static inline bool rdma_cgroup_charges_handle(const struct mrt_event *ev)
{
	return ev->kind == MRT_EV_FAILURE && ev->op == MRT_OP_OPEN_DEVICE;
}

/* True when the trail's charge (or its EAGAIN at rdma_alloc_begin_uobject)
 * decided v: cause, decisive step, texts (not the fixes); false with v
 * untouched. */
bool explain_rdma_cgroup(const struct mrt_event *ev, struct verdict *v, int err);

#endif
