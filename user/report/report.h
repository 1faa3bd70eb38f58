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

struct report {
	const struct mrt_event *ev; /* the kernel trail, or the user call alone */
	const struct mrt_event *uev; /* the libibverbs call joined to ev, or NULL */
	struct ustack_attr ua; /* where that call came from */
	struct verdict v;
	bool have_ctx; /* /proc was read while the process was alive */
	struct proc_context ctx;
	bool have_nccl;
	struct nccl_info nccl;
	const char *api; /* "ibv_reg_mr" / "ibv_reg_dmabuf_mr" / ... */
	bool have_gates; /* MRT_EV_FAILURE: facts read at the failure */
	struct gate_facts gates;
};

/* Explains r->ev into r->v with everything the report holds (context,
 * NCCL, gate facts): the one place output paths get their verdict from. */
void report_explain(struct report *r);

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
/* The gate facts a recorded failure carried (evidence.gates); false when none. */
bool report_gates_from_json(struct json_object *obj, struct gate_facts *g);

#endif
