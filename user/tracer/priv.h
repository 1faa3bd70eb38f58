/* SPDX-License-Identifier: GPL-2.0-only */
/* priv.h - the tracer's state.  Only the tracer's own .c files include this: to
 * everyone else struct tracer is opaque (tracer.h's accessors). */
#ifndef MRTRACE_TRACER_PRIV_H
#define MRTRACE_TRACER_PRIV_H

#include "tracer/loader.h"
#include "tracer/opts.h"
#include "tracer/rearm.h"
#include "tracer/uprobes.h"

struct ring_buffer;

struct tracer {
	struct tracer_opts opts;
	/* facts, plan and the objects that arm it (the registration path, the
	 * syscall tracepoints, the shared maps): what rearm.c re-plans */
	struct tracer_loader ld;
	struct tracer_uprobes up; /* libibverbs: its object and links */
	struct ring_buffer *rb;
	struct tracer_rearm rearm;
	/* the most missed returns ever reported: a context counted as missed
	 * while open stays counted, so the count never goes down (a counter) */
	unsigned long long missed_reported;
};

#endif
