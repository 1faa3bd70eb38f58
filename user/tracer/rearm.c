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
 * Re-arming: the facts are gathered again, the registration path is planned
 * again (the syscall, libibverbs and modules sites stay as they are) and a
 * new registration-path object is loaded and attached, sharing the ring
 * buffer, counters and storm maps of the running ones (loader.c): records
 * already in the ring buffer stay there and the counters go on.  Only then
 * are the old object's links destroyed, so for a moment both are attached:
 * a registration in flight across the swap opened its trail in the old
 * object, and the new one, having no trail for it, records nothing twice.
 * The old object's per-thread trails and live-MR counts are not carried
 * over.  With --syscalls=auto, the syscall tracepoints armed because no
 * registration site was are detached once one is.
 *
 * A trampoline (fentry/fexit) on a module function holds the module
 * (kernel 6.4+: bpf_trampoline_module_get), so such a module cannot be
 * unloaded while its sites are armed; `modprobe -r` says "in use".  Sites
 * armed by kprobes do not hold their module: when it goes, their links
 * are destroyed here. */
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
#include "tracer/loader.h"
#include "tracer/log.h"
#include "tracer/priv.h"
#include "modwatch.skel.h"
#include "regpath.skel.h"
#include "syscalls.skel.h"

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
static int armed_modules(const struct tracer *t, const char **out, int max)
{
	int n = 0;

	for (int i = 0; i < t->plan.nreg && n < max; i++) {
		const struct tracer_site *s = &t->plan.sites[i];
		if (s->mech != MECH_NONE && s->module[0] && strcmp(s->module, "vmlinux") &&
		    strcmp(s->module, "tracepoint"))
			out[n++] = s->module;
	}
	return n;
}

/* Looks at /proc/modules: the relevant modules into *s.  -1 if unreadable. */
static int look(const struct tracer *t, struct modwatch_set *s)
{
	const char *extra[TRACER_MAX_SITES];
	int nextra = armed_modules(t, extra, TRACER_MAX_SITES);
	char *text = slurp_file("/proc/modules", NULL);

	if (!text)
		return -1;
	modwatch_parse(s, text, extra, nextra);
	free(text);
	return 0;
}

void tracer_rearm_snapshot(struct tracer *t)
{
	t->rearm.site = -1;
	if (look(t, &t->rearm.mods))
		t->rearm.mods.n = 0;
}

/* The snapshot was taken before the plan, so it knew only the modules of
 * modwatch.c's list: a module an armed site was found in (7.x's
 * ib_uverbs_support) joins it as live - it was, when the facts were
 * gathered - or the first look would call it newly loaded and re-plan for
 * nothing. */
static void adopt_armed_modules(struct tracer *t)
{
	struct modwatch_set *s = &t->rearm.mods;
	const char *extra[TRACER_MAX_SITES];
	int n = armed_modules(t, extra, TRACER_MAX_SITES);

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

void tracer_rearm_start(struct tracer *t)
{
	struct tracer_rearm *r = &t->rearm;
	struct tracer_plan *p = &t->plan;
	struct modwatch_bpf *s;
	const char *why = NULL;

	adopt_armed_modules(t);
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
		snprintf(m->note, sizeof(m->note),
			 "no loadable modules on this kernel (no /proc/modules): nothing to follow");
		snprintf(m->module, sizeof(m->module), "-");
	} else {
		/* still done, by reading /proc/modules: not a tracepoint site */
		snprintf(m->note, sizeof(m->note),
			 "module tracepoints not attached (%s): /proc/modules is polled every %.1f s "
			 "instead",
			 why, REARM_POLL_S);
		snprintf(m->module, sizeof(m->module), "procfs");
	}
}

void tracer_rearm_close(struct tracer_rearm *r)
{
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
static bool settling(const struct tracer_facts *f, const char *loaded)
{
	char path[128];

	for (int i = 0; i < f->nfuncs; i++) {
		const struct tracer_func_facts *ff = &f->funcs[i];
		if (!ff->in_kallsyms || !listed(loaded, ff->ksym_module))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", ff->ksym_module);
		if (f->module_btf && access(path, R_OK))
			return true;
		if (ff->tramp == TRAMP_REFUSED && strstr(ff->tramp_why, strerror(ENXIO)))
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
 * tick's change record.  0, or -1 (nothing changed: the sites stay as they
 * were, and why is said). */
static int replan(struct tracer *t, const char *loaded, const char *unloaded)
{
	struct tracer_facts *f = malloc(sizeof(*f));
	struct tracer_plan *old = malloc(sizeof(*old));
	struct bpf_link **old_links = malloc(sizeof(t->reg_links));
	struct tracer_modchange *c = &t->rearm.changes[0];
	struct regpath_bpf *old_reg = t->reg;
	int old_nlinks = t->nreg_links, rc = -1;
	char err[256];
	double t0 = mono();

	if (!f || !old || !old_links)
		goto out;
	if (tracer_facts_collect_again(f, &t->opts, &t->facts, err, sizeof(err))) {
		tracer_note("modules changed (%s%s%s): looking at the kernel failed: %s; sites stay "
			    "as they were", loaded, loaded[0] && unloaded[0] ? "; " : "", unloaded,
			    err);
		goto out;
	}
	c->facts_seconds = mono() - t0;
	*old = t->plan;
	memcpy(old_links, t->reg_links, sizeof(t->reg_links));
	t->facts = *f; /* in place: the plan's btf_file points into it */
	t->reg = NULL;
	t->nreg_links = 0;
	tracer_load_regpath(t, err, sizeof(err)); /* own_maps has nothing to do: never fails */
	if (!t->reg && old_reg && !unloaded[0]) {
		/* the new object did not load: keep what worked */
		t->plan = *old;
		t->reg = old_reg;
		t->nreg_links = old_nlinks;
		memcpy(t->reg_links, old_links, sizeof(t->reg_links));
		tracer_note("module %s loaded, but the registration-path programs did not load "
			    "again: the sites stay as they were", loaded);
		goto out;
	}
	/* the sites after the registration path are not planned again */
	for (int i = t->plan.nreg; i < old->n; i++)
		t->plan.sites[i] = old->sites[i];
	t->plan.n = old->n;
	t->plan.sys_first = old->sys_first;
	t->plan.nsys = old->nsys;
	t->plan.uprobe = old->uprobe;
	/* the new object is attached: the old one goes */
	for (int i = 0; i < old_nlinks; i++)
		bpf_link__destroy(old_links[i]);
	regpath_bpf__destroy(old_reg);

	modwatch_site_changes(old->sites, t->plan.sites, t->plan.nreg, c->armed, &c->narmed,
			      c->detached, &c->ndetached);
	snprintf(c->loaded, sizeof(c->loaded), "%s", loaded);
	snprintf(c->unloaded, sizeof(c->unloaded), "%s", unloaded);
	c->armed_sites = tracer_plan_armed(&t->plan, false);
	c->seconds = mono() - t0;
	rc = 0;
out:
	free(f);
	free(old);
	free(old_links);
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
static void absorb(struct tracer *t, struct tracer_modchange *c)
{
	struct tracer_rearm *r = &t->rearm;
	struct modwatch_change ch[MODWATCH_MAX];
	struct modwatch_set after;
	size_t len;
	int n;

	if (look(t, &after))
		return;
	n = modwatch_diff(&r->mods, &after, ch, MODWATCH_MAX);
	for (int i = 0; i < n; i++) {
		if (ch[i].kind != MODWATCH_LOADED || !in_facts(&t->facts, ch[i].name) ||
		    settling(&t->facts, ch[i].name)) {
			r->recheck = true;
			continue;
		}
		len = strlen(c->loaded);
		snprintf(c->loaded + len, sizeof(c->loaded) - len, "%s%s", len ? ", " : "",
			 ch[i].name);
		set_live(&r->mods, ch[i].name);
	}
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id : 0;
}

static __u32 link_prog_id(struct bpf_link *l)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(bpf_link__fd(l), &info, &len) ? info.prog_id : 0;
}

/* --syscalls=auto arms the syscall tracepoints only while no registration
 * opener is (plan.c), for they slow every syscall of every task: a
 * boot-time watch that started before the RDMA modules had them armed, and
 * now that an opener is they go, into the change's detached sites.  The
 * fork follower, which may live in the same object, stays. */
static void drop_auto_syscalls(struct tracer *t, struct tracer_modchange *c)
{
	struct tracer_plan *p = &t->plan;
	struct bpf_program *prog;
	__u32 ids[32];
	int nids = 0, kept = 0;

	if (t->opts.syscalls != SYSCALLS_AUTO || !t->sys || p->sys_first < 0 ||
	    !tracer_plan_armed(p, true))
		return;
	bpf_object__for_each_program(prog, t->sys->obj) {
		__u32 id = prog != t->sys->progs.tp_fork_syscalls ? prog_id(bpf_program__fd(prog)) : 0;
		if (id && nids < 32)
			ids[nids++] = id;
	}
	for (int i = 0; i < t->nlinks; i++) {
		__u32 id = link_prog_id(t->links[i]);
		bool sys = false;
		for (int k = 0; id && k < nids; k++)
			sys |= ids[k] == id;
		if (sys)
			bpf_link__destroy(t->links[i]);
		else
			t->links[kept++] = t->links[i];
	}
	t->nlinks = kept;
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
		snprintf(s->note, sizeof(s->note),
			 "off since registration sites were armed (modules loaded after start); "
			 "syscall tracepoints slow every syscall (~40 ns), enable with --syscalls=on");
	}
	c->armed_sites = tracer_plan_armed(p, false);
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

int tracer_rearm_tick(struct tracer *t)
{
	struct tracer_rearm *r = &t->rearm;
	struct tracer_modchange *c = &r->changes[0];
	struct modwatch_change ch[MODWATCH_MAX];
	struct modwatch_set now_set;
	char loaded[256], unloaded[256];
	double now = mono();
	bool due = r->recheck, retry = false;
	int n;

	r->nchanges = 0;
	r->recheck = false;
	if (r->site < 0 || r->off)
		return 0;
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
	if (!due && !retry)
		return 0;
	if (look(t, &now_set))
		return 0;
	n = modwatch_diff(&r->mods, &now_set, ch, MODWATCH_MAX);
	r->mods = now_set;
	names_of(ch, n, MODWATCH_LOADED, loaded, sizeof(loaded));
	names_of(ch, n, MODWATCH_UNLOADED, unloaded, sizeof(unloaded));
	retry = retry && !n;
	if (retry) {
		if (r->retries-- <= 0) {
			tracer_note("module %s: its BTF or functions did not become usable; sites "
				    "not armed in it stay so (watch --list-probes says why)",
				    r->pending);
			r->pending[0] = 0;
			return 0;
		}
		snprintf(loaded, sizeof(loaded), "%s", r->pending);
	}
	if (!loaded[0] && !unloaded[0])
		return 0;
	/* the re-plan takes a while (seconds under emulation) and the loop
	 * waits for it: what the ring buffer holds is handed on first */
	tracer_consume(t);
	if (replan(t, loaded, unloaded))
		return 0;
	drop_auto_syscalls(t, c);
	absorb(t, c);
	say(c, retry);
	/* BTF not visible yet: again shortly, a few times */
	if (c->loaded[0] && settling(&t->facts, c->loaded)) {
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
