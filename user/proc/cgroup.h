/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup.h - a process's cgroup, read into its context (context.h holds
 * the public half: proc_context_parse_cgroup, proc_cgroup_path_by_id and
 * the exited process's context); these two are context.c's steps. */
#ifndef MRTRACE_PROC_CGROUP_H
#define MRTRACE_PROC_CGROUP_H
#include "proc/context.h"

/* /proc/PID/cgroup under root, parsed into out (unit, job, pod, container). */
void proc_context_read_cgroup(const char *root, int pid, struct proc_context *out);
/* The runtime a cgroup name did not say, from the monitor process above the
 * container (after the launcher walk). */
void proc_context_refine_runtime(struct proc_context *out);

#endif
