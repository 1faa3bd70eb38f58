/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h - one explained event, ready for output: what the kernel
 * recorded, the verdict, and what we know about the process that asked. */
#ifndef MRTRACE_REPORT_H
#define MRTRACE_REPORT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "proc/context.h"
#include "explain/explain.h"
#include "nccl/nccl.h"
#include "proc/ustack.h"
#include "proc/gates.h"

/* The context and NCCL data are pointed to, not copied: a consumer keeps
 * them once per process and builds a report per record (they are tens of
 * KiB). */
struct report {
	const struct mrt_event *ev; /* the kernel trail, or the user call alone */
	const struct mrt_event *uev; /* the libibverbs call joined to ev, or NULL */
	struct ustack_attr ua; /* where that call came from */
	struct verdict v;
	const struct proc_context *ctx; /* what we know of the process, or NULL */
	const struct nccl_info *nccl; /* NULL: no NCCL data */
	const char *api; /* "ibv_reg_mr" / "ibv_reg_dmabuf_mr" / ... */
	bool have_gates; /* facts read at the failure (a failure's, GPU memory's) */
	struct gate_facts gates;
	/* A storm's summary (docs/json.md, "Storms"): count identical failures
	 * folded in the kernel, the first and last at these times (ns, the
	 * clock of ts_ns).  0: an ordinary record, standing for itself. */
	unsigned long long count, first_ts_ns, last_ts_ns;
	/* Set by the writer, for text: the wall-clock time and host ("" or
	 * NULL: not printed). */
	const char *when;
};

/* Fills r for a kernel record ev joined with the libibverbs call uev (NULL:
 * none; ev == uev: the call alone) and what is known of the process (ctx,
 * nccl may be NULL) and the gate facts read at the failure (NULL: none; a
 * MRT_EV_FAILURE record's gates, a GPU-memory registration's gates.gpu),
 * and explains it.  r->ua is cleared: the caller
 * attributes the user stack.  The pointers must outlive r. */
void report_explain(struct report *r, const struct mrt_event *ev, const struct mrt_event *uev,
		    const struct proc_context *ctx, const struct nccl_info *nccl,
		    const struct gate_facts *gates);

/* The call a record is about: the libibverbs function when uev is known,
 * else the kernel command or the mlock variant; NULL for other kinds. */
const char *report_api(const struct mrt_event *ev, const struct mrt_event *uev);

/* ---- repeats ------------------------------------------------------------------
 * The first failure of a process with a given cause gets the full
 * explanation; repeats (NCCL registering buffer after buffer, several ranks'
 * proxy threads) get one line each, with their own numbers. */
#define REPORT_REPEATS_MAX 256

struct report_repeats {
	int n;
	struct {
		unsigned int pid;
		int cause;
		unsigned long count;
	} seen[REPORT_REPEATS_MAX];
};

/* Counts this (pid, cause) and returns which occurrence it is: 1 for the
 * first.  When the table is full a new pair is not remembered and every one
 * of its failures counts as a first (explained in full: nothing is lost). */
unsigned long report_repeats_count(struct report_repeats *t, unsigned int pid, int cause);
/* The same for n failures at once (a storm summary): the occurrence of the
 * last of them. */
unsigned long report_repeats_add(struct report_repeats *t, unsigned int pid, int cause,
				 unsigned long n);

/* The one line for the nth (> 1) failure of a process with that cause (a
 * storm summary: the last of its r->count failures is the nth). */
void report_print_repeat(FILE *out, const struct report *r, unsigned long nth);

/* Builds the JSON object for a report (docs/design.md section 6, docs/json.md).
 * The caller owns the result. */
struct json_object *report_to_json(const struct report *r);

/* Human text; verbose adds the raw trail. */
void report_print_text(FILE *out, const struct report *r, bool verbose);

/* The trail as JSON (also used by replay). */
struct json_object *trail_to_json(const struct mrt_event *ev);

/* Reconstructs an event from report_to_json()'s output (the "raw" member), so
 * recorded events can be replayed through the explanation engine.
 * Returns 0, or -1 with a message in err. */
int event_from_json(struct json_object *obj, struct mrt_event *ev, char *err, size_t errlen);
/* The gate facts a recorded failure carried (evidence.gates, and the GPU and
 * /dev/shm facts of proc/facts_json.h); false when none. */
bool report_gates_from_json(struct json_object *obj, struct gate_facts *g);

#endif
