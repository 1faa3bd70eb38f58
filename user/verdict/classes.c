// SPDX-License-Identifier: GPL-2.0-only
/* classes.c - what a refusal record's operation is called, and which of the
 * two families (environment, infiniband) a cause belongs to (its row,
 * causes.c; names.h). */
#include "verdict/names.h"

#include <string.h>

static const char *const op_names[MRT_OP_MAX] = {
	[MRT_OP_OPEN_DEVICE] = "open_device", [MRT_OP_ALLOC_PD] = "alloc_pd",
	[MRT_OP_CREATE_CQ] = "create_cq",     [MRT_OP_CREATE_QP] = "create_qp",
	[MRT_OP_CREATE_AH] = "create_ah",     [MRT_OP_MODIFY_QP] = "modify_qp",
	[MRT_OP_SHM_ALLOC] = "shm_alloc",     [MRT_OP_FD_IMPORT] = "fd_import",
};

const char *op_name(unsigned int op)
{
	return op < MRT_OP_MAX ? op_names[op] : NULL;
}

enum mrt_op op_from_name(const char *name)
{
	for (int i = 1; name && i < MRT_OP_MAX; i++)
		if (!strcmp(op_names[i], name))
			return (enum mrt_op)i;
	return MRT_OP_NONE;
}

enum cause_class cause_class(enum cause c, unsigned int op)
{
	/* a QP that would not move is the fabric's business until shown otherwise */
	if (c == CAUSE_UNKNOWN)
		return op == MRT_OP_MODIFY_QP || op == MRT_OP_CREATE_AH ? CLASS_INFINIBAND
									: CLASS_ENVIRONMENT;
	return cause_row(c)->class;
}

const char *cause_class_name(enum cause_class c)
{
	return c == CLASS_INFINIBAND ? "infiniband" : "environment";
}
