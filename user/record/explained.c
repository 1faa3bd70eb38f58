// SPDX-License-Identifier: GPL-2.0-only
/* explained.c - what every explained failure record has, whatever its kind
 * (docs/json.md, "The contract" and "All members"): the members in their
 * order, with the kind's own cells (kind.h, struct record_explained) where
 * kinds differ; its text; and the line read back.
 *
 * The sub-objects are written and read in their own units: "raw" (raw.c),
 * "trail" (raw.c), "user_call" (call.c), "process" (process.c), "nccl"
 * (nccl_info.c), "evidence.gates" and the op's members (gates.c). */
#include "record/kind.h"
#include "record/json_util.h"
#include "record/parts.h"

#include <stdlib.h>

#include "verdict/explain.h"
#include "proc/facts_json.h"

/* The node's names for the pod, when the process runs in one (watch looks
 * them up: proc/k8s.h). */
static struct json_object *kubernetes_to_json(const struct k8s_names *k)
{
	struct json_object *o = json_object_new_object();

	jput_str(o, "namespace", k->ns);
	jput_str(o, "pod", k->pod);
	if (k->container[0])
		jput_str(o, "container", k->container);
	return o;
}

unsigned long long explained_ts_ns(const struct record *rec)
{
	return ((const struct report *)rec->data)->ev->ts_ns;
}

struct json_object *explained_to_json(const struct record *rec)
{
	const struct report *r = rec->data;
	const struct mrt_event *ev = r->ev;
	const struct record_kind *base = rec->base ? rec->base : rec->kind;
	const struct record_explained *x = base->explained;
	struct json_object *o = json_object_new_object(), *fixes = json_object_new_array();
	struct json_object *details = json_object_new_array();

	jput_str(o, "event", rec->kind->event ? rec->kind->event : base->event);
	if (x->head)
		x->head(o, r);
	jput_u64(o, "ts_ns", ev->ts_ns);
	jput_i64(o, "pid", ev->pid);
	jput_i64(o, "tid", ev->tid);
	if (ev->ns_pid) { /* as the process's own pid namespace numbers them */
		jput_i64(o, "ns_pid", ev->ns_pid);
		jput_i64(o, "ns_tid", ev->ns_tid);
	}
	if (r->count) { /* a storm's summary: absent means 1 */
		jput_u64(o, "count", r->count);
		jput_u64(o, "first_ts_ns", r->first_ts_ns);
		jput_u64(o, "last_ts_ns", r->last_ts_ns);
	}
	jput_str(o, "comm", ev->comm);
	jput_i64(o, "uid", ev->uid);
	jput_str(o, "api", r->api);
	jput_i64(o, "errno", r->v.err);
	jput_str(o, "errno_name", errno_name(r->v.err));
	jput_str(o, "cause", cause_name(r->v.cause));
	jput_str(o, "class", cause_class_name(cause_class(r->v.cause, ev->op)));
	jput_str(o, "certainty", r->v.certainty == CERT_PROVEN ? "proven" : "inferred");
	jput_bool(o, "harmless", r->v.harmless);
	jput_u64(o, "len", x->len(ev));
	if (ev->ml.valid)
		jput_u64(o, "addr", ev->ml.addr);
	else if (ev->cmd_valid)
		jput_u64(o, "addr", ev->cmd_start);
	struct json_object *e = json_object_new_object();
	x->evidence(e, r);
	facts_evidence_add(e, r->have_gates ? &r->gates : NULL, r->nccl);
	json_object_object_add(o, "evidence", e);
	jput_str(o, "summary", r->v.summary);
	jput_str(o, "explanation", r->v.explanation);
	for (int i = 0; i < r->v.fixes.n; i++) {
		struct json_object *d = json_object_new_object();
		json_object_array_add(fixes, json_object_new_string(r->v.fixes.items[i].text));
		jput_str(d, "kind", fix_kind_name(r->v.fixes.items[i].kind));
		jput_str(d, "text", r->v.fixes.items[i].text);
		json_object_array_add(details, d);
	}
	json_object_object_add(o, "fixes", fixes);
	json_object_object_add(o, "fix_details", details);
	json_object_object_add(o, "trail", record_trail_json(ev));
	if (r->uev)
		json_object_object_add(o, "user_call", call_to_json(r, r->uev));
	if (ev->nsteps > MRT_TRAIL_MAX)
		jput_u64(o, "trail_lost_steps", ev->nsteps - MRT_TRAIL_MAX);
	if (r->ctx)
		json_object_object_add(o, "process", process_to_json(r->ctx, r->have_slurm_job ? r->slurm_job : -1));
	if (r->nccl && r->nccl->lib.found)
		json_object_object_add(o, "nccl", nccl_info_to_json(r->nccl));
	json_object_object_add(o, "raw", raw_to_json(ev));
	if (r->k8s && r->k8s->pod[0])
		json_object_object_add(o, "kubernetes", kubernetes_to_json(r->k8s));
	return o;
}

bool explained_to_text(FILE *out, const struct record *rec, bool verbose, const char *when)
{
	struct report stamped = *(const struct report *)rec->data;

	stamped.when = when;
	if (rec->nth > 1)
		report_print_repeat(out, &stamped, rec->nth);
	else
		report_print_text(out, &stamped, verbose);
	return true;
}

/* A storm summary's numbers (docs/json.md, "Storms"): "count" at least 1,
 * its first and last failure in order.  Absent: the record stands for
 * itself (count 0). */
static int storm_from_json(struct json_object *o, struct record_in *out, char *err, size_t errlen)
{
	static const char *const keys[] = { "count", "first_ts_ns", "last_ts_ns" };
	unsigned long long *dst[] = { &out->count, &out->first_ts_ns, &out->last_ts_ns };
	struct json_object *x;

	for (int i = 0; i < 3; i++) {
		if (!json_object_object_get_ex(o, keys[i], &x) || !x) {
			*dst[i] = i ? out->ev.ts_ns : 0; /* a summary written by hand: its own time */
			continue;
		}
		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < (i ? 0 : 1)) {
			snprintf(err, errlen, "%s: not %s", keys[i],
				 i ? "a time in ns (an integer >= 0)" : "a count (an integer >= 1)");
			return -1;
		}
		*dst[i] = json_object_get_uint64(x);
	}
	if (out->last_ts_ns < out->first_ts_ns) {
		snprintf(err, errlen, "last_ts_ns: before first_ts_ns");
		return -1;
	}
	if (!out->count)
		out->first_ts_ns = out->last_ts_ns = 0;
	return 0;
}

/* What follows "raw" (read by record_read() first): the gate facts, the
 * call, the process, NCCL.  is_call: the record is the call itself. */
static int read_rest(struct json_object *o, struct record_in *out, bool is_call, char *err,
		     size_t errlen)
{
	struct json_object *x;
	struct jwhere w = { .err = err, .errlen = errlen };
	int rc;

	if (storm_from_json(o, out, err, errlen))
		return -1;
	out->have_gates = record_gates_from_json(o, &out->gates);
	if (is_call) {
		out->have_uev = true;
		out->uev = out->ev;
	}
	w.obj = "user_call";
	if ((rc = jget_member(o, "user_call", json_type_object, &x, &w)) < 0)
		return -1;
	if (rc) {
		if (call_from_json(x, &out->ev, is_call, &out->uev, &out->ua, &w))
			return -1;
		out->have_uev = true;
	}
	w.obj = "process";
	if ((rc = jget_member(o, "process", json_type_object, &x, &w)) < 0)
		return -1;
	if (rc) {
		if (process_from_json(x, &out->ev, &out->ctx, out->setting, sizeof(out->setting),
				      &out->env_job, &w))
			return -1;
		out->have_ctx = true;
	}
	w.obj = "nccl";
	if ((rc = jget_member(o, "nccl", json_type_object, &x, &w)) < 0)
		return -1;
	if (rc) {
		if (nccl_info_from_json(x, &out->nccl, &w))
			return -1;
		out->have_nccl = true;
	}
	return 0;
}

int explained_from_json(struct json_object *o, struct record_in *out, char *err, size_t errlen)
{
	return read_rest(o, out, false, err, errlen);
}

int explained_call_from_json(struct json_object *o, struct record_in *out, char *err,
			     size_t errlen)
{
	return read_rest(o, out, true, err, errlen);
}
