/* SPDX-License-Identifier: GPL-2.0-only */
/* sites.h - the sites mrtrace knows, with the BPF programs that serve each
 * (defined in sites.c; program names refer to the objects in bpf/).
 *
 * A registration-path site is a role (the REG_MR command, the pinning entry
 * with its memlock check, the release, ...) and the kernel functions that
 * have played it: `func` (with `alt`, same programs) and then `more`, each
 * with the kernels where it applies and, when its arguments differ, its own
 * programs.  plan.c arms the first candidate this kernel has and can arm
 * (docs/design.md section 8 lists the renames). */
#ifndef MRTRACE_TRACER_SITES_H
#define MRTRACE_TRACER_SITES_H

#include <stdbool.h>

#include "tracer/site_def.h"

/* A pair of syscall tracepoints (bpf/syscalls.bpf.c). */
struct tracer_sys_def {
	const char *name, *func, *prog_enter, *prog_exit, *gives;
};

/* The libibverbs uprobes (bpf/libibverbs.bpf.c), one site for all. */
struct tracer_uprobe_def {
	const char *name, *func, *gives;
};

/* The registration path's sites in report order, the drivers' (their
 * tables, user/drivers/) among them: site i, NULL past the last. */
const struct tracer_site_def *tracer_reg_site(int i);
int tracer_n_reg_sites(void);
extern const struct tracer_sys_def tracer_sys_sites[];
extern const int tracer_n_sys_sites;
extern const struct tracer_uprobe_def tracer_uprobe_site;

/* The candidates of a site in order (func, alt, more[]), as one list:
 * program names filled in from the site where the candidate has none.
 * Returns how many (at most TRACER_CANDS_MAX + 2). */
#define TRACER_SITE_CANDS (TRACER_CANDS_MAX + 2)
int tracer_site_cands(const struct tracer_site_def *d, struct tracer_cand out[TRACER_SITE_CANDS]);

#endif
