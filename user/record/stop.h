/* SPDX-License-Identifier: GPL-2.0-only */
/* stop.h - the closing tally of `watch`: JSON "stop" (docs/json.md). */
#ifndef MRTRACE_RECORD_STOP_H
#define MRTRACE_RECORD_STOP_H

struct record_kind;

#include "mrtrace.h"
#include "tracer/probemiss.h"

struct record_stop {
	double duration_s;
	unsigned long reported, harmless_probes, join_table_full, storm_summaries;
	unsigned long maps_cut, uprobe_libs_full, ports_full; /* user-space tables (issue 34) */
	unsigned long port_waiting_full; /* port_change records whose holders were not waited for */
	unsigned long async_unmatched; /* the kernel's device events for no port the monitor found */
	unsigned long raw_stacks, raw_stacks_unplaced; /* corr_stats' */
	/* exited processes' cgroups looked up by id (proc/cgroup_byid.h): walks
	 * of the tree, answers kept, and walks the bound stopped */
	unsigned long long cgroup_walks, cgroup_walks_cut;
	unsigned long long counters[MRT_CNT_MAX]; /* the BPF side's (enum mrt_counter) */
	struct probemiss misses; /* probes that fired and did not run (the kernel's count) */
};

/* Its row of the table of record kinds (record/kind.h). */
extern const struct record_kind record_kind_stop;

#endif
