/* SPDX-License-Identifier: GPL-2.0-only */
/* names.h - the stable names mrtrace prints and writes for what a record and
 * a verdict hold: causes (docs/causes.md) and their families, sites, errnos,
 * IB access bits, mlx5 command statuses, libibverbs calls, the system calls
 * of mlock and rlimit records, the operations of refusal records.  Defined
 * in names.c, except a cause's name (causes.c, its row's) and family
 * (classes.c, from its row). */
#ifndef MRTRACE_VERDICT_NAMES_H
#define MRTRACE_VERDICT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "verdict/causes.h"
#include "verdict/verdict.h"


/* The family of c's row (causes.h); an unknown cause's depends on op. */
enum cause_class cause_class(enum cause c, unsigned int op);
const char *cause_class_name(enum cause_class c); /* "environment", "infiniband" */
/* "modify_qp" for an enum mrt_op value; NULL for MRT_OP_NONE. */
const char *op_name(unsigned int op);

/* "ibv_reg_mr_iova2" for an enum mrt_api value. */
const char *api_name(unsigned int api);

/* Helpers shared with output: names of sites, errnos and IB access bits. */
const char *site_name(unsigned int site);
const char *errno_name(int err); /* "ENOMEM"; "E?" for unknown */
/* "LOCAL_WRITE|REMOTE_WRITE|0x100000"; returns buf */
const char *access_names(uint32_t access, char *buf, size_t len);
/* mlx5 command status name ("LIM_ERR"), "?" when unknown */
const char *mlx5_status_name(unsigned int status);

/* The other way, one table for both directions (a recorded record comes
 * back through them): the errno errno_name() names so, or -1 ("E?" and
 * unknown names); the enum mrt_api value api_name() names so, or -1. */
int errno_from_name(const char *name);
int api_from_name(const char *name);
/* "mlock", ..., "prlimit64" for an enum mrt_syscall value; NULL for
 * MRT_SYS_NONE and values it does not know. */
const char *syscall_name(unsigned int sysno);

#endif
