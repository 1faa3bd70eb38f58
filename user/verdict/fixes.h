/* SPDX-License-Identifier: GPL-2.0-only */
/* fixes.h - the fix for THIS process's setting.  Given a cause (docs/causes.md)
 * and what we know about the process and the failure, produce an ordered
 * list of concrete steps: the one that fits where the job runs first, then
 * alternatives, NCCL-side stopgaps, and notes that correct common wrong advice.
 *
 * One mechanism: each cause's row (causes.c) names one generator (or none); the explainers decide the cause and its numbers, then ask
 * fixes_for_verdict(), and `mrtrace check` asks fixes_for() for its memlock
 * advice.  Plain data in, plain strings out; no BPF, no /proc access.
 */
#ifndef MRTRACE_FIXES_H
#define MRTRACE_FIXES_H
#include <stdbool.h>
#include <stdint.h>

#include "verdict/fix_input.h"

/* Fills `out` (cleared first) for in->cause.  Returns the number of fixes,
 * -ENOENT when the cause has no generator (out->n == 0), -EINVAL without
 * an input or with a cause out of range. */
int fixes_for(const struct fix_input *in, struct fix_list *out);

/* The fixes of a decided verdict, into v->fixes: the input is the record
 * (ev), the process (ctx, nccl) and the gates it was judged on (each may
 * be NULL), and v's own numbers. */
void fixes_for_verdict(const struct mrt_event *ev, const struct proc_context *ctx,
		       const struct nccl_info *nccl, const struct gate_facts *gates,
		       struct verdict *v);

const char *fix_kind_name(enum fix_kind k);

#endif
