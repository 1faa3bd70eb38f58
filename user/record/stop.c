// SPDX-License-Identifier: GPL-2.0-only
/* stop.c - the stop record (stop.h): written last, exactly once.  Its text
 * is watch's closing line on stderr, not a record. */
#include "record/stop.h"
#include "record/kind.h"
#include "record/json_util.h"

static struct json_object *stop_to_json(const struct record *rec)
{
	const struct record_stop *s = rec->data;
	const unsigned long long *c = s->counters;
	struct json_object *o = json_object_new_object();

	jput_str(o, "event", rec->kind->event);
	jput_double(o, "duration_s", s->duration_s);
	jput_u64(o, "reported", s->reported);
	jput_u64(o, "harmless_probes", s->harmless_probes);
	jput_u64(o, "kernel_events", c[MRT_CNT_EVENTS]);
	jput_u64(o, "drops", c[MRT_CNT_DROPS]);
	jput_u64(o, "trail_overflows", c[MRT_CNT_TRAIL_OVERFLOW]);
	jput_u64(o, "context_map_full", c[MRT_CNT_CTX_FULL]);
	jput_u64(o, "registrations_seen", c[MRT_CNT_REGS]);
	jput_u64(o, "join_table_full", s->join_table_full);
	jput_u64(o, "failures_seen", c[MRT_CNT_FAILURES]);
	jput_u64(o, "folded", c[MRT_CNT_FOLDED]);
	jput_u64(o, "storm_summaries", s->storm_summaries);
	jput_u64(o, "storm_table_full", c[MRT_CNT_STORMS_FULL]);
	jput_u64(o, "maps_cut", s->maps_cut);
	jput_u64(o, "uprobe_libs_full", s->uprobe_libs_full);
	jput_u64(o, "ports_full", s->ports_full);
	jput_u64(o, "port_waiting_full", s->port_waiting_full);
	jput_u64(o, "watched_table_full", c[MRT_CNT_WATCHED_FULL]);
	jput_u64(o, "stale_contexts", c[MRT_CNT_CTX_STALE]);
	jput_u64(o, "missed_returns", c[MRT_CNT_RET_MISSED]);
	jput_u64(o, "async_events", c[MRT_CNT_ASYNC]);
	jput_u64(o, "async_events_unmatched", s->async_unmatched);
	/* a probe that missed lost what it would have recorded; a kernel that
	 * does not count is said as such, not as 0 missed */
	jput_u64(o, "probes_missed", s->misses.total);
	jput_u64(o, "probes_miss_uncounted", s->misses.unreadable);
	if (s->misses.nsites) {
		struct json_object *by = json_object_new_array();
		for (int i = 0; i < s->misses.nsites; i++) {
			const struct probemiss_site *ps = &s->misses.sites[i];
			struct json_object *x = json_object_new_object();
			jput_str(x, "site", ps->site);
			jput_str(x, "side", ps->exit ? "exit" : "entry");
			jput_u64(x, "missed", ps->missed);
			json_object_array_add(by, x);
		}
		json_object_object_add(o, "probes_missed_by", by);
	}
	jput_u64(o, "cgroup_lookups_walked", s->cgroup_walks);
	jput_u64(o, "cgroup_lookups_cut", s->cgroup_walks_cut);
	jput_u64(o, "environment_copies", c[MRT_CNT_ENVIRON]);
	jput_u64(o, "environment_copies_cut", c[MRT_CNT_ENV_CUT]);
	jput_u64(o, "raw_stacks", s->raw_stacks);
	jput_u64(o, "raw_stacks_unplaced", s->raw_stacks_unplaced);
	return o;
}

const struct record_kind record_kind_stop = {
	.name = "stop",
	.event = "stop",
	.to_json = stop_to_json,
	/* text: the tally on stderr (watch/watch.c); not read back */
};
