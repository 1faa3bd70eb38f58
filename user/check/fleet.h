/* SPDX-License-Identifier: GPL-2.0-only */
/* fleet.h - `mrtrace check` outputs for node tooling: --health (one line
 * and a Nagios-style exit status for Slurm prologs and NHC), --prom
 * (Prometheus text), and the thresholds they use, which the [check]
 * section of /etc/mrtrace/mrtrace.conf may set. */
#ifndef MRTRACE_CHECK_FLEET_H
#define MRTRACE_CHECK_FLEET_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "check/check.h"

/* What the health line is judged against. */
struct chk_health_opts {
	uint64_t min_memlock; /* bytes a job needs (default 64 MiB) */
	bool slurm; /* -p is slurmd: judge what its jobs get */
	char ignore[512]; /* comma-separated item id patterns (fnmatch) */
};

enum chk_health { CHK_HEALTH_OK = 0, CHK_HEALTH_WARN = 1, CHK_HEALTH_FAIL = 2 };

#define CHK_HEALTH_LINE_MAX 80

/* The verdict and its line (at most CHK_HEALTH_LINE_MAX characters, no
 * newline): "mrtrace: FAIL mlx5_1 port 1: DOWN Polling ... (+1 more)". */
enum chk_health chk_health_judge(const struct chk_report *r, const struct chk_health_opts *o,
				 char *line, size_t len);

/* Prometheus text for a report (caller frees); health is included. */
char *chk_prom_render(const struct chk_report *r, const struct chk_health_opts *o, size_t *len);

/* The options --health, --prom[=FILE], --min-memlock, --slurm,
 * --health-ignore (and --config, --no-config), as an argp child. */
extern const struct argp_child chk_fleet_argp_children[];

/* First thing cmd_check does: the configuration's [check] section becomes
 * options in front of argv.  0, or the usage status (said on stderr). */
int chk_fleet_args(const struct argp *argp, int *argc, char ***argv);

/* The exit status of a usage error (a bad option, conflicting options, no
 * such process, a report that could not be written): 2, but 3 (Nagios'
 * UNKNOWN) when --health is among args (before a "--"), where 2 is FAIL and
 * a wrapper that reads only the status would drain the node on a typo.
 * Looked for before the options are parsed, so that an error in an option
 * before --health exits 3 too. */
int chk_usage_status(int argc, char **argv);
#define CHK_USAGE_HEALTH 3

/* The option that chose the output, "--health" or "--prom", NULL for none:
 * --json with either is a usage error (it was ignored). */
const char *chk_fleet_mode(void);
/* After chk_run: stamps the version into the JSON document, and prints
 * --health or --prom output to out (standard output through
 * core/outfile.h, whose close says a write error) when asked.  Returns
 * true when it printed (then *rc is the exit status), false to let check
 * print as usual. */
bool chk_fleet_output(struct chk_report *r, FILE *out, int *rc);

#endif
