// SPDX-License-Identifier: GPL-2.0-only
/* watch.c - `mrtrace watch`: arm what this kernel allows, then explain every
 * failed registration (and failed mlock, and the other refusals) as it
 * happens (watch.h).
 *
 * Ring-buffer records are decoded by their kind's row (record/kind.h):
 * failures go through the correlator (correlate.h: a kernel record is
 * joined with its libibverbs call, /proc is read once per process as its
 * first record arrives) and come back explained to on_report(); the other
 * kinds go to the sinks as they are.  One path cleans up, whatever the
 * run reached (watch_end).
 *
 * Length: just over the usual 500 lines: setup, the loop, start and stop
 * records and the one cleanup path stay together so that every exit goes
 * through watch_end (the sinks, -- COMMAND and options have their files). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/outfile.h"
#include "core/privs.h"
#include "record/kind.h"
#include "record/library.h"
#include "record/modules.h"
#include "record/port_change.h"
#include "record/stop.h"
#include "watch/notify.h"
#include "watch/sink.h"
#include "watch/stamp.h"
#include "watch/watch.h"
#include "proc/cgroup_byid.h"

/* The only globals: what the signal handlers may touch, and the
 * dispositions watch was started with (for the command). */
static volatile sig_atomic_t stop, reopen;

/* SIGINT, SIGTERM and SIGQUIT stop the run with its stop record; SIGHUP
 * reopens -o FILE.  SIGPIPE is ignored (a closed pipe is a write error). */
static const int handled[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))
static struct sigaction inherited[NHANDLED];
static sigset_t inherited_mask;

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

/* The first thing watch does: a signal from then on is kept in a flag, not
 * lost and not a kill that leaves nothing said, whatever phase the run is
 * in (a stop while the tracer attaches ends the run as soon as it
 * returns, with the stop record).  The dispositions
 * are set explicitly, and the signals unblocked: a `watch &` from a
 * script inherits SIGINT ignored, and obeyed nothing but SIGKILL. */
static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	/* SIGHUP (logrotate's, any time) restarts what it interrupts: it only
	 * sets a flag the loop reads at its next turn, and a read of a tool's
	 * output (rdma res, proc/rdmares.c) or a write must not fail with EINTR
	 * for it.  The loop's poll is woken all the same (never restarted). */
	struct sigaction hup = { .sa_handler = on_hangup, .sa_flags = SA_RESTART };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t ours;

	sigemptyset(&ours);
	for (size_t i = 0; i < NHANDLED; i++) {
		int sig = handled[i];
		sigaction(sig, sig == SIGHUP ? &hup : sig == SIGPIPE ? &ign : &sa, &inherited[i]);
		sigaddset(&ours, sig);
	}
	sigprocmask(SIG_UNBLOCK, &ours, &inherited_mask);
}

/* In the command, before it runs: what watch was given, so it behaves as
 * it would without mrtrace (a script's `trap '' INT` included). */
static void restore_signals(void)
{
	for (size_t i = 0; i < NHANDLED; i++)
		sigaction(handled[i], &inherited[i], NULL);
	sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
}

/* ---- records ---------------------------------------------------------------------- */

/* The correlator's sink: one explained report, as the node sees it.  In
 * text, a repeat of a process's cause is one line (nth > 1). */
static void on_report(void *cookie, const struct report *r, unsigned long nth)
{
	struct watch *w = cookie;
	struct record rec;

	record_of_report(&rec, service_annotate(w, r), nth);
	watch_emit(w, &rec);
}

/* The port monitor's: a port or GID change (watch/ports.h). */
static void on_port_change(void *cookie, const struct record_port_change *c)
{
	struct record rec = { .kind = &record_kind_port_change, .data = c };

	watch_emit(cookie, &rec);
}

/* The tracer's: a ring-buffer record, by its kind. */
static int on_event(void *cookie, void *data, size_t size)
{
	struct watch *w = cookie;
	const struct mrt_event *ev = data;
	const struct record_kind *k;

	unsigned int kind = 0;

	if (size >= sizeof(kind))
		memcpy(&kind, data, sizeof(kind));
	/* a device's or port's event: small, its own struct (bpf/mrtrace.h) */
	if (kind == MRT_EV_ASYNC && size >= sizeof(struct mrt_async_event)) {
		struct mrt_async_event a;
		memcpy(&a, data, sizeof(a));
		a.device[sizeof(a.device) - 1] = 0;
		ports_kernel_event(w->ports, a.device, a.port, a.event, clock_mono_s(),
				   on_port_change, w);
		return 0;
	}
	/* what places a process, copied by the kernel: parsed now, kept with
	 * the process (variable length: the header and its bytes) */
	if (kind == MRT_EV_ENVIRON && size >= MRT_ENVIRON_HDR) {
		corr_environ(w->corr, data, size);
		return 0;
	}
	/* the raw top of a failed REG_MR's user stack (before 5.17): kept for
	 * the record that follows it */
	if (kind == MRT_EV_USTACK_RAW) {
		corr_ustack_raw(w->corr, data, size);
		return 0;
	}
	if (size >= sizeof(*ev) && ev->kind == MRT_EV_CONTACT) {
		corr_contact(w->corr, ev); /* not a record: the context, read now */
		return 0;
	}
	if (size < sizeof(*ev) || !(k = record_kind_of_ring(ev->kind)))
		return 0;
	if (k->explained) {
		corr_push(w->corr, ev);
	} else {
		struct record rec = { .kind = k, .data = ev };
		watch_emit(w, &rec);
	}
	return 0;
}

/* A libibverbs file the tracer knows, by inode (correlate_live.c). */
static const char *lib_path(void *arg, unsigned long long ino, uint64_t *dev)
{
	return tracer_libibverbs_path(arg, ino, dev);
}

/* Folded failures that are due (tracer_storms): a summary record each, as
 * soon as the record that opened their run has been written. */
static int on_storm(void *cookie, const struct tracer_storm *s)
{
	struct watch *w = cookie;

	return corr_storm(w->corr, &s->key, s->count, s->first_ts_ns, s->last_ts_ns, w->final);
}

static void sweep_storms(struct watch *w, bool final)
{
	double now = clock_mono_s();

	if (!final && now - w->storms_at < 0.2)
		return;
	w->storms_at = now;
	w->final = final;
	tracer_storms(w->t, final, on_storm, w);
}

/* A libibverbs copy found after start (a container's, a conda env's). */
static void report_new_libs(struct watch *w, int added)
{
	for (int i = tracer_lib_count(w->t) - added; added > 0 && i < tracer_lib_count(w->t); i++) {
		struct tracer_lib l = tracer_lib(w->t, i);
		struct record_library lib = { .path = l.path, .entry_points = l.entry_points };
		struct record rec = { .kind = &record_kind_library, .data = &lib };

		fprintf(stderr, "mrtrace: libibverbs at %s: %d entry points attached\n", l.path,
			l.entry_points);
		watch_emit(w, &rec);
	}
}

/* Modules that loaded or went away, with the sites armed or detached (the
 * tracer said it on stderr already). */
static void report_module_changes(struct watch *w)
{
	/* the sites as they stand now, for the sinks that show them (metrics'
	 * gauges): a watch that waited for RDMA has its path armed now */
	if (tracer_modchange_count(w->t) > 0 && watch_sites_read(w))
		fprintf(stderr, "mrtrace watch: out of memory: the sites shown are those of the start\n");
	for (int i = 0; i < tracer_modchange_count(w->t); i++) {
		const struct tracer_modchange *c = tracer_modchange(w->t, i);
		struct record_module_site armed[TRACER_MODCHANGE_SITES], detached[TRACER_MODCHANGE_SITES];
		struct record_modules m = {
			.loaded = c->loaded, .unloaded = c->unloaded,
			.armed = armed, .detached = detached,
			.narmed = c->narmed, .ndetached = c->ndetached,
			.armed_sites = c->armed_sites,
			.rearm_s = c->seconds, .facts_s = c->facts_seconds,
		};
		struct record rec = { .kind = &record_kind_modules, .data = &m };

		for (int j = 0; j < c->narmed; j++)
			armed[j] = (struct record_module_site){ c->armed[j].name,
								tracer_mech_name(c->armed[j].mech),
								c->armed[j].module };
		for (int j = 0; j < c->ndetached; j++)
			detached[j] = (struct record_module_site){ c->detached[j].name,
								   tracer_mech_name(c->detached[j].mech),
								   c->detached[j].module };
		watch_emit(w, &rec);
	}
}

/* Say it when the ring buffer loses events, at the time it happens. */
static void warn_drops(struct watch *w)
{
	double now = clock_mono_s();
	unsigned long long c[MRT_CNT_MAX];

	if (now - w->drops_at < 1.0)
		return;
	w->drops_at = now;
	tracer_counters(w->t, c);
	if (c[MRT_CNT_DROPS] > w->drops_reported) {
		fprintf(stderr, "mrtrace: %llu events lost so far: the ring buffer was full (the "
				"system is failing registrations faster than they can be explained)\n",
			c[MRT_CNT_DROPS]);
		w->drops_reported = c[MRT_CNT_DROPS];
	}
}

/* ---- start and stop ------------------------------------------------------------- */

static void emit_start(struct watch *w)
{
	struct record_start s = {
		.kernel = tracer_kernel(w->t),
		.armed_sites = tracer_armed_count(w->t, false),
		.registration_path_armed = tracer_armed_count(w->t, true) > 0,
		.waiting_for_rdma = tracer_waiting_for_rdma(w->t),
		.pid = w->a.pid,
		.command_pid = w->child,
		.sites = w->sites,
		.nsites = w->nsites,
		.missing_capabilities = w->missing_caps,
		.nmissing = w->nmissing_caps,
		.privilege_notes = (const char *const *)w->priv_notes,
		.nnotes = w->npriv_notes,
		.host_root = w->a.svc.host_root,
	};
	struct record rec = { .kind = &record_kind_start, .data = &s };
	FILE *h = stderr;

	watch_emit(w, &rec);
	/* one count everywhere: the kernel's sites and watch's own (port
	 * events), as the table, the start record, sd_notify and the metrics
	 * have them; the table itself only with -v (and --list-probes) */
	fprintf(h, "mrtrace: kernel %s, %d of %d sites armed%s\n", tracer_kernel(w->t),
		watch_armed_sites(w), w->nsites,
		w->a.verbose ? "" : " (-v or --list-probes: each site)");
	if (w->a.verbose) {
		watch_print_sites(w->t, h);
		watch_print_own_sites(w, h);
	}
	watch_print_consequences(w->t, h);
	if (s.waiting_for_rdma && w->a.syscalls == SYSCALLS_AUTO)
		fprintf(h, "mrtrace: no RDMA on this kernel yet: nothing is armed per syscall; %s\n",
			tracer_follows_modules(w->t)
				? "the registration path is armed when an RDMA module (ib_uverbs, "
				  "mlx5_ib, rdma_rxe, ...) loads"
				: "this kernel loads no modules, so none will come (--syscalls=on "
				  "watches mlock and setrlimit)");
	fprintf(h, "mrtrace: watching%s%s... (Ctrl-C to stop)\n",
		w->a.pid ? " one process" : w->child > 0 ? " the command" : " all processes",
		w->a.cgroup ? " in the cgroup" : "");
	fflush(h);
}

static void emit_stop(struct watch *w, double secs)
{
	const struct corr_stats *cs = corr_stats(w->corr);
	struct record_stop s = {
		.duration_s = secs,
		.reported = cs->reported,
		.harmless_probes = cs->harmless,
		.join_table_full = cs->flushed_early,
		.storm_summaries = cs->summaries,
		.maps_cut = w->live.maps_cut,
		.uprobe_libs_full = tracer_uprobe_libs_full(w->t),
		.ports_full = ports_full(w->ports),
		.port_waiting_full = ports_waiting_full(w->ports),
		.async_unmatched = ports_kernel_unmatched(w->ports),
		.raw_stacks = cs->raw_stacks,
		.raw_stacks_unplaced = cs->raw_stacks_unplaced,
	};
	struct record rec = { .kind = &record_kind_stop, .data = &s };
	const unsigned long long *c = s.counters;
	struct cgroup_byid_stats cg;

	cgroup_byid_stats(&cg);
	s.cgroup_walks = cg.walks;
	s.cgroup_walks_cut = cg.cut;

	if (w->t) { /* NULL: stopped before anything was armed, nothing counted */
		tracer_counters(w->t, s.counters);
		tracer_probe_misses(w->t, &s.misses);
	}
	watch_emit(w, &rec);
	fprintf(stderr,
		"mrtrace: stopped after %.1f s: %lu reported, %llu registrations seen, "
		"%llu failed (%llu records folded into storms), "
		"%llu lost (ring buffer full), %llu untracked (context map full)\n",
		secs, cs->reported, c[MRT_CNT_REGS], c[MRT_CNT_FAILURES], c[MRT_CNT_FOLDED],
		c[MRT_CNT_DROPS], c[MRT_CNT_CTX_FULL]);
	char miss[512];
	probemiss_sentence(&s.misses, miss, sizeof(miss));
	if (miss[0])
		fprintf(stderr, "mrtrace: %s\n", miss);
	if (cg.cut)
		fprintf(stderr, "mrtrace: %llu exited process%s not placed in their cgroup: the tree "
				"is larger than a lookup may walk (%d directories)\n",
			cg.cut, cg.cut == 1 ? "" : "es", CGROUP_BYID_MAX_DIRS);
	if (cs->flushed_early)
		fprintf(stderr, "mrtrace: %lu kernel records reported before their libibverbs call "
				"could join them (%d were already waiting)\n",
			cs->flushed_early, CORR_PENDING_MAX);
}

/* Prints the --list-probes answer, where the records go (standard output
 * or -o FILE), so that a write error is said and fails the run like a
 * record's (watch_end). */
static void list_probes(struct watch *w)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		fprintf(stderr, "mrtrace watch: out of memory\n");
		return;
	}
	if (w->a.json) {
		struct json_object *s = record_sites_json(w->sites, w->nsites);
		fprintf(m, "%s\n", json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN));
		json_object_put(s);
	} else {
		fprintf(m, "kernel %s: %d of %d sites armed\n", tracer_kernel(w->t),
			watch_armed_sites(w), w->nsites);
		watch_print_sites(w->t, m);
		watch_print_own_sites(w, m);
		watch_print_consequences(w->t, m);
	}
	fclose(m);
	watch_write_record(w, text, len);
	free(text);
}

/* ---- -- COMMAND ----------------------------------------------------------------- */

/* Once the probes are attached: the command runs.  false when it could not
 * (said; the run ends with exit status 2). */
static bool release_child(struct watch *w)
{
	int e = spawn_release(&w->spawn);

	if (!e)
		return true;
	fprintf(stderr, "mrtrace watch: cannot run %s: %s\n", esc(w->a.cmd[0]), strerror(e));
	waitpid(w->child, &w->child_status, 0);
	w->child = 0; /* nothing of it ran: its 127 is not its status */
	return false;
}

/* ---- the one way out ------------------------------------------------------------ */

/* Frees what the run reached and closes the records' stream: a write
 * error (disk full) is a failure of the run even when everything else
 * went well.  With -- COMMAND: its exit status when it ended; a command
 * never released exits 127 without running (watch's own status says why). */
static int watch_end(struct watch *w, int rc)
{
	char err[PATH_MAX + 128];

	corr_free(w->corr);
	ports_close(w->ports);
	tracer_close(w->t);
	if (w->spawn.release_fd >= 0) {
		spawn_abandon(&w->spawn);
	} else if (w->child > 0 && !w->child_done) {
		/* stopped by signal or -d: leave the command running, as strace -p
		 * does not, but a tracer must not kill a job: say so */
		fprintf(stderr, "mrtrace watch: command pid %d still running\n", w->child);
	} else if (w->child > 0) {
		rc = WIFEXITED(w->child_status) ? WEXITSTATUS(w->child_status)
						: 128 + WTERMSIG(w->child_status);
	}
	watch_sinks_close(w);
	free(w->sites);
	for (int i = 0; i < w->npriv_notes; i++)
		free(w->priv_notes[i]);
	if (w->out && outfile_close(w->out, err, sizeof(err))) {
		fprintf(stderr, "mrtrace watch: %s: records were lost\n", err);
		rc = rc ? rc : 1;
	}
	free(w);
	return rc;
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

/* Arms the tracer and the correlator: 0, or the exit status to end with. */
static int arm(struct watch *w)
{
	char why[256];
	struct tracer_opts o = {
		.pid = w->a.pid,
		.follow_pid = w->child,
		.cgroup = service_cgroup(&w->a.svc, w->a.cgroup, w->cgroup_buf, sizeof(w->cgroup_buf)),
		.syscalls = w->a.syscalls,
		.hot_sites = w->a.hot_sites,
		.debug_libbpf = w->a.libbpf_debug,
		.no_cache = w->a.no_cache,
		.msg = tracer_said,
		.stop = &stop,
	};

	/* stopped before the tracer opens, or while it attaches (it gives up
	 * then): nothing is armed, and the run ends with its stop record */
	int failed = stop || tracer_open(&w->t, &o, on_event, w, why, sizeof(why));
	if (failed && stop) {
		tracer_close(w->t);
		w->t = NULL;
	} else if (failed) {
		fprintf(stderr, "mrtrace: %s\n", why);
		if (w->t && !watch_sites_read(w)) /* NULL when it could not even be set up */
			service_diagnose_privileges(w);
		notify_send("STATUS=nothing could be armed (see the log)");
		if (w->a.list_probes && w->t)
			watch_print_sites(w->t, stdout);
		return 1;
	}
	/* ports are cold: a socket and a few sysfs reads a tick (ports.h) */
	w->ports = ports_open(&(struct ports_io){ .root = service_root(&w->a.svc), .netlink = true });
	if (w->t && watch_sites_read(w)) {
		fprintf(stderr, "mrtrace watch: out of memory\n");
		return 1;
	}
	if (w->a.list_probes)
		return 0;
	if (w->t && w->child > 0 && tracer_watch_tgid(w->t, w->child)) {
		fprintf(stderr, "mrtrace watch: cannot add pid %d to the filter\n", w->child);
		return 1;
	}
	struct corr_ops ops;
	struct corr_config cc = {
		.dedupe = !w->a.json && !w->a.verbose, /* -v: every failure in full */
		.keep_harmless = w->a.all || w->a.json, /* JSON marks them nccl_probe */
		.cgroup_root = service_root(&w->a.svc),
	};
	w->live.root = service_root(&w->a.svc);
	w->live.redact = w->a.redact;
	w->live.path_of = lib_path;
	w->live.path_arg = w->t;
	corr_live_ops(&ops, &w->live);
	ops.sink = on_report;
	ops.sink_arg = w;
	if (!(w->corr = corr_new(&ops, &cc)) || watch_sinks_open(w)) {
		fprintf(stderr, "mrtrace watch: out of memory\n");
		return 1;
	}
	return 0;
}

/* Until a signal, -d, the command's or the process's exit, or a lost
 * write.  0, or 1 when polling failed. */
static int loop(struct watch *w)
{
	char oerr[PATH_MAX + 128];

	while (!stop) {
		corr_set_join(w->corr, tracer_site_armed(w->t, "libibverbs"));
		corr_set_kernel_calls(w->corr, tracer_kernel_calls(w->t));
		corr_set_stack_raw(w->corr, tracer_stack_raw(w->t));
		/* woken as well by the output of a `rdma res` run that the port
		 * monitor waits for: it never waits in the loop itself */
		int err = tracer_poll_also(w->t, 100, ports_wait_fd(w->ports));
		if (reopen) {
			reopen = 0;
			if (outfile_reopen(w->out, oerr, sizeof(oerr)))
				fprintf(stderr, "mrtrace watch: %s\n", oerr);
		}
		corr_tick(w->corr);
		sweep_storms(w, false);
		report_new_libs(w, tracer_housekeeping(w->t));
		if (tracer_replan_due(w->t)) {
			/* the re-plan takes a while (seconds under emulation) and
			 * the loop waits for it: what the ring buffer holds first */
			tracer_consume(w->t);
			tracer_replan(w->t);
			report_module_changes(w);
		}
		warn_drops(w);
		if (w->ports) {
			ports_set_kernel(w->ports, tracer_site_armed(w->t, "async_event"));
			ports_tick(w->ports, clock_mono_s(), on_port_change, w);
		}
		watch_sinks_tick(w);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "mrtrace watch: polling the ring buffer: %s\n", strerror(-err));
			return 1;
		}
		if (w->a.duration > 0 && clock_mono_s() - w->t0 >= w->a.duration)
			break;
		if (outfile_failed(w->out)) /* every record from now on is lost */
			break;
		if (w->child > 0 && !w->child_done && waitpid(w->child, &w->child_status, WNOHANG) == w->child)
			w->child_done = true;
		if (w->child_done) {
			/* let the last events arrive: they were emitted before the exit */
			tracer_consume(w->t);
			break;
		}
		if (w->a.pid && kill(w->a.pid, 0) && errno == ESRCH) {
			tracer_consume(w->t);
			fprintf(stderr, "mrtrace watch: process %d exited\n", w->a.pid);
			break;
		}
	}
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch *w;
	char oerr[PATH_MAX + 128];
	int rc, e;

	install_signals(); /* before anything else: no signal is lost */
	if (!(w = calloc(1, sizeof(*w)))) {
		fprintf(stderr, "mrtrace watch: out of memory\n");
		return 1;
	}
	w->spawn.release_fd = w->spawn.status_fd = -1;
	if ((rc = watch_parse_args(&w->a, argc, argv)))
		return watch_end(w, rc);
	/* before anything touches tracefs or BPF: say what is missing */
	if (privs_for_bpf(oerr, sizeof(oerr))) {
		fprintf(stderr, "mrtrace watch: %s\n", oerr);
		return watch_end(w, 1);
	}
	/* a command that cannot run is a request error, found before anything
	 * is armed (exit 2, as for -o FILE; not the shell's 127, which the
	 * command could return itself) */
	if (w->a.ncmd && (e = spawn_findable(w->a.cmd[0]))) {
		fprintf(stderr, "mrtrace watch: cannot run %s: %s\n", esc(w->a.cmd[0]), strerror(e));
		return watch_end(w, 2);
	}
	/* after the options are known good, before the command is forked */
	if (!(w->out = outfile_open(w->a.output, w->a.json ? OUTFILE_JSON : OUTFILE_TEXT, oerr,
				    sizeof(oerr)))) {
		fprintf(stderr, "mrtrace watch: %s\n", oerr);
		return watch_end(w, 2);
	}
	stamp_init(service_root(&w->a.svc));
	if (w->a.ncmd) {
		if (spawn_held(&w->spawn, w->a.cmd, restore_signals)) {
			fprintf(stderr, "mrtrace watch: cannot start %s: %s\n", esc(w->a.cmd[0]),
				strerror(errno));
			return watch_end(w, 2);
		}
		w->child = w->spawn.pid;
	}
	if ((rc = arm(w)))
		return watch_end(w, rc);
	if (w->a.list_probes) {
		if (w->t)
			list_probes(w);
		return watch_end(w, 0);
	}
	w->t0 = clock_mono_s();
	if (w->t) {
		service_diagnose_privileges(w);
		watch_sinks_start(w);
		emit_start(w);
		if (w->child > 0 && !release_child(w))
			rc = 2;
		else
			rc = loop(w); /* at once done when a signal came while attaching */
		tracer_consume(w->t);
		corr_flush(w->corr);
		sweep_storms(w, true); /* after every first record, every count */
		/* port changes still waiting for `rdma res`: a second more, then
		 * said with their holders unknown */
		ports_flush(w->ports, clock_mono_s(), 1.0, on_port_change, w);
	} else {
		fprintf(stderr, "mrtrace watch: stopped by a signal before anything was armed\n");
	}
	emit_stop(w, clock_mono_s() - w->t0);
	if (w->t)
		watch_sinks_stop(w);
	return watch_end(w, rc);
}
