// SPDX-License-Identifier: GPL-2.0-only
/* cmd.c - `mrtrace diff` command line. */
#include "diff/diff.h"

#include "commands.h"
#include "core/escape.h"
#include "core/outfile.h"

#include <argp.h>
#include <stdio.h>
#include <stdlib.h>

static const char diff_doc[] =
	"Compare `mrtrace check --json` reports from the nodes of a job and print what "
	"differs: nodes outside the majority first, then drift, then the groups of nodes that "
	"agree on everything compared.\n"
	"\n"
	"Breaking differences (exit 1): memlock limits and defaults, CAP_IPC_LOCK, RDMA devices, "
	"port state / physical state / link layer / PKeys, device-node access, GPUDirect path, "
	"GPU count, IOMMU mode, NCCL version and settings, and any verdict that is FAIL on some "
	"nodes only. Drift (reported, exit 0): firmware, driver and kernel versions, link rate, "
	"MTU, hugepage pools, nearest NIC per GPU.\n"
	"\n"
	"A report is read as untrusted input: '-' is standard input, a file named twice is "
	"read once, and a report over 16 MiB, a device or a directory is refused.\n"
	"\n"
	"Exit status: 0 no breaking difference, 1 a breaking difference, 2 usage error, a "
	"report that cannot be read (the message names the file and what is wrong), or an "
	"error writing the output."
	"\v"
	"Example:\n"
	"  for h in $(scontrol show hostnames $SLURM_NODELIST); do\n"
	"    ssh $h mrtrace check --json > $h.json; done\n"
	"  mrtrace diff *.json\n"
	"  ssh node7 mrtrace check --json | mrtrace diff node1.json -";

struct diff_args {
	int n;
	const char **files;
};

static error_t diff_parse(int key, char *arg, struct argp_state *st)
{
	struct diff_args *a = st->input;
	switch (key) {
	case ARGP_KEY_ARG:
		a->files[a->n++] = arg;
		break;
	case ARGP_KEY_END:
		if (a->n < 2)
			argp_error(st, "give at least two reports (got %d)", a->n);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	/* no options of its own: NULL, since glibc's argp leaks the help table
	 * of an empty option array (LeakSanitizer on --help) */
	static const struct argp argp = { NULL, diff_parse, "A.json B.json [C.json ...]", diff_doc,
					  NULL, NULL, NULL };
	struct diff_args a = { 0, calloc((size_t)argc + 1, sizeof(char *)) };
	if (!a.files)
		return 2;
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, &a)) {
		free(a.files);
		return 2;
	}
	char err[512];
	FILE *out = outfile_open(NULL, OUTFILE_TEXT, err, sizeof(err));
	if (!out) {
		fprintf(stderr, "mrtrace diff: %s\n", err);
		free(a.files);
		return 2;
	}
	int rc = diff_files(a.n, a.files, out, NULL, err, sizeof(err));
	if (rc == 2)   /* member names come from the report: escaped */
		fprintf(stderr, "mrtrace diff: %s\n", esc(err));
	if (outfile_close(out, err, sizeof(err))) {
		fprintf(stderr, "mrtrace diff: %s\n", err);
		rc = 2;
	}
	free(a.files);
	return rc;
}
