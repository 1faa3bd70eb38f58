/* SPDX-License-Identifier: GPL-2.0-only */
/* rearm.h - sites follow the kernel: a module with registration sites that
 * loads after start gets them armed, one that goes away has them detached
 * (rearm.c; the pure part is modwatch.c).  Called by tracer.c: snapshot
 * before the facts are gathered, start after everything is loaded, tick
 * from tracer_housekeeping(). */
#ifndef MRTRACE_TRACER_REARM_H
#define MRTRACE_TRACER_REARM_H

#include <stdbool.h>

#include "tracer/modwatch.h"
#include "tracer/tracer.h"

struct modwatch_bpf;

struct tracer_rearm {
	struct modwatch_bpf *skel; /* the module tracepoints; NULL: /proc/modules is polled */
	unsigned long long seen; /* the tracepoints' count last acted on */
	struct modwatch_set mods; /* the relevant modules as last seen */
	double next_poll; /* polling: when to look again (monotonic s) */
	int site; /* the "modules" site in the plan, -1 */
	bool off; /* a kernel without loadable modules */
	bool recheck; /* a change seen during a re-plan is left for the next tick */
	/* a module came up but its BTF or functions were not usable yet:
	 * planned again until they are (a few times within a second) */
	char pending[256];
	int retries;
	double retry_at;
	int nchanges; /* in the last tick */
	struct tracer_modchange changes[1];
};

/* The relevant modules before the facts are gathered: a module that loads
 * while the tracer sets up is seen as a change, not missed. */
void tracer_rearm_snapshot(struct tracer *t);
/* Attaches the module tracepoints (or settles for polling) and appends the
 * "modules" site that says which. */
void tracer_rearm_start(struct tracer *t);
/* Looks for module changes; re-plans and re-arms the registration path
 * when one matters.  Returns the changes made (tracer_modchange()). */
int tracer_rearm_tick(struct tracer *t);
void tracer_rearm_close(struct tracer_rearm *r);

#endif
