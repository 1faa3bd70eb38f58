/* SPDX-License-Identifier: GPL-2.0-only */
/* rdmares_res.h - the kernel's counts of verbs objects (RDMA netlink, read
 * through iproute2's `rdma -j res show [TYPE]`) for the failure paths that
 * need them while a record is built: the gates of a refused alloc_pd,
 * create_cq or create_qp (proc/gates.c). */
#ifndef MRTRACE_PROC_RDMARES_RES_H
#define MRTRACE_PROC_RDMARES_RES_H

#include "proc/rdmares.h"

/* How long rdmares_res() waits for the tool before it is killed. */
#define RDMARES_WAIT_S 5.0

/* `rdma -j res show TYPE` ("", "pd", "cq" or "qp"), waited for: the JSON
 * array (the caller's reference; empty when there is no object), or NULL
 * with *why (the tool failed or is missing, was killed after
 * RDMARES_WAIT_S, its output is over 64 MiB or not the JSON expected; a
 * type outside the four is never run).  Served by the last answer within
 * the reuse rule (rdmares.h), so a burst runs the tool once per type.
 * The port monitor does not wait: rdmares_async.h. */
struct json_object *rdmares_res(const char *type, const char **why);

#endif
