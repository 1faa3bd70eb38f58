/* SPDX-License-Identifier: GPL-2.0-only */
/* facts.h - what the running kernel has, for the sites in sites.c: each
 * candidate function in kallsyms and in BTF (and in which module), whether a
 * BPF trampoline attaches to it, which tracepoints exist, whether kprobes
 * are supported, which BTF holds the module structures the sites read (the
 * kernel's own, or an external file for kernels without module BTF), and
 * the helpers some programs need.  gather.c gathers them (gather.h: the
 * only part of the tracer that looks at the kernel before loading); plan.c
 * decides from them alone, so tests can hand it any kernel (tests/unit/test_plan.c). */
#ifndef MRTRACE_TRACER_FACTS_H
#define MRTRACE_TRACER_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "tracer/opts.h"

#define TRACER_FACTS_FUNCS 96
#define TRACER_FACTS_TPS 8
#define TRACER_FACTS_TYPES 8
#define TRACER_FACTS_FEATURES 4

enum tracer_tramp {
	TRAMP_UNTRIED = 0, /* not in BTF, or no trampoline flavour wanted */
	TRAMP_OK, /* a trampoline program loaded and attached here */
	TRAMP_REFUSED, /* ...was refused: why in tramp_why */
};

struct tracer_func_facts {
	char name[128];
	bool in_kallsyms; /* as a text symbol */
	char ksym_module[64]; /* "vmlinux" or the module (of the first one) */
	/* how many text symbols have this name: static functions of the same
	 * name in several modules (mlx5_ib's reg_create, create_real_mr) make
	 * a bare kprobe ambiguous, which newer kernels refuse */
	int ksym_count;
	/* in kallsyms but not in tracefs' available_filter_functions: built
	 * without ftrace (lib/scatterlist.c on Debian), so no trampoline
	 * attaches and kprobe events refuse it ("Could not probe notrace
	 * function"); false when that list could not be read */
	bool notrace;
	bool in_btf; /* as a FUNC, in vmlinux or a loaded module's BTF */
	char btf_module[64];
	/* fexit when a site of this function has an fexit program (the
	 * stricter test: it must model the return), else fentry */
	enum tracer_tramp tramp;
	/* TRAMP_REFUSED: the kernel's errno, as a value (ENXIO: the module's
	 * function is not live yet, worth planning again) and as text */
	int tramp_errno;
	char tramp_why[128]; /* "fexit load refused: Operation not permitted" */
};

struct tracer_tp_facts {
	char name[128]; /* "category/event" */
	bool exists;
};

/* A structure a site reads with CO-RE (tracer_site_def.type). */
struct tracer_type_facts {
	char name[64]; /* "ib_umem" */
	char btf_module[64]; /* kernel BTF that has it: "vmlinux", a module, "" */
	bool in_file; /* the external BTF file has it */
};

/* A kernel feature a flavour of a site needs (tracer_cand.needs). */
struct tracer_feature_facts {
	char name[32]; /* "find_vma": the bpf_find_vma helper */
	bool present;
};

struct tracer_facts {
	char kernel[128]; /* uname -r */
	bool kprobes; /* the kernel supports kprobes */
	bool module_btf; /* modules carry BTF (/sys/kernel/btf/<module>; 5.11+) */
	/* btf/<kernel>.btf found for this kernel (path), "" if none */
	char btf_file[512];
	int nfuncs;
	struct tracer_func_facts funcs[TRACER_FACTS_FUNCS];
	int ntps;
	struct tracer_tp_facts tps[TRACER_FACTS_TPS];
	int ntypes;
	struct tracer_type_facts types[TRACER_FACTS_TYPES];
	int nfeatures;
	struct tracer_feature_facts features[TRACER_FACTS_FEATURES];
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

static inline const struct tracer_type_facts *tracer_facts_type(const struct tracer_facts *f,
								  const char *name)
{
	for (int i = 0; i < f->ntypes; i++)
		if (!strcmp(f->types[i].name, name))
			return &f->types[i];
	return NULL;
}

/* Unknown features are absent. */
static inline bool tracer_facts_feature(const struct tracer_facts *f, const char *name)
{
	for (int i = 0; i < f->nfeatures; i++)
		if (!strcmp(f->features[i].name, name))
			return f->features[i].present;
	return false;
}

#endif
