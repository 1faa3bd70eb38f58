// SPDX-License-Identifier: GPL-2.0-only
/* rearm.c - sites follow the kernel (rearm.h).
 *
 * Noticing: bpf/modwatch.bpf.c counts module/module_load and
 * module/module_free; each tick compares the count (a memory read), and
 * only when it moved reads /proc/modules.  Kernels without those
 * tracepoints (or where they cannot be attached) get /proc/modules polled
 * twice a second.  A relevant module (modwatch.c) that became "Live" or
 * went away triggers a re-plan.
 *
 * Noticing is cheap and done from housekeeping (tracer_rearm_look); the
 * re-plan is not, and runs only when the caller asks for it
 * (tracer_rearm_run, from tracer_replan), after draining the ring buffer:
 * nothing here hands events on.
 *
 * Re-arming: the facts are gathered again, the registration path is planned
 * again (the syscall, libibverbs and modules sites stay as they are) and a
 * new generation of registration-path objects is loaded and attached
 * (regload.c), sharing the ring buffer, counters and storm maps of the
 * running ones (shared.c): records already in the ring buffer stay there
 * and the counters go on.  Only then are the old generation's links
 * destroyed, so for a moment both are attached: a registration in flight
 * across the swap opened its trail in the old generation's trail map, and
 * the new one, having no trail for it, records nothing twice.  The old
 * per-thread trails and live-MR counts are not carried over.  With
 * --syscalls=auto, the syscall tracepoints armed because no registration
 * site was are detached once one is; on a kernel that had no RDMA at all
 * none were armed (watch waited for this), and their note says it no longer
 * waits.
 *
 * A trampoline (fentry/fexit) on a module function holds the module
 * (kernel 6.4+: bpf_trampoline_module_get), so such a module cannot be
 * unloaded while its sites are armed; `modprobe -r` says "in use".  Sites
 * armed by kprobes do not hold their module: when it goes, their links
 * are destroyed here. */
#include "tracer/gather.h"
#include "tracer/rearm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/slurp.h"
#include "tracer/log.h"
#include "tracer/regload.h"
#include "modwatch.skel.h"

#define REARM_POLL_S 0.5 /* without the tracepoints */
#define REARM_RETRIES 5 /* a module whose BTF is not visible yet */
#define REARM_RETRY_S 0.2

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The modules the armed registration-path sites were found in: relevant
 * too (their going away matters) even when modwatch.c does not know them. */
static int armed_modules(const struct tracer_plan *p, const char **out, int max)
{
	int n = 0;

	for (int i = 0; i < p->nreg && n < max; i++) {
		const struct tracer_site *s = &p->sites[i];
		if (s->mech != MECH_NONE && s->module[0] && strcmp(s->module, "vmlinux") &&
		    strcmp(s->module, "tracepoint"))
			out[n++] = s->module;
	}
	return n;
}

/* Looks at /proc/modules: the relevant modules into *s.  -1 if unreadable. */
static int look(const struct tracer_plan *p, struct modwatch_set *s)
{
	const char *extra[TRACER_MAX_SITES];
	int nextra = armed_modules(p, extra, TRACER_MAX_SITES);
	char *text = slurp_file("/proc/modules", NULL);

	if (!text)
		return -1;
	modwatch_parse(s, text, extra, nextra);
	free(text);
	return 0;
}

void tracer_rearm_snapshot(struct tracer_rearm *r, const struct tracer_plan *p)
{
	r->site = -1;
	if (look(p, &r->mods))
		r->mods.n = 0;
}

/* The snapshot was taken before the plan, so it knew only the modules of
 * modwatch.c's list: a module an armed site was found in (7.x's
 * ib_uverbs_support) joins it as live - it was, when the facts were
 * gathered - or the first look would call it newly loaded and re-plan for
 * nothing. */
static void adopt_armed_modules(struct tracer_rearm *r, const struct tracer_plan *p)
{
	struct modwatch_set *s = &r->mods;
	const char *extra[TRACER_MAX_SITES];
	int n = armed_modules(p, extra, TRACER_MAX_SITES);

	for (int i = 0; i < n; i++) {
		bool known = false;
		for (int k = 0; k < s->n; k++)
			known |= !strcmp(s->mods[k].name, extra[i]);
		if (known || s->n >= MODWATCH_MAX)
			continue;
		snprintf(s->mods[s->n].name, sizeof(s->mods[0].name), "%s", extra[i]);
		s->mods[s->n++].state = MODWATCH_LIVE;
	}
}

void tracer_rearm_start(struct tracer_rearm *r, struct tracer_plan *p)
{
	struct modwatch_bpf *s;
	const char *why = NULL;

	adopt_armed_modules(r, p);
	/* a kernel without loadable modules has no module tracepoints either:
	 * the failure is expected there, and said in the site's note */
	tracer_log_expect(true);
	s = modwatch_bpf__open_and_load();
	if (!s)
		why = strerror(errno);
	else if (modwatch_bpf__attach(s))
		why = strerror(errno);
	tracer_log_expect(false);
	if (why) {
		modwatch_bpf__destroy(s);
		s = NULL;
	}
	r->skel = s;
	r->next_poll = mono() + REARM_POLL_S;
	/* a module that loaded between the snapshot and the attach was counted
	 * by nobody: the first tick looks once */
	r->recheck = true;
	if (p->n >= TRACER_MAX_SITES)
		return;
	r->site = p->n;
	struct tracer_site *m = &p->sites[p->n++];
	memset(m, 0, sizeof(*m));
	m->name = "modules";
	m->func = "module/module_load, module/module_free";
	m->gives = "RDMA modules loaded after start (ib_uverbs, rdma_rxe, mlx5_ib, ...): their "
		   "sites are armed then, and detached when they go";
	snprintf(m->module, sizeof(m->module), "tracepoint");
	if (s) {
		m->mech = MECH_TRACEPOINT;
	} else if (access("/proc/modules", R_OK)) {
		r->off = true;
		m->off = SITE_OFF_NO_MODULES;
		snprintf(m->note, sizeof(m->note), "%s", site_off_text(SITE_OFF_NO_MODULES));
		snprintf(m->module, sizeof(m->module), "-");
	} else {
		/* still done, by reading /proc/modules: not a tracepoint site */
		m->off = SITE_OFF_MODULES_POLLED;
		snprintf(m->note, sizeof(m->note), "%s (%s): /proc/modules is polled every %.1f s "
			 "instead", site_off_text(SITE_OFF_MODULES_POLLED), why, REARM_POLL_S);
		snprintf(m->module, sizeof(m->module), "procfs");
	}
}

bool tracer_rearm_following(const struct tracer_rearm *r)
{
	return r->site >= 0 && !r->off;
}

int tracer_rearm_links(struct tracer_rearm *r, struct bpf_link **out, int max)
{
	int n = 0;

	if (!r->skel)
		return 0;
	if (r->skel->links.tp_module_load && n < max) {
		out[n++] = r->skel->links.tp_module_load;
		r->skel->links.tp_module_load = NULL;
	}
	if (r->skel->links.tp_module_free && n < max) {
		out[n++] = r->skel->links.tp_module_free;
		r->skel->links.tp_module_free = NULL;
	}
	return n;
}

void tracer_rearm_close(struct tracer_rearm *r)
{
	tracer_regpath_destroy(r->old_reg);
	r->old_reg = NULL;
	modwatch_bpf__destroy(r->skel);
	r->skel = NULL;
}

/* "a, b" of the changes of one kind. */
static void names_of(const struct modwatch_change *c, int n, enum modwatch_kind kind, char *buf,
		     size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++)
		if (c[i].kind == kind)
			off += snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? ", " : "",
					c[i].name);
}

static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* A module of `loaded` that has functions in kallsyms but no BTF yet
 * (/sys/kernel/btf/<module> appears as it comes up), or whose trampoline
 * test was refused because it was not live yet (ENXIO): worth planning
 * again shortly.  A function merely missing from a module's BTF (inlined,
 * renamed by the compiler) is no reason. */
bool tracer_rearm_settling(const struct tracer_facts *f, const char *loaded)
{
	char path[128];

	for (int i = 0; i < f->nfuncs; i++) {
		const struct tracer_func_facts *ff = &f->funcs[i];
		if (!ff->in_kallsyms || !listed(loaded, ff->ksym_module))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", ff->ksym_module);
		if (f->module_btf && access(path, R_OK))
			return true;
		if (ff->tramp == TRAMP_REFUSED && ff->tramp_errno == ENXIO)
			return true;
	}
	return false;
}

/* "rxe_reg (fentry), umem_get (kprobe)" */
static void sites_text(const struct modwatch_site *s, int n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++)
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s (%s)", i ? ", " : "",
				s[i].name, tracer_mech_name(s[i].mech));
}

/* Plans and arms the registration path again; what changed into the
 * change record.  0, or -1 (nothing changed: the sites stay as they were,
 * and why is said; or the re-plan was stopped). */
static int replan(struct tracer_rearm *r, struct tracer_loader *ld, const char *loaded,
		  const char *unloaded)
{
	struct tracer_facts *f = malloc(sizeof(*f)), *old_facts = malloc(sizeof(*old_facts));
	struct tracer_plan *old = malloc(sizeof(*old));
	struct tracer_modchange *c = &r->changes[0];
	struct tracer_regpath *old_reg = ld->reg, *reg = NULL;
	int rc = -1;
	char err[256];
	double t0 = mono();

	if (!f || !old || !old_facts)
		goto out;
	if (tracer_facts_collect_again(f, ld->opts, &ld->facts, err, sizeof(err))) {
		tracer_note("modules changed (%s%s%s): looking at the kernel failed: %s; sites stay "
			    "as they were", loaded, loaded[0] && unloaded[0] ? "; " : "", unloaded,
			    err);
		goto out;
	}
	c->facts_seconds = mono() - t0;
	*old = ld->plan;
	*old_facts = ld->facts;
	ld->facts = *f; /* in place: the plan's btf_file points into it */
	/* the shared maps are owned already: arming has nothing fatal left
	 * but a stop request */
	if (tracer_regpath_arm(&reg, &ld->plan, &ld->facts, &ld->shared, err, sizeof(err)) ||
	    (!reg && old_reg && !unloaded[0])) {
		bool stopped = ld->opts->stop && *ld->opts->stop;
		/* stopped, or the new generation did not load: keep what worked */
		ld->plan = *old;
		ld->facts = *old_facts;
		if (!stopped)
			tracer_note("module %s loaded, but the registration-path programs did not "
				    "load again: the sites stay as they were", loaded);
		goto out;
	}
	/* the sites after the registration path are not planned again */
	for (int i = ld->plan.nreg; i < old->n; i++)
		ld->plan.sites[i] = old->sites[i];
	ld->plan.n = old->n;
	ld->plan.sys_first = old->sys_first;
	ld->plan.nsys = old->nsys;
	ld->plan.uprobe = old->uprobe;
	/* the new generation is attached: the old one goes, but after the
	 * change is said (tracer_rearm_run): closing its kprobes waits for
	 * grace periods, and the new sites are armed already */
	ld->reg = reg;
	r->old_reg = old_reg;

	modwatch_site_changes(old->sites, ld->plan.sites, ld->plan.nreg, c->armed, &c->narmed,
			      c->detached, &c->ndetached);
	snprintf(c->loaded, sizeof(c->loaded), "%s", loaded);
	snprintf(c->unloaded, sizeof(c->unloaded), "%s", unloaded);
	c->armed_sites = tracer_plan_armed(&ld->plan, false);
	c->seconds = mono() - t0;
	rc = 0;
out:
	free(f);
	free(old);
	free(old_facts);
	return rc;
}

/* Whether the facts saw functions of module `name`. */
static bool in_facts(const struct tracer_facts *f, const char *name)
{
	for (int i = 0; i < f->nfuncs; i++)
		if (f->funcs[i].in_kallsyms && !strcmp(f->funcs[i].ksym_module, name))
			return true;
	return false;
}

static void set_live(struct modwatch_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->mods[i].name, name)) {
			s->mods[i].state = MODWATCH_LIVE;
			return;
		}
	if (s->n < MODWATCH_MAX) {
		snprintf(s->mods[s->n].name, sizeof(s->mods[s->n].name), "%.63s", name);
		s->mods[s->n++].state = MODWATCH_LIVE;
	}
}

/* Modules that became live while the re-plan ran (modprobe rdma_rxe right
 * after ib_uverbs) and whose functions the facts already saw usable are
 * part of this change, not a reason for another one.  The other changes
 * are left for the next tick. */
static void absorb(struct tracer_rearm *r, const struct tracer_loader *ld,
		   struct tracer_modchange *c)
{
	struct modwatch_change ch[MODWATCH_MAX];
	struct modwatch_set after;
	size_t len;
	int n;

	if (look(&ld->plan, &after))
		return;
	n = modwatch_diff(&r->mods, &after, ch, MODWATCH_MAX);
	for (int i = 0; i < n; i++) {
		if (ch[i].kind != MODWATCH_LOADED || !in_facts(&ld->facts, ch[i].name) ||
		    tracer_rearm_settling(&ld->facts, ch[i].name)) {
			r->recheck = true;
			continue;
		}
		len = strlen(c->loaded);
		snprintf(c->loaded + len, sizeof(c->loaded) - len, "%s%s", len ? ", " : "",
			 ch[i].name);
		set_live(&r->mods, ch[i].name);
	}
}

/* --syscalls=auto arms the syscall tracepoints only while no registration
 * opener is (plan.c), for they slow every syscall of every task: a
 * boot-time watch that started before the RDMA modules had them armed, and
 * now that an opener is they go, into the change's detached sites.  The
 * fork follower, whichever object's program it is, is not theirs: it
 * stays (shared.c). */
static void drop_auto_syscalls(struct tracer_loader *ld, struct tracer_modchange *c)
{
	struct tracer_plan *p = &ld->plan;

	if (ld->opts->syscalls != SYSCALLS_AUTO || !ld->sys.skel || p->sys_first < 0 ||
	    !tracer_plan_armed(p, true))
		return;
	tracer_syscalls_detach(&ld->sys);
	for (int i = p->sys_first; i < p->sys_first + p->nsys; i++) {
		struct tracer_site *s = &p->sites[i];
		if (s->mech == MECH_NONE)
			continue;
		if (c->ndetached < TRACER_MODCHANGE_SITES) {
			c->detached[c->ndetached].name = s->name;
			c->detached[c->ndetached].mech = s->mech;
			snprintf(c->detached[c->ndetached].module, sizeof(c->detached[0].module), "%s",
				 s->module);
			c->ndetached++;
		}
		s->mech = MECH_NONE;
		s->off = SITE_OFF_SYSCALLS_REGPATH;
		snprintf(s->note, sizeof(s->note),
			 "off since registration sites were armed (modules loaded after start); %s",
			 site_off_text(SITE_OFF_SYSCALLS_REGPATH));
	}
	c->armed_sites = tracer_plan_armed(p, false);
}

/* A watch that waited for RDMA (no syscall tracepoint armed, plan.c) and
 * now has its registration path: the syscall sites' note says so. */
static void renote_syscalls(struct tracer_loader *ld)
{
	struct tracer_plan *p = &ld->plan;

	if (ld->opts->syscalls != SYSCALLS_AUTO || p->sys_first < 0 || !tracer_plan_armed(p, true))
		return;
	for (int i = p->sys_first; i < p->sys_first + p->nsys; i++)
		if (p->sites[i].mech == MECH_NONE && p->sites[i].off == SITE_OFF_SYSCALLS_NO_RDMA) {
			p->sites[i].off = SITE_OFF_SYSCALLS_REGPATH;
			snprintf(p->sites[i].note, sizeof(p->sites[i].note),
				 "off: registration sites are armed (RDMA modules loaded after "
				 "start); %s", site_off_text(SITE_OFF_SYSCALLS_REGPATH));
		}
}

/* The change, for people (opts.msg). */
static void say(const struct tracer_modchange *c, bool retry)
{
	char armed[1024], detached[1024];

	sites_text(c->armed, c->narmed, armed, sizeof(armed));
	sites_text(c->detached, c->ndetached, detached, sizeof(detached));
	/* a retry that changed nothing was said already */
	if (c->loaded[0] && !(retry && !c->narmed && !c->ndetached))
		tracer_note("module%s %s loaded: %s%s%s%s (in %.2f s)",
			    strchr(c->loaded, ',') ? "s" : "", c->loaded,
			    armed[0] ? "armed " : "no site newly armed", armed,
			    detached[0] && !c->unloaded[0] ? "; detached " : "",
			    c->unloaded[0] ? "" : detached, c->seconds);
	if (c->unloaded[0])
		tracer_note("module%s %s unloaded: %s%s (in %.2f s)",
			    strchr(c->unloaded, ',') ? "s" : "", c->unloaded,
			    detached[0] ? "detached " : "no site was armed in it", detached,
			    c->seconds);
}

bool tracer_rearm_look(struct tracer_rearm *r, const struct tracer_plan *p)
{
	struct modwatch_change ch[MODWATCH_MAX];
	struct modwatch_set now_set;
	double now = mono();
	bool due = r->recheck, retry = false;
	int n;

	r->recheck = false;
	if (r->site < 0 || r->off)
		return r->due;
	if (r->skel) {
		unsigned long long ev = __atomic_load_n(&r->skel->bss->module_events, __ATOMIC_RELAXED);
		due |= ev != r->seen;
		r->seen = ev;
	} else if (now >= r->next_poll) {
		due = true;
		r->next_poll = now + REARM_POLL_S;
	}
	/* a module still loading turns live without another event */
	due |= modwatch_settling(&r->mods);
	retry = r->pending[0] && now >= r->retry_at;
	if (r->due || (!due && !retry))
		return r->due; /* one change at a time: the re-plan not made yet stands */
	if (look(p, &now_set))
		return false;
	n = modwatch_diff(&r->mods, &now_set, ch, MODWATCH_MAX);
	r->mods = now_set;
	names_of(ch, n, MODWATCH_LOADED, r->loaded, sizeof(r->loaded));
	names_of(ch, n, MODWATCH_UNLOADED, r->unloaded, sizeof(r->unloaded));
	retry = retry && !n;
	if (retry) {
		if (r->retries-- <= 0) {
			tracer_note("module %s: its BTF or functions did not become usable; sites "
				    "not armed in it stay so (watch --list-probes says why)",
				    r->pending);
			r->pending[0] = 0;
			return false;
		}
		snprintf(r->loaded, sizeof(r->loaded), "%s", r->pending);
	}
	r->retry = retry;
	r->due = r->loaded[0] || r->unloaded[0];
	return r->due;
}

int tracer_rearm_run(struct tracer_rearm *r, struct tracer_loader *ld)
{
	struct tracer_modchange *c = &r->changes[0];
	bool retry = r->retry;

	r->nchanges = 0;
	if (!r->due)
		return 0;
	r->due = r->retry = false;
	memset(c, 0, sizeof(*c));
	if (replan(r, ld, r->loaded, r->unloaded))
		return 0;
	drop_auto_syscalls(ld, c);
	renote_syscalls(ld);
	absorb(r, ld, c);
	say(c, retry);
	tracer_regpath_destroy(r->old_reg);
	r->old_reg = NULL;
	/* BTF not visible yet: again shortly, a few times */
	if (c->loaded[0] && tracer_rearm_settling(&ld->facts, c->loaded)) {
		if (!r->pending[0])
			r->retries = REARM_RETRIES;
		snprintf(r->pending, sizeof(r->pending), "%s", c->loaded);
		r->retry_at = mono() + REARM_RETRY_S;
	} else {
		r->pending[0] = 0;
	}
	/* a retry that armed nothing new is no change worth a record */
	if (retry && !c->narmed && !c->ndetached)
		return 0;
	r->nchanges = 1;
	return 1;
}
