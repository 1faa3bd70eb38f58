/* SPDX-License-Identifier: GPL-2.0-only */
/* facts.h - what the running kernel has, for the sites in sites.c: each
 * function in kallsyms and in BTF (and in which module), whether a BPF
 * trampoline attaches to it, which tracepoints exist, whether kprobes are
 * supported.  facts.c gathers them (the only part of the tracer that looks
 * at the kernel before loading); plan.c decides from them alone, so tests
 * can hand it any kernel (tests/unit/test_plan.c). */
#ifndef MRTRACE_TRACER_FACTS_H
#define MRTRACE_TRACER_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define TRACER_FACTS_FUNCS 64
#define TRACER_FACTS_TPS 8

enum tracer_tramp {
	TRAMP_UNTRIED = 0, /* not in BTF, or no trampoline flavour wanted */
	TRAMP_OK, /* a trampoline program loaded and attached here */
	TRAMP_REFUSED, /* ...was refused: why in tramp_why */
};

struct tracer_func_facts {
	char name[128];
	bool in_kallsyms; /* as a text symbol */
	char ksym_module[64]; /* "vmlinux" or the module */
	bool in_btf; /* as a FUNC, in vmlinux or a loaded module's BTF */
	char btf_module[64];
	/* fexit when a site of this function has an fexit program (the
	 * stricter test: it must model the return), else fentry */
	enum tracer_tramp tramp;
	char tramp_why[128]; /* "fexit load refused: Operation not permitted" */
};

struct tracer_tp_facts {
	char name[128]; /* "category/event" */
	bool exists;
};

struct tracer_facts {
	char kernel[128]; /* uname -r */
	bool kprobes; /* the kernel supports kprobes */
	int nfuncs;
	struct tracer_func_facts funcs[TRACER_FACTS_FUNCS];
	int ntps;
	struct tracer_tp_facts tps[TRACER_FACTS_TPS];
};

/* The facts about `name`; NULL when nobody asked (= not in this kernel). */
static inline const struct tracer_func_facts *tracer_facts_func(const struct tracer_facts *f,
								  const char *name)
{
	for (int i = 0; i < f->nfuncs; i++)
		if (!strcmp(f->funcs[i].name, name))
			return &f->funcs[i];
	return NULL;
}

static inline bool tracer_facts_tp(const struct tracer_facts *f, const char *name)
{
	for (int i = 0; i < f->ntps; i++)
		if (!strcmp(f->tps[i].name, name))
			return f->tps[i].exists;
	return false;
}

/* Looks at the running kernel for every function and tracepoint of the
 * site table (mounting tracefs if needed).  0, or -1 with a message in err
 * (nothing could be looked at). */
int tracer_facts_collect(struct tracer_facts *f, char *err, size_t errlen);

#endif
