// SPDX-License-Identifier: GPL-2.0-only
/* inferred_fabric.c - the facts of a node's fabric that bear on a log's
 * failure (inferred.h): the GID table of the port the line names, with the
 * index the line (or NCCL_IB_GID_INDEX) names or the one NCCL would pick
 * itself, for bad_gid_index; the rdma cgroup, for rdma_cgroup_limit; the
 * ports' link error counters beside a completion error or async event.
 * Each is weighed only when its candidate is there, and said where it
 * weighs.
 * Pure, as inferred.c. */
#include "verdict/inferred.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The port the line names (device, and port when it says one); with no
 * device named, the node's only RoCE port.  NULL: none fits. */
static const struct inferred_gid_port *port_of(const struct inferred_in *in,
					       const struct inferred_facts *f)
{
	const struct inferred_gid_port *only = NULL;
	int roce = 0;

	for (int i = 0; i < f->gid_ports; i++) {
		const struct inferred_gid_port *p = &f->gid_port[i];
		if (in->device[0]) {
			if (!strcmp(p->device, in->device) && (in->port <= 0 || p->port == in->port))
				return p;
		} else if (p->roce && !roce++) {
			only = p;
		}
	}
	return roce == 1 ? only : NULL;
}

static const struct inferred_gid *entry(const struct inferred_gid_port *p, int index)
{
	for (int i = 0; i < p->nentries; i++)
		if (p->e[i].index == index)
			return &p->e[i];
	return NULL;
}

/* Judges index on p: empty, not a routable RoCE v2 GID, or usable.
 * whose: "the log names", "NCCL would take". */
static void judge_index(const struct inferred_in *in, const struct inferred_facts *f,
			const struct inferred_gid_port *p, int index, const char *whose,
			struct inferred *o)
{
	const struct inferred_gid *e = entry(p, index);

	if (!e) {
		if (p->nentries < p->populated)
			return; /* not among the entries kept: unknown, no weight */
		inferred_rest(o, "on %s, %s port %d has no GID at index %d (the index %s)", f->host,
			      p->device, p->port, index, whose);
		inferred_weigh(o, CAUSE_BAD_GID_INDEX, 40);
	} else if (p->roce && (!e->routable || strcmp(e->type, "RoCE v2"))) {
		inferred_rest(o, "on %s, GID %d of %s port %d (the index %s) is %s%s", f->host, index,
			      p->device, p->port, whose, e->type[0] ? e->type : "of no type",
			      e->routable ? "" : ", not routable (link-local)");
		inferred_weigh(o, CAUSE_BAD_GID_INDEX, 15);
	} else {
		inferred_rest(o, "on %s, GID %d of %s port %d (the index %s) is a usable %s GID", f->host,
			      index, p->device, p->port, whose, p->roce ? "RoCE v2" : "IB");
		inferred_weigh(o, CAUSE_BAD_GID_INDEX, -15);
	}
	(void)in;
}

static void weigh_gid(const struct inferred_in *in, const struct inferred_facts *f,
		      struct inferred *o)
{
	const struct inferred_gid_port *p;

	if (!inferred_has(o, CAUSE_BAD_GID_INDEX) || !(p = port_of(in, f)))
		return;
	if (in->has_gid_index) {
		judge_index(in, f, p, in->gid_index, "the log names", o);
		return;
	}
	if (!in->from_nccl || !p->how[0])
		return; /* another client's index is not NCCL's choice */
	if (!strcmp(p->how, "fails") || !strcmp(p->how, "crashes")) {
		inferred_rest(o, "on %s, NCCL's own GID choice on %s port %d %s: no routable GID of the type it searches for",
			      f->host, p->device, p->port, !strcmp(p->how, "fails") ? "fails" : "crashes");
		inferred_weigh(o, CAUSE_BAD_GID_INDEX, 35);
	} else if (p->nccl_index >= 0) {
		judge_index(in, f, p, p->nccl_index, "NCCL would take here", o);
	}
}

static void weigh_rdmacg(const struct inferred_facts *f, struct inferred *o)
{
	if (!inferred_has(o, CAUSE_RDMA_CGROUP_LIMIT))
		return;
	switch (f->rdmacg) {
	case INF_RDMACG_OFF:
		inferred_rest(o, "on %s, cgroup v2's root does not enable the rdma controller: no rdma.max can refuse",
			      f->host);
		inferred_weigh(o, CAUSE_RDMA_CGROUP_LIMIT, -40);
		break;
	case INF_RDMACG_ON:
		if (f->rdmacg_limited) {
			inferred_rest(o, "on %s, %u%s cgroup%s limit%s RDMA objects now, the first %s (\"%s\")", f->host,
				      f->rdmacg_limited, f->rdmacg_cut ? " or more" : "",
				      f->rdmacg_limited == 1 ? "" : "s", f->rdmacg_limited == 1 ? "s" : "",
				      f->rdmacg_first, f->rdmacg_first_line);
			inferred_weigh(o, CAUSE_RDMA_CGROUP_LIMIT, 30);
		} else if (!f->rdmacg_cut) {
			inferred_rest(o, "on %s, no cgroup limits RDMA objects now (every rdma.max is max; a job's own cgroup may be gone)",
				      f->host);
			inferred_weigh(o, CAUSE_RDMA_CGROUP_LIMIT, -15);
		} else {
			inferred_rest(o, "on %s, the rdma controller is on; the cgroups read hold no limit, but not all were read",
				      f->host);
		}
		break;
	default:
		break;
	}
}

/* A completion error or an async event: no kernel call refused it, and
 * the ports' link error counters are what this node can tie it to (they
 * run since the driver loaded: a reading, not a rate). */
static void say_counters(const struct inferred_in *in, const struct inferred_facts *f,
			 struct inferred *o)
{
	if (in->kind != INF_COMPLETION && in->kind != INF_ASYNC)
		return;
	for (int i = 0; i < f->gid_ports; i++) {
		const struct inferred_gid_port *p = &f->gid_port[i];
		if (!p->counters_read || (in->device[0] && strcmp(p->device, in->device)))
			continue;
		if (p->counters[0])
			inferred_rest(o, "on %s, %s port %d's link error counters since the driver loaded: %s",
				      f->host, p->device, p->port, p->counters);
		else
			inferred_rest(o, "on %s, %s port %d's link error counters are all 0", f->host,
				      p->device, p->port);
	}
}

void inferred_weigh_fabric(const struct inferred_in *in, const struct inferred_facts *f,
			   struct inferred *o)
{
	weigh_gid(in, f, o);
	weigh_rdmacg(f, o);
	say_counters(in, f, o);
}

void inferred_weigh_link(const struct inferred_in *in, const struct inferred_facts *f,
			 struct inferred *o)
{
	const struct inferred_gid_port *p = f->have ? port_of(in, f) : NULL;
	bool roce = in->roce || (p && p->roce) || (f->have && f->roce_ports && !f->ports_down);

	if (in->kind != INF_CALL || (in->err && in->err != EINVAL) ||
	    inferred_in_op(in) != OP_MODIFY_QP)
		return;
	if (in->qp_to_rts) {
		/* the address vector was taken at RTR: what RTS refuses is its
		 * own attributes (ib_modify_qp_is_ok's RTR->RTS mask) */
		inferred_rest(o, "the move was RTR -> RTS: the address was accepted at RTR; RTS refuses "
				 "its own attributes (timeout, retry counts, the send PSN, outstanding reads)");
		inferred_weigh(o, CAUSE_QP_ATTR_INVALID, 40);
		inferred_weigh(o, CAUSE_BAD_GID_INDEX, -20);
		return;
	}
	if (in->err != EINVAL || !roce)
		return;
	/* a RoCE port that is down refuses RTR with ENETUNREACH (its routes
	 * go with it), so EINVAL there is the address vector: a GRH missing
	 * (an empty index read as zeros) or a GID index of another type */
	inferred_rest(o, "the port is RoCE: EINVAL at RTR there is the address (no GRH, a GID index that is not RoCE v2), a port that is down refuses with ENETUNREACH");
	inferred_weigh(o, CAUSE_BAD_GID_INDEX, 20);
	inferred_weigh(o, CAUSE_PORT_NOT_ACTIVE, -10);
}
