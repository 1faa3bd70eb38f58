// SPDX-License-Identifier: GPL-2.0-only
/* classes.c - which family (environment, infiniband, no refusal) a cause
 * belongs to (its row, causes.c; names.h), and the families' names. */
#include "verdict/names.h"

#include <string.h>

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
	return c == CLASS_INFINIBAND ? "infiniband" : c == CLASS_NO_REFUSAL ? "no_refusal" : "environment";
}
