/* SPDX-License-Identifier: GPL-2.0-only */
/* modwatch.h - which kernel modules that hold registration sites are live,
 * what changed since the last look, and which sites a re-plan armed or
 * detached (modwatch.c: pure, no libbpf, no file I/O, so
 * tests/unit/test_modwatch.c can hand it any /proc/modules).
 *
 * Why: a boot-time `mrtrace watch` starts before mlx5_ib, rdma_rxe and
 * ib_uverbs load, and sites are planned from the kernel as it was at start.
 * rearm.c notices module loads and unloads (the module/module_load and
 * module/module_free tracepoints, else by polling /proc/modules), reads
 * /proc/modules, asks this file what changed, and plans again. */
#ifndef MRTRACE_TRACER_MODWATCH_H
#define MRTRACE_TRACER_MODWATCH_H

#include <stdbool.h>

#include "tracer/site.h"

#define MODWATCH_MAX 32
#define MODWATCH_NAME_MAX 64

enum modwatch_state {
	MODWATCH_LIVE, /* initialised: its BTF is usable, a trampoline attaches */
	MODWATCH_COMING, /* "Loading": its init runs; fentry refuses it (ENXIO) */
	MODWATCH_GOING, /* "Unloading" */
};

struct modwatch_mod {
	char name[MODWATCH_NAME_MAX];
	enum modwatch_state state;
};

/* The relevant modules of one look at /proc/modules. */
struct modwatch_set {
	int n;
	struct modwatch_mod mods[MODWATCH_MAX];
};

/* Whether a module may hold a site: one of the RDMA modules whose functions
 * are in the site table (ib_core, ib_uverbs, rdma_rxe, mlx5_ib, mlx5_core),
 * or one of `extra` (the modules armed sites were found in). */
bool modwatch_relevant(const char *name, const char *const *extra, int nextra);

/* Parses /proc/modules text ("name size refs deps state addr" a line) into
 * the relevant modules.  Returns how many. */
int modwatch_parse(struct modwatch_set *s, const char *text, const char *const *extra,
		   int nextra);

/* Any relevant module still loading or unloading: look again soon. */
bool modwatch_settling(const struct modwatch_set *s);

enum modwatch_kind {
	MODWATCH_LOADED, /* live now, not live before */
	MODWATCH_UNLOADED, /* live before, gone or unloading now */
};

struct modwatch_change {
	char name[MODWATCH_NAME_MAX];
	enum modwatch_kind kind;
};

/* What changed from `before` to `now`, loads first, into out (at most max).
 * A module that came and went between two looks is no change.  Returns how
 * many. */
int modwatch_diff(const struct modwatch_set *before, const struct modwatch_set *now,
		  struct modwatch_change *out, int max);

/* A site armed or detached by a re-plan. */
struct modwatch_site {
	const char *name; /* the site's (static) */
	enum mech mech; /* armed with; the old mechanism for a detached site */
	char module[TRACER_MODULE_MAX];
};

/* Sites [0, n) before and after a re-plan: armed now and not before (or by
 * another function or mechanism) into armed, armed before and not now into
 * detached.  Counts into *narmed, *ndetached. */
void modwatch_site_changes(const struct tracer_site *before, const struct tracer_site *after,
			   int n, struct modwatch_site *armed, int *narmed,
			   struct modwatch_site *detached, int *ndetached);

/* Modules with registration sites that loaded or went away while running,
 * and the sites the re-plan armed and detached (rearm.c fills it in,
 * tracer_modchange() hands it out). */
#define TRACER_MODCHANGE_SITES 64
struct tracer_modchange {
	char loaded[256], unloaded[256]; /* "ib_uverbs, rdma_rxe"; "" none */
	int narmed, ndetached;
	struct modwatch_site armed[TRACER_MODCHANGE_SITES], detached[TRACER_MODCHANGE_SITES];
	int armed_sites; /* armed after the change (tracer_armed_count()) */
	double seconds; /* to look at the kernel again, plan, load and attach */
	double facts_seconds; /* of which looking at the kernel (gather.c) */
};

#endif
