// SPDX-License-Identifier: GPL-2.0-only
/* cmd.c - `mrtrace check` command line. */
#include "check/check.h"
#include "check/expect.h"
#include "check/fleet.h"
#include "commands.h"
#include "core/args.h"
#include "core/config.h"
#include "mrtrace_docdir.h" /* MRTRACE_DOCDIR: where the docs are installed */
#include "core/outfile.h"

#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_REQUIRE_RDMA = 0x6101, OPT_PARTITION, OPT_FEATURES };

struct check_args {
	struct chk_options opt;
	bool json;
};

static const char doc[] =
	"Inspect this node, or one process with -p, for what decides whether RDMA memory "
	"registration can work, and give each item a verdict (OK, WARN, FAIL, ?? = could not "
	"read) with the evidence. No BPF needed.\n"
	"\n"
	"Areas: memlock (RLIMIT_MEMLOCK, VmPin/VmLck, CAP_IPC_LOCK and whether it is held only "
	"in a user namespace), hugepages, CMA pageblocks, RDMA devices and ports (state, LID/SM, PKeys, GIDs, "
	"whether /dev/infiniband opens in the job's mount namespace), GPUDirect (nvidia_peermem, "
	"the peer-memory markers the job's NCCL looks for, dma-buf support, NVIDIA driver), IOMMU mode and PCIe ACS, GPU-to-NIC PCIe distance "
	"(PIX/PXB/PHB/NODE/SYS), and NCCL settings (variables NCCL does not read, NCCL_IB_HCA).\n"
	"\n"
	"The summary classifies the node the way ncclSystemError is triaged: an environment "
	"problem (limits, privileges, container passthrough, drivers, settings) or an "
	"InfiniBand resource problem (port down, no subnet manager / LID 0, PKey), and says "
	"what to run next.\n"
	"\n"
	"The trap this avoids: `ulimit -l` in your shell says nothing about a job started by "
	"slurmd, containerd, systemd or sshd. Without -p, check shows the defaults those "
	"launchers give new jobs, each labelled; with -p it shows the limit the kernel "
	"enforces for that process.\n"
	"\n"
	"Exit status: 0 nothing fails (warnings allowed), 1 at least one FAIL, 2 usage error "
	"or the report could not be written (disk full, a closed pipe). With --health: 0 OK, "
	"1 WARN, 2 FAIL (drain), 3 usage error or no line written (never a verdict)."
	"\v"
	"Examples:\n"
	"  mrtrace check                          this node, defaults for new jobs\n"
	"  mrtrace check -p $(pgrep -f train.py | head -1)\n"
	"  mrtrace check --json > $(hostname).json; mrtrace diff node*.json\n"
	"  mrtrace check --sysroot /mnt/node7     a copied /proc, /sys, /etc, /dev tree\n"
	"\n"
	"The JSON schema is in " MRTRACE_DOCDIR "/check.md.";

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Judge this process: its limits, capabilities, container, "
	  "device nodes and NCCL settings", 0 },
	{ "json", 'j', NULL, 0, "One JSON document (schema mrtrace-check/1) on one line", 0 },
	{ "sysroot", 'r', "DIR", 0, "Read /proc, /sys, /etc and /dev below DIR instead of / "
	  "(recorded trees, tests)", 0 },
	/* where RDMA is expected (check/expect.h); with the node tooling's
	 * options in --help, the configuration's [check] sets it for the fleet */
	{ "require-rdma", OPT_REQUIRE_RDMA, "WHEN", 0,
	  "Where --health judges RDMA (memlock, devices, ports): auto (default: where the node "
	  "has RDMA hardware), yes, no, or partition:PATTERN,feature:PATTERN (also where the "
	  "job's partition or a node feature matches); elsewhere they are n/a", 20 },
	{ "slurm-partition", OPT_PARTITION, "NAME", 0,
	  "The job's partition, for require-rdma's partition: selectors (the Slurm prolog passes "
	  "SLURM_JOB_PARTITION)", 20 },
	{ "node-features", OPT_FEATURES, "LIST", 0,
	  "The node's features, comma-separated, for require-rdma's feature: selectors", 20 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct check_args *a = st->input;
	switch (key) {
	case 'p':
		if (args_pid(arg, &a->opt.pid))
			cfg_argp_error(st, "-p needs a process id (1..%d), got '%s'", ARGS_PID_MAX, arg);
		break;
	case 'j':
		a->json = true;
		break;
	case 'r': {
		/* a report about a tree that is not there would be made up */
		struct stat sb;
		char p[PATH_MAX];
		int parts = 0;
		if (stat(arg, &sb))
			cfg_argp_error(st, "--sysroot %s: %s", arg, strerror(errno));
		else if (!S_ISDIR(sb.st_mode))
			cfg_argp_error(st, "--sysroot %s: not a directory", arg);
		for (const char *const *d = (const char *const[]){ "proc", "sys", "etc", NULL }; *d; d++) {
			snprintf(p, sizeof(p), "%s/%s", arg, *d);
			parts += !stat(p, &sb) && S_ISDIR(sb.st_mode);
		}
		if (!parts)
			cfg_argp_error(st, "--sysroot %s: no proc/, sys/ or etc/ in it: not a node's tree", arg);
		a->opt.root = arg;
		break;
	}
	case OPT_REQUIRE_RDMA: {
		struct chk_rdma_expect *e = &chk_rdma_expect_opts;
		char bad[64];
		if (chk_rdma_expect_parse(arg, e, bad, sizeof(bad)))
			cfg_argp_error(st, "--require-rdma: '%s' is not auto, yes, no, partition:PATTERN "
				   "or feature:PATTERN", bad);
		break;
	}
	case OPT_PARTITION:
		snprintf(chk_rdma_expect_opts.partition, sizeof(chk_rdma_expect_opts.partition), "%s", arg);
		break;
	case OPT_FEATURES:
		snprintf(chk_rdma_expect_opts.features, sizeof(chk_rdma_expect_opts.features), "%s", arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		/* one output: --json beside --health or --prom was ignored */
		if (a->json && chk_fleet_mode())
			argp_error(st, "--json and %s exclude each other", chk_fleet_mode());
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct argp argp = { options, parse, NULL, doc, chk_fleet_argp_children,
					  NULL, NULL };
	struct check_args a = { 0 };
	/* usage errors under --health are 3, never FAIL's 2 (fleet.h); the
	 * configuration may add --health: looked for again after it */
	int usage = chk_usage_status(argc, argv);
	argp_err_exit_status = usage;
	if (chk_fleet_args(&argp, &argc, &argv))
		return usage;
	argp_err_exit_status = usage = chk_usage_status(argc, argv);
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return usage;
	struct chk_report r;
	if (chk_run(&a.opt, &r)) {
		fprintf(stderr, "mrtrace check: out of memory\n");
		return usage;
	}
	/* a process that is not there is a usage error, as for watch -p: no
	 * report of the node that a caller could take for the process's (a
	 * zombie or a kernel thread is there: the report says what it is) */
	if (a.opt.pid > 0 && r.target_missing) {
		fprintf(stderr, "mrtrace check: no process %d\n", a.opt.pid);
		chk_report_free(&r);
		return usage;
	}
	int rc = chk_exit_status(&r);
	char err[256];
	FILE *out = outfile_open(NULL, a.json ? OUTFILE_JSON : OUTFILE_TEXT, err, sizeof(err));
	if (!out) {
		fprintf(stderr, "mrtrace check: %s\n", err);
		chk_report_free(&r);
		return usage;
	}
	if (chk_fleet_output(&r, out, &rc))
		; /* --prom / --health wrote their own output */
	else if (a.json)
		fprintf(out, "%s\n", chk_json_string(&r));
	else
		chk_print_text(&r, out);
	chk_report_free(&r);
	/* a report that did not reach its file is no report */
	if (outfile_close(out, err, sizeof(err))) {
		fprintf(stderr, "mrtrace check: %s\n", err);
		rc = usage;
	}
	return rc;
}
