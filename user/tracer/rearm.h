/* SPDX-License-Identifier: GPL-2.0-only */
/* rearm.h - sites follow the kernel: a module with registration sites that
 * loads after start gets them armed, one that goes away has them detached
 * (rearm.c; the pure part is modwatch.c).  It works on the loader's state
 * (loader.h) and never on the tracer as a whole: tracer.c takes the
 * snapshot before the facts are gathered, starts it after everything is
 * loaded, looks from tracer_housekeeping() and re-plans from
 * tracer_replan(), which the caller calls once it drained the ring buffer. */
#ifndef MRTRACE_TRACER_REARM_H
#define MRTRACE_TRACER_REARM_H

#include <stdbool.h>

#include "tracer/loader.h"
#include "tracer/modwatch.h"

struct modwatch_bpf;
struct bpf_link;

struct tracer_rearm {
	struct modwatch_bpf *skel; /* the module tracepoints; NULL: /proc/modules is polled */
	unsigned long long seen; /* the tracepoints' count last acted on */
	struct modwatch_set mods; /* the relevant modules as last seen */
	double next_poll; /* polling: when to look again (monotonic s) */
	int site; /* the "modules" site in the plan, -1 */
	bool off; /* a kernel without loadable modules */
	bool recheck; /* a change seen during a re-plan is left for the next look */
	/* a module came up but its BTF or functions were not usable yet:
	 * planned again until they are (a few times within a second) */
	char pending[256];
	int retries;
	double retry_at;
	/* what the last look found, for the re-plan it made due */
	bool due, retry;
	char loaded[256], unloaded[256];
	int nchanges; /* in the last re-plan */
	/* the generation a re-plan replaced: destroyed once the change is said */
	struct tracer_regpath *old_reg;
	struct tracer_modchange changes[1];
};

/* The relevant modules before the facts are gathered: a module that loads
 * while the tracer sets up is seen as a change, not missed. */
void tracer_rearm_snapshot(struct tracer_rearm *r, const struct tracer_plan *p);
/* Attaches the module tracepoints (or settles for polling) and appends the
 * "modules" site that says which. */
void tracer_rearm_start(struct tracer_rearm *r, struct tracer_plan *p);
/* Whether module changes are followed at all (tracepoints or polling; not
 * on a kernel without loadable modules). */
bool tracer_rearm_following(const struct tracer_rearm *r);
/* Looks for module changes that matter: true when a re-plan is due. */
bool tracer_rearm_look(struct tracer_rearm *r, const struct tracer_plan *p);
/* The re-plan the last look made due: the facts gathered again, the
 * registration path planned, loaded and attached again, the old one
 * detached.  Returns the changes made (r->changes), 0 or 1. */
int tracer_rearm_run(struct tracer_rearm *r, struct tracer_loader *ld);
/* Hands the module tracepoints' links to the caller (at most max, into
 * out), to be destroyed with the others (detach.h).  How many. */
int tracer_rearm_links(struct tracer_rearm *r, struct bpf_link **out, int max);
void tracer_rearm_close(struct tracer_rearm *r);
/* Whether a module of `loaded` ("rdma_rxe, mlx5_ib") is still coming up
 * for the facts f: its functions are in kallsyms but its BTF is not there
 * yet, or its trampoline test was refused with ENXIO (not live yet, by the
 * errno the kernel gave, not its text).  Worth planning again shortly. */
bool tracer_rearm_settling(const struct tracer_facts *f, const char *loaded);

#endif
