/* SPDX-License-Identifier: GPL-2.0-only */
/* failure_json.h - JSON for "failure" records: the op's arguments and limits
 * in "raw" (and back, for replay), and the gate facts as evidence (and back). */
#ifndef MRTRACE_REPORT_FAILURE_JSON_H
#define MRTRACE_REPORT_FAILURE_JSON_H
#include <json-c/json.h>
#include <stdbool.h>

#include "mrtrace.h"
#include "proc/gates.h"

/* Adds op, op_cmd, op_args, op_limits, op_name to a raw object (nothing for
 * records without an op). */
void failure_raw_add(struct json_object *raw, const struct mrt_event *ev);
/* Reads them back (all optional: older records have none).  0, or -1 with
 * a message naming the member. */
int failure_raw_read(struct json_object *raw, struct mrt_event *ev, char *err, size_t errlen);

struct json_object *gates_to_json(const struct gate_facts *g);
/* True when the object held any facts. */
bool gates_from_json(struct json_object *o, struct gate_facts *g);

/* The op's named arguments and limits, and "gates" when g is not NULL. */
void failure_evidence_add(struct json_object *evidence, const struct mrt_event *ev,
			  const struct gate_facts *g);

#endif
