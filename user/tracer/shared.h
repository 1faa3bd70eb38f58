/* SPDX-License-Identifier: GPL-2.0-only */
/* shared.h - what every BPF object of the tracer shares (bpf/common.bpf.h):
 * the maps created once (ring buffer, counters, watched tree, cgroup filter,
 * storms), handed to every object after the first before it loads
 * (bpf_map__reuse_fd), the one fork follower, and the .rodata every object
 * carries.  Used by the loaders of the registration path (regload.c), the
 * syscall tracepoints and libibverbs (loader.c); includes no skeleton. */
#ifndef MRTRACE_TRACER_SHARED_H
#define MRTRACE_TRACER_SHARED_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer/opts.h"

struct bpf_object;
struct bpf_link;

enum tracer_shared_map {
	SHARED_EVENTS,
	SHARED_COUNTERS,
	SHARED_WATCHED,
	SHARED_CGROUP,
	SHARED_STORMS, /* storms, storm_acks, fold_notes: user/tracer/storms.c */
	SHARED_STORM_ACKS,
	SHARED_FOLD_NOTES,
	SHARED_ENVIRONS, /* processes whose environment was sent (bpf/environ.bpf.h) */
	SHARED_MAPS,
};

struct tracer_shared {
	int fd[SHARED_MAPS]; /* -1 until an object has loaded */
	struct bpf_link *fork; /* the fork follower (-- CMD), NULL: none */
	struct bpf_link *exit; /* its exit side: a process leaves the tree */
	const struct tracer_opts *opts;
	/* the misses of registration-path probes already re-armed (regload.h) */
	unsigned long long probes_missed_retired;
};

void tracer_shared_init(struct tracer_shared *s, const struct tracer_opts *o);
void tracer_shared_close(struct tracer_shared *s);
/* Whether `name` is one of the shared maps (bpf/common.bpf.h). */
bool tracer_shared_is(const char *name);

/* Before obj loads: the common .rodata from the options, and the shared
 * maps when an object has created them already (only the first object's
 * fork follower is loaded).  0, or a negative errno. */
int tracer_shared_prepare(struct tracer_shared *s, struct bpf_object *obj);
/* After obj loaded: when it is the first, its maps become the shared ones,
 * the cgroup filter is pointed and forks are followed.  0, or -1 with a
 * message in err (watching cannot go on as asked). */
int tracer_shared_adopt(struct tracer_shared *s, struct bpf_object *obj, char *err, size_t errlen);

/* The cgroup v2 directory -c names (a path, or relative to the cgroup2
 * mount), opened O_RDONLY|O_DIRECTORY: the descriptor, or -1 with
 * "cgroup PATH: ERROR (give a cgroup v2 directory)" in err.  watch checks
 * it before anything is armed (a request error, exit 2), the tracer opens
 * it again to point the filter. */
int tracer_cgroup_open(const char *cgroup, char *err, size_t errlen);

/* Sets the .rodata variable `var` of an opened object (len bytes, its
 * size).  0, or -ENOENT when the object has no such variable. */
int tracer_rodata_set(struct bpf_object *obj, const char *var, const void *val, size_t len);

#endif
