/* SPDX-License-Identifier: GPL-2.0-only */
/* sites.h - the sites mrtrace knows, with the BPF programs that serve each
 * (defined in sites.c; program names refer to the objects in bpf/). */
#ifndef MRTRACE_TRACER_SITES_H
#define MRTRACE_TRACER_SITES_H

#include <stdbool.h>

/* A site on the registration path (bpf/regpath.bpf.c).  NULL program names:
 * no such flavour. */
struct tracer_site_def {
	const char *name, *func, *gives;
	bool opener; /* can open a registration trail */
	const char *fentry, *fexit, *kprobe, *kretprobe;
	const char *alt; /* another name the function has on some kernels */
	const char *tp; /* "category/event" for a tracepoint site (program in fentry) */
	const char *only_without; /* armed only when this site is not */
	bool standalone; /* records its own failures: needs no registration opener */
};

/* A pair of syscall tracepoints (bpf/syscalls.bpf.c). */
struct tracer_sys_def {
	const char *name, *func, *prog_enter, *prog_exit, *gives;
};

/* The libibverbs uprobes (bpf/libibverbs.bpf.c), one site for all. */
struct tracer_uprobe_def {
	const char *name, *func, *gives;
};

extern const struct tracer_site_def tracer_reg_sites[];
extern const int tracer_n_reg_sites;
extern const struct tracer_sys_def tracer_sys_sites[];
extern const int tracer_n_sys_sites;
extern const struct tracer_uprobe_def tracer_uprobe_site;

#endif
