// SPDX-License-Identifier: GPL-2.0-only
/* plan.c - from kernel facts to a mechanism per site (plan.h).  Pure: the
 * facts are all it looks at, so tests/unit/test_plan.c can hand it any
 * kernel.  Per site, in order of preference: fentry/fexit where a
 * trampoline attaches, kprobe/kretprobe where the symbol is in kallsyms
 * and kprobes are supported, else nothing, with the reason. */
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

void tracer_plan_disarm(struct tracer_plan *p, int i, const char *fmt, ...)
{
	va_list ap;

	p->sites[i].mech = MECH_NONE;
	va_start(ap, fmt);
	vsnprintf(p->sites[i].note, sizeof(p->sites[i].note), fmt, ap);
	va_end(ap);
}

static bool present(const struct tracer_func_facts *ff)
{
	return ff && (ff->in_kallsyms || ff->in_btf);
}

/* One registration-path site: which name, where, which mechanism. */
static void plan_site(struct tracer_site *s, const struct tracer_site_def *d,
		      const struct tracer_facts *f, bool allow_fentry)
{
	const struct tracer_func_facts *ff = tracer_facts_func(f, d->func);
	bool tramp = d->fentry || d->fexit;
	char why[TRACER_NOTE_MAX] = "";
	const char *sep;

	if (d->tp) {
		if (!tracer_facts_tp(f, d->tp)) {
			note(s, "no tracepoint %s", d->tp);
			return;
		}
		snprintf(s->module, sizeof(s->module), "tracepoint");
		s->mech = MECH_TRACEPOINT;
		return;
	}
	/* the other name, when only it exists here */
	if (d->alt && !present(ff) && present(tracer_facts_func(f, d->alt))) {
		s->func = d->alt;
		ff = tracer_facts_func(f, d->alt);
	}
	if (!present(ff)) {
		if (d->alt)
			note(s, "neither %s nor %s is in this kernel (kallsyms, BTF; module not loaded?)",
			     d->func, d->alt);
		else
			note(s, "%s not in this kernel (not in kallsyms or BTF; module not loaded?)",
			     s->func);
		return;
	}
	if (ff->in_kallsyms)
		snprintf(s->module, sizeof(s->module), "%s", ff->ksym_module);
	if (allow_fentry && tramp && ff->in_btf) {
		if (!s->module[0])
			snprintf(s->module, sizeof(s->module), "%s", ff->btf_module);
		if (ff->tramp == TRAMP_OK) {
			s->mech = MECH_FENTRY;
			return;
		}
		snprintf(why, sizeof(why), "%s", ff->tramp_why);
	} else if (allow_fentry && tramp) {
		snprintf(why, sizeof(why), "no BTF for %s", s->func);
	}
	sep = why[0] ? "; " : "";
	if (!d->kprobe && !d->kretprobe)
		note(s, "%s%sno kprobe flavour for this site", why, sep);
	else if (!ff->in_kallsyms)
		note(s, "%s%snot in kallsyms", why, sep);
	else if (!f->kprobes)
		note(s, "%s%skprobes not supported by this kernel", why, sep);
	else {
		s->mech = MECH_KPROBE;
		note(s, "%s", why);
	}
}

int tracer_plan_regpath(struct tracer_plan *p, const struct tracer_facts *f, bool allow_fentry)
{
	int openers;

	memset(p, 0, sizeof(*p));
	p->sys_first = p->uprobe = -1;
	for (int i = 0; i < tracer_n_reg_sites && i < TRACER_MAX_SITES; i++) {
		const struct tracer_site_def *d = &tracer_reg_sites[i];
		struct tracer_site *s = &p->sites[i];

		p->defs[i] = d;
		s->name = d->name;
		s->func = d->func;
		s->gives = d->gives;
		s->opener = d->opener;
		plan_site(s, d, f, allow_fentry);
		p->nreg = p->n = i + 1;
	}
	/* only_without: a fallback site stands down where the usual one is armed */
	for (int i = 0; i < p->nreg; i++) {
		const char *other = p->defs[i]->only_without;
		struct tracer_site *o = other ? tracer_plan_site(p, other) : NULL;
		if (p->sites[i].mech != MECH_NONE && o && o->mech != MECH_NONE)
			tracer_plan_disarm(p, i, "not needed: %s is armed (this kernel pins with %s)",
					   other, o->func);
	}
	openers = tracer_plan_armed(p, true);
	if (!openers)
		for (int i = 0; i < p->nreg; i++)
			if (p->sites[i].mech != MECH_NONE && !p->defs[i]->standalone)
				tracer_plan_disarm(p, i, "not armed: no registration entry site "
							 "(reg_mr, umem_get) could be armed on this "
							 "kernel");
	return openers;
}

void tracer_plan_syscalls(struct tracer_plan *p, enum syscalls_policy policy)
{
	bool arm = policy == SYSCALLS_ON || (policy == SYSCALLS_AUTO && !tracer_plan_armed(p, true));

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
			note(s, "off (--syscalls=off)");
		} else {
			note(s, "off: registration sites are armed; syscall tracepoints slow every "
				"syscall (~40 ns), enable with --syscalls=on");
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
