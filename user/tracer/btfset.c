// SPDX-License-Identifier: GPL-2.0-only
/* btfset.c - the kernel's BTF as gather.c reads it (btfset.h): vmlinux and
 * every loaded module's, indexed once for the names the site table asks
 * about, and the trampoline test of one function. */
#include "tracer/btfset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static unsigned int name_hash(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct btf_want *want_of(struct btf_set *s, const char *name, bool add)
{
	unsigned int h = name_hash(name);

	for (unsigned int i = h;; i++) {
		short *slot = &s->slot[i & (BTF_WANT_SLOTS - 1)];
		if (!*slot) {
			if (!add || s->nwant >= BTF_WANT_MAX)
				return NULL;
			s->want[s->nwant] = (struct btf_want){ .name = name, .hash = h };
			*slot = (short)++s->nwant;
			return &s->want[s->nwant - 1];
		}
		struct btf_want *w = &s->want[*slot - 1];
		if (w->hash == h && !strcmp(w->name, name))
			return w;
	}
}

static void index_one(struct btf_set *s, const struct btf *b, int src, __u32 from)
{
	__u32 n = btf__type_cnt(b);

	for (__u32 id = from; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		int kind = btf_kind(t);
		struct btf_want *w;
		if (kind != BTF_KIND_FUNC && kind != BTF_KIND_STRUCT &&
		    (kind != BTF_KIND_UNION || src))
			continue;
		if (!t->name_off || !(w = want_of(s, btf__name_by_offset(b, t->name_off), false)))
			continue;
		if (kind == BTF_KIND_FUNC && !w->func_id)
			w->func_src = src, w->func_id = (int)id;
		else if (kind == BTF_KIND_STRUCT && !w->struct_id)
			w->struct_src = src, w->struct_id = (int)id;
		else if (kind == BTF_KIND_UNION)
			w->vmlinux_union = true;
	}
}

/* One pass over vmlinux, then each module (their own types only: the
 * first ids of a split BTF are vmlinux's), for the names of f. */
void  btf_set_index(struct btf_set *s, const struct tracer_facts *f)
{
	s->nwant = 0;
	memset(s->slot, 0, sizeof(s->slot));
	if (!s->vmlinux)
		return;
	for (int i = 0; i < f->nfuncs; i++)
		want_of(s, f->funcs[i].name, true);
	for (int i = 0; i < f->ntypes; i++)
		want_of(s, f->types[i].name, true);
	index_one(s, s->vmlinux, 0, 1);
	for (int i = 0; i < s->nmods; i++)
		index_one(s, s->mods[i].btf, 1 + i, btf__type_cnt(s->vmlinux));
}

void  btf_set_load(struct btf_set *s)
{
	__u32 id = 0;

	s->vmlinux = btf__load_vmlinux_btf();
	s->nmods = 0;
	if (!s->vmlinux)
		return;
	while (!bpf_btf_get_next_id(id, &id) && s->nmods < MOD_BTF_MAX) {
		char name[64] = "";
		struct bpf_btf_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    strcmp(name, "vmlinux")) {
			struct btf *b = btf__load_from_kernel_by_id_split(id, s->vmlinux);
			if (b) {
				s->mods[s->nmods].id = id;
				snprintf(s->mods[s->nmods].name, sizeof(s->mods[0].name), "%s", name);
				s->mods[s->nmods].btf = b;
				s->nmods++;
			}
		}
		close(fd);
	}
}

void  btf_set_free(struct btf_set *s)
{
	for (int i = 0; i < s->nmods; i++)
		btf__free(s->mods[i].btf);
	btf__free(s->vmlinux);
	s->nmods = 0;
	s->vmlinux = NULL;
}


int  btf_find_func(struct btf_set *s, const char *func, struct btf_hit *hit)
{
	const struct btf_want *w = want_of(s, func, false);
	const struct mod_btf *m;

	if (!s->vmlinux || !w || !w->func_id)
		return -ENOENT;
	if (!w->func_src) {
		*hit = (struct btf_hit){ 0, w->func_id, "vmlinux" };
		return 0;
	}
	m = &s->mods[w->func_src - 1];
	int fd = bpf_btf_get_fd_by_id(m->id);
	if (fd < 0)
		return -ENOENT;
	*hit = (struct btf_hit){ fd, w->func_id, m->name };
	return 0;
}

/* Can a trampoline program attach here?  Loads and attaches the smallest
 * possible program: this is what fails on kernels that refuse fentry/fexit
 * (EPERM), on functions with too many arguments for the trampoline, or on
 * notrace functions. */
bool tramp_attaches(const struct btf_hit *hit, enum bpf_attach_type type, int *err, char *why,
		    size_t len)
{
	const char *what = type == BPF_TRACE_FEXIT ? "fexit" : "fentry";
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type,
		    .attach_btf_id = hit->type_id, .attach_btf_obj_fd = hit->obj_fd);
	int prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "mrt_probe", "GPL", insns, 2, &opts);

	if (prog < 0) {
		*err = errno;
		snprintf(why, len, "%s load refused: %s", what, strerror(*err));
		return false;
	}
	int link = bpf_raw_tracepoint_open(NULL, prog);
	int e = errno;
	close(prog);
	if (link < 0) {
		*err = e;
		snprintf(why, len, "%s attach refused: %s", what, strerror(e));
		return false;
	}
	close(link);
	*err = 0;
	return true;
}


/* The kernel BTF that has struct (or union) `name`: "vmlinux", a module, or
 * NULL. */
const char * btf_find_struct(struct btf_set *s, const char *name)
{
	const struct btf_want *w = want_of(s, name, false);

	if (!s->vmlinux || !w)
		return NULL;
	if ((w->struct_id && !w->struct_src) || w->vmlinux_union)
		return "vmlinux";
	return w->struct_id ? s->mods[w->struct_src - 1].name : NULL;
}

/* Does enum `type` have enumerator `value` (the same test as the BPF side's
 * bpf_core_enum_value_exists)? */
bool  btf_enum_has(const struct btf *b, const char *type, const char *value)
{
	int id = b ? btf__find_by_name_kind(b, type, BTF_KIND_ENUM) : -1;
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id <= 0)
		return false;
	t = btf__type_by_id(b, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(b, e[i].name_off), value))
			return true;
	return false;
}
