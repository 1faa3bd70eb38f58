/* SPDX-License-Identifier: GPL-2.0-only */
/* ops.h - the one vocabulary of operations that the records, the log reader
 * (user/logs/) and the verdicts (user/verdict/) share: a refusal record's op
 * (bpf/mrtrace.h's enum mrt_op, the same numbers), and the two a record says
 * by its kind instead (a registration, an mlock).  Names are docs/json.md's
 * ops ("reg_mr", "create_qp", ...). */
#ifndef MRTRACE_CORE_OPS_H
#define MRTRACE_CORE_OPS_H

#include "mrtrace.h"

enum rdma_op {
	OP_NONE = MRT_OP_NONE,
	OP_OPEN_DEVICE = MRT_OP_OPEN_DEVICE,
	OP_ALLOC_PD = MRT_OP_ALLOC_PD,
	OP_CREATE_CQ = MRT_OP_CREATE_CQ,
	OP_CREATE_QP = MRT_OP_CREATE_QP,
	OP_CREATE_AH = MRT_OP_CREATE_AH,
	OP_MODIFY_QP = MRT_OP_MODIFY_QP,
	OP_SHM_ALLOC = MRT_OP_SHM_ALLOC,
	OP_FD_IMPORT = MRT_OP_FD_IMPORT,
	/* said by a record's kind, not its op: MRT_EV_REG_FAILURE and a
	 * registration's MRT_EV_USER_CALL; MRT_EV_MLOCK_FAILURE */
	OP_REG_MR = MRT_OP_MAX,
	OP_MLOCK,
	OP__COUNT
};

/* "reg_mr" for OP_REG_MR; NULL for OP_NONE and out of range. */
const char *rdma_op_name(enum rdma_op op);
/* OP_NONE for NULL or a name it does not know. */
enum rdma_op rdma_op_from_name(const char *name);

#endif
