// SPDX-License-Identifier: GPL-2.0-only
/* service.c - the node-service side of `mrtrace watch` (service.h). */
#include "watch/service.h"
#include "watch/probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrtrace.h"
#include "core/config.h"
#include "core/privs.h"
#include "core/schema.h"
#include "core/version.h"
#include "proc/k8s.h"
#include "watch/journal.h"
#include "watch/metrics.h"
#include "watch/notify.h"

/* The defaults `--service` brings (the systemd unit and the DaemonSet run
 * `mrtrace watch --service`); the configuration file and the command line
 * override them.  docs/deploy.md lists them. */
static const struct cfg_default service_defaults[] = {
	{ "json", "yes" },
	{ "journal", "auto" },
	{ "metrics-textfile", "/var/lib/prometheus/node-exporter/mrtrace.prom" },
	{ NULL, NULL },
};

enum journal_mode { JOURNAL_NO = 0, JOURNAL_YES, JOURNAL_AUTO };

static struct {
	bool service;
	enum journal_mode journal;
	const char *journal_socket;
	const char *metrics_path;
	double metrics_interval;
	const char *host_root;
	/* state */
	bool journal_warned, metrics_warned;
	struct privs privs;
	struct json_object *start_extra; /* added to the start record */
	char cgroup_buf[4096];
} S = { .metrics_interval = 5 };

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
	  "--metrics-textfile=/var/lib/prometheus/node-exporter/mrtrace.prom", 10 },
	{ "journal", OPT_JOURNAL, "WHEN", OPTION_ARG_OPTIONAL,
	  "One journald entry per failure with MRTRACE_* fields: yes (default when given), "
	  "no, or auto (when the journal socket exists)", 10 },
	{ "journal-socket", OPT_JOURNAL_SOCKET, "PATH", OPTION_HIDDEN,
	  "journald's native socket (default " JOURNAL_SOCKET ")", 10 },
	{ "metrics-textfile", OPT_METRICS, "PATH", 0,
	  "Keep Prometheus metrics in PATH for node_exporter's textfile collector (written "
	  "whole and renamed into place; '-' prints them; '' turns them off)", 10 },
	{ "metrics-interval", OPT_METRICS_INTERVAL, "SECONDS", 0,
	  "Rewrite the metrics file at most this often (default 5)", 10 },
	{ "host-root", OPT_HOST_ROOT, "DIR", 0,
	  "The node's root is mounted at DIR (a container with / at /host): /proc, cgroups, "
	  "/etc and the kubelet's pod logs are read through it", 10 },
	{ 0 },
};

static error_t service_parse(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case OPT_SERVICE: S.service = true; break;
	case OPT_JOURNAL:
		if (!arg || !strcmp(arg, "yes"))
			S.journal = JOURNAL_YES;
		else if (!strcmp(arg, "no"))
			S.journal = JOURNAL_NO;
		else if (!strcmp(arg, "auto"))
			S.journal = JOURNAL_AUTO;
		else
			argp_error(state, "--journal takes yes, no or auto, not '%s'", arg);
		break;
	case OPT_JOURNAL_SOCKET: S.journal_socket = arg; break;
	case OPT_METRICS: S.metrics_path = arg[0] ? arg : NULL; break;
	case OPT_METRICS_INTERVAL:
		errno = 0;
		S.metrics_interval = strtod(arg, &end);
		if (errno || *end || S.metrics_interval < 0.1)
			argp_error(state, "invalid --metrics-interval '%s' (seconds, >= 0.1)", arg);
		break;
	case OPT_HOST_ROOT:
		if (access(arg, R_OK | X_OK))
			argp_error(state, "--host-root %s: %s", arg, strerror(errno));
		S.host_root = arg;
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

const char *service_root(void)
{
	return S.host_root ? S.host_root : "/";
}

const char *service_cgroup(const char *cgroup)
{
	if (!cgroup || !S.host_root || (cgroup[0] == '/' && !access(cgroup, F_OK)))
		return cgroup;
	snprintf(S.cgroup_buf, sizeof(S.cgroup_buf), "%s/sys/fs/cgroup/%s", S.host_root,
		 cgroup[0] == '/' ? cgroup + 1 : cgroup);
	return S.cgroup_buf;
}

/* ---- capabilities ------------------------------------------------------------ */

/* Says, once at start, which capability kept which site unarmed, and what
 * missing /proc access costs; keeps the same in the start record. */
static void explain_privileges(const struct tracer *t)
{
	struct json_object *sites = watch_sites_json(t);
	struct json_object *missing = json_object_new_array();
	struct json_object *notes = json_object_new_array();
	bool seen[64] = { 0 };
	char line[512];

	privs_read(&S.privs);
	for (size_t i = 0; i < json_object_array_length(sites); i++) {
		struct json_object *s = json_object_array_get_idx(sites, i), *v;
		const char *name = json_object_object_get_ex(s, "site", &v) ? json_object_get_string(v) : "?";
		const char *module = json_object_object_get_ex(s, "module", &v) ? json_object_get_string(v) : NULL;
		const char *note = json_object_object_get_ex(s, "note", &v) ? json_object_get_string(v) : NULL;
		bool armed = json_object_object_get_ex(s, "armed", &v) && json_object_get_boolean(v);
		if (armed)
			continue;
		int cap = privs_diagnose(&S.privs, name, module, note, line, sizeof(line));
		if (!cap)
			continue;
		fprintf(stderr, "mrtrace: %s\n", line);
		json_object_array_add(notes, json_object_new_string(line));
		if (cap < 64 && !seen[cap]) {
			seen[cap] = true;
			json_object_array_add(missing, json_object_new_string(privs_cap_name(cap)));
		}
	}
	if (privs_proc_note(&S.privs, line, sizeof(line))) {
		fprintf(stderr, "mrtrace: %s\n", line);
		json_object_array_add(notes, json_object_new_string(line));
		int caps[] = { PRIV_CAP_SYS_PTRACE, PRIV_CAP_DAC_READ_SEARCH };
		for (int k = 0; k < 2; k++)
			if (!privs_has(&S.privs, caps[k]) && !seen[caps[k]]) {
				seen[caps[k]] = true;
				json_object_array_add(missing,
						      json_object_new_string(privs_cap_name(caps[k])));
			}
	}
	json_object_put(sites);
	json_object_put(S.start_extra);
	S.start_extra = json_object_new_object();
	json_object_object_add(S.start_extra, "missing_capabilities", missing);
	json_object_object_add(S.start_extra, "privilege_notes", notes);
	if (S.host_root)
		json_object_object_add(S.start_extra, "host_root", json_object_new_string(S.host_root));
}

void service_arm_failed(const struct tracer *t)
{
	if (t) /* NULL when the tracer could not even be set up */
		explain_privileges(t);
	notify_send("STATUS=nothing could be armed (see the log)");
}

/* ---- start, tick, stop -------------------------------------------------------- */

static const char *const mech_labels[METRICS_MECHS] = { "fentry", "kprobe", "tracepoint",
							 "uprobe" };

static void sites_to_metrics(const struct tracer *t, char *status, size_t len)
{
	struct json_object *sites = watch_sites_json(t);
	int armed[METRICS_MECHS] = { 0 }, total = (int)json_object_array_length(sites), n = 0;

	for (int i = 0; i < total; i++) {
		struct json_object *s = json_object_array_get_idx(sites, i), *v;
		const char *mech = json_object_object_get_ex(s, "mechanism", &v) ? json_object_get_string(v) : "none";
		for (int k = 0; k < METRICS_MECHS; k++)
			if (!strcmp(mech, mech_labels[k])) {
				armed[k]++;
				n++;
			}
	}
	json_object_put(sites);
	metrics_sites(mech_labels, armed, total, tracer_armed_count(t, true) > 0);
	int off = snprintf(status, len, "STATUS=watching: %d of %d sites armed (", n, total);
	for (int k = 0, first = 1; k < METRICS_MECHS && off < (int)len; k++)
		if (armed[k]) {
			off += snprintf(status + off, len - off, "%s%s %d", first ? "" : ", ",
					mech_labels[k], armed[k]);
			first = 0;
		}
	if (off < (int)len)
		snprintf(status + off, len - off, ")%s",
			 tracer_armed_count(t, true) ? "" : "; registration path NOT armed");
}

/* Every op label a failure can carry, asked of the code that names them
 * (report_api, op_name), so the pre-made series cannot drift from it. */
static int known_ops(const char **ops, int max)
{
	static const struct { unsigned kind, syscall, opener; } shapes[] = {
		{ MRT_EV_MLOCK_FAILURE, MRT_SYS_MLOCK, 0 },
		{ MRT_EV_MLOCK_FAILURE, MRT_SYS_MLOCK2, 0 },
		{ MRT_EV_MLOCK_FAILURE, MRT_SYS_MLOCKALL, 0 },
		{ MRT_EV_REG_FAILURE, 0, MRT_SITE_UVERBS_REG_MR },
		{ MRT_EV_REG_FAILURE, 0, MRT_SITE_UVERBS_REG_DMABUF },
	};
	int n = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]) && n < max; i++) {
		struct mrt_event ev = { .kind = shapes[i].kind, .syscall = shapes[i].syscall,
					.opener = shapes[i].opener };
		ops[n++] = report_api(&ev, NULL);
	}
	for (unsigned a = MRT_API_NONE + 1; a < MRT_API_MAX && n < max; a++)
		ops[n++] = api_name(a);
	for (unsigned o = MRT_OP_NONE + 1; o < MRT_OP_MAX && n < max; o++)
		ops[n++] = op_name(o);
	return n;
}

static void known_failures(void)
{
	const char *causes[CAUSE__COUNT], *ops[64];
	for (int c = 0; c < CAUSE__COUNT; c++)
		causes[c] = cause_name(c);
	metrics_known(causes, CAUSE__COUNT, ops, known_ops(ops, 64));
}

static void flush_metrics(bool force, bool final)
{
	int rc = metrics_flush(force, final);
	if (rc < 0)
		metrics_output_error("metrics_file");
	if (rc < 0 && !S.metrics_warned) {
		fprintf(stderr, "mrtrace: cannot write the metrics file %s: %s (going on without)\n",
			S.metrics_path, strerror(-rc));
		S.metrics_warned = true;
	}
}

void service_armed(const struct tracer *t)
{
	char status[400];

	explain_privileges(t);
	metrics_setup(S.metrics_path, S.metrics_interval);
	known_failures();
	if (S.journal == JOURNAL_AUTO)
		S.journal = access(S.journal_socket ? S.journal_socket : JOURNAL_SOCKET, W_OK)
				    ? JOURNAL_NO : JOURNAL_YES;
	sites_to_metrics(t, status, sizeof(status));
	service_tick(t);
	flush_metrics(true, false);
	/* READY only now: the sites are armed, failures from here on are seen */
	char msg[sizeof(status) + 32];
	snprintf(msg, sizeof(msg), "READY=1\n%s", status);
	notify_send(msg);
}

/* WatchdogSec= in the unit: WATCHDOG=1 from the event loop, three times per
 * period, so systemd restarts a loop that stopped turning. */
static void watchdog_kick(void)
{
	static double every = -1, last;
	struct timespec ts;

	if (every < 0) {
		const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
		every = usec && (!pid || atol(pid) == (long)getpid()) ? atof(usec) / 3e6 : 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = ts.tv_sec + ts.tv_nsec / 1e9;
	if (every > 0 && now - last >= every) {
		notify_send("WATCHDOG=1");
		last = now;
	}
}

void service_tick(const struct tracer *t)
{
	unsigned long long c[MRT_CNT_MAX];

	watchdog_kick();
	if (!metrics_enabled())
		return;
	tracer_counters(t, c);
	metrics_counters(c[MRT_CNT_REGS], c[MRT_CNT_DROPS], c[MRT_CNT_CTX_FULL],
			 c[MRT_CNT_TRAIL_OVERFLOW]);
	flush_metrics(false, false);
}

void service_stopped(const struct tracer *t)
{
	notify_send("STOPPING=1\nSTATUS=stopping");
	if (metrics_enabled()) {
		unsigned long long c[MRT_CNT_MAX];
		tracer_counters(t, c);
		metrics_counters(c[MRT_CNT_REGS], c[MRT_CNT_DROPS], c[MRT_CNT_CTX_FULL],
				 c[MRT_CNT_TRAIL_OVERFLOW]);
		flush_metrics(true, true);
	}
	json_object_put(S.start_extra);
	S.start_extra = NULL;
}

/* ---- each failure --------------------------------------------------------------- */

static long slurm_job_of(const struct report *r)
{
	if (!r->ctx)
		return -1;
	if (r->ctx->slurm_job >= 0)
		return r->ctx->slurm_job;
	/* proctrack/linuxproc and task/none leave no job cgroup: the step's
	 * environment still names the job */
	const char *v = (r->ctx->have & CTX_HAVE_ENV) ? proc_env_get(&r->ctx->env, "SLURM_JOB_ID") : NULL;
	char *end;
	long id = v ? strtol(v, &end, 10) : -1;
	return v && *v && !*end && id >= 0 ? id : -1;
}

/* Pod names change only with the pod: a few recent lookups are kept. */
#define K8S_CACHE 8
static bool k8s_of(const struct report *r, struct k8s_names *out)
{
	static struct {
		char uid[40], cid[72];
		int rc;
		struct k8s_names n;
		double t;
	} cache[K8S_CACHE];
	struct timespec ts;

	if (!r->ctx || !r->ctx->pod_uid[0])
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = ts.tv_sec + ts.tv_nsec / 1e9;
	int oldest = 0;
	for (int i = 0; i < K8S_CACHE; i++) {
		if (!strcmp(cache[i].uid, r->ctx->pod_uid) && !strcmp(cache[i].cid, r->ctx->container_id) &&
		    now - cache[i].t < 60) {
			*out = cache[i].n;
			return cache[i].rc == 0;
		}
		if (cache[i].t < cache[oldest].t)
			oldest = i;
	}
	int rc = k8s_names_lookup(service_root(), r->ctx->pod_uid, r->ctx->container_id, out);
	snprintf(cache[oldest].uid, sizeof(cache[oldest].uid), "%s", r->ctx->pod_uid);
	snprintf(cache[oldest].cid, sizeof(cache[oldest].cid), "%s", r->ctx->container_id);
	cache[oldest].rc = rc;
	cache[oldest].n = *out;
	cache[oldest].t = now;
	return rc == 0;
}

static const char *event_of(const struct report *r)
{
	if (r->v.harmless)
		return "nccl_probe";
	return r->ev->kind == MRT_EV_MLOCK_FAILURE ? "mlock_failure" : "reg_failure";
}

void service_report(const struct report *r)
{
	/* a failure record's op (open_device, modify_qp, ...) is its label */
	const char *op = r->api ? r->api : r->ev->kind == MRT_EV_FAILURE && op_name(r->ev->op) ?
		op_name(r->ev->op) : "?";

	metrics_failures(cause_name(r->v.cause), op, r->v.harmless, r->count ? r->count : 1);
	if (S.journal == JOURNAL_YES) {
		struct k8s_names k;
		bool have_k8s = k8s_of(r, &k);
		int rc = journal_report(S.journal_socket, r, event_of(r), have_k8s ? &k : NULL,
					slurm_job_of(r));
		if (rc)
			metrics_output_error("journal");
		if (rc && !S.journal_warned) {
			fprintf(stderr, "mrtrace: cannot send to the journal (%s): %s\n",
				S.journal_socket ? S.journal_socket : JOURNAL_SOCKET, strerror(-rc));
			S.journal_warned = true;
		}
	}
	flush_metrics(false, false);
}

void service_annotate(struct json_object *o, const struct report *r)
{
	struct json_object *p;
	struct k8s_names k;

	if (json_object_object_get_ex(o, "process", &p) &&
	    !json_object_object_get_ex(p, "slurm_job", NULL)) {
		long job = slurm_job_of(r);
		if (job >= 0)
			json_object_object_add(p, "slurm_job", json_object_new_int64(job));
	}
	if (k8s_of(r, &k)) {
		struct json_object *ko = json_object_new_object();
		json_object_object_add(ko, "namespace", json_object_new_string(k.ns));
		json_object_object_add(ko, "pod", json_object_new_string(k.pod));
		if (k.container[0])
			json_object_object_add(ko, "container", json_object_new_string(k.container));
		json_object_object_add(o, "kubernetes", ko);
	}
}

void service_stamp(struct json_object *o)
{
	struct json_object *ev;

	if (!json_object_is_type(o, json_type_object))
		return; /* --list-probes --json: the bare sites array, as documented */
	mrt_version_stamp(o, SCHEMA_WATCH);
	if (S.start_extra && json_object_object_get_ex(o, "event", &ev) &&
	    !strcmp(json_object_get_string(ev), "start")) {
		json_object_object_foreach(S.start_extra, key, val)
			json_object_object_add(o, key, json_object_get(val));
	}
}
