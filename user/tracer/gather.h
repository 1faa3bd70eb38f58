/* SPDX-License-Identifier: GPL-2.0-only */
/* gather.h - the facts of facts.h, gathered from the running kernel (or the
 * facts cache of its build and module set, factscache.h).  Apart from the
 * data so that the readers of facts (the planner, the cache, the BTF set)
 * need not include the gatherer that calls them. */
#ifndef MRTRACE_TRACER_GATHER_H
#define MRTRACE_TRACER_GATHER_H

#include <stddef.h>

#include "tracer/facts.h"
#include "tracer/opts.h"

/* Looks at the running kernel for every candidate function, tracepoint,
 * structure and feature of the site table (mounting tracefs if needed).
 * The costly part (kallsyms, BTF, trampoline tests, helpers) comes from the
 * cache of this kernel build and module set when there is one
 * (factscache.h; not with o->no_cache), and is written there when gathered.
 * o NULL: all gathered afresh, nothing cached (the facts recorder,
 * tests/unit/test_plan.c --record).
 * o->btf_file: the external BTF to consider; NULL looks for <kernel>.btf in
 * $MRTRACE_BTF_DIR, then next to the program (../btf, ../share/mrtrace/btf),
 * then /usr/local/share/mrtrace/btf and /usr/share/mrtrace/btf.  0, or -1
 * with a message in err (nothing could be looked at). */
int tracer_facts_collect(struct tracer_facts *f, const struct tracer_opts *o, char *err,
			 size_t errlen);

/* The same, after modules changed: a function prev had tested in the same
 * module keeps its trampoline answer instead of being tested again (each
 * test patches kernel text: the costly part of looking again, most of all
 * under emulation).  prev may be NULL. */
int tracer_facts_collect_again(struct tracer_facts *f, const struct tracer_opts *o,
			       const struct tracer_facts *prev, char *err, size_t errlen);

#endif
