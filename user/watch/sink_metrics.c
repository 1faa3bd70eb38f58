// SPDX-License-Identifier: GPL-2.0-only
/* sink_metrics.c - `watch --metrics-textfile PATH`: the counts of metrics.h
 * kept from the records and the BPF counters, the file rewritten when due
 * and once more at stop; the first write error said once. */
#include "record/modules.h"
#include "proc/cgroup_byid.h"
#include "watch/sink.h"
#include "watch/watch.h"

#include <stdlib.h>
#include <string.h>

#include "verdict/explain.h"
#include "record/kind.h"
#include "record/record.h"
#include "watch/metrics.h"
#include "tracer/probemiss.h"

struct metrics_state {
	bool warned;
};

static bool metrics_wanted(const struct watch *w)
{
	return w->a.svc.metrics_path != NULL;
}

static void flush(struct watch_sink *s, struct watch *w, bool force, bool final)
{
	struct metrics_state *m = s->state;
	int rc = metrics_flush(force, final);

	if (rc < 0)
		metrics_output_error("metrics_file");
	if (rc < 0 && m && !m->warned) {
		fprintf(stderr, "mrtrace: cannot write the metrics file %s: %s (going on without)\n",
			w->a.svc.metrics_path, strerror(-rc));
		m->warned = true;
	}
}

static void counters(struct watch *w)
{
	unsigned long long c[MRT_CNT_MAX];

	tracer_counters(w->t, c);
	metrics_counters(c[MRT_CNT_REGS], c[MRT_CNT_DROPS], c[MRT_CNT_CTX_FULL],
			 c[MRT_CNT_TRAIL_OVERFLOW]);
	metrics_user_tables(w->live.maps_cut, tracer_uprobe_libs_full(w->t), ports_full(w->ports),
			    ports_waiting_full(w->ports));
	metrics_losses(c[MRT_CNT_WATCHED_FULL], c[MRT_CNT_CTX_STALE], c[MRT_CNT_RET_MISSED]);
	struct probemiss pm;
	tracer_probe_misses(w->t, &pm);
	metrics_probe_misses(pm.total, pm.unreadable);
	struct cgroup_byid_stats cg;
	cgroup_byid_stats(&cg);
	metrics_cgroup_lookups(cg.cut);
}

/* A failure record's op (open_device, modify_qp, ...) is its label. */
static const char *op_label(const struct report *r)
{
	if (r->api)
		return r->api;
	if (r->ev->kind == MRT_EV_FAILURE && op_name(r->ev->op))
		return op_name(r->ev->op);
	return "?";
}

/* The site gauges: at the start, and again when modules came or went. */
static void sites(struct watch *w)
{
	int armed[WATCH_MECHS];

	watch_sites_by_mech(w, armed);
	metrics_sites(watch_mech_names, armed, w->nsites, tracer_armed_count(w->t, true) > 0,
		      tracer_waiting_for_rdma(w->t));
}

static void metrics_start(struct watch_sink *s, struct watch *w)
{
	s->state = calloc(1, sizeof(struct metrics_state));
	metrics_setup(w->a.svc.metrics_path, w->a.svc.metrics_interval);
	sites(w);
	counters(w);
	flush(s, w, false, false);
	flush(s, w, true, false);
}

static void metrics_record(struct watch_sink *s, struct watch *w, const struct record *rec)
{
	const struct report *r = rec->data;

	if (rec->kind == &record_kind_modules) {
		sites(w);
		flush(s, w, false, false);
		return;
	}
	if (!(rec->kind->flags & RECORD_EXPLAINED))
		return;
	metrics_failures(cause_name(r->v.cause), op_label(r), r->v.harmless,
			 r->count ? r->count : 1);
	flush(s, w, false, false);
}

static void metrics_tick(struct watch_sink *s, struct watch *w)
{
	counters(w);
	flush(s, w, false, false);
}

static void metrics_stop(struct watch_sink *s, struct watch *w)
{
	counters(w);
	flush(s, w, true, true);
}

const struct watch_sink_ops sink_metrics = {
	.name = "metrics",
	.wanted = metrics_wanted,
	.start = metrics_start,
	.record = metrics_record,
	.tick = metrics_tick,
	.stop = metrics_stop,
};
