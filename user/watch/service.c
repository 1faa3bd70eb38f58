// SPDX-License-Identifier: GPL-2.0-only
/* service.c - `mrtrace watch` as a node service: its options and the
 * configuration file, the host root a containerized watch reads the node
 * through, what missing privileges cost (said once at start, kept for the
 * start record), and the node's names for a failing process (Kubernetes
 * pod, Slurm job).  The service's outputs are sinks (sink_journal.c,
 * sink_metrics.c, sink_notify.c). */
#include "watch/watch.h"
#include "proc/jobclaim.h"
#include "watch/journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrtrace.h"
#include "core/args.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/privs.h"
#include "core/schema.h"
#include "core/version.h"
#include "proc/k8s.h"

/* The defaults `--service` brings (the systemd unit and the DaemonSet run
 * `mrtrace watch --service`); the configuration file and the command line
 * override them.  docs/deploy.md lists them. */
static const struct cfg_default service_defaults[] = {
	{ "json", "yes" },
	{ "journal", "auto" },
	{ "metrics-textfile", "/var/lib/prometheus/node-exporter/mrtrace.prom" },
	/* a node's logs leave the node: no job's tokens in them (issue 23 item 5) */
	{ "redact", "yes" },
	{ NULL, NULL },
};

enum {
	OPT_SERVICE = 0x5001,
	OPT_JOURNAL,
	OPT_JOURNAL_SOCKET,
	OPT_METRICS,
	OPT_METRICS_INTERVAL,
	OPT_HOST_ROOT,
};

static const struct argp_option service_opts[] = {
	{ NULL, 0, NULL, 0, "Node service (systemd unit, Slurm, Kubernetes DaemonSet):", 10 },
	{ "service", OPT_SERVICE, NULL, 0,
	  "Run as the node's service: the [service] section of the configuration applies, "
	  "with these defaults: --json --journal=auto "
	  "--metrics-textfile=/var/lib/prometheus/node-exporter/mrtrace.prom --redact", 10 },
	{ "journal", OPT_JOURNAL, "WHEN", OPTION_ARG_OPTIONAL,
	  "One journald entry per failure with MRTRACE_* fields: yes (default when given), "
	  "no, or auto (when the journal socket exists)", 10 },
	{ "journal-socket", OPT_JOURNAL_SOCKET, "PATH", OPTION_HIDDEN,
	  "journald's native socket (default " JOURNAL_SOCKET ")", 10 },
	{ "metrics-textfile", OPT_METRICS, "PATH", 0,
	  "Keep Prometheus metrics in PATH for node_exporter's textfile collector (written "
	  "whole and renamed into place; '-' prints them; '' turns them off)", 10 },
	{ "metrics-interval", OPT_METRICS_INTERVAL, "SECONDS", 0,
	  "Rewrite the metrics file at most this often (default 5; 0.1 to 60)", 10 },
	{ "host-root", OPT_HOST_ROOT, "DIR", 0,
	  "The node's root is mounted at DIR (a container with / at /host): /proc, cgroups, "
	  "/etc and the kubelet's pod logs are read through it", 10 },
	{ 0 },
};

static error_t service_parse(int key, char *arg, struct argp_state *state)
{
	struct service_opts *S = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		if (!S)
			return ARGP_ERR_UNKNOWN;
		S->metrics_interval = 5;
		break;
	case OPT_SERVICE: S->service = true; break;
	case OPT_JOURNAL:
		if (!arg || !strcmp(arg, "yes"))
			S->journal = JOURNAL_YES;
		else if (!strcmp(arg, "no"))
			S->journal = JOURNAL_NO;
		else if (!strcmp(arg, "auto"))
			S->journal = JOURNAL_AUTO;
		else
			cfg_argp_error(state, "--journal takes yes, no or auto, not '%s'", arg);
		break;
	case OPT_JOURNAL_SOCKET: S->journal_socket = arg; break;
	case OPT_METRICS: S->metrics_path = arg[0] ? arg : NULL; break;
	case OPT_METRICS_INTERVAL:
		/* finite (inf never wrote the file, nan compared false with
		 * everything), and at most the minute the file's age promises */
		if (args_seconds(arg, &S->metrics_interval) || S->metrics_interval < 0.1 ||
		    S->metrics_interval > 60)
			cfg_argp_error(state, "invalid --metrics-interval '%s' (seconds, 0.1 to 60)", arg);
		break;
	case OPT_HOST_ROOT:
		if (access(arg, R_OK | X_OK))
			cfg_argp_error(state, "--host-root %s: %s", arg, strerror(errno));
		S->host_root = arg;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child service_children_of_child[] = {
	{ &cfg_argp, 0, NULL, 11 },
	{ 0 },
};
static const struct argp service_argp = { service_opts, service_parse, NULL, NULL,
					  service_children_of_child, NULL, NULL };
const struct argp_child service_argp_children[] = {
	{ &service_argp, 0, NULL, 10 },
	{ 0 },
};

int service_args(const struct argp *watch_argp, int *argc, char ***argv)
{
	static const char *const plain[] = { "watch", NULL };
	static const char *const svc[] = { "watch", "service", NULL };
	char err[512];
	bool service = false;

	for (int i = 1; i < *argc && strcmp((*argv)[i], "--"); i++)
		service |= !strcmp((*argv)[i], "--service");
	if (cfg_apply_args(watch_argp, service ? svc : plain, service ? service_defaults : NULL,
			   argc, argv, err, sizeof(err))) {
		fprintf(stderr, "mrtrace watch: %s\n", err);
		return 2;
	}
	return 0;
}

const char *service_root(const struct service_opts *o)
{
	return o->host_root ? o->host_root : "/";
}

const char *service_cgroup(const struct service_opts *o, const char *cgroup, char *buf, size_t len)
{
	if (!cgroup || !o->host_root || (cgroup[0] == '/' && !access(cgroup, F_OK)))
		return cgroup;
	snprintf(buf, len, "%s/sys/fs/cgroup/%s", o->host_root, cgroup[0] == '/' ? cgroup + 1 : cgroup);
	return buf;
}

/* ---- capabilities ------------------------------------------------------------ */

static void note(struct watch *w, const char *line)
{
	fprintf(stderr, "mrtrace: %s\n", line);
	if (w->npriv_notes < WATCH_PRIV_NOTES)
		w->priv_notes[w->npriv_notes++] = strdup(line);
}

static void missing(struct watch *w, int cap, bool seen[64])
{
	if (cap < 64 && !seen[cap] && w->nmissing_caps < WATCH_PRIV_NOTES) {
		seen[cap] = true;
		w->missing_caps[w->nmissing_caps++] = privs_cap_name(cap);
	}
}

void service_diagnose_privileges(struct watch *w)
{
	struct privs privs;
	bool seen[64] = { 0 };
	char line[512];

	privs_read(&privs);
	for (int i = 0; i < w->nsites; i++) {
		const struct record_site *s = &w->sites[i];
		if (s->armed)
			continue;
		int cap = privs_diagnose(&privs, s->site, s->module, s->refused_err, s->uprobe_multi,
					 line, sizeof(line));
		if (!cap)
			continue;
		note(w, line);
		missing(w, cap, seen);
	}
	if (privs_proc_note(&privs, line, sizeof(line))) {
		note(w, line);
		int caps[] = { PRIV_CAP_SYS_PTRACE, PRIV_CAP_DAC_READ_SEARCH };
		for (int k = 0; k < 2; k++)
			if (!privs_has(&privs, caps[k]))
				missing(w, caps[k], seen);
	}
}

/* ---- each failure --------------------------------------------------------------- */

/* The job the process's environment claims, even where the cgroup names
 * one: the record says it is a claim, and one that contradicts the cgroup
 * (proc/jobclaim.h).  proctrack/linuxproc and task/none leave no job
 * cgroup, so the claim is all there is on such nodes. */
static long slurm_job_of(const struct report *r)
{
	if (!r->ctx || !(r->ctx->have & CTX_HAVE_ENV))
		return -1;
	return job_claim_parse(proc_env_get(&r->ctx->env, "SLURM_JOB_ID"));
}

/* Pod names change only with the pod: a few recent lookups are kept
 * (struct watch_names). */
static bool k8s_of(struct watch_names *c, const struct report *r, const char *root,
		   struct k8s_names *out)
{
	if (!r->ctx || !r->ctx->pod_uid[0])
		return false;
	double now = clock_mono_s();
	int oldest = 0;
	for (int i = 0; i < WATCH_K8S_CACHE; i++) {
		if (!strcmp(c->k8s[i].uid, r->ctx->pod_uid) &&
		    !strcmp(c->k8s[i].cid, r->ctx->container_id) && now - c->k8s[i].t < 60) {
			*out = c->k8s[i].n;
			return c->k8s[i].rc == 0;
		}
		if (c->k8s[i].t < c->k8s[oldest].t)
			oldest = i;
	}
	int rc = k8s_names_lookup(root, r->ctx->pod_uid, r->ctx->container_id, out);
	snprintf(c->k8s[oldest].uid, sizeof(c->k8s[oldest].uid), "%s", r->ctx->pod_uid);
	snprintf(c->k8s[oldest].cid, sizeof(c->k8s[oldest].cid), "%s", r->ctx->container_id);
	c->k8s[oldest].rc = rc;
	c->k8s[oldest].n = *out;
	c->k8s[oldest].t = now;
	return rc == 0;
}

const struct report *service_annotate(struct watch *w, const struct report *r)
{
	struct watch_names *c = &w->names;
	long job = slurm_job_of(r);
	bool pod = k8s_of(c, r, service_root(&w->a.svc), &c->pod);

	if (job < 0 && !pod)
		return r;
	c->annotated = *r;
	c->annotated.have_slurm_job = job >= 0;
	c->annotated.slurm_job = job;
	c->annotated.k8s = pod ? &c->pod : NULL;
	return &c->annotated;
}
