// SPDX-License-Identifier: GPL-2.0-only
/* inferred_failure.c - the record of a failure judged from a log
 * (inferred_failure.h): its row, its JSON and text, and its reader, side
 * by side so that what is written is what is read. */
#include "record/inferred_failure.h"
#include "core/escape.h"
#include "record/kind.h"
#include "record/json_util.h"
#include "verdict/names.h"
#include "core/schema.h"
#include "core/version.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static struct json_object *strings(char (*s)[INFERRED_TEXT], int n)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(s[i]));
	return a;
}

/* The failure's time as every record has it, an ISO 8601 date and time:
 * only when the log's own stamp is one (journald's, an ISO-stamped log);
 * a stamp without a date ("09:15:07.980", glog's) stays in source.time. */
static bool iso_time(const char *t)
{
	for (int i = 0; i < 16; i++) {
		char c = t[i], want = "dddd-dd-ddTdd:dd"[i];
		if (want == 'd' ? (c < '0' || c > '9') : want == 'T' ? (c != 'T' && c != ' ') : c != want)
			return false;
	}
	return true;
}

/* "errno": a number and "errno_name" beside it since 2026-12; a name in
 * "errno" from earlier builds is read as well.  Leaves the name in e. */
static int errno_from_json(struct json_object *o, char *e, size_t elen, const struct jwhere *w)
{
	struct json_object *x;

	if (json_object_object_get_ex(o, "errno", &x) && json_object_is_type(x, json_type_int)) {
		long n = (long)json_object_get_int64(x);
		snprintf(e, elen, "%s", n > 0 && n < 4096 && errno_name((int)n) ? errno_name((int)n) : "");
		return 0;
	}
	if (json_object_object_get_ex(o, "errno", &x) && json_object_is_type(x, json_type_string))
		return jget_str(o, "errno", e, elen, w);
	return jget_str(o, "errno_name", e, elen, w);
}

static struct json_object *inferred_to_json(const struct record *rec)
{
	const struct record_inferred *r = rec->data;
	const struct inferred *v = &r->v;
	struct json_object *o = json_object_new_object(), *a, *src, *same;

	jput_str(o, "event", "inferred_failure");
	/* the envelope every record carries (envelope.c): a script reading one
	 * stream needs no second grammar for explain's own records */
	jput_str(o, "schema", SCHEMA_WATCH);
	jput_str(o, "mrtrace_version", mrt_version());
	jput_str(o, "time", iso_time(r->time) ? r->time : NULL);
	jput_str(o, "certainty", "inferred");
	jput_str(o, "what", v->what);
	jput_str(o, "call", r->in.call[0] ? r->in.call : NULL);
	/* the number and its name, as watch's records have them */
	if (r->in.err)
		jput_i64(o, "errno", r->in.err);
	else
		jput_str(o, "errno", NULL);
	jput_str(o, "errno_name", r->in.err ? errno_name(r->in.err) : NULL);
	jput_str(o, "errno_note", v->errno_note[0] ? v->errno_note : NULL);
	jput_str(o, "nccl_version", r->in.nccl_version[0] ? r->in.nccl_version : NULL);
	jput_bool(o, "no_kernel_refusal", v->no_kernel_refusal);
	jput_str(o, "cause", cause_name(v->ncand ? v->cand[0].cause : CAUSE_UNKNOWN));
	a = json_object_new_array();
	for (int i = 0; i < v->ncand; i++) {
		struct json_object *c = json_object_new_object();
		jput_str(c, "cause", cause_name(v->cand[i].cause));
		jput_str(c, "why", v->cand[i].why);
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "candidates", a);
	json_object_object_add(o, "rests_on", strings((char (*)[INFERRED_TEXT])v->rests_on, v->nrests));
	json_object_object_add(o, "next", strings((char (*)[INFERRED_TEXT])v->next, v->nnext));
	jput_str(o, "rerun", v->rerun[0] ? v->rerun : NULL);
	jput_str(o, "watch", v->watch[0] ? v->watch : NULL);
	jput_str(o, "job", r->job[0] ? r->job : NULL);
	jput_str(o, "host", r->in.host[0] ? r->in.host : NULL);
	if (r->pid >= 0)
		jput_i64(o, "pid", r->pid);
	if (r->rank >= 0)
		jput_i64(o, "rank", r->rank);
	jput_str(o, "judged_on", r->judged_on[0] ? r->judged_on : NULL);
	jput_bool(o, "other_host", r->other_host);
	src = json_object_new_object();
	jput_str(src, "file", r->file);
	jput_i64(src, "line", r->line);
	jput_str(src, "text", r->text);
	jput_str(src, "time", r->time[0] ? r->time : NULL);
	json_object_object_add(o, "source", src);
	same = json_object_new_object();
	jput_u64(same, "ranks", r->same_ranks);
	a = json_object_new_array();
	for (int i = 0; i < r->nhosts; i++)
		json_object_array_add(a, json_object_new_string(r->hosts[i]));
	json_object_object_add(same, "hosts", a);
	jput_i64(same, "hosts_not_listed", r->hosts_dropped);
	json_object_object_add(o, "same_on", same);
	if (r->have_watch) {
		struct json_object *w = json_object_new_object();
		jput_str(w, "cause", r->watch_cause);
		jput_bool(w, "agrees", r->agrees);
		json_object_object_add(o, "watch_record", w);
	}
	return o;
}

static const char *inferred_severity(const struct record *rec)
{
	const struct record_inferred *r = rec->data;
	return r->v.no_kernel_refusal ? "warning" : "error";
}

static bool inferred_to_text(FILE *out, const struct record *rec, bool verbose, const char *when)
{
	const struct record_inferred *r = rec->data;
	const struct inferred *v = &r->v;

	(void)when;
	/* the log's lines, file, host and time, other nodes' names, and the
	 * verdict's sentences that quote them: escaped for the terminal */
	fprintf(out, "inferred: %s\n", esc(v->what));
	fprintf(out, "  at %s:%ld", esc(r->file), r->line);
	if (r->job[0])
		fprintf(out, ", %s", esc(r->job));
	if (r->in.host[0])
		fprintf(out, ", host %s", esc(r->in.host));
	if (r->pid >= 0)
		fprintf(out, ", pid %ld", r->pid);
	if (r->rank >= 0)
		fprintf(out, ", rank %ld", r->rank);
	if (r->time[0])
		fprintf(out, ", %s", esc(r->time));
	fputc('\n', out);
	if (verbose)
		fprintf(out, "  line: %s\n", esc(r->text));
	if (r->same_ranks) {
		fprintf(out, "  the same on %lu other rank%s", r->same_ranks, r->same_ranks == 1 ? "" : "s");
		for (int i = 0; i < r->nhosts; i++)
			fprintf(out, "%s%s", i ? ", " : " (hosts ", esc(r->hosts[i]));
		if (r->hosts_dropped)
			fprintf(out, " and %d more", r->hosts_dropped);
		fprintf(out, "%s\n", r->nhosts ? ")" : "");
	}
	if (v->errno_note[0])
		fprintf(out, "  %s\n", esc(v->errno_note));
	if (v->no_kernel_refusal)
		fprintf(out, "  no kernel refusal explains this: %s (%s)\n", esc(cause_name(v->ncand ? v->cand[0].cause : CAUSE_UNKNOWN)),
			v->ncand ? esc(v->cand[0].why) : "");
	else if (v->ncand)
		fprintf(out, "  cause (inferred): %s - %s\n", esc(cause_name(v->cand[0].cause)), esc(v->cand[0].why));
	for (int i = 1; i < v->ncand; i++)
		if (verbose)
			fprintf(out, "  also possible: %s - %s\n", esc(cause_name(v->cand[i].cause)), esc(v->cand[i].why));
		else
			fprintf(out, "%s%s%s", i == 1 ? "  also possible: " : ", ", esc(cause_name(v->cand[i].cause)),
				i == v->ncand - 1 ? "\n" : "");
	fprintf(out, "  rests on:\n");
	for (int i = 0; i < v->nrests; i++)
		fprintf(out, "    - %s\n", esc(v->rests_on[i]));
	if (r->no_host && !r->judged_on[0])
		fprintf(out, "  the line names no host: judged from the log alone (--host NAME: the node "
			     "it came from; this node's name judges it by this node's facts)\n");
	if (r->other_host)
		fprintf(out, "  the log comes from %s, not %s: judged from the log alone%s\n", esc(r->in.host),
			r->judged_on[0] ? esc(r->judged_on) : "this host",
			r->judged_on[0] ? "" : " (--facts FILE: a `check --json` of that node)");
	for (int i = 0; i < v->nnext; i++)
		fprintf(out, "  check next: %s\n", esc(v->next[i]));
	if (v->rerun[0])
		fprintf(out, "  prove it: %s\n", esc(v->rerun));
	if (v->watch[0])
		fprintf(out, "  leave on for the next run: %s\n", esc(v->watch));
	if (r->have_watch)
		fprintf(out, "  a watch record of the same process proved %s: %s\n", esc(r->watch_cause),
			r->agrees ? "it agrees" : "it does NOT agree; the watch record is the proof");
	return true;
}

const struct record_kind record_kind_inferred_failure = {
	.name = "inferred failure",
	.event = "inferred_failure",
	.to_json = inferred_to_json,
	.severity = inferred_severity,
	.to_text = inferred_to_text,
	/* read back by inferred_failure_from_json (explain prints it again) */
};

/* A candidate's cause read back: a name this version does not know (a
 * newer writer's) is read as unknown, as docs/causes.md asks of consumers. */
static enum cause cause_of(const char *name)
{
	enum cause c = cause_from_any_name(name);
	return c == CAUSE__ALL ? CAUSE_UNKNOWN : c;
}

static int strings_from(struct json_object *o, const char *key, char (*s)[INFERRED_TEXT], int max,
			int *n, const struct jwhere *w)
{
	struct json_object *a;
	int rc = jget_member(o, key, json_type_array, &a, w);

	*n = 0;
	if (rc <= 0)
		return rc;
	for (size_t i = 0; i < json_object_array_length(a) && *n < max; i++) {
		struct json_object *x = json_object_array_get_idx(a, i);
		if (json_object_is_type(x, json_type_string))
			jcopy_str(s[(*n)++], INFERRED_TEXT, json_object_get_string(x));
	}
	return 1;
}

int inferred_failure_from_json(struct json_object *o, struct record_inferred *r, char *err,
			       size_t errlen)
{
	const struct jwhere w = { "inferred_failure", err, errlen };
	struct inferred *v = &r->v;
	struct json_object *a, *src;
	long long x;
	char cause[32] = "", e[24] = "";

	memset(r, 0, sizeof(*r));
	r->pid = r->rank = -1;
	if (jget_str(o, "what", v->what, sizeof(v->what), &w) <= 0 ||
	    jget_str(o, "cause", cause, sizeof(cause), &w) <= 0) {
		if (!err[0])
			snprintf(err, errlen, "inferred_failure: \"what\" and \"cause\" are required");
		return -1;
	}
	if (jget_str(o, "call", r->in.call, sizeof(r->in.call), &w) < 0 ||
	    errno_from_json(o, e, sizeof(e), &w) < 0 ||
	    jget_str(o, "errno_note", v->errno_note, sizeof(v->errno_note), &w) < 0 ||
	    jget_str(o, "nccl_version", r->in.nccl_version, sizeof(r->in.nccl_version), &w) < 0 ||
	    jget_bool(o, "no_kernel_refusal", &v->no_kernel_refusal, &w) < 0 ||
	    jget_str(o, "rerun", v->rerun, sizeof(v->rerun), &w) < 0 ||
	    jget_str(o, "watch", v->watch, sizeof(v->watch), &w) < 0 ||
	    jget_str(o, "job", r->job, sizeof(r->job), &w) < 0 ||
	    jget_str(o, "host", r->in.host, sizeof(r->in.host), &w) < 0 ||
	    jget_str(o, "judged_on", r->judged_on, sizeof(r->judged_on), &w) < 0 ||
	    jget_bool(o, "other_host", &r->other_host, &w) < 0 ||
	    strings_from(o, "rests_on", v->rests_on, INFERRED_MAX_RESTS, &v->nrests, &w) < 0 ||
	    strings_from(o, "next", v->next, INFERRED_MAX_NEXT, &v->nnext, &w) < 0)
		return -1;
	r->in.err = e[0] ? errno_from_name(e) : 0;
	if (r->in.err < 0)
		r->in.err = 0;
	if (jget_i64(o, "pid", &x, &w) > 0)
		r->pid = (long)x;
	if (jget_i64(o, "rank", &x, &w) > 0)
		r->rank = (long)x;
	if (jget_member(o, "candidates", json_type_array, &a, &w) > 0) {
		for (size_t i = 0; i < json_object_array_length(a) && v->ncand < INFERRED_MAX_CAND; i++) {
			struct json_object *c = json_object_array_get_idx(a, i);
			struct inferred_cand *k = &v->cand[v->ncand];
			char name[32];
			if (jget_str(c, "cause", name, sizeof(name), &w) > 0) {
				k->cause = cause_of(name);
				jget_str(c, "why", k->why, sizeof(k->why), &w);
				v->ncand++;
			}
		}
	}
	if (!v->ncand) {
		v->cand[0].cause = cause_of(cause);
		v->ncand = 1;
	}
	if (jget_member(o, "source", json_type_object, &src, &w) > 0) {
		jget_str(src, "file", r->file, sizeof(r->file), &w);
		if (jget_i64(src, "line", &x, &w) > 0)
			r->line = (long)x;
		jget_str(src, "text", r->text, sizeof(r->text), &w);
		jget_str(src, "time", r->time, sizeof(r->time), &w);
	}
	if (jget_member(o, "same_on", json_type_object, &src, &w) > 0) {
		uint64_t n = 0;
		if (jget_u64(src, "ranks", &n, &w) > 0)
			r->same_ranks = (unsigned long)n;
		if (jget_member(src, "hosts", json_type_array, &a, &w) > 0)
			for (size_t i = 0; i < json_object_array_length(a) && r->nhosts < INFERRED_HOSTS_MAX; i++) {
				struct json_object *h = json_object_array_get_idx(a, i);
				if (json_object_is_type(h, json_type_string))
					jcopy_str(r->hosts[r->nhosts++], sizeof(r->hosts[0]), json_object_get_string(h));
			}
		if (jget_i64(src, "hosts_not_listed", &x, &w) > 0)
			r->hosts_dropped = (int)x;
	}
	if (jget_member(o, "watch_record", json_type_object, &src, &w) > 0) {
		r->have_watch = true;
		jget_str(src, "cause", r->watch_cause, sizeof(r->watch_cause), &w);
		jget_bool(src, "agrees", &r->agrees, &w);
	}
	return 0;
}
