/* SPDX-License-Identifier: GPL-2.0-only */
/* parts.h - the sub-objects of an explained record, each written and read
 * in one unit (docs/json.md): "raw" and "trail" (raw.c), "user_call"
 * (call.c), "process" (process.c), "nccl" (nccl_info.c), "evidence.gates"
 * and a failure's op members (gates.c).  Internal to record/. */
#ifndef MRTRACE_RECORD_PARTS_H
#define MRTRACE_RECORD_PARTS_H

#include <json-c/json.h>

#include "record/json_util.h"
#include "record/record.h"

struct json_object *raw_to_json(const struct mrt_event *ev);

struct json_object *call_to_json(const struct report *r, const struct mrt_event *u);
/* The call joined to ev, into uev and its recorded attribution ua (is_call,
 * a record that is the call itself: uev = ev). */
int call_from_json(struct json_object *u, const struct mrt_event *ev, bool is_call,
		   struct mrt_event *uev, struct ustack_attr *ua, const struct jwhere *w);

/* env_job >= 0: the job the process's own SLURM_JOB_ID claims (a claim:
 * the cgroup's job wins, proc/jobclaim.h) */
struct json_object *process_to_json(const struct proc_context *c, long env_job);
/* *env_job: that claim read back (-1 none); c->slurm_job is the cgroup's
 * job alone. */
int process_from_json(struct json_object *p, const struct mrt_event *ev, struct proc_context *c,
		      char *setting, size_t setting_len, long *env_job, const struct jwhere *w);

struct json_object *nccl_info_to_json(const struct nccl_info *n);
int nccl_info_from_json(struct json_object *n, struct nccl_info *out, const struct jwhere *w);

/* A failure's op, arguments and limits in "raw" (nothing without an op),
 * and back (all optional: older records have none). */
void gates_raw_add(struct json_object *raw, const struct mrt_event *ev);
int gates_raw_read(struct json_object *raw, struct mrt_event *ev, char *err, size_t errlen);
/* The op's named arguments and limits in "evidence", and "gates" when g is
 * not NULL. */
void gates_evidence_add(struct json_object *evidence, const struct mrt_event *ev,
			const struct gate_facts *g);

#endif
