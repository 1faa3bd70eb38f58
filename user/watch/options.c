// SPDX-License-Identifier: GPL-2.0-only
/* options.c - `mrtrace watch`'s command line: its options, its --help, and
 * the configuration file's options in front of them (service.c). */
#include "watch/watch.h"

#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "core/args.h"
#include "core/config.h"
#include "core/escape.h"
#include "tracer/shared.h"
#include "mrtrace_docdir.h" /* MRTRACE_DOCDIR: where the docs are installed */

static const char watch_doc[] =
	"Trace failed RDMA memory registrations and explain each one.\n"
	"\n"
	"mrtrace arms BPF programs on the kernel's registration path (ib_uverbs_reg_mr, "
	"ib_umem_get, the drivers, dma-buf) and, for "
	"every registration that fails, prints the cause with numbers and the fix for where "
	"the process runs (systemd unit, container, Slurm, mpirun, shell). It first says "
	"which evidence it could arm on this kernel and what the missing pieces mean.\n"
	"\n"
	"Examples:\n"
	"  mrtrace watch                     # whole system until Ctrl-C\n"
	"  mrtrace watch -p 4242 -d 600      # one process, ten minutes\n"
	"  mrtrace watch --json -- ./train.sh  # run a command under tracing\n"
	"  mrtrace watch -c system.slice/job.service\n"
	"  mrtrace watch --list-probes       # what can be armed here, then exit\n"
	"\n"
	"Exit status: the command's status with -- CMD (2 when it cannot be run); otherwise "
	"0, or 1 when nothing could be armed.  SIGINT, SIGTERM and SIGQUIT stop with the "
	"stop record, SIGHUP reopens -o FILE (or standard output appending to a file).\v"
	"Needs root (or CAP_BPF+CAP_PERFMON) and a kernel with BTF. Overhead: nothing per "
	"syscall unless syscall tracepoints are armed (see --syscalls), and nothing for work "
	"that registers no memory unless --hot-sites is given.";

enum { OPT_JSON = 1000, OPT_LIST, OPT_SYSCALLS, OPT_ALL, OPT_DEBUG, OPT_NO_CACHE, OPT_HOT,
       OPT_REDACT, OPT_NO_REDACT };

static const struct argp_option watch_opts[] = {
	{ "pid", 'p', "PID", 0, "Only this process (all its threads)", 0 },
	{ "cgroup", 'c', "CGROUP", 0,
	  "Only processes in this cgroup v2 directory or below (path, or relative to "
	  "/sys/fs/cgroup)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line (" MRTRACE_DOCDIR "/json.md)", 0 },
	{ "output", 'o', "FILE", 0,
	  "Append the records to FILE instead of stdout (keeps a command's own output out "
	  "of the JSON stream with -- CMD); SIGHUP reopens it (log rotation)", 0 },
	{ "verbose", 'v', NULL, 0, "Show each event's kernel trail, and at start the table of sites (as --list-probes)", 0 },
	{ "list-probes", OPT_LIST, NULL, 0,
	  "Print every site, whether it is armed and how, then exit", 0 },
	{ "syscalls", OPT_SYSCALLS, "auto|on|off", 0,
	  "mlock/setrlimit syscall tracepoints (costly: every syscall slows while armed). "
	  "auto (default): only on a kernel with RDMA whose registration path cannot be "
	  "armed; on a kernel without RDMA nothing is armed per syscall: watch waits for "
	  "an RDMA module and arms the registration path then; on: always", 0 },
	{ "hot-sites", OPT_HOT, NULL, 0,
	  "Also probe the kernel functions every process calls (capable, pin_user_pages_fast, "
	  "DMA mapping, IOVA, dma-buf, page migration): exact answers where ib_umem_get's own "
	  "evidence is not enough, at a cost for unrelated work (mrtrace.8, OVERHEAD)", 0 },
	{ "all", OPT_ALL, NULL, 0, "Also show harmless probes (NCCL's dma-buf probe)", 0 },
	{ "debug-libbpf", OPT_DEBUG, NULL, 0,
	  "Also print libbpf's debug messages (its warnings are printed anyway)", 0 },
	{ "no-cache", OPT_NO_CACHE, NULL, 0,
	  "Probe the kernel afresh: neither read nor write the kernel facts cached per "
	  "kernel build and module set in /var/cache/mrtrace/facts ($MRTRACE_CACHE_DIR)", 0 },
	{ "redact", OPT_REDACT, NULL, 0,
	  "Keep of a process's command line only argv[0] and its launcher and NCCL "
	  "arguments, and mask credential-like values (tokens, keys, passwords) in it and "
	  "in NCCL_* values, in every output (default with --service)", 0 },
	{ "no-redact", OPT_NO_REDACT, NULL, 0,
	  "Write command lines and NCCL_* values as they are (the default without "
	  "--service)", 0 },
	{ 0 },
};

static error_t watch_parse(int key, char *arg, struct argp_state *state)
{
	struct watch_args *a = state->input;

	switch (key) {
	case 'p':
		if (args_pid(arg, &a->pid))
			cfg_argp_error(state, "invalid PID '%s' (1..%d)", arg, ARGS_PID_MAX);
		break;
	case 'c': a->cgroup = arg; break;
	case 'o': a->output = arg; break;
	case 'd':
		if (args_seconds(arg, &a->duration))
			cfg_argp_error(state, "invalid duration '%s' (seconds, a finite number > 0)", arg);
		break;
	case 'v': a->verbose = true; break;
	case OPT_JSON: a->json = true; break;
	case OPT_LIST: a->list_probes = true; break;
	case OPT_ALL: a->all = true; break;
	case OPT_DEBUG: a->libbpf_debug = true; break;
	case OPT_NO_CACHE: a->no_cache = true; break;
	case OPT_HOT: a->hot_sites = true; break;
	case OPT_REDACT: a->redact = true; break;
	case OPT_NO_REDACT: a->redact = false; break;
	case OPT_SYSCALLS:
		if (!strcmp(arg, "auto"))
			a->syscalls = SYSCALLS_AUTO;
		else if (!strcmp(arg, "on"))
			a->syscalls = SYSCALLS_ON;
		else if (!strcmp(arg, "off"))
			a->syscalls = SYSCALLS_OFF;
		else
			cfg_argp_error(state, "--syscalls takes auto, on or off, not '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		/* the command after "--" (argp stops option parsing there) */
		a->cmd = &state->argv[state->next - 1];
		a->ncmd = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->svc; /* the service's options */
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int watch_parse_args(struct watch_args *a, int argc, char **argv)
{
	struct argp argp = { watch_opts, watch_parse, "[-- COMMAND [ARGS...]]", watch_doc,
			     service_argp_children, 0, 0 };

	if (service_args(&argp, &argc, &argv) || argp_parse(&argp, argc, argv, 0, NULL, a))
		return 2;
	if (a->pid && a->ncmd) {
		fprintf(stderr, "mrtrace watch: -p and -- COMMAND exclude each other\n");
		return 2;
	}
	if (a->pid && kill(a->pid, 0) && errno == ESRCH) {
		fprintf(stderr, "mrtrace watch: no process %d\n", a->pid);
		return 2;
	}
	/* a cgroup that is not there is a request error, like a process that
	 * is not there (it was found only while arming: exit 1, "mrtrace:") */
	if (a->cgroup) {
		char buf[4096], err[4400];
		int fd = tracer_cgroup_open(service_cgroup(&a->svc, a->cgroup, buf, sizeof(buf)), err,
					    sizeof(err));
		if (fd < 0) {
			fprintf(stderr, "mrtrace watch: %s\n", esc(err));
			return 2;
		}
		close(fd);
	}
	return 0;
}
