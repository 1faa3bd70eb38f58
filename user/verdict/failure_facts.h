/* SPDX-License-Identifier: GPL-2.0-only */
/* failure_facts.h - inside verdict/: what the explainer of refusal records
 * (MRT_EV_FAILURE, failure.c) and their fixes (fixes_failure.c) both read
 * off the record and its gates, so that a verdict and its fix never judge
 * the same fact two ways. */
#ifndef MRTRACE_VERDICT_FAILURE_FACTS_H
#define MRTRACE_VERDICT_FAILURE_FACTS_H

#include <stdbool.h>
#include <string.h>

#include "verdict/verdict.h"
#include "proc/context.h"
#include "proc/gates.h"

/* enum ib_qp_attr_mask bits (stable uAPI: enum ib_uverbs_qp_attr_mask) */
#define QPM_STATE 0x1
#define QPM_PKEY_INDEX 0x10
#define QPM_PORT 0x20
#define QPM_AV 0x80
#define QPM_PATH_MTU 0x100

/* where the process runs, unknown without a context */
static inline enum ctx_setting failure_setting(const struct proc_context *ctx)
{
	return ctx ? proc_context_setting(ctx) : CTX_SET_UNKNOWN;
}

/* the uverbs node the process opened (gates), or the whole family */
static inline const char *failure_node(const struct gate_facts *g)
{
	return g && g->node_path[0] ? g->node_path : "/dev/infiniband/uverbs*";
}

/* the device the record names */
static inline const char *failure_device(const struct mrt_event *ev)
{
	return ev->op_name[0] ? ev->op_name : "the device";
}

/* modify_qp / create_ah: the port the attributes name (1 when unnamed) */
static inline unsigned long long qp_port(const struct mrt_event *ev)
{
	return ev->op_args[2] ? ev->op_args[2] : 1;
}

/* the device's port count: from the record, else from sysfs; 0 unknown */
static inline long qp_ports(const struct mrt_event *ev, const struct gate_facts *g)
{
	return ev->op_limits[3] ? (long)ev->op_limits[3] : g && g->ports > 0 ? g->ports : 0;
}

/* The attributes name a port the device does not have. */
static inline bool qp_port_missing(const struct mrt_event *ev, const struct gate_facts *g)
{
	long ports = qp_ports(ev, g);

	return (ev->op_args[0] & (QPM_PORT | QPM_AV)) && ports > 0 && (long long)qp_port(ev) > ports;
}

/* RoCE: the port follows an Ethernet interface (gates read its link layer) */
static inline bool port_is_ethernet(const struct gate_facts *g)
{
	return g && g->have_port && !strcmp(g->link_layer, "Ethernet");
}

/* the tmpfs behind a shared-memory segment */
static inline const char *shm_mount(const struct gate_facts *g)
{
	return g && g->have_shm ? g->shm_mount : "/dev/shm";
}

#endif
