// SPDX-License-Identifier: GPL-2.0-only
/* ops.c - the operations' names (ops.h), one table read both ways. */
#include "core/ops.h"

#include <string.h>

static const char *const names[OP__COUNT] = {
	[OP_OPEN_DEVICE] = "open_device", [OP_ALLOC_PD] = "alloc_pd",
	[OP_CREATE_CQ] = "create_cq",     [OP_CREATE_QP] = "create_qp",
	[OP_CREATE_AH] = "create_ah",     [OP_MODIFY_QP] = "modify_qp",
	[OP_SHM_ALLOC] = "shm_alloc",     [OP_FD_IMPORT] = "fd_import",
	[OP_REG_MR] = "reg_mr",           [OP_MLOCK] = "mlock",
};

const char *rdma_op_name(enum rdma_op op)
{
	return op > OP_NONE && op < OP__COUNT ? names[op] : NULL;
}

enum rdma_op rdma_op_from_name(const char *name)
{
	for (int i = OP_NONE + 1; name && i < OP__COUNT; i++)
		if (!strcmp(names[i], name))
			return (enum rdma_op)i;
	return OP_NONE;
}
