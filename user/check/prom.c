// SPDX-License-Identifier: GPL-2.0-only
/* prom.c - `check --prom` (Prometheus text) and the check options for node
 * tooling: --health, --prom, thresholds, configuration (fleet.h).
 *
 * Families (docs/deploy.md lists them):
 *   mrtrace_build_info{version,command="check"}        gauge 1
 *   mrtrace_check_timestamp_seconds                     gauge
 *   mrtrace_check_items{verdict,class}                  gauge
 *   mrtrace_check_verdict{verdict}                      gauge, 1 for the overall one
 *   mrtrace_check_health_status                         gauge 0 OK, 1 WARN, 2 FAIL
 *   mrtrace_check_rdma_expected                         gauge 1 / 0 (check/expect.h)
 *   mrtrace_check_memlock_default_bytes{source}         gauge (+Inf: unlimited)
 *   mrtrace_check_memlock_process_bytes{limit}          gauge, with -p
 * Sources are fixed names (systemd_default, the job units, docker_default_ulimit,
 * limits_conf: the smallest memlock value there, this_shell); no pid label. */
#include "check/fleet.h"
#include "check/expect.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/promtext.h"
#include "core/version.h"

static double limit_value(json_object *v)
{
	if (json_object_is_type(v, json_type_string))
		return INFINITY; /* "unlimited" */
	return (double)json_object_get_int64(v);
}

static void memlock_defaults(FILE *f, json_object *sec)
{
	json_object *v, *o;
	const char *name = "mrtrace_check_memlock_default_bytes";

	if (json_object_object_get_ex(sec, "systemd_default", &o) &&
	    json_object_object_get_ex(o, "soft_bytes", &v) && v)
		prom_sample(f, name, (const char *const[]){ "source", "systemd_default", NULL },
			    limit_value(v));
	else if (json_object_object_get_ex(sec, "systemd_default", &o))
		prom_sample(f, name, (const char *const[]){ "source", "systemd_default", NULL },
			    8 << 20); /* systemd's built-in DefaultLimitMEMLOCK */
	if (json_object_object_get_ex(sec, "units", &o)) {
		json_object_object_foreach(o, unit, u)
			if (json_object_object_get_ex(u, "effective_soft_bytes", &v) && v)
				prom_sample(f, name, (const char *const[]){ "source", unit, NULL },
					    limit_value(v));
	}
	if (json_object_object_get_ex(sec, "docker_default_ulimit", &o) &&
	    json_object_object_get_ex(o, "soft_bytes", &v) && v)
		prom_sample(f, name, (const char *const[]){ "source", "docker_default_ulimit", NULL },
			    limit_value(v));
	if (json_object_object_get_ex(sec, "limits_conf", &o) && json_object_array_length(o)) {
		double min = INFINITY;
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (json_object_object_get_ex(json_object_array_get_idx(o, i), "bytes", &v))
				min = fmin(min, limit_value(v));
		prom_sample(f, name, (const char *const[]){ "source", "limits_conf", NULL }, min);
	}
	if (json_object_object_get_ex(sec, "this_shell", &o) &&
	    json_object_object_get_ex(o, "soft_bytes", &v) && v)
		prom_sample(f, name, (const char *const[]){ "source", "this_shell", NULL },
			    limit_value(v));
}

char *chk_prom_render(const struct chk_report *r, const struct chk_health_opts *o, size_t *len)
{
	char *text = NULL, line[CHK_HEALTH_LINE_MAX + 1];
	FILE *f = open_memstream(&text, len);
	json_object *sec, *p, *v;
	int count[4][3] = { { 0 } };

	if (!f)
		return NULL;
	prom_family(f, "mrtrace_build_info", "gauge",
		    "mrtrace build that wrote these metrics (always 1).");
	prom_sample(f, "mrtrace_build_info",
		    (const char *const[]){ "version", mrt_version(), "command", "check", NULL }, 1);
	prom_family(f, "mrtrace_check_timestamp_seconds", "gauge",
		    "When mrtrace check ran (Unix time).");
	prom_sample(f, "mrtrace_check_timestamp_seconds", NULL, (double)time(NULL));

	for (int i = 0; i < r->n_items; i++)
		count[r->items[i].verdict & 3][(unsigned)r->items[i].cls % 3]++;
	prom_family(f, "mrtrace_check_items", "gauge",
		    "Checklist items by verdict and class (environment, infiniband, none).");
	for (int v = 0; v < 4; v++)
		for (int c = 0; c < 3; c++)
			prom_sample(f, "mrtrace_check_items",
				    (const char *const[]){ "verdict", chk_verdict_name(v), "class",
							   chk_class_name(c), NULL },
				    count[v][c]);
	prom_family(f, "mrtrace_check_verdict", "gauge",
		    "The overall checklist verdict (1 for the one that holds).");
	enum chk_verdict overall = chk_overall(r);
	for (int v = 0; v < 4; v++)
		prom_sample(f, "mrtrace_check_verdict",
			    (const char *const[]){ "verdict", chk_verdict_name(v), NULL },
			    v == (int)overall);
	prom_family(f, "mrtrace_check_health_status", "gauge",
		    "What check --health says: 0 OK, 1 WARN, 2 FAIL (drain).");
	prom_sample(f, "mrtrace_check_health_status", NULL,
		    chk_health_judge(r, o, line, sizeof(line)));
	prom_family(f, "mrtrace_check_rdma_expected", "gauge",
		    "1 where RDMA is expected (RDMA hardware, or require-rdma), 0 where it is n/a.");
	prom_sample(f, "mrtrace_check_rdma_expected", NULL,
		    chk_rdma_expected(r, &chk_rdma_expect_opts, line, sizeof(line)));

	if (json_object_object_get_ex(r->doc, "memlock", &sec)) {
		prom_family(f, "mrtrace_check_memlock_default_bytes", "gauge",
			    "RLIMIT_MEMLOCK new jobs get, by where it comes from (+Inf: unlimited).");
		memlock_defaults(f, sec);
		if (json_object_object_get_ex(sec, "process", &p)) {
			prom_family(f, "mrtrace_check_memlock_process_bytes", "gauge",
				    "RLIMIT_MEMLOCK of the process given with -p (+Inf: unlimited).");
			if (json_object_object_get_ex(p, "soft_bytes", &v) && v)
				prom_sample(f, "mrtrace_check_memlock_process_bytes",
					    (const char *const[]){ "limit", "soft", NULL }, limit_value(v));
			if (json_object_object_get_ex(p, "hard_bytes", &v) && v)
				prom_sample(f, "mrtrace_check_memlock_process_bytes",
					    (const char *const[]){ "limit", "hard", NULL }, limit_value(v));
		}
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- options ------------------------------------------------------------------ */

static struct {
	bool health;
	bool prom;
	const char *prom_file;
	struct chk_health_opts h;
} F = { .h = { .min_memlock = 64ULL << 20 } };

enum { OPT_HEALTH = 0x6001, OPT_PROM, OPT_MIN_MEMLOCK, OPT_SLURM, OPT_IGNORE };

static const struct argp_option fleet_opts[] = {
	{ NULL, 0, NULL, 0, "Node tooling (Slurm prolog, NHC, Prometheus):", 20 },
	{ "health", OPT_HEALTH, NULL, 0,
	  "One line of at most 80 characters; exit 0 OK, 1 WARN, 2 FAIL (drain the node), "
	  "3 usage error (never a verdict)", 20 },
	{ "prom", OPT_PROM, "FILE", OPTION_ARG_OPTIONAL,
	  "Prometheus text on stdout, or written to FILE for node_exporter's textfile "
	  "collector (temporary file, then rename)", 20 },
	{ "min-memlock", OPT_MIN_MEMLOCK, "BYTES", 0,
	  "--health fails a memlock limit below this (default 64M; K, M, G, unlimited)", 20 },
	{ "slurm", OPT_SLURM, NULL, 0,
	  "With -p SLURMD_PID: judge the limit slurmd's jobs get (with PropagateResourceLimits, "
	  "srun's limit capped by slurmd's hard limit)", 20 },
	{ "health-ignore", OPT_IGNORE, "IDS", 0,
	  "Comma-separated item ids or patterns --health ignores (rdma.mlx5_3.*,iommu.*)", 20 },
	{ 0 },
};

static error_t fleet_parse(int key, char *arg, struct argp_state *state)
{
	unsigned long long b;

	switch (key) {
	case OPT_HEALTH: F.health = true; break;
	case OPT_PROM:
		F.prom = true;
		F.prom_file = arg && *arg && strcmp(arg, "-") ? arg : NULL;
		break;
	case OPT_MIN_MEMLOCK:
		if (cfg_parse_bytes(arg, &b))
			cfg_argp_error(state, "invalid --min-memlock '%s' (bytes, with K, M, G)", arg);
		F.h.min_memlock = b;
		break;
	case OPT_SLURM: F.h.slurm = true; break;
	case OPT_IGNORE: snprintf(F.h.ignore, sizeof(F.h.ignore), "%s", arg); break;
	case ARGP_KEY_END:
		if (F.health && F.prom)
			argp_error(state, "--health and --prom exclude each other");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child fleet_children[] = {
	{ &cfg_argp, 0, NULL, 21 },
	{ 0 },
};
static const struct argp fleet_argp = { fleet_opts, fleet_parse, NULL, NULL, fleet_children,
					NULL, NULL };
const struct argp_child chk_fleet_argp_children[] = {
	{ &fleet_argp, 0, NULL, 20 },
	{ 0 },
};

int chk_usage_status(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--health"))
			return CHK_USAGE_HEALTH;
	return 2;
}

const char *chk_fleet_mode(void)
{
	return F.health ? "--health" : F.prom ? "--prom" : NULL;
}

int chk_fleet_args(const struct argp *argp, int *argc, char ***argv)
{
	static const char *const sections[] = { "check", NULL };
	char err[512];

	if (cfg_apply_args(argp, sections, NULL, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "mrtrace check: %s\n", err);
		return chk_usage_status(*argc, *argv);
	}
	return 0;
}

bool chk_fleet_output(struct chk_report *r, FILE *out, int *rc)
{
	mrt_version_stamp(r->doc, NULL);
	if (F.health) {
		char line[CHK_HEALTH_LINE_MAX + 1];
		*rc = chk_health_judge(r, &F.h, line, sizeof(line));
		fprintf(out, "%s\n", line);
		return true;
	}
	if (!F.prom)
		return false;
	*rc = 0; /* the verdict is in the metrics; a timer must not fail on it */
	size_t len = 0;
	char *text = chk_prom_render(r, &F.h, &len);
	if (!text) {
		fprintf(stderr, "mrtrace check: out of memory\n");
		*rc = 2;
		return true;
	}
	if (F.prom_file) {
		int e = prom_write_atomic(F.prom_file, text, len);
		if (e) {
			fprintf(stderr, "mrtrace check: cannot write %s: %s\n", F.prom_file, strerror(-e));
			*rc = 2;
		}
	} else {
		fwrite(text, 1, len, out);
	}
	free(text);
	return true;
}
