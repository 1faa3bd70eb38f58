// SPDX-License-Identifier: GPL-2.0-only
/* watch.c - `mrtrace watch`: arm what this kernel allows, then explain every
 * failed registration (and failed mlock) as it happens.
 *
 * Ring buffer records go through the correlator (correlate.h): a kernel
 * record is joined with its libibverbs call, /proc is read once per process
 * as its first record arrives (while it most likely still exists), and the
 * explained reports come back to on_report(). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer/tracer.h"
#include "commands.h"
#include "core/args.h"
#include "core/outfile.h"
#include "core/privs.h"
#include "report/report.h"
#include "watch/correlate.h"
#include "watch/probes.h"
#include "watch/service.h"
#include "watch/stamp.h"

struct watch_args {
	int pid;
	const char *cgroup;
	const char *output; /* -o FILE, else stdout */
	double duration;
	bool json, verbose, list_probes, all, libbpf_debug, no_cache;
	enum syscalls_policy syscalls;
	char **cmd; /* after "--" */
	int ncmd;
};

static const char watch_doc[] =
	"Trace failed RDMA memory registrations and explain each one.\n"
	"\n"
	"mrtrace arms BPF programs on the kernel's registration path (ib_uverbs_reg_mr, "
	"ib_umem_get, capable(CAP_IPC_LOCK), page pinning, DMA mapping, dma-buf) and, for "
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
	"Exit status: the command's status with -- CMD; otherwise 0, or 1 when nothing "
	"could be armed.\v"
	"Needs root (or CAP_BPF+CAP_PERFMON) and a kernel with BTF. Overhead: nothing per "
	"syscall unless syscall tracepoints are armed (see --syscalls); the registration path "
	"runs a map lookup per call of capable() and pin_user_pages_fast().";

enum { OPT_JSON = 1000, OPT_LIST, OPT_SYSCALLS, OPT_ALL, OPT_DEBUG, OPT_NO_CACHE };

static const struct argp_option watch_opts[] = {
	{ "pid", 'p', "PID", 0, "Only this process (all its threads)", 0 },
	{ "cgroup", 'c', "CGROUP", 0,
	  "Only processes in this cgroup v2 directory or below (path, or relative to "
	  "/sys/fs/cgroup)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line (docs/json.md)", 0 },
	{ "output", 'o', "FILE", 0,
	  "Append the records to FILE instead of stdout (keeps a command's own output out "
	  "of the JSON stream with -- CMD); SIGHUP reopens it (log rotation)", 0 },
	{ "verbose", 'v', NULL, 0, "Show each event's kernel trail", 0 },
	{ "list-probes", OPT_LIST, NULL, 0,
	  "Print every site, whether it is armed and how, then exit", 0 },
	{ "syscalls", OPT_SYSCALLS, "auto|on|off", 0,
	  "mlock/setrlimit syscall tracepoints (costly: every syscall slows while armed). "
	  "auto = only when no registration site can be armed (default)", 0 },
	{ "all", OPT_ALL, NULL, 0, "Also show harmless probes (NCCL's dma-buf probe)", 0 },
	{ "debug-libbpf", OPT_DEBUG, NULL, 0,
	  "Also print libbpf's debug messages (its warnings are printed anyway)", 0 },
	{ "no-cache", OPT_NO_CACHE, NULL, 0,
	  "Probe the kernel afresh: neither read nor write the kernel facts cached per "
	  "kernel build and module set in /var/cache/mrtrace/facts ($MRTRACE_CACHE_DIR)", 0 },
	{ 0 },
};

static error_t watch_parse(int key, char *arg, struct argp_state *state)
{
	struct watch_args *a = state->input;

	switch (key) {
	case 'p':
		if (args_pid(arg, &a->pid))
			argp_error(state, "invalid PID '%s' (1..%d)", arg, ARGS_PID_MAX);
		break;
	case 'c': a->cgroup = arg; break;
	case 'o': a->output = arg; break;
	case 'd':
		if (args_seconds(arg, &a->duration))
			argp_error(state, "invalid duration '%s' (seconds, a finite number > 0)", arg);
		break;
	case 'v': a->verbose = true; break;
	case OPT_JSON: a->json = true; break;
	case OPT_LIST: a->list_probes = true; break;
	case OPT_ALL: a->all = true; break;
	case OPT_DEBUG: a->libbpf_debug = true; break;
	case OPT_NO_CACHE: a->no_cache = true; break;
	case OPT_SYSCALLS:
		if (!strcmp(arg, "auto"))
			a->syscalls = SYSCALLS_AUTO;
		else if (!strcmp(arg, "on"))
			a->syscalls = SYSCALLS_ON;
		else if (!strcmp(arg, "off"))
			a->syscalls = SYSCALLS_OFF;
		else
			argp_error(state, "--syscalls takes auto, on or off, not '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		/* the command after "--" (argp stops option parsing there) */
		a->cmd = &state->argv[state->next - 1];
		a->ncmd = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static volatile sig_atomic_t stop, reopen;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_hangup(int sig)
{
	(void)sig;
	reopen = 1;
}

struct watch_state {
	struct watch_args *a;
	struct corr *corr; /* records -> reports (join, /proc cache, repeats) */
	unsigned long long drops_reported;
	bool final; /* the end of the run: every storm is summed up */
	double storms_at; /* last sweep of the storm table */
};

static FILE *out; /* records go here: stdout or -o FILE (core/outfile.h) */

/* Closes the records' stream: a write error (disk full) is a failure of the
 * run even when everything else went well. */
static int close_out(int rc)
{
	char err[PATH_MAX + 128];
	if (!outfile_close(out, err, sizeof(err)))
		return rc;
	fprintf(stderr, "mrtrace watch: %s: records were lost\n", err);
	return rc ? rc : 1;
}

/* Every record leaves in one write (core/outfile.h): whole lines whatever
 * log rotation does meanwhile.  A failed write stops the run (the loop
 * checks outfile_failed) and close_out() says so. */
static void write_record(const char *text, size_t len)
{
	outfile_record(out, text, len);
}

static void print_json(struct json_object *o)
{
	service_stamp(o);
	stamp_json(o);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	size_t n = strlen(s);
	char *line = malloc(n + 1);

	if (!line) {
		fprintf(stderr, "mrtrace watch: out of memory: a record is lost\n");
		return;
	}
	memcpy(line, s, n);
	line[n] = '\n';
	write_record(line, n + 1);
	free(line);
}

/* A text record: formatted in memory, then written at once. */
static void print_text(const struct report *r, unsigned long nth, bool verbose)
{
	struct report stamped = *r;
	char when[400], t[64];
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		fprintf(stderr, "mrtrace watch: out of memory: a record is lost\n");
		return;
	}
	stamp_time(r->ev->ts_ns, t, sizeof(t));
	snprintf(when, sizeof(when), "%s on %s", t, stamp_host());
	stamped.when = when;
	if (nth > 1)
		report_print_repeat(m, &stamped, nth);
	else
		report_print_text(m, &stamped, verbose);
	fclose(m);
	write_record(text, len);
	free(text);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The correlator's sink: one explained report.  In text, a repeat of a
 * process's cause is one line (nth > 1). */
static void on_report(void *cookie, const struct report *r, unsigned long nth)
{
	struct watch_state *w = cookie;

	service_report(r);
	if (w->a->json) {
		struct json_object *o = report_to_json(r);
		if (r->v.harmless && r->ev->kind != MRT_EV_FAILURE)
			json_object_object_add(o, "event", json_object_new_string("nccl_probe"));
		service_annotate(o, r);
		print_json(o);
		json_object_put(o);
	} else {
		print_text(r, nth, w->a->verbose);
	}
}

/* A libibverbs file the tracer knows, by inode (correlate_live.c). */
static const char *lib_path(void *arg, unsigned long long ino)
{
	return tracer_libibverbs_path(arg, ino);
}

/* Folded failures that are due (tracer_storms): a summary record each, as
 * soon as the record that opened their run has been written. */
static int on_storm(void *cookie, const struct tracer_storm *s)
{
	struct watch_state *w = cookie;

	return corr_storm(w->corr, &s->key, s->count, s->first_ts_ns, s->last_ts_ns, w->final);
}

static void sweep_storms(struct tracer *t, struct watch_state *w, bool final)
{
	double now = mono_s();

	if (!final && now - w->storms_at < 0.2)
		return;
	w->storms_at = now;
	w->final = final;
	tracer_storms(t, final, on_storm, w);
}

static void print_rlimit(const struct mrt_event *ev)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "event", json_object_new_string("memlock_limit_set"));
	json_object_object_add(o, "ts_ns", json_object_new_uint64(ev->ts_ns));
	json_object_object_add(o, "pid", json_object_new_int(ev->pid));
	if (ev->ns_pid)
		json_object_object_add(o, "ns_pid", json_object_new_int64(ev->ns_pid));
	json_object_object_add(o, "comm", json_object_new_string(ev->comm));
	json_object_object_add(o, "target_pid", json_object_new_int64(ev->cmd_start));
	/* RLIM_INFINITY as "unlimited", as in every other record */
	json_object_object_add(o, "soft_bytes", ev->sys_len == ~0ULL ? json_object_new_string("unlimited")
								       : json_object_new_uint64(ev->sys_len));
	json_object_object_add(o, "hard_bytes", ev->sys_arg == ~0ULL ? json_object_new_string("unlimited")
								       : json_object_new_uint64(ev->sys_arg));
	json_object_object_add(o, "errno", json_object_new_int(ev->err));
	print_json(o);
	json_object_put(o);
}

static int on_event(void *cookie, void *data, size_t size)
{
	struct watch_state *w = cookie;
	const struct mrt_event *ev = data;

	if (size < sizeof(*ev))
		return 0;
	if (ev->kind == MRT_EV_RLIMIT_SET) {
		if (w->a->json)
			print_rlimit(ev);
		return 0;
	}
	corr_push(w->corr, ev);
	return 0;
}

/* Fork the command now, stopped on a pipe, so its pid can be put in the
 * filter before it runs; release it once the probes are attached. */
static pid_t spawn_held(char **cmd, int *release_fd)
{
	int p[2];

	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127); /* mrtrace gave up: do not run untraced */
		close(p[0]);
		execvp(cmd[0], cmd);
		fprintf(stderr, "mrtrace: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}

static void print_start(const struct tracer *t, const struct watch_args *a, pid_t child)
{
	if (a->json) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "event", json_object_new_string("start"));
		json_object_object_add(o, "kernel", json_object_new_string(tracer_kernel(t)));
		json_object_object_add(o, "armed_sites", json_object_new_int(tracer_armed_count(t, false)));
		json_object_object_add(o, "registration_path_armed",
				       json_object_new_boolean(tracer_armed_count(t, true) > 0));
		if (a->pid)
			json_object_object_add(o, "pid", json_object_new_int(a->pid));
		if (child > 0)
			json_object_object_add(o, "command_pid", json_object_new_int(child));
		json_object_object_add(o, "sites", watch_sites_json(t));
		print_json(o);
		json_object_put(o);
	}
	FILE *h = stderr;
	fprintf(h, "mrtrace: kernel %s, %d of %d sites armed\n", tracer_kernel(t),
		tracer_armed_count(t, false), tracer_site_count(t));
	if (!a->json || a->verbose)
		watch_print_sites(t, h);
	watch_print_consequences(t, h);
	fprintf(h, "mrtrace: watching%s%s... (Ctrl-C to stop)\n",
		a->pid ? " one process" : child > 0 ? " the command" : " all processes",
		a->cgroup ? " in the cgroup" : "");
	fflush(h);
}

/* A libibverbs copy found after start (a container's, a conda env's). */
static void report_new_libs(const struct tracer *t, const struct watch_state *w, int added)
{
	for (int i = tracer_lib_count(t) - added; added > 0 && i < tracer_lib_count(t); i++) {
		struct tracer_lib l = tracer_lib(t, i);
		fprintf(stderr, "mrtrace: libibverbs at %s: %d entry points attached\n", l.path,
			l.entry_points);
		if (w->a->json) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "event", json_object_new_string("library_attached"));
			json_object_object_add(o, "path", json_object_new_string(l.path));
			json_object_object_add(o, "entry_points", json_object_new_int(l.entry_points));
			print_json(o);
			json_object_put(o);
		}
	}
}

/* Modules that loaded or went away, with the sites armed or detached (the
 * tracer said it on stderr already): docs/json.md, modules_changed. */
static void report_module_changes(const struct tracer *t, const struct watch_state *w)
{
	for (int i = 0; w->a->json && i < tracer_modchange_count(t); i++) {
		const struct tracer_modchange *c = tracer_modchange(t, i);
		struct json_object *o = json_object_new_object(), *l;
		char buf[256], *save = NULL;

		json_object_object_add(o, "event", json_object_new_string("modules_changed"));
		for (int k = 0; k < 2; k++) {
			snprintf(buf, sizeof(buf), "%s", k ? c->unloaded : c->loaded);
			l = json_object_new_array();
			for (char *m = strtok_r(buf, ", ", &save); m; m = strtok_r(NULL, ", ", &save))
				json_object_array_add(l, json_object_new_string(m));
			json_object_object_add(o, k ? "unloaded" : "loaded", l);
		}
		for (int k = 0; k < 2; k++) {
			const struct modwatch_site *s = k ? c->detached : c->armed;
			l = json_object_new_array();
			for (int j = 0; j < (k ? c->ndetached : c->narmed); j++) {
				struct json_object *e = json_object_new_object();
				json_object_object_add(e, "site", json_object_new_string(s[j].name));
				json_object_object_add(e, "mechanism",
						       json_object_new_string(tracer_mech_name(s[j].mech)));
				json_object_object_add(e, "module", json_object_new_string(s[j].module));
				json_object_array_add(l, e);
			}
			json_object_object_add(o, k ? "detached" : "armed", l);
		}
		json_object_object_add(o, "armed_sites", json_object_new_int(c->armed_sites));
		json_object_object_add(o, "rearm_s", json_object_new_double(c->seconds));
		json_object_object_add(o, "facts_s", json_object_new_double(c->facts_seconds));
		print_json(o);
		json_object_put(o);
	}
}

/* Say it when the ring buffer loses events, at the time it happens. */
static void warn_drops(const struct tracer *t, struct watch_state *w)
{
	static double last;
	double now = mono_s();
	unsigned long long c[MRT_CNT_MAX];

	if (now - last < 1.0)
		return;
	last = now;
	tracer_counters(t, c);
	if (c[MRT_CNT_DROPS] > w->drops_reported) {
		fprintf(stderr, "mrtrace: %llu events lost so far: the ring buffer was full (the "
				"system is failing registrations faster than they can be explained)\n",
			c[MRT_CNT_DROPS]);
		w->drops_reported = c[MRT_CNT_DROPS];
	}
}

static void print_stop(const struct tracer *t, const struct watch_state *w, double secs)
{
	unsigned long long c[MRT_CNT_MAX];
	const struct corr_stats *cs = corr_stats(w->corr);

	tracer_counters(t, c);
	if (w->a->json) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "event", json_object_new_string("stop"));
		json_object_object_add(o, "duration_s", json_object_new_double(secs));
		json_object_object_add(o, "reported", json_object_new_uint64(cs->reported));
		json_object_object_add(o, "harmless_probes", json_object_new_uint64(cs->harmless));
		json_object_object_add(o, "kernel_events", json_object_new_uint64(c[MRT_CNT_EVENTS]));
		json_object_object_add(o, "drops", json_object_new_uint64(c[MRT_CNT_DROPS]));
		json_object_object_add(o, "trail_overflows",
				       json_object_new_uint64(c[MRT_CNT_TRAIL_OVERFLOW]));
		json_object_object_add(o, "context_map_full", json_object_new_uint64(c[MRT_CNT_CTX_FULL]));
		json_object_object_add(o, "registrations_seen", json_object_new_uint64(c[MRT_CNT_REGS]));
		json_object_object_add(o, "join_table_full", json_object_new_uint64(cs->flushed_early));
		json_object_object_add(o, "failures_seen", json_object_new_uint64(c[MRT_CNT_FAILURES]));
		json_object_object_add(o, "folded", json_object_new_uint64(c[MRT_CNT_FOLDED]));
		json_object_object_add(o, "storm_summaries", json_object_new_uint64(cs->summaries));
		json_object_object_add(o, "storm_table_full",
				       json_object_new_uint64(c[MRT_CNT_STORMS_FULL]));
		print_json(o);
		json_object_put(o);
	}
	fprintf(stderr,
		"mrtrace: stopped after %.1f s: %lu reported, %llu registrations seen, "
		"%llu failed (%llu records folded into storms), "
		"%llu lost (ring buffer full), %llu untracked (context map full)\n",
		secs, cs->reported, c[MRT_CNT_REGS], c[MRT_CNT_FAILURES], c[MRT_CNT_FOLDED],
		c[MRT_CNT_DROPS], c[MRT_CNT_CTX_FULL]);
	if (cs->flushed_early)
		fprintf(stderr, "mrtrace: %lu kernel records reported before their libibverbs call "
				"could join them (%d were already waiting)\n",
			cs->flushed_early, CORR_PENDING_MAX);
}

/* The tracer's notes and libbpf's messages (already filtered by it). */
static void tracer_said(void *cookie, enum tracer_msg kind, const char *text)
{
	(void)cookie;
	if (kind == TRACER_MSG_NOTE)
		fprintf(stderr, "mrtrace: %s\n", text);
	else
		fputs(text, stderr);
}

int cmd_watch(int argc, char **argv)
{
	struct watch_args a = { 0 };
	struct argp argp = { watch_opts, watch_parse, "[-- COMMAND [ARGS...]]", watch_doc,
			     service_argp_children, 0, 0 };
	struct tracer *t;
	struct watch_state w = { .a = &a };
	char why[256];
	int release_fd = -1, status = 0, ret = 0;
	pid_t child = 0;

	if (service_args(&argp, &argc, &argv) || argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	if (a.pid && a.ncmd) {
		fprintf(stderr, "mrtrace watch: -p and -- COMMAND exclude each other\n");
		return 2;
	}
	if (a.pid && kill(a.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "mrtrace watch: no process %d\n", a.pid);
		return 2;
	}
	/* before anything touches tracefs or BPF: say what is missing */
	char oerr[PATH_MAX + 128];
	if (privs_for_bpf(oerr, sizeof(oerr))) {
		fprintf(stderr, "mrtrace watch: %s\n", oerr);
		return 1;
	}
	/* after the options are known good, before the command is forked */
	if (!(out = outfile_open(a.output, a.json ? OUTFILE_JSON : OUTFILE_TEXT, oerr, sizeof(oerr)))) {
		fprintf(stderr, "mrtrace watch: %s\n", oerr);
		return 2;
	}
	stamp_init(service_root());
	if (a.ncmd && (child = spawn_held(a.cmd, &release_fd)) < 0) {
		fprintf(stderr, "mrtrace watch: cannot start %s: %s\n", a.cmd[0], strerror(errno));
		return 2;
	}
	struct tracer_opts o = {
		.pid = a.pid,
		.follow_pid = child,
		.cgroup = service_cgroup(a.cgroup),
		.syscalls = a.syscalls,
		.debug_libbpf = a.libbpf_debug,
		.no_cache = a.no_cache,
		.msg = tracer_said,
		.stop = &stop,
	};
	if (tracer_open(&t, &o, on_event, &w, why, sizeof(why))) {
		fprintf(stderr, "mrtrace: %s\n", why);
		service_arm_failed(t);
		if (a.list_probes && t)
			watch_print_sites(t, stdout);
		tracer_close(t);
		if (child > 0) {
			close(release_fd); /* the child exits 127 without running */
			waitpid(child, NULL, 0);
		}
		return close_out(1);
	}
	if (a.list_probes) {
		if (a.json) {
			struct json_object *s = watch_sites_json(t);
			print_json(s);
			json_object_put(s);
		} else {
			printf("kernel %s: %d of %d sites armed\n", tracer_kernel(t),
			       tracer_armed_count(t, false), tracer_site_count(t));
			watch_print_sites(t, stdout);
			watch_print_consequences(t, stdout);
		}
		tracer_close(t);
		return close_out(0);
	}
	if (child > 0 && tracer_watch_tgid(t, child)) {
		fprintf(stderr, "mrtrace watch: cannot add pid %d to the filter\n", child);
		tracer_close(t);
		close(release_fd);
		waitpid(child, NULL, 0);
		return close_out(1);
	}
	struct corr_ops ops;
	struct corr_config cc = {
		.dedupe = !a.json && !a.verbose, /* -v: every failure in full */
		.keep_harmless = a.all || a.json, /* JSON marks them nccl_probe */
		.cgroup_root = service_root(),
	};
	corr_live_ops(&ops);
	corr_live_set_inodes(lib_path, t);
	corr_live_set_root(service_root());
	ops.sink = on_report;
	ops.arg = &w;
	if (!(w.corr = corr_new(&ops, &cc))) {
		fprintf(stderr, "mrtrace watch: out of memory\n");
		tracer_close(t);
		if (child > 0) {
			close(release_fd);
			waitpid(child, NULL, 0);
		}
		return 1;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct sigaction hup = { .sa_handler = on_hangup };
	sigaction(SIGHUP, &hup, NULL);
	signal(SIGPIPE, SIG_IGN);
	service_armed(t);
	print_start(t, &a, child);
	if (child > 0) {
		if (write(release_fd, "g", 1) != 1)
			fprintf(stderr, "mrtrace watch: cannot release the command\n");
		close(release_fd);
	}

	double t0 = mono_s();
	bool child_done = false;
	while (!stop) {
		corr_set_join(w.corr, tracer_site_armed(t, "libibverbs"));
		corr_set_kernel_calls(w.corr, tracer_kernel_calls(t));
		int err = tracer_poll(t, 100);
		if (reopen) {
			reopen = 0;
			if (outfile_reopen(out, oerr, sizeof(oerr)))
				fprintf(stderr, "mrtrace watch: %s\n", oerr);
		}
		corr_tick(w.corr);
		sweep_storms(t, &w, false);
		report_new_libs(t, &w, tracer_housekeeping(t));
		if (tracer_replan_due(t)) {
			/* the re-plan takes a while (seconds under emulation) and
			 * the loop waits for it: what the ring buffer holds first */
			tracer_consume(t);
			tracer_replan(t);
			report_module_changes(t, &w);
		}
		warn_drops(t, &w);
		service_tick(t);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "mrtrace watch: polling the ring buffer: %s\n", strerror(-err));
			ret = 1;
			break;
		}
		if (a.duration > 0 && mono_s() - t0 >= a.duration)
			break;
		if (outfile_failed(out))   /* every record from now on is lost */
			break;
		if (child > 0 && !child_done && waitpid(child, &status, WNOHANG) == child)
			child_done = true;
		if (child_done) {
			/* let the last events arrive: they were emitted before the exit */
			tracer_consume(t);
			break;
		}
		if (a.pid && kill(a.pid, 0) && errno == ESRCH) {
			tracer_consume(t);
			fprintf(stderr, "mrtrace watch: process %d exited\n", a.pid);
			break;
		}
	}
	tracer_consume(t);
	corr_flush(w.corr);
	sweep_storms(t, &w, true); /* after every first record, every count */
	print_stop(t, &w, mono_s() - t0);
	service_stopped(t);
	corr_free(w.corr);
	tracer_close(t);
	if (child > 0) {
		if (!child_done) {
			/* stopped by signal or -d: leave the command running, as strace -p
			 * does not, but a tracer must not kill a job: say so */
			fprintf(stderr, "mrtrace watch: command pid %d still running\n", child);
			return close_out(ret);
		}
		if (WIFEXITED(status))
			return close_out(WEXITSTATUS(status));
		return close_out(128 + WTERMSIG(status));
	}
	return close_out(ret);
}
