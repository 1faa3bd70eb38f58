/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics.h - `watch --metrics-textfile PATH`: the service's numbers for
 * Prometheus through node_exporter's textfile collector.
 *
 * The file is rewritten whole (temporary file, then rename) at most every
 * interval seconds when something happened, at least once a minute (its age
 * is the liveness signal), and once more at stop with mrtrace_watch_running 0.
 * Every counter's series exists from the start, at 0, so an alert on
 * increase() sees the first failure (contrib/prometheus/).  Families
 * (docs/deploy.md lists them):
 *   mrtrace_build_info{version,command}            gauge 1
 *   mrtrace_watch_running                           gauge 1 / 0 after stop
 *   mrtrace_watch_start_time_seconds                gauge
 *   mrtrace_watch_heartbeat_timestamp_seconds       gauge, each write
 *   mrtrace_watch_failures_total{cause,op}          counter, a pair from its first failure
 *   mrtrace_watch_last_failure_timestamp_seconds{cause} gauge
 *   mrtrace_watch_nccl_probes_total                 counter
 *   mrtrace_watch_registrations_seen_total          counter
 *   mrtrace_watch_events_dropped_total              counter
 *   mrtrace_watch_untracked_total                   counter
 *   mrtrace_watch_trail_overflows_total             counter
 *   mrtrace_watch_unfollowed_processes_total        counter
 *   mrtrace_watch_stale_contexts_total              counter
 *   mrtrace_watch_missed_returns_total              counter
 *   mrtrace_watch_probes_missed_total               counter (the kernel's count, 6.7+)
 *   mrtrace_watch_probes_miss_uncounted             gauge (probes whose kernel does not count)
 *   mrtrace_watch_ports_full_total                  counter
 *   mrtrace_watch_cgroup_lookups_cut_total          counter
 *   mrtrace_watch_port_waiting_full_total           counter
 *   mrtrace_watch_output_errors_total{output}       counter (journal, metrics_file)
 *   mrtrace_watch_sites_armed{mechanism}            gauge
 *   mrtrace_watch_sites                             gauge
 *   mrtrace_watch_registration_path_armed           gauge 0/1
 * Labels come from fixed sets (cause ids, API names, mechanisms): no pid,
 * comm or path, so the series count is bounded. */
#ifndef MRTRACE_WATCH_METRICS_H
#define MRTRACE_WATCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#define METRICS_MECHS 4 /* fentry, kprobe, tracepoint, uprobe */

/* path NULL or "": metrics off (every other call does nothing). */
void metrics_setup(const char *path, double interval_s);
bool metrics_enabled(void);
/* Armed sites by mechanism name ("fentry", ...), all sites, whether a
 * registration entry site is armed, and whether watch waits for RDMA (a
 * kernel without any: nothing armed, by design). */
void metrics_sites(const char *const mech_names[METRICS_MECHS], const int armed[METRICS_MECHS],
		   int total, bool regpath_armed, bool waiting_for_rdma);
/* A write to an output failed: "journal" or "metrics_file". */
void metrics_output_error(const char *output);
/* One explained failure (harmless: NCCL's probe, counted apart). */
void metrics_failure(const char *cause, const char *op, bool harmless);
/* n of them at once (a storm summary stands for n failures). */
void metrics_failures(const char *cause, const char *op, bool harmless, unsigned long long n);
/* Exited processes' cgroup lookups the walk's bound stopped
 * (proc/cgroup_byid.h). */
void metrics_cgroup_lookups(unsigned long long cut);
/* The BPF counters: registrations seen, drops, untracked, trail overflows. */
void metrics_counters(unsigned long long regs, unsigned long long drops,
		      unsigned long long untracked, unsigned long long overflows);
/* User-space tables that refused or cut (issue 34): maps read in part
 * (proc/execmaps.h), libibverbs files left unprobed (the uprobes' table
 * held only mapped ones), RDMA ports left unwatched (the port monitor's
 * table full: the most at once), port_change records written without
 * their holders (128 already waited for `rdma res`). */
void metrics_user_tables(unsigned long long maps_cut, unsigned long long uprobe_libs_full,
			 unsigned long long ports_full, unsigned long long port_waiting_full);
/* The BPF tables' losses: processes of the tree not followed (watched_tgids
 * full), trail contexts dropped as stale (a missed kretprobe), and the
 * opener returns that never came (the kprobe flavour's misses). */
void metrics_losses(unsigned long long watched_full, unsigned long long stale_contexts,
		    unsigned long long missed_returns);
/* The kernel's own count of the armed probes that fired and did not run
 * (tracer/probemiss.h), and how many armed probes it does not count. */
void metrics_probe_misses(unsigned long long missed, unsigned long long uncounted);
/* Writes the file when due (or now with force; final marks the stop).
 * 0, 1 not due / off, or -errno (the caller says it once). */
int metrics_flush(bool force, bool final);
/* The text itself (for tests and `--metrics-textfile -`); caller frees. */
char *metrics_render(bool final, size_t *len);

#endif
