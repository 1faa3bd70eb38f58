// SPDX-License-Identifier: GPL-2.0-only
/* plan.c - from kernel facts to a function and a mechanism per site
 * (plan.h).  Pure: the facts are all it looks at, so tests/unit/test_plan.c
 * can hand it any kernel.  Per site, the first candidate function the
 * kernel has (sites.h: the role's names across kernels), and for it, in
 * order of preference: fentry/fexit where a trampoline attaches,
 * kprobe/kretprobe where the symbol is in kallsyms and kprobes are
 * supported; else the next candidate; else nothing, with the reason.  Then
 * which BTF types each armed site (vmlinux, a module's, the external file). */
#include "tracer/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void note(struct tracer_site *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct tracer_site *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->note, sizeof(s->note), fmt, ap);
	va_end(ap);
}

/* The site is not armed, for reason `why`; the note says it in full. */
static void off(struct tracer_site *s, enum site_off why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void off(struct tracer_site *s, enum site_off why, const char *fmt, ...)
{
	va_list ap;

	s->off = why;
	va_start(ap, fmt);
	vsnprintf(s->note, sizeof(s->note), fmt, ap);
	va_end(ap);
}

void tracer_plan_disarm(struct tracer_plan *p, int i, enum site_off why, const char *fmt, ...)
{
	va_list ap;

	p->sites[i].mech = MECH_NONE;
	p->sites[i].off = why;
	va_start(ap, fmt);
	vsnprintf(p->sites[i].note, sizeof(p->sites[i].note), fmt, ap);
	va_end(ap);
}

static bool present(const struct tracer_func_facts *ff)
{
	return ff && (ff->in_kallsyms || ff->in_btf);
}

/* One candidate function: which mechanism, or why none (into s->note). */
static bool plan_cand(struct tracer_site *s, const struct tracer_cand *c,
		      const struct tracer_func_facts *ff, const struct tracer_facts *f,
		      bool allow_fentry)
{
	bool tramp = c->fentry || c->fexit;
	char why[TRACER_NOTE_MAX] = "";
	const char *sep;

	s->func = c->func;
	s->module[0] = 0;
	s->ksym[0] = 0;
	if (ff->in_kallsyms)
		snprintf(s->module, sizeof(s->module), "%s", ff->ksym_module);
	else if (ff->in_btf)
		snprintf(s->module, sizeof(s->module), "%s", ff->btf_module);
	if (ff->notrace) {
		off(s, SITE_OFF_NOTRACE, "%s %s", c->func, site_off_text(SITE_OFF_NOTRACE));
		return false;
	}
	if (c->needs && !tracer_facts_feature(f, c->needs)) {
		off(s, SITE_OFF_NEEDS_FEATURE, "%s: needs %s, %s", c->kernels ? c->kernels : c->func,
		    c->needs, site_off_text(SITE_OFF_NEEDS_FEATURE));
		return false;
	}
	/* A trampoline on a module function holds the module (6.4+): no
	 * unload, driver reload or firmware reset while watched.  A kprobe
	 * holds nothing, so module functions take one wherever the kernel has
	 * kprobes (docs/design.md section 8, "Modules come and go"). */
	bool in_module = s->module[0] && strcmp(s->module, "vmlinux");
	bool kprobe_ok = (c->kprobe || c->kretprobe) && ff->in_kallsyms && f->kprobes;
	if (allow_fentry && tramp && in_module && kprobe_ok && f->module_btf) {
		snprintf(why, sizeof(why), "by kprobe: a trampoline would keep %s from unloading",
			 s->module);
	} else if (allow_fentry && tramp && ff->in_btf) {
		if (ff->tramp == TRAMP_OK) {
			s->mech = MECH_FENTRY;
			s->off = SITE_ARMED;
			s->note[0] = 0;
			return true;
		}
		snprintf(why, sizeof(why), "%s", ff->tramp_why);
	} else if (allow_fentry && tramp && !f->module_btf && ff->in_kallsyms &&
		   strcmp(ff->ksym_module, "vmlinux")) {
		snprintf(why, sizeof(why), "no module BTF on this kernel (fentry needs it)");
	} else if (allow_fentry && tramp) {
		snprintf(why, sizeof(why), "no BTF for %s", c->func);
	}
	sep = why[0] ? "; " : "";
	if (!c->kprobe && !c->kretprobe) {
		off(s, SITE_OFF_NO_KPROBE_FLAVOUR, "%s%s%s", why, sep,
		    site_off_text(SITE_OFF_NO_KPROBE_FLAVOUR));
	} else if (!ff->in_kallsyms) {
		off(s, SITE_OFF_NOT_IN_KALLSYMS, "%s%s%s", why, sep,
		    site_off_text(SITE_OFF_NOT_IN_KALLSYMS));
	} else if (!f->kprobes) {
		off(s, SITE_OFF_NO_KPROBES, "%s%s%s", why, sep, site_off_text(SITE_OFF_NO_KPROBES));
	} else if (ff->ksym_count > 1 && !strcmp(ff->ksym_module, "vmlinux")) {
		off(s, SITE_OFF_AMBIGUOUS, "%s%s%d functions named %s in vmlinux: %s", why, sep,
		    ff->ksym_count, c->func, site_off_text(SITE_OFF_AMBIGUOUS));
	} else {
		s->mech = MECH_KPROBE;
		s->off = SITE_ARMED;
		note(s, "%s", why);
		if (ff->ksym_count > 1) {
			snprintf(s->ksym, sizeof(s->ksym), "%s:%s", ff->ksym_module, c->func);
			note(s, "%s%s%d functions named %s: probing %s", why, sep, ff->ksym_count,
			     c->func, s->ksym);
		}
		return true;
	}
	return false;
}

/* "A (kernels), B (kernels)": the candidates, each name once.  Returns how
 * many names. */
static int cand_list(char *buf, size_t len, const struct tracer_cand *c, int n)
{
	size_t off = 0;
	int names = 0;

	buf[0] = 0;
	for (int k = 0; k < n; k++) {
		bool dup = false;
		for (int j = 0; j < k; j++)
			dup |= !strcmp(c[j].func, c[k].func);
		if (dup)
			continue;
		names++;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s%s%s%s", off ? ", " : "",
				c[k].func, c[k].kernels ? " (" : "", c[k].kernels ? c[k].kernels : "",
				c[k].kernels ? ")" : "");
	}
	return names;
}

/* One registration-path site: the first candidate this kernel has and can
 * arm.  When none can be armed the site reports the first candidate it has
 * (whose flavour this kernel can load, if any), or that it has none. */
static void plan_cands(struct tracer_plan *p, int i, const struct tracer_facts *f,
		       bool allow_fentry)
{
	const struct tracer_site_def *d = p->defs[i];
	struct tracer_site *s = &p->sites[i];
	struct tracer_cand c[TRACER_SITE_CANDS];
	int n = tracer_site_cands(d, c), shown = -1;
	char names[TRACER_NOTE_MAX];

	memset(&p->cand[i], 0, sizeof(p->cand[i]));
	s->mech = MECH_NONE;
	s->func = d->func;
	s->module[0] = s->note[0] = s->btf[0] = 0;
	s->off = SITE_OFF_ABSENT;
	s->err = 0;
	if (d->tp) {
		if (!tracer_facts_tp(f, d->tp)) {
			off(s, SITE_OFF_NO_TRACEPOINT, "%s %s", site_off_text(SITE_OFF_NO_TRACEPOINT),
			    d->tp);
			return;
		}
		snprintf(s->module, sizeof(s->module), "tracepoint");
		s->mech = MECH_TRACEPOINT;
		s->off = SITE_ARMED;
		p->cand[i] = (struct tracer_cand){ .func = d->tp, .fentry = d->fentry };
		return;
	}
	for (int k = p->cand_from[i]; k < n; k++) {
		const struct tracer_func_facts *ff = tracer_facts_func(f, c[k].func);
		if (!present(ff))
			continue;
		if (plan_cand(s, &c[k], ff, f, allow_fentry)) {
			p->cand[i] = c[k];
			return;
		}
		if (shown < 0 || (c[shown].needs && !tracer_facts_feature(f, c[shown].needs)))
			shown = k;
	}
	if (shown >= 0) {
		/* the reason of the candidate worth showing, once more */
		plan_cand(s, &c[shown], tracer_facts_func(f, c[shown].func), f, allow_fentry);
		s->mech = MECH_NONE;
		return;
	}
	s->func = d->func;
	s->module[0] = 0;
	if (cand_list(names, sizeof(names), c, n) > 1)
		off(s, SITE_OFF_ABSENT, "none of %s is in this kernel (kallsyms, BTF; %s)", names,
		    site_off_text(SITE_OFF_ABSENT));
	else if (n == 1 && d->kernels)
		off(s, SITE_OFF_ABSENT, "%s not in this kernel (not in kallsyms or BTF; %s); it is "
		    "the function in %s", d->func, site_off_text(SITE_OFF_ABSENT), d->kernels);
	else
		off(s, SITE_OFF_ABSENT, "%s not in this kernel (not in kallsyms or BTF; %s)", d->func,
		    site_off_text(SITE_OFF_ABSENT));
}

/* A hot site (sites.h) whose function runs for work that registers
 * nothing stays off unless asked for (--hot-sites): what it would have
 * armed is still shown (func, module), and a reason it could not is kept. */
static void plan_hot(struct tracer_plan *p, int i)
{
	const struct tracer_site_def *d = p->defs[i];
	struct tracer_site *s = &p->sites[i];

	if (!d->hot || p->hot_sites || s->mech == MECH_NONE)
		return;
	s->mech = MECH_NONE;
	memset(&p->cand[i], 0, sizeof(p->cand[i]));
	off(s, SITE_OFF_HOT, "%s: %s runs for %s; --hot-sites arms it", site_off_text(SITE_OFF_HOT),
	    s->func, d->hot);
}

static void plan_site(struct tracer_plan *p, int i, const struct tracer_facts *f,
		      bool allow_fentry)
{
	plan_cands(p, i, f, allow_fentry);
	plan_hot(p, i);
}

/* A hot site with `from` (sites.h), off: armed with that site, whose
 * programs read its evidence - by its function, mechanism, module and BTF;
 * cand names the function and no program of its own. */
static void plan_derived(struct tracer_plan *p)
{
	for (int i = 0; i < p->nreg; i++) {
		const struct tracer_site_def *d = p->defs[i];
		struct tracer_site *s = &p->sites[i];
		const struct tracer_site *o;

		if (!d->hot || !d->from || p->hot_sites)
			continue;
		o = tracer_plan_site(p, d->from);
		memset(&p->cand[i], 0, sizeof(p->cand[i]));
		if (!o || o->mech == MECH_NONE) {
			/* said once (this runs again after plan_openers()); a reason
			 * of the site's own function is kept after it */
			if (s->mech != MECH_NONE || s->off != SITE_OFF_FROM_UNARMED) {
				char was[TRACER_NOTE_MAX];
				snprintf(was, sizeof(was), "%s", s->mech == MECH_NONE ? s->note : "");
				off(s, SITE_OFF_FROM_UNARMED, "%s: %s is not, whose programs read this by "
				    "default (%s)%s%.300s", site_off_text(SITE_OFF_FROM_UNARMED),
				    d->from, d->instead, was[0] ? "; by itself: " : "", was);
			}
			s->mech = MECH_NONE;
			s->func = d->func;
			continue;
		}
		s->mech = o->mech;
		s->off = SITE_ARMED;
		s->func = o->func;
		snprintf(s->module, sizeof(s->module), "%s", o->module);
		snprintf(s->btf, sizeof(s->btf), "%s", o->btf);
		s->ksym[0] = 0;
		p->cand[i].func = o->func;
		note(s, "at %s: %s (%s itself runs for %s: --hot-sites probes it)", o->func,
		     d->instead, d->func, d->hot);
	}
}

bool tracer_plan_site_probed(const struct tracer_plan *p, const char *name)
{
	for (int i = 0; i < p->nreg; i++) {
		const struct tracer_cand *c = &p->cand[i];
		if (!strcmp(p->sites[i].name, name))
			return p->sites[i].mech != MECH_NONE &&
			       (c->fentry || c->fexit || c->kprobe || c->kretprobe);
	}
	return false;
}

/* Appends to a site's note. */
static void note_add(struct tracer_site *s, const char *text)
{
	size_t len = strlen(s->note);

	snprintf(s->note + len, sizeof(s->note) - len, "%s%s", len ? "; " : "", text);
}

/* Which BTF typed armed site i (site.h), and whether the external file is
 * needed: a site that reads a module structure takes it from the module's
 * BTF, else from the file, else does without (or is not armed). */
static void plan_btf(struct tracer_plan *p, int i, const struct tracer_facts *f)
{
	const struct tracer_site_def *d = p->defs[i];
	struct tracer_site *s = &p->sites[i];
	const struct tracer_type_facts *t = d->type ? tracer_facts_type(f, d->type) : NULL;
	const struct tracer_func_facts *ff;
	char text[TRACER_NOTE_MAX];

	s->btf[0] = 0;
	if (s->mech == MECH_NONE)
		return;
	if (d->type && t && t->btf_module[0]) {
		snprintf(s->btf, sizeof(s->btf), "%s", t->btf_module);
	} else if (d->type && t && t->in_file && f->btf_file[0]) {
		p->btf_file = f->btf_file;
		snprintf(s->btf, sizeof(s->btf), "file");
	} else if (d->type) {
		snprintf(text, sizeof(text), "%s %s (%s; no %s.btf, see tools/make-btf.sh)",
			 site_off_text(SITE_OFF_NO_BTF_TYPE), d->type,
			 f->module_btf ? "not in vmlinux or module BTF" : "this kernel has no module BTF",
			 f->kernel);
		if (d->type_required) {
			tracer_plan_disarm(p, i, SITE_OFF_NO_BTF_TYPE, "%s", text);
			return;
		}
		note_add(s, text);
		note_add(s, "read without it: less evidence");
		snprintf(s->btf, sizeof(s->btf), "none");
	} else if (s->mech == MECH_FENTRY && (ff = tracer_facts_func(f, s->func)) && ff->in_btf) {
		snprintf(s->btf, sizeof(s->btf), "%s", ff->btf_module);
	} else {
		snprintf(s->btf, sizeof(s->btf), "vmlinux");
	}
}

/* Once the external file is in use, libbpf relocates the whole object
 * against it (btf_custom_path replaces vmlinux and module BTF for CO-RE):
 * every armed site says so. */
static void plan_btf_file(struct tracer_plan *p)
{
	for (int i = 0; i < p->nreg; i++) {
		struct tracer_site *s = &p->sites[i];
		char was[TRACER_BTF_MAX];

		if (!p->btf_file || s->mech == MECH_NONE || !strcmp(s->btf, "file") ||
		    !strcmp(s->btf, "none"))
			continue;
		snprintf(was, sizeof(was), "%s", s->btf);
		/* a trampoline still attaches by the kernel's own BTF */
		if (s->mech == MECH_FENTRY)
			snprintf(s->btf, sizeof(s->btf), "%.80s+file", was);
		else
			snprintf(s->btf, sizeof(s->btf), "file");
	}
}

static int plan_index(const struct tracer_plan *p, const char *name)
{
	for (int i = 0; i < p->nreg; i++)
		if (!strcmp(p->sites[i].name, name))
			return i;
	return -1;
}

/* ib_umem_get's entry by kprobe does nothing a registration's success
 * needs: where the REG_MR command opens the trail and is read (its bundle
 * typed), the command's (start, length, access) are ib_umem_get's
 * arguments, and its exit alone gives the result (bpf/regpath/umem.bpf.c,
 * umem_exit_only).  The entry stays where ib_umem_get must open the trail
 * itself (no REG_MR site), where a hot site inside it asks whether it runs
 * there (--hot-sites: capable(), the pinning, migration), and for
 * trampolines (fexit has the arguments anyway). */
static void plan_umem_entry(struct tracer_plan *p)
{
	int u = plan_index(p, "umem_get"), r = plan_index(p, "reg_mr");
	bool exit_only;

	if (u < 0 || p->sites[u].mech != MECH_KPROBE || !p->cand[u].kretprobe)
		return;
	exit_only = r >= 0 && p->sites[r].mech != MECH_NONE && strcmp(p->sites[r].btf, "none") &&
		    !tracer_plan_site_probed(p, "cap_ipc_lock") && !tracer_plan_site_probed(p, "pin") &&
		    !tracer_plan_site_probed(p, "pin_gup") && !tracer_plan_site_probed(p, "migrate");
	p->cand[u].kprobe = exit_only ? NULL : "kprobe_umem_get";
}

bool tracer_umem_exit_only(const struct tracer_plan *p)
{
	int u = plan_index(p, "umem_get");

	return u >= 0 && p->sites[u].mech == MECH_KPROBE && !p->cand[u].kprobe;
}

/* With no opener armed nothing on the path is (nested sites would record
 * nothing).  Returns the openers armed. */
static int plan_openers(struct tracer_plan *p)
{
	int openers;

	plan_umem_entry(p);
	openers = tracer_plan_armed(p, true);

	if (!openers)
		for (int i = 0; i < p->nreg; i++)
			if (p->sites[i].mech != MECH_NONE && !p->defs[i]->standalone)
				tracer_plan_disarm(p, i, SITE_OFF_NO_OPENER, "%s",
						   site_off_text(SITE_OFF_NO_OPENER));
	plan_derived(p);
	return openers;
}

int tracer_plan_regpath(struct tracer_plan *p, const struct tracer_facts *f, bool allow_fentry,
			bool hot_sites)
{
	memset(p, 0, sizeof(*p));
	p->hot_sites = hot_sites;
	p->sys_first = p->uprobe = -1;
	for (int i = 0, nsites = tracer_n_reg_sites(); i < nsites && i < TRACER_MAX_SITES; i++) {
		const struct tracer_site_def *d = tracer_reg_site(i);
		struct tracer_site *s = &p->sites[i];

		p->defs[i] = d;
		s->name = d->name;
		s->gives = d->gives;
		s->opener = d->opener;
		s->critical = d->critical;
		s->without = d->without;
		p->nreg = p->n = i + 1;
		plan_site(p, i, f, allow_fentry);
	}
	plan_derived(p);
	/* only_without: a fallback site stands down where the usual one is armed */
	for (int i = 0; i < p->nreg; i++) {
		const char *other = p->defs[i]->only_without;
		struct tracer_site *o = other ? tracer_plan_site(p, other) : NULL;
		if (p->sites[i].mech != MECH_NONE && o && o->mech != MECH_NONE)
			tracer_plan_disarm(p, i, SITE_OFF_NOT_NEEDED, "%s: %s is armed (this kernel "
					   "pins with %s)", site_off_text(SITE_OFF_NOT_NEEDED), other, o->func);
	}
	for (int i = 0; i < p->nreg; i++)
		plan_btf(p, i, f);
	plan_btf_file(p);
	return plan_openers(p);
}

/* The index of site i's armed candidate among tracer_site_cands(): -1 none */
static int cand_index(const struct tracer_plan *p, int i)
{
	struct tracer_cand c[TRACER_SITE_CANDS];
	int n = tracer_site_cands(p->defs[i], c);

	for (int k = p->cand_from[i]; k < n && p->cand[i].func; k++)
		if (!strcmp(c[k].func, p->cand[i].func) && c[k].fexit == p->cand[i].fexit &&
		    c[k].kretprobe == p->cand[i].kretprobe)
			return k;
	return -1;
}

/* Site i planned again by kprobe (from its cand_from candidate on): true
 * when armed, its note then the failure (text), the flavour it moved to
 * (then: NULL for the same candidate's kprobe), and what it said before. */
static bool replan_kprobe(struct tracer_plan *p, int i, const struct tracer_facts *f,
			  const char *text, bool then)
{
	struct tracer_site *s = &p->sites[i];
	char was[TRACER_NOTE_MAX];

	plan_site(p, i, f, false);
	if (s->mech == MECH_NONE)
		return false;
	plan_btf(p, i, f);
	plan_btf_file(p);
	snprintf(was, sizeof(was), "%s", s->note);
	note(s, "%s%s%s%s%s", text, then ? "; then " : "",
	     !then ? "" : p->cand[i].kernels ? p->cand[i].kernels : p->cand[i].kretprobe,
	     was[0] ? "; " : "", was);
	return true;
}

int tracer_plan_demote(struct tracer_plan *p, int i, const struct tracer_facts *f,
		       const char *why)
{
	struct tracer_site *s = &p->sites[i];
	char text[TRACER_NOTE_MAX];

	if (i < 0 || i >= p->nreg)
		return tracer_plan_armed(p, true);
	snprintf(text, sizeof(text), "%s", why);
	/* the kprobe flavour of a candidate failed too: the next candidate (a
	 * site's flavours are candidates of one function: reg_mr's exit that
	 * copies the stack raw, then the plain one; umem_get's by bpf_find_vma,
	 * then by the rb-tree), by kprobe, before the site goes */
	int k = s->mech == MECH_KPROBE ? cand_index(p, i) : -1;
	if (k >= 0) {
		p->cand_from[i] = k + 1;
		if (replan_kprobe(p, i, f, text, true))
			return plan_openers(p);
		p->cand_from[i] = k; /* what the site says it failed with */
		plan_site(p, i, f, false);
	} else if (s->mech == MECH_FENTRY && replan_kprobe(p, i, f, text, false)) {
		return plan_openers(p);
	}
	tracer_plan_disarm(p, i, SITE_OFF_LOAD_FAILED, "%s", text);
	return plan_openers(p);
}

bool tracer_plan_rdma_present(const struct tracer_plan *p)
{
	/* an opener's function found anywhere (kallsyms or BTF, a module or
	 * vmlinux): plan_site() leaves its module empty only when none was */
	for (int i = 0; i < p->nreg; i++)
		if (p->sites[i].opener && p->sites[i].module[0])
			return true;
	return false;
}

void tracer_plan_syscalls(struct tracer_plan *p, enum syscalls_policy policy)
{
	bool rdma = tracer_plan_rdma_present(p);
	/* auto: only for a kernel with RDMA whose registration path cannot be
	 * armed; without RDMA at all there is nothing to register, and watch
	 * waits for an RDMA module (rearm.c) at no cost per syscall */
	bool arm = policy == SYSCALLS_ON ||
		   (policy == SYSCALLS_AUTO && !tracer_plan_armed(p, true) && rdma);

	p->sys_first = p->n;
	for (int i = 0; i < tracer_n_sys_sites && p->n < TRACER_MAX_SITES; i++) {
		struct tracer_site *s = &p->sites[p->n++];

		memset(s, 0, sizeof(*s));
		s->name = tracer_sys_sites[i].name;
		s->func = tracer_sys_sites[i].func;
		s->gives = tracer_sys_sites[i].gives;
		snprintf(s->module, sizeof(s->module), "syscalls");
		if (arm) {
			s->mech = MECH_TRACEPOINT;
			note(s, "costly: every syscall ~40 ns slower while armed");
		} else if (policy == SYSCALLS_OFF) {
			off(s, SITE_OFF_SYSCALLS_OFF, "%s", site_off_text(SITE_OFF_SYSCALLS_OFF));
		} else if (!rdma) {
			off(s, SITE_OFF_SYSCALLS_NO_RDMA, "%s", site_off_text(SITE_OFF_SYSCALLS_NO_RDMA));
		} else {
			off(s, SITE_OFF_SYSCALLS_REGPATH, "off: registration sites are armed; %s",
			    site_off_text(SITE_OFF_SYSCALLS_REGPATH));
		}
		p->nsys++;
	}
}

void tracer_plan_uprobes(struct tracer_plan *p)
{
	struct tracer_site *s;

	if (p->n >= TRACER_MAX_SITES)
		return;
	p->uprobe = p->n;
	s = &p->sites[p->n++];
	memset(s, 0, sizeof(*s));
	s->name = tracer_uprobe_site.name;
	s->func = tracer_uprobe_site.func;
	s->gives = tracer_uprobe_site.gives;
	s->off = SITE_OFF_NO_LIBIBVERBS; /* until uprobes.c arms it */
	snprintf(s->module, sizeof(s->module), "user");
}

int tracer_plan_armed(const struct tracer_plan *p, bool openers_only)
{
	int n = 0;

	for (int i = 0; i < p->n; i++)
		if (p->sites[i].mech != MECH_NONE && (!openers_only || p->sites[i].opener))
			n++;
	return n;
}

struct tracer_site *tracer_plan_site(struct tracer_plan *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->sites[i].name, name))
			return &p->sites[i];
	return NULL;
}

/* The REG_MR exits that take the caller's user stack at a failure
 * (sites.c): scanned in the kernel (5.17+), or copied raw for user space to
 * scan (bpf/ustack_raw.bpf.h, every kernel before). */
static const struct {
	const char *prog;
	bool raw;
} stack_exits[] = {
	{ "fexit_reg_mr_ustack", false }, { "kretprobe_reg_mr_ustack", false },
	{ "fexit_reg_mr_raw", true },	  { "kretprobe_reg_mr_raw", true },
};

/* reg_mr's armed exit in stack_exits: its index, or -1 */
static int stack_exit(const struct tracer_plan *p)
{
	for (int i = 0; i < p->nreg; i++) {
		if (strcmp(p->sites[i].name, "reg_mr"))
			continue;
		if (p->sites[i].mech == MECH_NONE)
			return -1;
		const char *prog =
			p->sites[i].mech == MECH_FENTRY ? p->cand[i].fexit : p->cand[i].kretprobe;
		for (int k = 0; prog && k < (int)(sizeof(stack_exits) / sizeof(stack_exits[0])); k++)
			if (!strcmp(prog, stack_exits[k].prog))
				return k;
		return -1;
	}
	return -1;
}

bool tracer_reg_mr_takes_stack(const struct tracer_plan *p)
{
	return stack_exit(p) >= 0;
}

bool tracer_reg_mr_stack_raw(const struct tracer_plan *p)
{
	int k = stack_exit(p);
	return k >= 0 && stack_exits[k].raw;
}

const char *tracer_mech_name(enum mech m)
{
	switch (m) {
	case MECH_FENTRY: return "fentry";
	case MECH_KPROBE: return "kprobe";
	case MECH_TRACEPOINT: return "tracepoint";
	case MECH_UPROBE: return "uprobe";
	default: return "none";
	}
}
