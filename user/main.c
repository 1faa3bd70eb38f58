// SPDX-License-Identifier: GPL-2.0-only
/* main.c - mrtrace: explain why RDMA memory registration failed.
 * Dispatches to the subcommands; each parses its own options. */
#include <argp.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "core/version.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} commands[] = {
	{ "watch", cmd_watch, "trace failed registrations and explain them (BPF)" },
	{ "check", cmd_check, "the troubleshooting checklist for this node or a process (no BPF)" },
	{ "diff", cmd_diff, "compare `check --json` reports from several nodes" },
	{ "explain", cmd_explain, "explain recorded `watch --json` failures again (no BPF)" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: mrtrace COMMAND [OPTIONS]\n"
		"\n"
		"Explains why RDMA memory registration failed (NCCL's \"ibv_reg_mr_iova2 failed\n"
		"with error Cannot allocate memory\", ncclSystemError) from kernel evidence, and\n"
		"says what to change where the job runs.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-7s %s\n", commands[i].name, commands[i].what);
	fprintf(out, "\n"
		     "Run 'mrtrace COMMAND --help' for a command's options. Examples:\n"
		     "  sudo mrtrace watch -- ./train.sh\n"
		     "  mrtrace check -p $(pgrep -f train.py | head -1)\n"
		     "  mrtrace diff node*.json\n"
		     "  mrtrace explain events.jsonl\n"
		     "\n"
		     "mrtrace --version (-V) prints the version.\n");
}

int main(int argc, char **argv)
{
	argp_err_exit_status = 2; /* usage errors: 2, as documented */
	static char version[160]; /* argp adds -V/--version to every subcommand */
	snprintf(version, sizeof(version), "mrtrace %s", mrt_version());
	argp_program_version = version;
	if (argc >= 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("%s\n", version);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			/* argv[0] becomes "mrtrace watch" for argp's messages */
			static char prog[64];
			snprintf(prog, sizeof(prog), "mrtrace %s", commands[i].name);
			argv[1] = prog;
			/* -h is help everywhere (argp knows only -? and --help); after
			 * "--" the words are the traced command's */
			for (int a = 2; a < argc && strcmp(argv[a], "--"); a++)
				if (!strcmp(argv[a], "-h"))
					argv[a] = (char *)"--help";
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "mrtrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
