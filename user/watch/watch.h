/* SPDX-License-Identifier: GPL-2.0-only */
/* watch.h - `mrtrace watch` as one struct: the options, the tracer, the
 * correlator, the output and the sinks records flow into.
 *
 * The loop (watch.c) takes ring-buffer records from the tracer, decodes
 * each by its kind's row (record/kind.h): failures go through the
 * correlator (correlate.h: joins, /proc, repeats), the rest straight on;
 * every record, failures explained, then reaches every sink through
 * watch_emit().  A sink (sink.h) is a few callbacks - start, record, tick,
 * stop - that know nothing of each other: the text and the JSON stream
 * (sink_text.c, sink_json.c), journald (sink_journal.c), the Prometheus
 * textfile (sink_metrics.c), systemd's notification socket
 * (sink_notify.c).  Nothing of watch lives in a global but the signal
 * flags. */
#ifndef MRTRACE_WATCH_WATCH_H
#define MRTRACE_WATCH_WATCH_H

#include <stdbool.h>
#include <stdio.h>
#include <argp.h>
#include <sys/types.h>

#include "proc/k8s.h"
#include "record/record.h"
#include "record/start.h"
#include "tracer/tracer.h"
#include "watch/correlate.h"
#include "watch/spawn.h"
#include "watch/ports.h"

enum journal_mode { JOURNAL_NO = 0, JOURNAL_YES, JOURNAL_AUTO };

/* The node-service options (service.c): --service, --journal,
 * --metrics-textfile, --host-root, ... */
struct service_opts {
	bool service;
	enum journal_mode journal;
	const char *journal_socket; /* NULL: journal.h's default */
	const char *metrics_path; /* NULL: no metrics */
	double metrics_interval;
	const char *host_root; /* NULL: "/" */
};

struct watch_args {
	int pid;
	const char *cgroup;
	const char *output; /* -o FILE, else stdout */
	double duration;
	bool json, verbose, list_probes, all, libbpf_debug, no_cache, hot_sites;
	/* --redact (core/redact.h): command lines and NCCL_* values reduced
	 * before any sink sees them; on by default with --service */
	bool redact;
	enum syscalls_policy syscalls;
	char **cmd; /* after "--" */
	int ncmd;
	struct service_opts svc;
};

struct watch_sink;

/* The node's names for failing processes (service.c): recent pod lookups,
 * and the report with them filled in. */
#define WATCH_K8S_CACHE 8
struct watch_names {
	struct {
		char uid[40], cid[72];
		int rc;
		struct k8s_names n;
		double t;
	} k8s[WATCH_K8S_CACHE];
	struct k8s_names pod;
	struct report annotated;
};

#define WATCH_SINKS_MAX 8
#define WATCH_PRIV_NOTES 64

struct watch {
	struct watch_args a;
	FILE *out; /* records: stdout or -o FILE (core/outfile.h) */
	struct tracer *t;
	struct corr *corr; /* failures -> reports (join, /proc cache, repeats) */
	struct corr_live live; /* the correlator's /proc readers */
	struct port_monitor *ports; /* port and GID changes (ports.h); NULL: none */
	/* -- COMMAND: held until the probes are attached (spawn.h) */
	pid_t child;
	struct spawn spawn;
	int child_status;
	bool child_done;
	struct watch_sink *sinks[WATCH_SINKS_MAX];
	int nsinks;
	/* the sites as the start record and the privilege diagnosis see them */
	struct record_site *sites;
	int nsites;
	/* what missing privileges cost (service.c), for the start record */
	char *priv_notes[WATCH_PRIV_NOTES];
	int npriv_notes;
	const char *missing_caps[WATCH_PRIV_NOTES];
	int nmissing_caps;
	char cgroup_buf[4096]; /* -c resolved through --host-root */
	struct watch_names names;
	/* the loop */
	double t0, storms_at, drops_at;
	unsigned long long drops_reported;
	bool final; /* the end of the run: every storm is summed up */
};

/* Hands one record to every sink, in their order. */
void watch_emit(struct watch *w, const struct record *rec);

/* ---- options (options.c) ------------------------------------------------------ */

/* Parses argv into a (the configuration file first, service.c).  0, or
 * the exit status of a usage error (said). */
int watch_parse_args(struct watch_args *a, int argc, char **argv);

/* ---- the node service (service.c) --------------------------------------------- */

/* The options of struct service_opts, an argp child of watch's table (its
 * input: &watch_args.svc). */
extern const struct argp_child service_argp_children[];
/* Rewrites argc/argv with the configuration's options ([watch], and
 * [service] with --service) in front.  0, or 2 (usage error, said). */
int service_args(const struct argp *watch_argp, int *argc, char ***argv);
/* "/" or --host-root, for every /proc and cgroup read. */
const char *service_root(const struct service_opts *o);
/* A relative cgroup (-c) becomes <host-root>/sys/fs/cgroup/<cgroup> with
 * --host-root (in buf); otherwise returned unchanged. */
const char *service_cgroup(const struct service_opts *o, const char *cgroup, char *buf,
			   size_t len);
/* Says on stderr which capability kept which site unarmed, and what
 * missing /proc access costs; keeps the same for the start record. */
void service_diagnose_privileges(struct watch *w);
/* The report as the node sees it: its Kubernetes pod and Slurm job filled
 * in when the process has them (the report itself when it has neither;
 * else a copy valid until the next call). */
const struct report *service_annotate(struct watch *w, const struct report *r);

/* ---- the site table (probes.c) ------------------------------------------------- */

/* The tracer's sites in words (w->sites), and the port monitor's row
 * (port_events) after them; 0, or -1 out of memory. */
int watch_sites_read(struct watch *w);
void watch_print_sites(const struct tracer *t, FILE *out);
/* The rows of w->sites that are not the tracer's (port_events), as
 * watch_print_sites prints the tracer's. */
void watch_print_own_sites(const struct watch *w, FILE *out);
/* One paragraph: what is not observed and what that costs. */
void watch_print_consequences(const struct tracer *t, FILE *out);
/* Armed sites by mechanism (names[k], counts[k], k < n): the metrics and
 * systemd's status line say them. */
#define WATCH_MECHS 4 /* fentry, kprobe, tracepoint, uprobe */
extern const char *const watch_mech_names[WATCH_MECHS];
void watch_sites_by_mech(const struct watch *w, int armed[WATCH_MECHS]);
/* Sites armed, the kernel's and watch's own: the one count the start line,
 * the table and the metrics share. */
int watch_armed_sites(const struct watch *w);

#endif
