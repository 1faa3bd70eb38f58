/* SPDX-License-Identifier: GPL-2.0-only */
/* btfset.h - the BTF of vmlinux and of every loaded module, for gather.c:
 * where a function or structure of the site table is typed, whether a
 * trampoline attaches to a function, what an enum holds. */
#ifndef MRTRACE_TRACER_BTFSET_H
#define MRTRACE_TRACER_BTFSET_H

#include <stdbool.h>
#include <linux/bpf.h>

#include "tracer/facts.h"

struct btf;

#define MOD_BTF_MAX 256

#define BTF_WANT_MAX (TRACER_FACTS_FUNCS + TRACER_FACTS_TYPES)
#define BTF_WANT_SLOTS 512 /* a power of two, well above BTF_WANT_MAX */

struct btf_set {
	struct btf *vmlinux;
	int nmods;
	struct mod_btf {
		__u32 id;
		char name[64];
		struct btf *btf;
	} mods[MOD_BTF_MAX];
	/* Every name asked about, found in one pass over all types
	 * (btf_set_index): libbpf's btf__find_by_name_kind walks all ~130,000
	 * types of vmlinux per call, ~2 ms each, ~40 ms for the site table. */
	int nwant;
	struct btf_want {
		const char *name;
		unsigned int hash;
		/* the first FUNC and STRUCT of this name: src 0 is vmlinux, 1 + i
		 * mods[i]; id 0 where none */
		int func_src, func_id, struct_src, struct_id;
		bool vmlinux_union;
	} want[BTF_WANT_MAX];
	short slot[BTF_WANT_SLOTS]; /* index + 1 into want, 0 empty */
};

struct btf_hit {
	int obj_fd; /* 0 for vmlinux, else a new fd of the module's BTF object */
	int type_id;
	const char *module;
};

/* Loads vmlinux's BTF and every loaded module's. */
void btf_set_load(struct btf_set *s);
/* Finds every name f asks about (functions, structures) in one pass. */
void btf_set_index(struct btf_set *s, const struct tracer_facts *f);
void btf_set_free(struct btf_set *s);
/* The FUNC `func`: 0 with *hit filled in (a new fd of its module's BTF
 * object, for the caller to close), or -ENOENT. */
int btf_find_func(struct btf_set *s, const char *func, struct btf_hit *hit);
/* Whether a trampoline program of `type` loads and attaches at hit; why
 * not into why. */
bool tramp_attaches(const struct btf_hit *hit, enum bpf_attach_type type, int *err, char *why,
		    size_t len);
/* The kernel BTF that has struct (or union) `name`: "vmlinux", a module,
 * or NULL. */
const char *btf_find_struct(struct btf_set *s, const char *name);
/* Does enum `type` have enumerator `value` (the BPF side's
 * bpf_core_enum_value_exists)? */
bool btf_enum_has(const struct btf *b, const char *type, const char *value);

#endif
