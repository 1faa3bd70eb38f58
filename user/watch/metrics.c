// SPDX-License-Identifier: GPL-2.0-only
/* metrics.c - the watch service's Prometheus textfile (metrics.h). */
#include "watch/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/promtext.h"
#include "core/version.h"

/* (cause, op) pairs, each from its first failure on: no series is made in
 * advance (every cause x every op was 27 x 17 = 459 series of zeros per
 * node, millions on a fleet).  The alert rule catches a series that first
 * appears above 0 (contrib/prometheus/mrtrace.rules.yml, its second term).
 * Bounded by the build: its causes times its op labels (459 < 1024). */
#define PAIRS_MAX 1024
#define CAUSES_MAX 64
/* the outputs whose write errors are counted (metrics_output_error) */
static const char *const outputs[] = { "journal", "metrics_file" };
#define OUTPUTS (sizeof(outputs) / sizeof(outputs[0]))

static struct {
	char path[4096];
	double interval;
	double last_write; /* monotonic */
	bool dirty;
	double start_time; /* wall clock */
	const char *mech[METRICS_MECHS];
	int armed[METRICS_MECHS];
	int total;
	bool regpath;
	bool waiting;
	int npairs;
	struct {
		char cause[40], op[40];
		unsigned long long n;
	} pairs[PAIRS_MAX];
	int ncauses;
	struct {
		char cause[40];
		double ts;
	} last[CAUSES_MAX];
	unsigned long long probes, regs, drops, untracked, overflows;
	unsigned long long maps_cut, uprobe_libs_full, ports_full, port_waiting_full;
	unsigned long long watched_full, stale_contexts, missed_returns;
	unsigned long long probes_missed, probes_uncounted;
	unsigned long long cgroup_cut; /* exited processes not placed: the walk's bound */
	unsigned long long output_errors[OUTPUTS];
} m;

void metrics_setup(const char *path, double interval_s)
{
	memset(&m, 0, sizeof(m));
	if (path)
		snprintf(m.path, sizeof(m.path), "%s", path);
	m.interval = interval_s > 0 ? interval_s : 5;
	m.start_time = clock_wall_s();
	m.dirty = true;
	m.last_write = -1e9;
}

bool metrics_enabled(void)
{
	return m.path[0] != 0;
}

void metrics_sites(const char *const mech_names[METRICS_MECHS], const int armed[METRICS_MECHS],
		   int total, bool regpath_armed, bool waiting_for_rdma)
{
	for (int i = 0; i < METRICS_MECHS; i++) {
		m.mech[i] = mech_names[i];
		if (m.armed[i] != armed[i])
			m.dirty = true;
		m.armed[i] = armed[i];
	}
	if (m.regpath != regpath_armed || m.waiting != waiting_for_rdma)
		m.dirty = true;
	m.total = total;
	m.regpath = regpath_armed;
	m.waiting = waiting_for_rdma;
}

/* The pair's slot, added (at 0) when new; -1 when the table is full. */
static int pair_slot(const char *cause, const char *op)
{
	int i = 0;
	for (; i < m.npairs; i++)
		if (!strcmp(m.pairs[i].cause, cause) && !strcmp(m.pairs[i].op, op))
			return i;
	if (m.npairs == PAIRS_MAX)
		return -1;
	snprintf(m.pairs[i].cause, sizeof(m.pairs[i].cause), "%s", cause);
	snprintf(m.pairs[i].op, sizeof(m.pairs[i].op), "%s", op);
	m.pairs[i].n = 0;
	return m.npairs++;
}

void metrics_output_error(const char *output)
{
	for (size_t i = 0; i < OUTPUTS; i++)
		if (!strcmp(outputs[i], output)) {
			m.output_errors[i]++;
			m.dirty = true;
		}
}

void metrics_failure(const char *cause, const char *op, bool harmless)
{
	metrics_failures(cause, op, harmless, 1);
}

void metrics_failures(const char *cause, const char *op, bool harmless, unsigned long long n)
{
	m.dirty = true;
	if (harmless) {
		m.probes += n;
		return;
	}
	int i = pair_slot(cause, op);
	if (i >= 0)
		m.pairs[i].n += n;
	for (i = 0; i < m.ncauses && strcmp(m.last[i].cause, cause); i++)
		;
	if (i == m.ncauses && m.ncauses < CAUSES_MAX)
		snprintf(m.last[m.ncauses++].cause, sizeof(m.last[0].cause), "%s", cause);
	if (i < m.ncauses)
		m.last[i].ts = clock_wall_s();
}

void metrics_counters(unsigned long long regs, unsigned long long drops,
		      unsigned long long untracked, unsigned long long overflows)
{
	if (regs != m.regs || drops != m.drops || untracked != m.untracked ||
	    overflows != m.overflows)
		m.dirty = true;
	m.regs = regs;
	m.drops = drops;
	m.untracked = untracked;
	m.overflows = overflows;
}

void metrics_cgroup_lookups(unsigned long long cut)
{
	if (cut != m.cgroup_cut)
		m.dirty = true;
	m.cgroup_cut = cut;
}

void metrics_user_tables(unsigned long long maps_cut, unsigned long long uprobe_libs_full,
			 unsigned long long ports_full, unsigned long long port_waiting_full)
{
	if (maps_cut != m.maps_cut || uprobe_libs_full != m.uprobe_libs_full ||
	    ports_full != m.ports_full || port_waiting_full != m.port_waiting_full)
		m.dirty = true;
	m.port_waiting_full = port_waiting_full;
	m.maps_cut = maps_cut;
	m.uprobe_libs_full = uprobe_libs_full;
	m.ports_full = ports_full;
}

void metrics_losses(unsigned long long watched_full, unsigned long long stale_contexts,
		    unsigned long long missed_returns)
{
	if (watched_full != m.watched_full || stale_contexts != m.stale_contexts ||
	    missed_returns != m.missed_returns)
		m.dirty = true;
	m.watched_full = watched_full;
	m.stale_contexts = stale_contexts;
	m.missed_returns = missed_returns;
}

void metrics_probe_misses(unsigned long long missed, unsigned long long uncounted)
{
	if (missed != m.probes_missed || uncounted != m.probes_uncounted)
		m.dirty = true;
	m.probes_missed = missed;
	m.probes_uncounted = uncounted;
}

char *metrics_render(bool final, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;

	prom_family(f, "mrtrace_build_info", "gauge",
		    "mrtrace build that wrote these metrics (always 1).");
	prom_sample(f, "mrtrace_build_info",
		    (const char *const[]){ "version", mrt_version(), "command", "watch", NULL }, 1);
	prom_family(f, "mrtrace_watch_running", "gauge",
		    "1 while mrtrace watch runs; 0 written at its stop.");
	prom_sample(f, "mrtrace_watch_running", NULL, final ? 0 : 1);
	prom_family(f, "mrtrace_watch_start_time_seconds", "gauge",
		    "When this mrtrace watch started (Unix time).");
	prom_sample(f, "mrtrace_watch_start_time_seconds", NULL, (long long)m.start_time);
	prom_family(f, "mrtrace_watch_heartbeat_timestamp_seconds", "gauge",
		    "When mrtrace watch's event loop wrote this file (Unix time; at least once a "
		    "minute while it runs).");
	prom_sample(f, "mrtrace_watch_heartbeat_timestamp_seconds", NULL, (long long)clock_wall_s());

	prom_family(f, "mrtrace_watch_failures_total", "counter",
		    "Failed registrations (and mlock calls) explained, by cause and operation.");
	for (int i = 0; i < m.npairs; i++)
		prom_sample(f, "mrtrace_watch_failures_total",
			    (const char *const[]){ "cause", m.pairs[i].cause, "op", m.pairs[i].op,
						   NULL },
			    (double)m.pairs[i].n);
	prom_family(f, "mrtrace_watch_last_failure_timestamp_seconds", "gauge",
		    "When the last failure with this cause was explained (Unix time).");
	for (int i = 0; i < m.ncauses; i++)
		prom_sample(f, "mrtrace_watch_last_failure_timestamp_seconds",
			    (const char *const[]){ "cause", m.last[i].cause, NULL },
			    (double)(long long)m.last[i].ts);
	prom_family(f, "mrtrace_watch_nccl_probes_total", "counter",
		    "NCCL's dma-buf capability probes seen failing (harmless, expected).");
	prom_sample(f, "mrtrace_watch_nccl_probes_total", NULL, (double)m.probes);
	prom_family(f, "mrtrace_watch_registrations_seen_total", "counter",
		    "Memory registrations seen by the kernel sites, failed or not.");
	prom_sample(f, "mrtrace_watch_registrations_seen_total", NULL, (double)m.regs);
	prom_family(f, "mrtrace_watch_events_dropped_total", "counter",
		    "Failure records lost because the ring buffer was full.");
	prom_sample(f, "mrtrace_watch_events_dropped_total", NULL, (double)m.drops);
	prom_family(f, "mrtrace_watch_untracked_total", "counter",
		    "Registrations not followed because the per-thread context map was full.");
	prom_sample(f, "mrtrace_watch_untracked_total", NULL, (double)m.untracked);
	prom_family(f, "mrtrace_watch_trail_overflows_total", "counter",
		    "Kernel steps beyond what one failure record holds.");
	prom_sample(f, "mrtrace_watch_trail_overflows_total", NULL, (double)m.overflows);
	prom_family(f, "mrtrace_watch_cgroup_lookups_cut_total", "counter",
		    "Exited processes whose cgroup was not found: the tree is larger than a lookup may walk.");
	prom_sample(f, "mrtrace_watch_cgroup_lookups_cut_total", NULL, (double)m.cgroup_cut);
	prom_family(f, "mrtrace_watch_maps_cut_total", "counter",
		    "Process maps read in part (a line too long, too many executable mappings).");
	prom_sample(f, "mrtrace_watch_maps_cut_total", NULL, (double)m.maps_cut);
	prom_family(f, "mrtrace_watch_uprobe_libs_full_total", "counter",
		    "libibverbs files left unprobed: the uprobes' table held 32 still mapped.");
	prom_sample(f, "mrtrace_watch_uprobe_libs_full_total", NULL, (double)m.uprobe_libs_full);
	prom_family(f, "mrtrace_watch_ports_full_total", "counter",
		    "RDMA ports not watched for port changes: the port monitor holds 64 (the most "
		    "left out at once).");
	prom_sample(f, "mrtrace_watch_ports_full_total", NULL, (double)m.ports_full);
	prom_family(f, "mrtrace_watch_port_waiting_full_total", "counter",
		    "port_change records written without their QP holders: 128 records already "
		    "waited for the answer of rdma res.");
	prom_sample(f, "mrtrace_watch_port_waiting_full_total", NULL, (double)m.port_waiting_full);
	prom_family(f, "mrtrace_watch_unfollowed_processes_total", "counter",
		    "Processes of the watched tree not followed: 8,192 of them alive at once.");
	prom_sample(f, "mrtrace_watch_unfollowed_processes_total", NULL, (double)m.watched_full);
	prom_family(f, "mrtrace_watch_stale_contexts_total", "counter",
		    "Registrations not reported: their context's exit never came (a missed kretprobe).");
	prom_sample(f, "mrtrace_watch_stale_contexts_total", NULL, (double)m.stale_contexts);
	prom_family(f, "mrtrace_watch_missed_returns_total", "counter",
		    "Returns of registration entry points that never came (kretprobes missed on the "
		    "kprobe flavour: more threads inside at once than the kernel's maxactive).");
	prom_sample(f, "mrtrace_watch_missed_returns_total", NULL, (double)m.missed_returns);
	prom_family(f, "mrtrace_watch_probes_missed_total", "counter",
		    "Probe hits whose programs never ran, as the kernel counts them (a kretprobe "
		    "with every instance in use, a program skipped while another ran): what they "
		    "would have recorded is lost.");
	prom_sample(f, "mrtrace_watch_probes_missed_total", NULL, (double)m.probes_missed);
	prom_family(f, "mrtrace_watch_probes_miss_uncounted", "gauge",
		    "Armed probes whose kernel does not count their misses (kprobes before 6.7, "
		    "fentry/fexit before 5.12): a miss there is not seen.");
	prom_sample(f, "mrtrace_watch_probes_miss_uncounted", NULL, (double)m.probes_uncounted);

	prom_family(f, "mrtrace_watch_output_errors_total", "counter",
		    "Writes to an output that failed (journal entries, the metrics file itself).");
	for (size_t i = 0; i < OUTPUTS; i++)
		prom_sample(f, "mrtrace_watch_output_errors_total",
			    (const char *const[]){ "output", outputs[i], NULL },
			    (double)m.output_errors[i]);

	prom_family(f, "mrtrace_watch_sites_armed", "gauge",
		    "Tracing sites armed, by mechanism.");
	for (int i = 0; i < METRICS_MECHS; i++)
		if (m.mech[i])
			prom_sample(f, "mrtrace_watch_sites_armed",
				    (const char *const[]){ "mechanism", m.mech[i], NULL }, m.armed[i]);
	prom_family(f, "mrtrace_watch_sites", "gauge",
		    "Tracing sites known to this mrtrace, armed or not.");
	prom_sample(f, "mrtrace_watch_sites", NULL, m.total);
	prom_family(f, "mrtrace_watch_registration_path_armed", "gauge",
		    "1 when a kernel registration entry site is armed (failed registrations "
		    "are seen from the kernel).");
	prom_sample(f, "mrtrace_watch_registration_path_armed", NULL, m.regpath ? 1 : 0);
	prom_family(f, "mrtrace_watch_waiting_for_rdma", "gauge",
		    "1 when this kernel has no RDMA yet: nothing is armed, at no cost, until an "
		    "RDMA module loads.");
	prom_sample(f, "mrtrace_watch_waiting_for_rdma", NULL, m.waiting ? 1 : 0);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int metrics_flush(bool force, bool final)
{
	if (!m.path[0])
		return 1;
	double t = clock_mono_s();
	/* when nothing changes, still once a minute: the file's age tells a
	 * liveness probe (or node_textfile_mtime_seconds) the service is alive */
	if (!force && (t - m.last_write < m.interval || (!m.dirty && t - m.last_write < 60)))
		return 1;
	size_t len = 0;
	char *text = metrics_render(final, &len);
	if (!text)
		return -12;
	int rc = 0;
	if (!strcmp(m.path, "-")) {
		fwrite(text, 1, len, stdout);
		fflush(stdout);
	} else {
		rc = prom_write_atomic(m.path, text, len);
	}
	free(text);
	m.last_write = t;
	m.dirty = false;
	return rc;
}
