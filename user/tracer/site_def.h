/* SPDX-License-Identifier: GPL-2.0-only */
/* site_def.h - what a registration-path site is (a role and the kernel
 * functions that have played it), apart from sites.h's lists: the drivers'
 * tables (user/drivers/) define their sites with it, and sites.h gathers
 * them, so neither includes the other. */
#ifndef MRTRACE_TRACER_SITE_DEF_H
#define MRTRACE_TRACER_SITE_DEF_H

#include <stdbool.h>

#define TRACER_CANDS_MAX 4

/* Another function for a site's role.  NULL program names: the site's own
 * (same argument layout). */
struct tracer_cand {
	const char *func;
	const char *kernels; /* where it applies: "5.10", "7.0+ (static, ib_core)" */
	const char *fentry, *fexit, *kprobe, *kretprobe;
	/* a kernel feature these programs need (tracer_facts_feature()), NULL none */
	const char *needs;
};

/* A site on the registration path (the units of bpf/regpath/).  NULL program names:
 * no such flavour. */
struct tracer_site_def {
	const char *name, *func, *gives;
	bool opener; /* can open a registration trail */
	const char *fentry, *fexit, *kprobe, *kretprobe;
	const char *alt; /* another name the function has on some kernels */
	const char *tp; /* "category/event" for a tracepoint site (program in fentry) */
	const char *only_without; /* armed only when this site is not */
	bool standalone; /* records its own failures: needs no registration opener */
	/* where func applies (docs/design.md section 8); NULL: everywhere */
	const char *kernels;
	const char *needs; /* a kernel feature func's programs need, NULL none */
	/* further candidates, in order of preference, after func and alt */
	struct tracer_cand more[TRACER_CANDS_MAX];
	/* a kernel structure from a module that the site's evidence reads with
	 * CO-RE: typed by module BTF, or by an external BTF file where modules
	 * have none (5.10).  Without either the programs still load (they test
	 * bpf_core_type_exists) but read less, or, with type_required, the site
	 * is not armed. */
	const char *type;
	bool type_required;
	/* verdict-critical: what is lost when no candidate is armed, said at
	 * start ("memlock evidence unavailable on this kernel: ...") */
	const char *critical, *without;
	/* Hot: func runs for work that registers nothing (what: "every privilege
	 * check of every process"), so its programs are armed only with
	 * --hot-sites (tracer_opts.hot_sites); NULL: a cold function, armed
	 * always.  Off, a hot site with `from` is still armed: that site's
	 * programs read its evidence (`instead`), by its function and
	 * mechanism; without `from` it is off and says so. */
	const char *hot;
	const char *from, *instead;
};

#endif
