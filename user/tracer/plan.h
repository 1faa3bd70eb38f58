/* SPDX-License-Identifier: GPL-2.0-only */
/* plan.h - which site is armed by which mechanism, and why not, decided
 * from kernel facts alone (plan.c: no libbpf, no file I/O).  The loader
 * then arms what the plan says and disarms, with a note, what fails. */
#ifndef MRTRACE_TRACER_PLAN_H
#define MRTRACE_TRACER_PLAN_H

#include <stdbool.h>

#include "tracer/facts.h"
#include "tracer/opts.h"
#include "tracer/site.h"
#include "tracer/sites.h"

#define TRACER_MAX_SITES 64

struct tracer_plan {
	int n;
	struct tracer_site sites[TRACER_MAX_SITES];
	/* sites[0, nreg): the registration path, defs[i] their table entry */
	int nreg;
	const struct tracer_site_def *defs[TRACER_MAX_SITES];
	/* the candidate armed (tracer_site_cands()), its programs included
	 * (a tracepoint site: the tracepoint, its program in fentry);
	 * cand[i].func is NULL for unarmed sites */
	struct tracer_cand cand[TRACER_MAX_SITES];
	/* candidates before this index failed to load (tracer_plan_demote):
	 * the site is planned from the next one on */
	int cand_from[TRACER_MAX_SITES];
	/* the external BTF the registration-path object relocates against
	 * (btf_custom_path), or NULL: kernel BTF */
	const char *btf_file;
	/* the hot sites (sites.h) armed by their own programs too (--hot-sites) */
	bool hot_sites;
	int sys_first, nsys; /* the syscall tracepoints, -1/0 until planned */
	int uprobe; /* the libibverbs site, -1 until planned */
};

/* Starts the plan over with the registration-path sites: per site the
 * first candidate function this kernel has and can arm, by fentry/fexit
 * where a trampoline attaches, else by kprobe.  allow_fentry false ignores
 * the trampoline facts (kprobes only: after a load failure).  The hot
 * sites (functions that run for work that registers nothing) are armed
 * only with hot_sites; without, those that can are read by another site's
 * programs (sites.h, `from`).  Returns the number of opener sites armed;
 * with none, nothing on the path is armed (nested sites record nothing
 * without an opener). */
int tracer_plan_regpath(struct tracer_plan *p, const struct tracer_facts *f, bool allow_fentry,
			bool hot_sites);

/* Whether site `name` is armed by programs of its own (a hot site with
 * --hot-sites), not read by another site's (sites.h, `from`). */
bool tracer_plan_site_probed(const struct tracer_plan *p, const char *name);

/* After registration-path site i failed to load: plans it again without
 * trampolines (its kprobe flavour), or disarms it; why goes into the note.
 * Then, as tracer_plan_regpath() does, nothing stays armed without an
 * opener.  Returns the openers armed. */
int tracer_plan_demote(struct tracer_plan *p, int i, const struct tracer_facts *f,
		       const char *why);

/* Appends the syscall tracepoint sites: armed (MECH_TRACEPOINT) as the
 * policy says, SYSCALLS_AUTO only when no opener is armed at this point on
 * a kernel with RDMA (tracer_plan_rdma_present()): without it nothing is
 * armed per syscall (watch waits for an RDMA module). */
void tracer_plan_syscalls(struct tracer_plan *p, enum syscalls_policy policy);

/* Whether this kernel has RDMA at all: the function of some opener site
 * (the uverbs command, ib_umem_get, ...) was found, armed or not. */
bool tracer_plan_rdma_present(const struct tracer_plan *p);

/* Appends the libibverbs site (armed later, by what uprobes find). */
void tracer_plan_uprobes(struct tracer_plan *p);

int tracer_plan_armed(const struct tracer_plan *p, bool openers_only);
/* The site called `name`, or NULL. */
struct tracer_site *tracer_plan_site(struct tracer_plan *p, const char *name);

/* Whether reg_mr is armed in a flavour whose exit takes the caller's user
 * stack at a failure: scanned in the kernel (candidate needing
 * "kernel_ustack", 5.17+) or copied raw for user space (before): then the
 * libibverbs registration calls are not probed (tracer/uprobes.c). */
bool tracer_reg_mr_takes_stack(const struct tracer_plan *p);
/* ...in its raw flavour: the stack copied for user space to scan */
bool tracer_reg_mr_stack_raw(const struct tracer_plan *p);
/* ib_umem_get is armed by its exit alone (plan.c, plan_umem_entry) */
bool tracer_umem_exit_only(const struct tracer_plan *p);

/* Disarms site i for reason `why`, with a note (printf-style) saying it in
 * full (site.h: code decides on the reason, people read the note). */
void tracer_plan_disarm(struct tracer_plan *p, int i, enum site_off why, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
