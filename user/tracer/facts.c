// SPDX-License-Identifier: GPL-2.0-only
/* facts.c - what the running kernel has for the sites of sites.c (facts.h):
 * kallsyms, BTF of vmlinux and of every loaded module, a trampoline test
 * per function, tracefs tracepoints, kprobe support. */
#include "tracer/facts.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tracer/log.h"
#include "tracer/sites.h"

/* ---- BTF: vmlinux, then every loaded module ------------------------------- */

#define MOD_BTF_MAX 256

struct btf_set {
	struct btf *vmlinux;
	int nmods;
	struct mod_btf {
		__u32 id;
		char name[64];
		struct btf *btf;
	} mods[MOD_BTF_MAX];
};

static void btf_set_load(struct btf_set *s)
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

static void btf_set_free(struct btf_set *s)
{
	for (int i = 0; i < s->nmods; i++)
		btf__free(s->mods[i].btf);
	btf__free(s->vmlinux);
	s->nmods = 0;
	s->vmlinux = NULL;
}

struct btf_hit {
	int obj_fd; /* 0 for vmlinux, else a new fd of the module's BTF object */
	int type_id;
	const char *module;
};

static int btf_find_func(const struct btf_set *s, const char *func, struct btf_hit *hit)
{
	int tid;

	if (!s->vmlinux)
		return -ENOENT;
	tid = btf__find_by_name_kind(s->vmlinux, func, BTF_KIND_FUNC);
	if (tid > 0) {
		*hit = (struct btf_hit){ 0, tid, "vmlinux" };
		return 0;
	}
	for (int i = 0; i < s->nmods; i++) {
		tid = btf__find_by_name_kind(s->mods[i].btf, func, BTF_KIND_FUNC);
		if (tid <= 0)
			continue;
		int fd = bpf_btf_get_fd_by_id(s->mods[i].id);
		if (fd < 0)
			return -ENOENT;
		*hit = (struct btf_hit){ fd, tid, s->mods[i].name };
		return 0;
	}
	return -ENOENT;
}

/* Can a trampoline program attach here?  Loads and attaches the smallest
 * possible program: this is what fails on kernels that refuse fentry/fexit
 * (EPERM), on functions with too many arguments for the trampoline, or on
 * notrace functions. */
static bool tramp_attaches(const struct btf_hit *hit, enum bpf_attach_type type, char *why,
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
		snprintf(why, len, "%s load refused: %s", what, strerror(errno));
		return false;
	}
	int link = bpf_raw_tracepoint_open(NULL, prog);
	int e = errno;
	close(prog);
	if (link < 0) {
		snprintf(why, len, "%s attach refused: %s", what, strerror(e));
		return false;
	}
	close(link);
	return true;
}

/* ---- kallsyms, tracefs, kprobes ---------------------------------------------- */

/* One pass over /proc/kallsyms for every function asked about. */
static void kallsyms_scan(struct tracer_facts *f)
{
	FILE *k = fopen("/proc/kallsyms", "re");
	char line[512];

	if (!k)
		return;
	while (fgets(line, sizeof(line), k)) {
		char type, sym[256], mod[64] = "";
		unsigned long long addr;
		int n = sscanf(line, "%llx %c %255s [%63[^]]]", &addr, &type, sym, mod);
		if (n < 3 || (type != 't' && type != 'T'))
			continue;
		for (int i = 0; i < f->nfuncs; i++) {
			struct tracer_func_facts *ff = &f->funcs[i];
			if (!ff->in_kallsyms && !strcmp(ff->name, sym)) {
				ff->in_kallsyms = true;
				snprintf(ff->ksym_module, sizeof(ff->ksym_module), "%s",
					 n == 4 ? mod : "vmlinux");
			}
		}
	}
	fclose(k);
}

static bool kprobes_supported(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/* libbpf resolves tracepoints and legacy kprobes through tracefs. */
static void ensure_tracefs(void)
{
	if (!access("/sys/kernel/tracing/events", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events", F_OK))
		return;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY)
		tracer_note("cannot mount tracefs on /sys/kernel/tracing: %s", strerror(errno));
}

/* ---- gathering ------------------------------------------------------------------ */

static struct tracer_func_facts *want_func(struct tracer_facts *f, const char *name)
{
	struct tracer_func_facts *ff = (struct tracer_func_facts *)tracer_facts_func(f, name);

	if (ff || f->nfuncs >= TRACER_FACTS_FUNCS)
		return ff;
	ff = &f->funcs[f->nfuncs++];
	memset(ff, 0, sizeof(*ff));
	snprintf(ff->name, sizeof(ff->name), "%s", name);
	return ff;
}

static void btf_scan(struct tracer_func_facts *ff, const struct btf_set *s,
		     const struct tracer_site_def *d)
{
	struct btf_hit hit;

	if (!ff || btf_find_func(s, ff->name, &hit))
		return;
	ff->in_btf = true;
	snprintf(ff->btf_module, sizeof(ff->btf_module), "%s", hit.module);
	if (d->fentry || d->fexit)
		ff->tramp = tramp_attaches(&hit, d->fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
					   ff->tramp_why, sizeof(ff->tramp_why))
				    ? TRAMP_OK
				    : TRAMP_REFUSED;
	if (hit.obj_fd > 0)
		close(hit.obj_fd);
}

int tracer_facts_collect(struct tracer_facts *f, char *err, size_t errlen)
{
	struct btf_set *btfs = calloc(1, sizeof(*btfs));
	struct utsname u;

	memset(f, 0, sizeof(*f));
	if (!btfs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!uname(&u))
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	ensure_tracefs();
	f->kprobes = kprobes_supported();
	for (int i = 0; i < tracer_n_reg_sites; i++) {
		const struct tracer_site_def *d = &tracer_reg_sites[i];
		if (d->tp) {
			char path[256];
			struct tracer_tp_facts *tp = &f->tps[f->ntps];
			if (f->ntps >= TRACER_FACTS_TPS)
				continue;
			snprintf(tp->name, sizeof(tp->name), "%s", d->tp);
			snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", d->tp);
			tp->exists = !access(path, F_OK);
			f->ntps++;
			continue;
		}
		want_func(f, d->func);
		if (d->alt)
			want_func(f, d->alt);
	}
	kallsyms_scan(f);

	/* Trampoline tests fail where fentry is refused: expected, and each
	 * outcome goes into the site's note. */
	tracer_log_expect(true);
	btf_set_load(btfs);
	for (int i = 0; i < tracer_n_reg_sites; i++) {
		const struct tracer_site_def *d = &tracer_reg_sites[i];
		struct tracer_func_facts *ff;
		if (d->tp)
			continue;
		ff = (struct tracer_func_facts *)tracer_facts_func(f, d->func);
		btf_scan(ff, btfs, d);
		/* the other name only matters where the usual one is absent */
		if (d->alt && ff && !ff->in_kallsyms && !ff->in_btf)
			btf_scan((struct tracer_func_facts *)tracer_facts_func(f, d->alt), btfs, d);
	}
	btf_set_free(btfs);
	tracer_log_expect(false);
	free(btfs);
	return 0;
}
