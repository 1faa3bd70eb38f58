// SPDX-License-Identifier: GPL-2.0-only
/* inferred_common.c - what inferred.c (the candidates) and inferred_rerun.c
 * (the proof) both use: the family of a call, and the sentences a verdict
 * rests on and says to check next.  Pure, as inferred.c. */
#include "verdict/inferred.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The operation of a call a log names (core/ops.h): which kernel sites
 * stand behind it.  The first needle the call contains decides. */
static const struct {
	const char *needle;
	enum rdma_op op;
} call_ops[] = {
	{ "reg_dmabuf_mr", OP_REG_MR }, { "reg_mr", OP_REG_MR },     { "CREATE_MKEY", OP_REG_MR },
	/* a provider's registration pins through ib_umem_get as ibv_reg_mr:
	 * libfabric's fi_mr_reg/fi_mr_regattr/fi_mr_regv (EFA, verbs) */
	{ "fi_mr_reg", OP_REG_MR },
	{ "create_cq", OP_CREATE_CQ },  { "create_qp", OP_CREATE_QP }, { "create_srq", OP_CREATE_QP },
	{ "alloc_pd", OP_ALLOC_PD },    { "modify_qp", OP_MODIFY_QP }, { "open_device", OP_OPEN_DEVICE },
	{ "get_device_list", OP_OPEN_DEVICE }, { "uverbs", OP_OPEN_DEVICE },
	{ "shm", OP_SHM_ALLOC },        { "fallocate", OP_SHM_ALLOC }, { "ftruncate", OP_SHM_ALLOC },
	{ "query_gid", OP_MODIFY_QP },  { "fd_import", OP_FD_IMPORT }, { "pidfd_getfd", OP_FD_IMPORT },
	/* mlock(2), mlock2, mlockall: RLIMIT_MEMLOCK as a registration's pin */
	{ "mlock", OP_MLOCK },
};

enum rdma_op inferred_op(const char *call)
{
	for (size_t i = 0; call && i < sizeof(call_ops) / sizeof(call_ops[0]); i++)
		if (strstr(call, call_ops[i].needle))
			return call_ops[i].op;
	return OP_NONE;
}

enum rdma_op inferred_in_op(const struct inferred_in *in)
{
	return in->op != OP_NONE ? in->op : inferred_op(in->call);
}

bool inferred_queue_op(enum rdma_op op)
{
	return op == OP_CREATE_QP || op == OP_CREATE_CQ || op == OP_ALLOC_PD;
}

void inferred_rest(struct inferred *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nrests == INFERRED_MAX_RESTS)
		return;
	va_start(ap, fmt);
	vsnprintf(o->rests_on[o->nrests++], INFERRED_TEXT, fmt, ap);
	va_end(ap);
}

void inferred_next(struct inferred *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nnext == INFERRED_MAX_NEXT)
		return;
	va_start(ap, fmt);
	vsnprintf(o->next[o->nnext++], INFERRED_TEXT, fmt, ap);
	va_end(ap);
}


void inferred_weigh(struct inferred *o, enum cause cause, int d)
{
	for (int i = 0; i < o->ncand; i++)
		if (o->cand[i].cause == cause)
			o->cand[i].score += d;
}

bool inferred_has(const struct inferred *o, enum cause cause)
{
	for (int i = 0; i < o->ncand; i++)
		if (o->cand[i].cause == cause)
			return true;
	return false;
}
