/* SPDX-License-Identifier: GPL-2.0-only */
/* tracer.h - which kernel sites mrtrace can watch on this kernel, by which
 * mechanism, the honest report of what is not armed, and the one stream of
 * events from all of them.
 *
 * Inside: gather.c (what the kernel has) -> plan.c (a mechanism per site,
 * pure) -> regload.c (the registration path loaded and attached; a failure
 * disarms one site, found by bisect.c) and loader.c (the syscall
 * tracepoints, libibverbs), all sharing shared.c's maps; uprobes.c
 * (libibverbs copies, found as they appear); rearm.c (re-plans when
 * modules change, when the caller asks); sites.c is the site table.
 * struct tracer is opaque: read it through the accessors below. */
#ifndef MRTRACE_TRACER_H
#define MRTRACE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrtrace.h"
#include "tracer/modwatch.h"
#include "tracer/opts.h"
#include "tracer/site.h"

struct tracer;

typedef int (*tracer_event_fn)(void *cookie, void *data, size_t size);

/* Looks at the kernel, decides per site, loads, attaches; events go to fn.
 * *out is set whenever it could be allocated (even on failure: the sites
 * say what was tried) and is freed by tracer_close().  Returns 0 when at
 * least one site is armed, -1 with a message in err otherwise. */
int tracer_open(struct tracer **out, const struct tracer_opts *o, tracer_event_fn fn,
		void *cookie, char *err, size_t errlen);
void tracer_close(struct tracer *t);

/* The sites, in report order, as armed (or not, and why). */
int tracer_site_count(const struct tracer *t);
const struct tracer_site *tracer_site(const struct tracer *t, int i);
/* Whether failed registrations get their caller (user stack, API) from the
 * kernel trail instead of libibverbs uprobes (tracer/uprobes.h). */
bool tracer_kernel_calls(const struct tracer *t);
/* ...and the REG_MR exit copies the caller's stack raw (before 5.17) */
bool tracer_stack_raw(const struct tracer *t);
/* The path of a libibverbs file the tracer has seen, by inode number, or
 * NULL; *dev is the device it was on. */
const char *tracer_libibverbs_path(const struct tracer *t, unsigned long long ino, uint64_t *dev);
/* libibverbs files left unprobed: the uprobes' table was full of mapped
 * ones (tracer/uprobes.h, libs_full). */
unsigned long tracer_uprobe_libs_full(const struct tracer *t);
bool tracer_site_armed(const struct tracer *t, const char *name);
/* A kernel without RDMA (no uverbs, no umem functions): nothing of the
 * registration path, nothing per syscall (with --syscalls=auto) is armed,
 * until an RDMA module loads (tracer_replan()) where modules are followed
 * (tracer_follows_modules(): not on a kernel without loadable modules). */
bool tracer_waiting_for_rdma(const struct tracer *t);
bool tracer_follows_modules(const struct tracer *t);
int tracer_armed_count(const struct tracer *t, bool openers_only);
const char *tracer_kernel(const struct tracer *t); /* uname -r */
/* The external BTF the registration path was typed by (kernels without
 * module BTF), or NULL. */
const char *tracer_btf_file(const struct tracer *t);

/* Waits up to timeout_ms for events (and hands them to fn); consume takes
 * what is there without waiting.  Events handled, or a negative errno. */
int tracer_poll(struct tracer *t, int timeout_ms);
/* The same, woken also when also_fd (>= 0) is readable: a tool whose
 * output the loop reads as it comes (watch/ports.h). */
int tracer_poll_also(struct tracer *t, int timeout_ms, int also_fd);
int tracer_consume(struct tracer *t);

/* Periodic work between polls: looks for new libibverbs copies to attach,
 * and notices RDMA modules that loaded or went away (a memory read, and
 * /proc/modules when that moved).  Returns how many libraries were newly
 * attached: the last ones of tracer_lib().  It never re-plans: it says
 * when one is due (tracer_replan_due()) and the caller, having drained the
 * ring buffer (tracer_consume()), calls tracer_replan(). */
int tracer_housekeeping(struct tracer *t);
struct tracer_lib {
	const char *path; /* as attached (may be /proc/PID/root/...) */
	int entry_points; /* attached in it */
};
int tracer_lib_count(const struct tracer *t);
struct tracer_lib tracer_lib(const struct tracer *t, int i);

/* Modules changed since the sites were planned: the registration path is
 * to be planned, loaded and attached again (seconds under emulation). */
bool tracer_replan_due(const struct tracer *t);
/* Re-plans and re-arms the registration path for the modules as they are
 * now (what changed is said through opts.msg too): the changes made, 0 or
 * 1 (tracer_modchange()); 0 also when the re-plan was stopped
 * (opts.stop) or changed nothing. */
int tracer_replan(struct tracer *t);
/* The changes of the last tracer_replan(), valid until the next one. */
int tracer_modchange_count(const struct tracer *t);
const struct tracer_modchange *tracer_modchange(const struct tracer *t, int i);

/* Adds a process to the watched tree (-- CMD).  0, or -1. */
int tracer_watch_tgid(struct tracer *t, int tgid);

/* Counters (enum mrt_counter, MRT_CNT_MAX of them) summed over CPUs. */
void tracer_counters(struct tracer *t, unsigned long long out[]);
/* The armed probes' misses as the kernel counts them (probemiss.h): the
 * registration path's (with those of generations re-armed since) and the
 * syscall tracepoints'.  The libibverbs uprobes are not counted by any
 * kernel (a uprobe never skips its program). */
struct probemiss;
void tracer_probe_misses(struct tracer *t, struct probemiss *m);

/* Storms (bpf/mrtrace.h): failures the kernel folded instead of sending. */
struct tracer_storm {
	struct mrt_storm_key key;
	unsigned long long count; /* folded failures not reported yet */
	unsigned long long first_ts_ns, last_ts_ns; /* the first and last of them */
	unsigned long long run_ts_ns; /* the run's first failure, sent in full */
};
typedef int (*tracer_storm_fn)(void *cookie, const struct tracer_storm *s);
/* Hands fn every key with folded failures that are due: unreported ones,
 * once MRT_STORM_WINDOW_NS has passed since the run began and since their
 * key was last reported (all: every unreported one, at the end of a run).
 * fn returns 0 when it wrote them (they are acknowledged to the kernel),
 * non-zero to be asked again next time.  Keys quiet for a minute are
 * forgotten (user/tracer/storms.c).  The failures acknowledged, or a
 * negative errno. */
int tracer_storms(struct tracer *t, bool all, tracer_storm_fn fn, void *cookie);

#endif
