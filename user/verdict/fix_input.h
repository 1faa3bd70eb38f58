/* SPDX-License-Identifier: GPL-2.0-only */
/* fix_input.h - what a fix generator reads (fixes.h): the cause, where the
 * process runs, the failure's record, gates and verdict, the memlock
 * numbers; and the type of a generator (named by a cause's row in
 * causes.c, fix_generators.h). */
#ifndef MRTRACE_VERDICT_FIX_INPUT_H
#define MRTRACE_VERDICT_FIX_INPUT_H
#include <stdbool.h>
#include <stdint.h>

#include "verdict/verdict.h"
#include "proc/context.h"
#include "nccl/nccl.h"

struct gate_facts;

struct fix_input {
	enum cause cause;
	const struct proc_context *ctx;   /* may be NULL: generic advice */
	const struct nccl_info *nccl;     /* may be NULL: no NCCL-specific numbers */
	/* The failure the fixes are for, each may be NULL (check's memlock
	 * advice has none): the record, what stood in its way (proc/gates.h),
	 * and the verdict decided on them (its decisive step, its certainty). */
	const struct mrt_event *ev;
	const struct gate_facts *gates;
	const struct verdict *v;
	/* Memlock evidence from the failed registration; use the have_ flags. */
	bool have_limit, have_pinned, have_request;
	uint64_t limit_bytes;             /* RLIMIT_MEMLOCK soft at failure; CTX_UNLIMITED */
	uint64_t pinned_before;           /* mm->pinned_vm in bytes before the request */
	uint64_t request_bytes;           /* pages of the failing request * page size */
};

typedef void (*fix_generator)(const struct fix_input *in, struct fix_list *out);

/* The least memory the failing process needed: pinned_before + request,
 * or NCCL's estimated floor (estimate.host_min) when that is larger.  0 when
 * nothing is known (fixes_memlock.c). */
uint64_t fixes_needed_bytes(const struct fix_input *in);

#endif
