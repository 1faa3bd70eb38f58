// SPDX-License-Identifier: GPL-2.0-only
/* classes.c - what a refusal record's operation is called, and which of the
 * two families (environment, infiniband) a cause belongs to (names.h). */
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
	switch (c) {
	case CAUSE_MLX5_FIRMWARE:
	case CAUSE_HCA_RESOURCE_LIMIT:
	case CAUSE_PORT_NOT_ACTIVE:
	case CAUSE_BAD_GID_INDEX:
	case CAUSE_BAD_PKEY_INDEX:
	case CAUSE_QP_ATTR_INVALID:
	case CAUSE_GID_UNREACHABLE:
	case CAUSE_REG_RETRY:
	case CAUSE_DEVICE_FATAL:
		return CLASS_INFINIBAND;
	case CAUSE_UNKNOWN:
		/* a QP that would not move is the fabric's business until shown otherwise */
		return op == MRT_OP_MODIFY_QP || op == MRT_OP_CREATE_AH ? CLASS_INFINIBAND
									: CLASS_ENVIRONMENT;
	default:
		return CLASS_ENVIRONMENT;
	}
}

const char *cause_class_name(enum cause_class c)
{
	return c == CLASS_INFINIBAND ? "infiniband" : "environment";
}
