// SPDX-License-Identifier: GPL-2.0-only
/* gather.c - what the running kernel has for the sites of sites.c (facts.h,
 * gather.h):
 * kallsyms, BTF of vmlinux and of every loaded module, a trampoline test
 * per candidate function, tracefs tracepoints, kprobe support, the module
 * structures the sites read (kernel BTF or an external file), helpers. */
#include "tracer/gather.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/tracefs.h"
#include "core/version.h"
#include "tracer/btfset.h"
#include "tracer/factscache.h"
#include "tracer/log.h"
#include "tracer/sites.h"

/* ---- kallsyms, tracefs, kprobes ---------------------------------------------- */

/* The symbol on one line of /proc/kallsyms ("ffffffffc0a01230 t name\t[module]"):
 * counted for every function asked about that has its name. */
static void kallsyms_line(struct tracer_facts *f, const bool *len_asked, const char *line,
			  const char *end)
{
	const char *type = memchr(line, ' ', (size_t)(end - line));
	const char *sym, *stop;
	size_t n;

	if (!type || end - type < 4 || (type[1] != 't' && type[1] != 'T') || type[2] != ' ')
		return;
	sym = type + 3;
	for (stop = sym; stop < end && *stop != '\t' && *stop != ' '; stop++)
		;
	n = (size_t)(stop - sym);
	if (n >= sizeof(f->funcs[0].name) || !len_asked[n])
		return;
	for (int i = 0; i < f->nfuncs; i++) {
		struct tracer_func_facts *ff = &f->funcs[i];
		if (memcmp(ff->name, sym, n) || ff->name[n])
			continue;
		if (!ff->ksym_count) {
			const char *mod = memchr(stop, '[', (size_t)(end - stop));
			const char *mend = mod ? memchr(mod, ']', (size_t)(end - mod)) : NULL;
			if (mod && mend)
				snprintf(ff->ksym_module, sizeof(ff->ksym_module), "%.*s",
					 (int)(mend - mod - 1), mod + 1);
			else
				snprintf(ff->ksym_module, sizeof(ff->ksym_module), "vmlinux");
		}
		ff->in_kallsyms = true;
		ff->ksym_count++;
	}
}

/* One pass over /proc/kallsyms for every function asked about.  The file
 * has ~120,000-200,000 lines and the kernel takes ~30 ms to write them: read
 * in large blocks, and a name is compared only when a function asked about
 * has its length. */
static void kallsyms_scan(struct tracer_facts *f)
{
	enum { BLOCK = 1 << 18 };
	bool len_asked[sizeof(f->funcs[0].name)] = { false };
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	char *buf = fd >= 0 ? malloc(BLOCK) : NULL;
	size_t have = 0;
	ssize_t got;

	for (int i = 0; i < f->nfuncs; i++)
		len_asked[strlen(f->funcs[i].name)] = true;
	while (buf && (got = read(fd, buf + have, BLOCK - have)) > 0) {
		char *p = buf, *end = buf + have + got, *nl;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			kallsyms_line(f, len_asked, p, nl);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == BLOCK) /* a line longer than a block: not a symbol */
			have = 0;
		memmove(buf, p, have);
	}
	free(buf);
	if (fd >= 0)
		close(fd);
}

/* One pass over available_filter_functions ("name" or "name [module]"):
 * every function asked about that is in kallsyms but not there is notrace.
 * No tracing directory or an unreadable list: nothing is marked. */
static void notrace_scan(struct tracer_facts *f, const char *tracing)
{
	bool seen[TRACER_FACTS_FUNCS] = { false };
	char line[512], sym[256], path[PATH_MAX];
	FILE *a;

	if (!tracing)
		return;
	snprintf(path, sizeof(path), "%s/available_filter_functions", tracing);
	if (!(a = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), a)) {
		if (sscanf(line, "%255s", sym) != 1)
			continue;
		for (int i = 0; i < f->nfuncs; i++)
			if (!seen[i] && !strcmp(f->funcs[i].name, sym))
				seen[i] = true;
	}
	fclose(a);
	for (int i = 0; i < f->nfuncs; i++)
		f->funcs[i].notrace = f->funcs[i].in_kallsyms && !seen[i];
}

static bool kprobes_supported(const char *tracing)
{
	char path[PATH_MAX];

	if (!access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		return true;
	snprintf(path, sizeof(path), "%s/kprobe_events", tracing ? tracing : "/nonexistent");
	return !access(path, F_OK);
}

/* ---- helpers, the external BTF file ------------------------------------------- */

static void add_feature(struct tracer_facts *f, const char *name, bool present)
{
	if (f->nfeatures >= TRACER_FACTS_FEATURES)
		return;
	snprintf(f->features[f->nfeatures].name, sizeof(f->features[0].name), "%s", name);
	f->features[f->nfeatures++].present = present;
}

static bool usable_file(const char *path)
{
	return !access(path, R_OK);
}

/* <kernel>.btf in the places facts.h lists; "" if nowhere. */
static void find_btf_file(const char *kernel, char *out, size_t len)
{
	char exe[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 256];
	const char *env = getenv("MRTRACE_BTF_DIR");
	ssize_t n;

	out[0] = 0;
	if (env && *env) {
		snprintf(path, sizeof(path), "%s/%s.btf", env, kernel);
		if (usable_file(path))
			goto found;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(dir, sizeof(dir), "%s", exe);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = 0;
			/* build/mrtrace in the source tree; sbin/mrtrace installed */
			snprintf(path, sizeof(path), "%s/../btf/%s.btf", dir, kernel);
			if (usable_file(path))
				goto found;
			snprintf(path, sizeof(path), "%s/../share/mrtrace/btf/%s.btf", dir, kernel);
			if (usable_file(path))
				goto found;
		}
	}
	snprintf(path, sizeof(path), "/usr/local/share/mrtrace/btf/%s.btf", kernel);
	if (usable_file(path))
		goto found;
	snprintf(path, sizeof(path), "/usr/share/mrtrace/btf/%s.btf", kernel);
	if (usable_file(path))
		goto found;
	return;
found:
	/* too long to name: as if absent */
	if ((size_t)snprintf(out, len, "%s", realpath(path, exe) ? exe : path) >= len)
		out[0] = 0;
}

/* Where each structure of the site table is typed in the kernel's BTF. */
static void scan_types(struct tracer_facts *f, struct btf_set *s)
{
	for (int i = 0; i < f->ntypes; i++) {
		const char *where = btf_find_struct(s, f->types[i].name);
		if (where)
			snprintf(f->types[i].btf_module, sizeof(f->types[i].btf_module), "%s",
				 where);
	}
}

/* ...and in the external file (not cached: the file is looked for anew at
 * every start). */
static void scan_file_types(struct tracer_facts *f)
{
	struct btf *file = NULL;

	if (f->btf_file[0]) {
		file = btf__parse(f->btf_file, NULL);
		if (!file)
			tracer_note("external BTF %s unreadable: %s", f->btf_file, strerror(errno));
	}
	for (int i = 0; i < f->ntypes; i++)
		f->types[i].in_file =
			file && btf__find_by_name_kind(file, f->types[i].name, BTF_KIND_STRUCT) > 0;
	btf__free(file);
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

/* BTF and, once per function, the trampoline test: fexit when the
 * candidate has an fexit program (the stricter test), else fentry. */
static void btf_scan(struct tracer_func_facts *ff, struct btf_set *s,
		     const struct tracer_cand *c, const struct tracer_facts *prev, bool kprobes)
{
	const struct tracer_func_facts *pf;
	struct btf_hit hit;

	if (!ff || ff->in_btf || btf_find_func(s, ff->name, &hit))
		return;
	ff->in_btf = true;
	snprintf(ff->btf_module, sizeof(ff->btf_module), "%s", hit.module);
	/* looked at again after modules changed: a function of the same
	 * module was tested then (its answer is the function's, not the
	 * module instance's; a load failure still demotes the site) */
	if (prev && (pf = tracer_facts_func(prev, ff->name)) && pf->in_btf &&
	    pf->tramp != TRAMP_UNTRIED && !strcmp(pf->btf_module, ff->btf_module)) {
		ff->tramp = pf->tramp;
		ff->tramp_errno = pf->tramp_errno;
		snprintf(ff->tramp_why, sizeof(ff->tramp_why), "%s", pf->tramp_why);
	} else if ((c->fentry || c->fexit) && !(kprobes && strcmp(hit.module, "vmlinux") &&
						 (c->kprobe || c->kretprobe))) {
		/* not for a module's function where kprobes work: plan.c arms
		 * those by kprobe (a trampoline would hold the module), and each
		 * test patches kernel text, the costly part of a re-arm */
		ff->tramp = tramp_attaches(&hit, c->fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
					   &ff->tramp_errno, ff->tramp_why, sizeof(ff->tramp_why))
				    ? TRAMP_OK
				    : TRAMP_REFUSED;
	}
	if (hit.obj_fd > 0)
		close(hit.obj_fd);
}

/* What the site table asks about: its functions, tracepoints (looked at
 * here: a stat each) and structures. */
static void ask(struct tracer_facts *f, const char *tracing)
{
	for (int i = 0, nsites = tracer_n_reg_sites(); i < nsites; i++) {
		const struct tracer_site_def *d = tracer_reg_site(i);
		if (d->type && !tracer_facts_type(f, d->type) && f->ntypes < TRACER_FACTS_TYPES) {
			struct tracer_type_facts *t = &f->types[f->ntypes++];
			snprintf(t->name, sizeof(t->name), "%s", d->type);
		}
		if (d->tp) {
			char path[256];
			struct tracer_tp_facts *tp = &f->tps[f->ntps];
			if (f->ntps >= TRACER_FACTS_TPS)
				continue;
			snprintf(tp->name, sizeof(tp->name), "%s", d->tp);
			snprintf(path, sizeof(path), "%s/events/%s",
				 tracing ? tracing : "/nonexistent", d->tp);
			tp->exists = !access(path, F_OK);
			f->ntps++;
			continue;
		}
		struct tracer_cand c[TRACER_SITE_CANDS];
		int n = tracer_site_cands(d, c);
		for (int k = 0; k < n; k++)
			want_func(f, c[k].func);
	}
}

/* The facts that cost: kallsyms, notrace, BTF, trampoline tests,
 * structures, helpers.  Whether they are whole (tracefs and the kernel's
 * BTF could be read): only whole ones are cached. */
static bool gather(struct tracer_facts *f, const char *tracing, const struct tracer_facts *prev,
		   const volatile sig_atomic_t *stop)
{
	struct btf_set *btfs = calloc(1, sizeof(*btfs));
	bool whole;

	if (!btfs)
		return false;
	kallsyms_scan(f);
	notrace_scan(f, tracing);

	/* Trampoline tests fail where fentry is refused: expected, and each
	 * outcome goes into the site's note. */
	tracer_log_expect(true);
	btf_set_load(btfs);
	btf_set_index(btfs, f);
	whole = tracing && btfs->vmlinux;
	f->module_btf = btfs->nmods > 0;
	for (int i = 0, nsites = tracer_n_reg_sites(); i < nsites; i++) {
		const struct tracer_site_def *d = tracer_reg_site(i);
		struct tracer_cand c[TRACER_SITE_CANDS];
		int n;
		if (d->tp)
			continue;
		n = tracer_site_cands(d, c);
		/* each test patches kernel text (most of the time it takes): a
		 * stop request is looked at between them */
		for (int k = 0; k < n && !(stop && *stop); k++)
			btf_scan((struct tracer_func_facts *)tracer_facts_func(f, c[k].func), btfs,
				 &c[k], prev, f->kprobes);
	}
	whole = whole && !(stop && *stop);
	scan_types(f, btfs);
	/* bpf_find_vma (5.17): its callback cannot even be loaded before */
	add_feature(f, "find_vma", btf_enum_has(btfs->vmlinux, "bpf_func_id", "BPF_FUNC_find_vma"));
	/* the caller's stack at a failed REG_MR (bpf/common.bpf.h, kernel_ustack):
	 * the stack pointer, a loop over its words, the mapping of each (5.17+) */
	add_feature(f, "kernel_ustack",
		    btf_enum_has(btfs->vmlinux, "bpf_func_id", "BPF_FUNC_task_pt_regs") &&
			    btf_enum_has(btfs->vmlinux, "bpf_func_id", "BPF_FUNC_loop") &&
			    btf_enum_has(btfs->vmlinux, "bpf_func_id", "BPF_FUNC_find_vma"));
	btf_set_free(btfs);
	tracer_log_expect(false);
	free(btfs);
	return whole;
}

/* ---- the cache (factscache.h) --------------------------------------------------- */

/* What was asked, the layout and this very binary: a rebuild may gather
 * differently (a new feature test), so it gathers anew. */
static uint64_t asked_hash(const struct tracer_facts *f)
{
	uint64_t h = FACTSCACHE_HASH0;
	size_t size = sizeof(*f);
	struct stat st;

	h = factscache_hash(h, &size, sizeof(size));
	for (int i = 0; i < f->nfuncs; i++)
		h = factscache_hash(h, f->funcs[i].name, strlen(f->funcs[i].name) + 1);
	for (int i = 0; i < f->ntypes; i++)
		h = factscache_hash(h, f->types[i].name, strlen(f->types[i].name) + 1);
	if (!stat("/proc/self/exe", &st)) {
		unsigned long long id[5] = { st.st_dev, st.st_ino, (unsigned long long)st.st_size,
					     (unsigned long long)st.st_mtim.tv_sec,
					     (unsigned long long)st.st_mtim.tv_nsec };
		h = factscache_hash(h, id, sizeof(id));
	}
	return h;
}

/* Takes the gathered part of cached facts c into f (which holds what was
 * asked and looked at live); false if c answers other questions. */
static bool adopt(struct tracer_facts *f, const struct tracer_facts *c)
{
	if (c->nfuncs != f->nfuncs || c->ntypes != f->ntypes || strcmp(c->kernel, f->kernel))
		return false;
	for (int i = 0; i < f->nfuncs; i++)
		if (strcmp(c->funcs[i].name, f->funcs[i].name))
			return false;
	for (int i = 0; i < f->ntypes; i++)
		if (strcmp(c->types[i].name, f->types[i].name))
			return false;
	memcpy(f->funcs, c->funcs, sizeof(f->funcs));
	for (int i = 0; i < f->ntypes; i++)
		memcpy(f->types[i].btf_module, c->types[i].btf_module,
		       sizeof(f->types[i].btf_module));
	f->module_btf = c->module_btf;
	f->nfeatures = c->nfeatures;
	memcpy(f->features, c->features, sizeof(f->features));
	return true;
}

int tracer_facts_collect_again(struct tracer_facts *f, const struct tracer_opts *o,
			       const struct tracer_facts *prev, char *err, size_t errlen)
{
	static const struct tracer_opts fresh = { .no_cache = true };
	struct factscache_key key;
	struct tracer_facts *c = NULL;
	char path[PATH_MAX] = "", why[256];
	bool debug, hit = false;
	struct utsname u;

	if (!o)
		o = &fresh;
	debug = o->debug_libbpf;

	memset(f, 0, sizeof(*f));
	if (!uname(&u))
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	/* libbpf resolves tracepoints and legacy kprobes through tracefs:
	 * mounted here when nothing has (core/tracefs.c says where). */
	char terr[256];
	const char *tracing = tracefs_dir(terr, sizeof(terr));
	if (!tracing)
		tracer_note("%s", terr);
	f->kprobes = kprobes_supported(tracing);
	ask(f, tracing);

	if (!o->no_cache) {
		if (factscache_key(&key, NULL, NULL, asked_hash(f), why, sizeof(why)) ||
		    factscache_path(path, sizeof(path), NULL, &key))
			path[0] = 0;
		else if (!(c = malloc(sizeof(*c))))
			path[0] = 0;
		else if (!factscache_load(path, &key, mrt_version(), c, why, sizeof(why)))
			hit = adopt(f, c);
		if (path[0] && debug && hit)
			tracer_note("facts from cache %s", path);
		else if (path[0] && debug)
			tracer_note("facts cache %s not used: %s", path, why);
		free(c);
	}
	if (!hit && gather(f, tracing, prev, o->stop) && path[0]) {
		if (factscache_store(path, &key, mrt_version(), f, why, sizeof(why)) && debug)
			tracer_note("facts cache not written: %s", why);
		else
			factscache_prune(NULL, &key, FACTSCACHE_KEEP);
	}
	if (o->stop && *o->stop) {
		snprintf(err, errlen, "stopped while looking at the kernel");
		return -1;
	}

	if (o->btf_file && o->btf_file[0])
		snprintf(f->btf_file, sizeof(f->btf_file), "%s", o->btf_file);
	else
		find_btf_file(f->kernel, f->btf_file, sizeof(f->btf_file));
	scan_file_types(f);
	return 0;
}

int tracer_facts_collect(struct tracer_facts *f, const struct tracer_opts *o, char *err,
			 size_t errlen)
{
	return tracer_facts_collect_again(f, o, NULL, err, errlen);
}
