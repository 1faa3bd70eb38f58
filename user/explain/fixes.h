/* SPDX-License-Identifier: GPL-2.0-only */
/* fixes.h - the fix for THIS process's setting.  Given a cause identifier
 * (docs/causes.md) and what we know about the process, produce an ordered
 * list of concrete steps: the one that fits where the job runs first, then
 * alternatives, NCCL-side stopgaps, and notes that correct common wrong advice.
 *
 * Plain data in, plain strings out; no BPF, no /proc access.
 */
#ifndef MRTRACE_FIXES_H
#define MRTRACE_FIXES_H
#include <stdbool.h>
#include <stdint.h>

#include "proc/context.h"
#include "nccl/nccl.h"

struct fix_input {
	const char *cause;                /* "memlock_limit", "memlock_zero", ... */
	const struct proc_context *ctx;   /* may be NULL: generic advice */
	const struct nccl_info *nccl;     /* may be NULL: no NCCL-specific numbers */
	/* Evidence from the failed registration; use the have_ flags. */
	bool have_limit, have_pinned, have_request;
	uint64_t limit_bytes;             /* RLIMIT_MEMLOCK soft at failure; CTX_UNLIMITED */
	uint64_t pinned_before;           /* mm->pinned_vm in bytes before the request */
	uint64_t request_bytes;           /* pages of the failing request * page size */
};

enum fix_kind {
	FIX_PRIMARY,      /* the change that fixes it where the job runs */
	FIX_ALTERNATIVE,  /* also works, or needed in addition in some setups */
	FIX_STOPGAP,      /* reduces the need (NCCL settings); not a fix */
	FIX_NOTE,         /* why common advice does not apply here */
};

#define FIX_MAX      16
#define FIX_TEXT_MAX 512
struct fix {
	enum fix_kind kind;
	char text[FIX_TEXT_MAX];
};
struct fix_list {
	int n;
	bool truncated;
	struct fix items[FIX_MAX];
};

/* Fills `out` (cleared first) for in->cause.  Returns the number of fixes,
 * or -ENOENT when no generator is registered for the cause (out->n == 0). */
int fixes_for(const struct fix_input *in, struct fix_list *out);

/* Extension point: a generator appends fixes for one cause.  The built-in
 * ones cover memlock_limit and memlock_zero; others (e.g. the lead's
 * pin_device_memory) can be added without editing fixes.c.
 * Returns 0, -EEXIST if the cause has one, -ENOSPC when the table is full. */
typedef void (*fix_generator)(const struct fix_input *in, struct fix_list *out);
int fixes_register(const char *cause, fix_generator gen);

/* Appends one printf-formatted fix (silently marks `truncated` when full). */
void fix_add(struct fix_list *out, enum fix_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The least memory the failing process needed: pinned_before + request,
 * or NCCL's estimated floor (estimate.host_min) when that is larger.  0 when
 * nothing is known. */
uint64_t fixes_needed_bytes(const struct fix_input *in);

const char *fix_kind_name(enum fix_kind k);

#endif
