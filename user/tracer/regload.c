// SPDX-License-Identifier: GPL-2.0-only
/* regload.c - the registration path armed as the plan says (regload.h):
 * open the object -> enable the plan's programs -> share the maps -> load;
 * an object that does not load is split in halves until each failing site
 * is alone, and that one is moved to its kprobe flavour or disarmed; then
 * every armed site is attached, a stop request looked at between sites.
 *
 * The object is the link of the site families' units (bpf/regpath/, one .bpf.c each,
 * Makefile): one load arms the whole path, as fast as one object loads (each
 * load parses the kernel's BTF: about a second under emulation), and any
 * subset of its sites can be loaded alone. */
#include "tracer/regload.h"
#include "tracer/probemiss.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "tracer/bisect.h"
#include "tracer/detach.h"
#include "tracer/iommu.h"
#include "tracer/log.h"
#include "regpath.skel.h"

static struct bpf_program *prog_by_name(struct bpf_object *obj, const char *name)
{
	return name ? bpf_object__find_program_by_name(obj, name) : NULL;
}

/* The registration path's object, every program's autoload off;
 * btf_custom_path: the external BTF its CO-RE relocations resolve against,
 * or NULL (kernel BTF).  NULL with errno set on failure. */
static struct bpf_object *regpath_open(const char *btf_custom_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "regpath",
		    .btf_custom_path = btf_custom_path);
	struct bpf_object *obj;
	struct bpf_program *p;
	size_t size = 0;
	const void *elf = regpath_bpf__elf_bytes(&size);

	obj = bpf_object__open_mem(elf, size, &oo);
	if (!obj)
		return NULL;
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
	return obj;
}

/* Exactly one flavour of a site is loaded: the plan's, of the candidate
 * the plan chose. */
static void set_site_progs(struct bpf_object *obj, const struct tracer_cand *c,
			   const struct tracer_site *s)
{
	const char *names[4] = { c->fentry, c->fexit, c->kprobe, c->kretprobe };

	for (int i = 0; i < 4; i++) {
		struct bpf_program *p = prog_by_name(obj, names[i]);
		bool on = (i < 2 && (s->mech == MECH_FENTRY || s->mech == MECH_TRACEPOINT)) ||
			  (i >= 2 && s->mech == MECH_KPROBE);
		if (!p)
			continue;
		bpf_program__set_autoload(p, on);
		/* a program serves every candidate with its arguments: aim it at
		 * this kernel's (module BTF is searched too) */
		if (on && s->mech == MECH_FENTRY)
			bpf_program__set_attach_target(p, 0, s->func);
	}
}

/* The trail maps (bpf/trail.bpf.h) and the other maps of the path exist
 * once per generation: an object after the first is handed those the
 * generation has already. */
static int reuse_generation_maps(const struct tracer_regpath *g, struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		const char *name = bpf_map__name(m);
		if (bpf_map__is_internal(m) || tracer_shared_is(name))
			continue;
		for (int k = 0; k < g->nobjs; k++) {
			struct bpf_map *had = bpf_object__find_map_by_name(g->objs[k], name);
			if (!had)
				continue;
			int e = bpf_map__reuse_fd(m, bpf_map__fd(had));
			if (e)
				return e;
			break;
		}
	}
	return 0;
}

struct job {
	struct tracer_regpath *g;
	struct tracer_plan *p;
	const struct tracer_facts *f;
	struct tracer_shared *sh;
	int obj[TRACER_MAX_SITES]; /* the loaded object of each armed site, -1 */
	char *err; /* the first object loaded owns the shared maps: its failure */
	size_t errlen;
	bool fatal;
};

/* Loads the armed sites of set[0, n) as one object.  0 (it is the
 * generation's), 1 when none of them is armed, or a negative errno. */
static int load_set(struct job *j, const int *set, int n)
{
	const struct tracer_site *rel = tracer_plan_site(j->p, "umem_release");
	bool count_live = rel && rel->mech != MECH_NONE;
	/* ib_umem_get answers for capable() and the pinning unless they are
	 * probed themselves (bpf/regpath/umem.bpf.c) */
	bool cap_by_creds = !tracer_plan_site_probed(j->p, "cap_ipc_lock");
	bool pin_by_vmas = !tracer_plan_site_probed(j->p, "pin") &&
			   !tracer_plan_site_probed(j->p, "pin_gup");
	bool dma_translated = tracer_iommu_translates();
	bool umem_exit_only = tracer_umem_exit_only(j->p);
	int cap = CAP_IPC_LOCK, armed = 0, e;
	struct bpf_object *obj;

	for (int k = 0; k < n; k++)
		armed += j->p->sites[set[k]].mech != MECH_NONE;
	if (!armed)
		return 1;
	if (j->g->nobjs >= TRACER_REG_OBJS)
		return -E2BIG;
	if (!(obj = regpath_open(j->p->btf_file)))
		return -errno;
	for (int k = 0; k < n; k++)
		if (j->p->sites[set[k]].mech != MECH_NONE)
			set_site_progs(obj, &j->p->cand[set[k]], &j->p->sites[set[k]]);
	/* the capability number is a #define of the uapi header, not in BTF;
	 * live MRs are counted only where their release is seen too */
	tracer_rodata_set(obj, "cap_ipc_lock", &cap, sizeof(cap));
	tracer_rodata_set(obj, "count_live", &count_live, sizeof(count_live));
	tracer_rodata_set(obj, "cap_by_creds", &cap_by_creds, sizeof(cap_by_creds));
	tracer_rodata_set(obj, "pin_by_vmas", &pin_by_vmas, sizeof(pin_by_vmas));
	tracer_rodata_set(obj, "dma_translated", &dma_translated, sizeof(dma_translated));
	tracer_rodata_set(obj, "umem_exit_only", &umem_exit_only, sizeof(umem_exit_only));
	e = tracer_shared_prepare(j->sh, obj);
	if (!e)
		e = reuse_generation_maps(j->g, obj);
	if (!e)
		e = bpf_object__load(obj);
	if (e) {
		bpf_object__close(obj);
		return e < 0 ? e : -EINVAL;
	}
	for (int k = 0; k < n; k++)
		if (j->p->sites[set[k]].mech != MECH_NONE)
			j->obj[set[k]] = j->g->nobjs;
	j->g->objs[j->g->nobjs++] = obj;
	/* the first object of all owns the shared maps from now on */
	if (tracer_shared_adopt(j->sh, obj, j->err, j->errlen))
		j->fatal = true;
	return 0;
}

/* tracer_bisect's loader: a site loaded alone fails where the user sees
 * libbpf's message (its verifier log); a larger set's failure is not
 * theirs to read. */
static int bisect_load(void *arg, const int *set, int n, bool alone)
{
	struct job *j = arg;
	int e;

	if (j->sh->opts->stop && *j->sh->opts->stop)
		return -ECANCELED;
	tracer_log_expect(!alone);
	e = load_set(j, set, n);
	tracer_log_expect(false);
	return j->fatal ? -ECANCELED : e;
}

/* ...and its demotion: the kprobe flavour next, then nothing (and with the
 * last opener, every site that needs one: plan.c). */
static bool bisect_demote(void *arg, int site, int err)
{
	struct job *j = arg;
	char why[TRACER_NOTE_MAX];

	snprintf(why, sizeof(why), "%s load failed: %s (libbpf's message above says why)",
		 tracer_mech_name(j->p->sites[site].mech), strerror(err));
	tracer_plan_demote(j->p, site, j->f, why);
	if (j->p->sites[site].mech == MECH_NONE)
		j->p->sites[site].err = err;
	return j->p->sites[site].mech != MECH_NONE;
}

/* Attach both programs of site i; on a failure detach what was attached
 * and disarm the site. */
static void attach_site(struct job *j, int i)
{
	struct tracer_plan *p = j->p;
	const struct tracer_cand *c = &p->cand[i];
	const struct tracer_site *s = &p->sites[i];
	struct bpf_object *obj = j->g->objs[j->obj[i]];
	bool kprobe = s->mech == MECH_KPROBE;
	const char *names[2] = { kprobe ? c->kprobe : c->fentry, kprobe ? c->kretprobe : c->fexit };
	struct bpf_link *got[2] = { 0 };

	for (int k = 0; k < 2; k++) {
		struct bpf_program *prog = prog_by_name(obj, names[k]);
		if (!prog)
			continue;
		got[k] = kprobe ? bpf_program__attach_kprobe(prog, k == 1,
							     s->ksym[0] ? s->ksym : s->func)
				: bpf_program__attach(prog);
		if (!got[k]) {
			int ae = errno;
			tracer_plan_disarm(p, i, SITE_OFF_ATTACH_FAILED, "%s attach failed: %s",
					   tracer_mech_name(s->mech), strerror(ae));
			p->sites[i].err = ae;
			for (int m = 0; m < k; m++)
				bpf_link__destroy(got[m]);
			return;
		}
	}
	for (int k = 0; k < 2; k++)
		if (got[k] && j->g->nlinks < TRACER_MAX_LINKS) {
			j->g->link_site[j->g->nlinks] = i;
			j->g->link_exit[j->g->nlinks] = k == 1;
			j->g->link_prog_fd[j->g->nlinks] = bpf_program__fd(prog_by_name(obj, names[k]));
			j->g->links[j->g->nlinks++] = got[k];
		} else if (got[k])
			bpf_link__destroy(got[k]);
}

static int arm(struct job *j, char *err, size_t errlen)
{
	int set[TRACER_MAX_SITES], n = 0, rc;

	for (int i = 0; i < j->p->nreg; i++) {
		j->obj[i] = -1;
		if (j->p->sites[i].mech != MECH_NONE)
			set[n++] = i;
	}
	rc = tracer_bisect(set, n, bisect_load, bisect_demote, j);
	if (j->fatal)
		return -1;
	if (rc) {
		snprintf(err, errlen, "stopped while loading the registration path");
		return -1;
	}
	/* an attach failure is the site's note: libbpf need not say it too */
	tracer_log_expect(true);
	for (int i = 0; i < j->p->nreg && !rc; i++) {
		if (j->sh->opts->stop && *j->sh->opts->stop)
			rc = -1;
		else if (j->p->sites[i].mech != MECH_NONE && j->obj[i] >= 0)
			attach_site(j, i);
		else if (j->p->sites[i].mech != MECH_NONE)
			tracer_plan_disarm(j->p, i, SITE_OFF_LOAD_FAILED, "BPF load failed");
	}
	tracer_log_expect(false);
	if (rc)
		snprintf(err, errlen, "stopped while attaching the registration path");
	return rc;
}

int tracer_regpath_arm(struct tracer_regpath **out, struct tracer_plan *p,
		       const struct tracer_facts *f, struct tracer_shared *sh, char *err,
		       size_t errlen)
{
	struct job *j;

	*out = NULL;
	tracer_plan_regpath(p, f, true, sh->opts->hot_sites);
	if (!tracer_plan_armed(p, false))
		return 0; /* nothing armed on this path: don't load at all */
	j = calloc(1, sizeof(*j));
	struct tracer_regpath *g = calloc(1, sizeof(*g));
	if (!j || !g) {
		free(j);
		free(g);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*j = (struct job){ .g = g, .p = p, .f = f, .sh = sh, .err = err, .errlen = errlen };
	g->sh = sh;
	g->plan = p;
	int rc = arm(j, err, errlen);
	free(j);
	if (rc || !g->nobjs) {
		tracer_regpath_destroy(g);
		return rc;
	}
	*out = g;
	return 0;
}

void tracer_regpath_misses(const struct tracer_regpath *g, struct probemiss *m)
{
	for (int i = 0; g && i < g->nlinks; i++) {
		unsigned long long n = 0;
		bool ok = probemiss_read(bpf_link__fd(g->links[i]), g->link_prog_fd[i], &n);
		int s = g->link_site[i];
		probemiss_add(m, s >= 0 && s < g->plan->n ? g->plan->sites[s].name : NULL,
			      g->link_exit[i], ok, n);
	}
}

void tracer_regpath_destroy(struct tracer_regpath *g)
{
	if (!g)
		return;
	if (g->sh) { /* the misses outlive their links: a counter never goes down */
		struct probemiss m = { 0 };
		tracer_regpath_misses(g, &m);
		g->sh->probes_missed_retired += m.total;
	}
	tracer_links_destroy(g->links, g->nlinks);
	for (int i = 0; i < g->nobjs; i++)
		bpf_object__close(g->objs[i]);
	free(g);
}
