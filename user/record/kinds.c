// SPDX-License-Identifier: GPL-2.0-only
/* kinds.c - the table of record kinds (kind.h) and the one dispatch on a
 * record's kind: every caller that explains, writes or reads a record goes
 * through here to its kind's row. */
#include "record/kind.h"

#include <string.h>

#include "verdict/explain.h"

/* The rows, each defined in its kind's unit. */
extern const struct record_kind record_kind_start, record_kind_reg_failure, record_kind_nccl_probe,
	record_kind_storm, record_kind_user_call, record_kind_mlock_failure, record_kind_failure,
	record_kind_rlimit, record_kind_library, record_kind_modules, record_kind_port_change,
	record_kind_stop, record_kind_inferred_failure;

/* In the order docs/json.md lists them. */
static const struct record_kind *const kinds[] = {
	&record_kind_start,
	&record_kind_reg_failure,
	&record_kind_nccl_probe,
	&record_kind_storm,
	&record_kind_user_call,
	&record_kind_mlock_failure,
	&record_kind_failure,
	&record_kind_rlimit,
	&record_kind_library,
	&record_kind_modules,
	&record_kind_port_change,
	&record_kind_stop,
	&record_kind_inferred_failure, /* made by explain from logs */
};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

int record_kind_count(void)
{
	return NKINDS;
}

const struct record_kind *record_kind_at(int i)
{
	return i >= 0 && i < NKINDS ? kinds[i] : NULL;
}

const struct record_kind *record_kind_of_ring(unsigned int ring)
{
	for (int i = 0; ring && i < NKINDS; i++)
		if (kinds[i]->ring == ring)
			return kinds[i];
	return NULL;
}

const struct record_kind *record_kind_of_event(const struct mrt_event *ev)
{
	const struct record_kind *k = record_kind_of_ring(ev->kind);

	return k && k->explained ? k : &record_kind_reg_failure;
}

const char *record_event_name(const struct record *rec)
{
	if (rec->kind->event)
		return rec->kind->event;
	/* a kind that stands for another record (a storm summary) */
	return (rec->base ? rec->base : record_kind_of_event(((const struct report *)rec->data)->ev))
		->event;
}

static const struct record_explained *base_cells(const struct record *rec)
{
	return record_kind_of_event(((const struct report *)rec->data)->ev)->explained;
}

const char *record_priority(const struct record *rec)
{
	const char *p = rec->kind->explained ? rec->kind->explained->priority : NULL;
	return p ? p : base_cells(rec)->priority;
}

const char *record_message_id(const struct record *rec)
{
	const char *id = rec->kind->explained ? rec->kind->explained->message_id : NULL;
	return id ? id : base_cells(rec)->message_id;
}

const char *record_journal_priority(const struct record *rec)
{
	return ((const struct report *)rec->data)->v.harmless ? "7" : record_priority(rec);
}

const char *record_severity(const struct record *rec)
{
	/* syslog's names, which OpenTelemetry's SeverityText and Loki's level
	 * label take as they are */
	static const char *const names[8] = { "emergency", "alert", "critical", "error",
					      "warning", "notice", "info", "debug" };
	const char *p;

	if (!rec->kind->explained)
		return rec->kind->severity ? rec->kind->severity(rec) : "info";
	p = record_journal_priority(rec);
	return p && p[0] >= '0' && p[0] <= '7' && !p[1] ? names[p[0] - '0'] : "error";
}

bool record_has_memlock(const struct mrt_event *ev)
{
	return ev->ml.valid || (record_kind_of_event(ev)->flags & RECORD_MEMLOCK);
}

/* ---- explained failures -------------------------------------------------------- */

const char *record_api(const struct mrt_event *ev, const struct mrt_event *uev)
{
	const struct record_explained *x = record_kind_of_event(ev)->explained;

	if (uev && uev->opener != MRT_API_NONE)
		return api_name(uev->opener);
	return x && x->api ? x->api(ev) : NULL;
}

void record_explain(struct report *r, const struct mrt_event *ev, const struct mrt_event *uev,
		    const struct proc_context *ctx, const struct nccl_info *nccl,
		    const struct gate_facts *gates)
{
	const struct record_kind *k = record_kind_of_event(ev);
	const struct record_explained *x = k->explained;

	memset(r, 0, sizeof(*r));
	r->ev = ev;
	r->uev = uev;
	r->ctx = ctx;
	r->nccl = nccl;
	r->api = record_api(ev, uev);
	r->what = x->what(ev);
	if (gates && (k->flags & RECORD_GATES)) {
		r->have_gates = true;
		r->gates = *gates;
	}
	x->explain(r);
}

void record_of_report(struct record *rec, const struct report *r, unsigned long nth)
{
	const struct record_kind *k = record_kind_of_event(r->ev);

	if (r->v.harmless && !(k->flags & RECORD_NO_PROBE))
		k = &record_kind_nccl_probe;
	else if (r->count)
		k = &record_kind_storm;
	rec->kind = k;
	rec->base = record_kind_of_event(r->ev);
	rec->data = r;
	rec->nth = nth;
}

/* ---- any record ------------------------------------------------------------------ */

/* "severity" here, once for every kind: no writer can forget it */
struct json_object *record_to_json(const struct record *rec)
{
	struct json_object *o = rec->kind->to_json(rec);

	if (o)
		json_object_object_add(o, "severity", json_object_new_string(record_severity(rec)));
	return o;
}

struct json_object *record_report_json(const struct report *r)
{
	struct record rec;

	record_of_report(&rec, r, 0);
	return record_to_json(&rec);
}

unsigned long long record_ts_ns(const struct record *rec)
{
	return rec->kind->ts_ns ? rec->kind->ts_ns(rec) : 0;
}

bool record_print_text(FILE *out, const struct record *rec, bool verbose, const char *when)
{
	return rec->kind->to_text && rec->kind->to_text(out, rec, verbose, when);
}

const struct record_kind *record_kind_of_json(struct json_object *o, const char **event)
{
	struct json_object *x;

	*event = NULL;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "event", &x) ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	*event = json_object_get_string(x);
	/* the first row with that name: the one whose reader reads them all */
	for (int i = 0; i < NKINDS; i++)
		if ((kinds[i]->event && !strcmp(kinds[i]->event, *event)) ||
		    (kinds[i]->alias && !strcmp(kinds[i]->alias, *event)))
			return kinds[i];
	return NULL;
}

bool record_kind_readable(const struct record_kind *k)
{
	return k && k->from_json;
}

bool record_kind_is_probe(const struct record_kind *k)
{
	return k == &record_kind_nccl_probe;
}

int record_read(struct json_object *o, struct record_in *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	if (record_raw_from_json(o, &out->ev, err, errlen) ||
	    record_envelope_from_json(o, &out->env, err, errlen))
		return -1;
	/* the rest as the row of the recorded kind reads it */
	return record_kind_of_event(&out->ev)->from_json(o, out, err, errlen);
}

void record_in_keep(struct report *r, const struct record_in *in)
{
	r->count = in->count;
	r->first_ts_ns = in->first_ts_ns;
	r->last_ts_ns = in->last_ts_ns;
	/* the claim is said again, as the writer said it */
	r->have_slurm_job = in->have_ctx && in->env_job >= 0;
	r->slurm_job = r->have_slurm_job ? in->env_job : -1;
}

const struct mrt_event *record_in_uev(const struct record_in *in)
{
	if (record_kind_of_event(&in->ev)->join == RECORD_IS_CALL)
		return &in->ev;
	return in->have_uev ? &in->uev : NULL;
}
