/* SPDX-License-Identifier: GPL-2.0-only */
/* priv.h - the tracer's state.  Only the tracer's own .c files include this: to
 * everyone else struct tracer is opaque (tracer.h's accessors). */
#ifndef MRTRACE_TRACER_PRIV_H
#define MRTRACE_TRACER_PRIV_H

#include "tracer/facts.h"
#include "tracer/opts.h"
#include "tracer/plan.h"
#include "tracer/rearm.h"
#include "tracer/uprobes.h"

struct regpath_bpf;
struct syscalls_bpf;
struct ring_buffer;
struct bpf_link;

/* The maps every BPF object shares (bpf/common.bpf.h): created by the
 * first object that loads, reused by the others. */
enum tracer_shared_map {
	SHARED_EVENTS,
	SHARED_COUNTERS,
	SHARED_WATCHED,
	SHARED_CGROUP,
	SHARED_STORMS, /* storms, storm_acks, fold_notes: user/tracer/storms.c */
	SHARED_STORM_ACKS,
	SHARED_FOLD_NOTES,
	SHARED_MAPS,
};

#define TRACER_MAX_LINKS (2 * TRACER_MAX_SITES + 1)

struct tracer {
	struct tracer_opts opts;
	struct tracer_facts facts;
	struct tracer_plan plan; /* the sites as they stand: the loader disarms failures */
	struct regpath_bpf *reg;
	struct syscalls_bpf *sys;
	struct tracer_uprobes up; /* libibverbs: its object and links */
	int shared[SHARED_MAPS]; /* fds, -1 until an object has loaded */
	struct ring_buffer *rb;
	int nlinks;
	struct bpf_link *links[TRACER_MAX_LINKS];
	/* the registration-path sites' links (t->reg's): replaced together
	 * when modules come and go (rearm.c) */
	int nreg_links;
	struct bpf_link *reg_links[TRACER_MAX_LINKS];
	struct tracer_rearm rearm;
};

#endif
