/* SPDX-License-Identifier: GPL-2.0-only */
/* loader.h - arming the two sources beside the registration path
 * (regload.h): the syscall tracepoints and the libibverbs object, each its
 * own BPF object sharing the common maps (shared.h).  Called in this order
 * by tracer_open(), after the registration path. */
#ifndef MRTRACE_TRACER_LOADER_H
#define MRTRACE_TRACER_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer/plan.h"
#include "tracer/regload.h"
#include "tracer/shared.h"
#include "tracer/uprobes.h"

struct syscalls_bpf;

struct tracer_syscalls {
	struct syscalls_bpf *skel; /* NULL: not loaded */
	int nlinks;
	struct bpf_link *links[2 * 8];
	int link_prog_fd[2 * 8]; /* per link its program, for its misses (probemiss.h) */
	const char *link_site[2 * 8];
	bool link_exit[2 * 8];
};

/* What is armed and from what: the kernel facts, the plan, the objects that
 * carry it out.  struct tracer holds one; rearm.c plans it again when
 * modules change. */
struct tracer_loader {
	const struct tracer_opts *opts;
	struct tracer_facts facts;
	struct tracer_plan plan; /* the sites as they stand: the loaders disarm failures */
	struct tracer_shared shared;
	struct tracer_regpath *reg; /* the registration path's generation, NULL: none */
	struct tracer_syscalls sys;
};

/* Each returns 0 (sites that could not be armed say why in the plan), or -1
 * with a message in err when watching cannot go on as asked (cgroup filter,
 * fork following). */
int tracer_load_syscalls(struct tracer_syscalls *sc, struct tracer_plan *p,
			 struct tracer_shared *sh, char *err, size_t errlen);
int tracer_load_uprobes(struct tracer_uprobes *u, struct tracer_plan *p, struct tracer_shared *sh,
			char *err, size_t errlen);

/* The syscall tracepoints' links go (the object stays: it may own the fork
 * follower's program); returns how many were attached. */
int tracer_syscalls_detach(struct tracer_syscalls *sc);
void tracer_syscalls_close(struct tracer_syscalls *sc);

#endif
