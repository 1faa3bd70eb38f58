// SPDX-License-Identifier: GPL-2.0-only
/* loader.c - open skeleton -> set .rodata -> autoload per plan -> share the
 * common maps -> load -> attach per site (loader.h).
 *
 * The three objects keep their fault isolation: one that fails to load
 * disarms its own sites and the others go on.  The first object that loads
 * owns the shared maps (ring buffer, counters, watched tree, cgroup filter,
 * bpf/common.bpf.h) and attaches the one fork follower; the ones after it
 * are handed those maps before they load. */
#include "tracer/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/pages.h"
#include "tracer/log.h"
#include "tracer/tracer.h"
#include "tracer/priv.h"
#include "regpath.skel.h"
#include "syscalls.skel.h"
#include "libibverbs.skel.h"

static const char *const shared_names[SHARED_MAPS] = {
	[SHARED_EVENTS] = "events",
	[SHARED_COUNTERS] = "counters",
	[SHARED_WATCHED] = "watched_tgids",
	[SHARED_CGROUP] = "cgroup_filter",
	[SHARED_STORMS] = "storms",
	[SHARED_STORM_ACKS] = "storm_acks",
	[SHARED_FOLD_NOTES] = "fold_notes",
};

/* The .rodata every object carries (bpf/common.bpf.h). */
#define SET_COMMON_RODATA(skel, o)                                          \
	do {                                                                \
		(skel)->rodata->targ_tgid = (o)->pid;                       \
		(skel)->rodata->filter_tgid_map = (o)->follow_pid != 0;     \
		(skel)->rodata->filter_cgroup = (o)->cgroup != NULL;        \
		(skel)->rodata->page_shift = __builtin_ctzll(page_size());  \
	} while (0)

static void add_link(struct tracer *t, struct bpf_link *l)
{
	if (t->nlinks < TRACER_MAX_LINKS)
		t->links[t->nlinks++] = l;
	else
		bpf_link__destroy(l);
}

/* ---- the shared maps and the fork follower ---------------------------------- */

/* Before load: an object after the first is handed the shared maps, and
 * only the first one's fork follower is loaded. */
static int share_maps(struct tracer *t, struct bpf_object *obj, struct bpf_program *fork)
{
	bool owner = t->shared[SHARED_EVENTS] < 0;

	bpf_program__set_autoload(fork, owner && t->opts.follow_pid);
	if (owner)
		return 0;
	for (int i = 0; i < SHARED_MAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, shared_names[i]);
		int err = m ? bpf_map__reuse_fd(m, t->shared[i]) : -ENOENT;
		if (err)
			return err;
	}
	return 0;
}

/* Where cgroup v2 is mounted: /sys/fs/cgroup on unified hosts,
 * /sys/fs/cgroup/unified on hybrid ones. */
static void cgroup2_root(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[1024], type[64];

	snprintf(buf, len, "/sys/fs/cgroup");
	if (!f)
		return;
	while (fscanf(f, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			break;
		}
	fclose(f);
}

/* Points the BPF_MAP_TYPE_CGROUP_ARRAY at a cgroup v2 directory given as a
 * path or relative to the cgroup2 mount. */
static int set_cgroup_filter(int map_fd, const char *cgroup, char *err, size_t errlen)
{
	char path[4096], root[1024];
	__u32 zero = 0;

	if (cgroup[0] == '/' && !access(cgroup, F_OK)) {
		snprintf(path, sizeof(path), "%s", cgroup);
	} else {
		cgroup2_root(root, sizeof(root));
		snprintf(path, sizeof(path), "%s/%s", root, cgroup[0] == '/' ? cgroup + 1 : cgroup);
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cgroup %.200s: %s (give a cgroup v2 directory)", path,
			 strerror(errno));
		return -1;
	}
	int rc = bpf_map_update_elem(map_fd, &zero, &fd, BPF_ANY);
	close(fd);
	if (rc)
		snprintf(err, errlen, "cgroup filter %.200s: %s (cgroup v2 only)", cgroup,
			 strerror(errno));
	return rc ? -1 : 0;
}

/* After the first successful load: keep the shared maps, point the cgroup
 * filter, follow forks. */
static int own_maps(struct tracer *t, struct bpf_object *obj, struct bpf_program *fork,
		    char *err, size_t errlen)
{
	if (t->shared[SHARED_EVENTS] >= 0)
		return 0;
	for (int i = 0; i < SHARED_MAPS; i++) {
		int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, shared_names[i]));
		t->shared[i] = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (t->shared[i] < 0) {
			snprintf(err, errlen, "map %s: %s", shared_names[i], strerror(errno));
			return -1;
		}
	}
	if (t->opts.cgroup &&
	    set_cgroup_filter(t->shared[SHARED_CGROUP], t->opts.cgroup, err, errlen))
		return -1;
	if (t->opts.follow_pid) {
		struct bpf_link *l = bpf_program__attach(fork);
		if (!l) {
			snprintf(err, errlen, "cannot follow forks (sched_process_fork): %s",
				 strerror(errno));
			return -1;
		}
		add_link(t, l);
	}
	return 0;
}

/* ---- the registration path ------------------------------------------------------ */

static struct bpf_program *prog_by_name(struct bpf_object *obj, const char *name)
{
	return name ? bpf_object__find_program_by_name(obj, name) : NULL;
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

/* The registration-path site whose armed flavour has program `name`. */
static int site_of_prog(const struct tracer_plan *pl, const char *name)
{
	for (int i = 0; name[0] && i < pl->nreg; i++) {
		const struct tracer_cand *c = &pl->cand[i];
		const char *names[4] = { c->fentry, c->fexit, c->kprobe, c->kretprobe };
		if (pl->sites[i].mech == MECH_NONE)
			continue;
		for (int k = 0; k < 4; k++)
			if (names[k] && !strcmp(names[k], name))
				return i;
	}
	return -1;
}

/* Attach both programs of site i; on a failure detach what was attached
 * and disarm the site. */
static void attach_site(struct tracer *t, struct bpf_object *obj, int i)
{
	const struct tracer_cand *c = &t->plan.cand[i];
	const struct tracer_site *s = &t->plan.sites[i];
	bool kprobe = s->mech == MECH_KPROBE;
	const char *names[2] = { kprobe ? c->kprobe : c->fentry, kprobe ? c->kretprobe : c->fexit };
	struct bpf_link *got[2] = { 0 };

	for (int k = 0; k < 2; k++) {
		struct bpf_program *p = prog_by_name(obj, names[k]);
		if (!p)
			continue;
		got[k] = kprobe ? bpf_program__attach_kprobe(p, k == 1, s->ksym[0] ? s->ksym : s->func)
				: bpf_program__attach(p);
		if (!got[k]) {
			tracer_plan_disarm(&t->plan, i, "%s attach failed: %s",
					   tracer_mech_name(s->mech), strerror(errno));
			for (int j = 0; j < k; j++)
				bpf_link__destroy(got[j]);
			return;
		}
	}
	for (int k = 0; k < 2; k++)
		if (got[k] && t->nreg_links < TRACER_MAX_LINKS)
			t->reg_links[t->nreg_links++] = got[k];
		else if (got[k])
			bpf_link__destroy(got[k]);
}

/* Opens the object for the plan as it stands and loads it.  0, or a
 * negative errno (the object is destroyed then). */
static int load_plan(struct tracer *t, struct regpath_bpf **out)
{
	/* with the external BTF, every CO-RE relocation resolves against it */
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = t->plan.btf_file);
	struct regpath_bpf *s = regpath_bpf__open_opts(&oo);
	struct tracer_site *rel = tracer_plan_site(&t->plan, "umem_release");
	struct bpf_program *p;
	int e;

	*out = NULL;
	if (!s)
		return -errno;
	SET_COMMON_RODATA(s, &t->opts);
	s->rodata->cap_ipc_lock = CAP_IPC_LOCK;
	/* live MRs are counted only where their release is seen too */
	s->rodata->count_live = rel && rel->mech != MECH_NONE;
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	for (int i = 0; i < t->plan.nreg; i++)
		if (t->plan.sites[i].mech != MECH_NONE)
			set_site_progs(s->obj, &t->plan.cand[i], &t->plan.sites[i]);
	e = share_maps(t, s->obj, s->progs.tp_fork_regpath);
	if (!e)
		e = regpath_bpf__load(s);
	if (e) {
		regpath_bpf__destroy(s);
		return e;
	}
	*out = s;
	return 0;
}

int tracer_load_regpath(struct tracer *t, char *err, size_t errlen)
{
	struct regpath_bpf *s = NULL;
	bool allow_fentry = true;
	char prog[128], why[TRACER_NOTE_MAX];

	tracer_plan_regpath(&t->plan, &t->facts, true);
	if (!tracer_plan_armed(&t->plan, false))
		return 0; /* nothing armed on this path: don't load at all */
	/* A program that fails (a relocation without target, a helper this
	 * kernel lacks) takes the whole object down: it is traced to its site,
	 * which falls back to kprobes or is disarmed, and the rest is loaded
	 * again.  Each round removes one flavour, so this ends. */
	for (int round = 0; round <= 2 * t->plan.nreg; round++) {
		tracer_log_failed_prog(prog, sizeof(prog));
		tracer_log_expect(true);
		int e = load_plan(t, &s);
		tracer_log_expect(false);
		if (!e)
			break;
		tracer_log_failed_prog(prog, sizeof(prog));
		int i = site_of_prog(&t->plan, prog);
		if (i >= 0) {
			snprintf(why, sizeof(why),
				 "%s load failed: %s (program %s; --debug-libbpf shows why)",
				 tracer_mech_name(t->plan.sites[i].mech), strerror(-e), prog);
			if (!tracer_plan_demote(&t->plan, i, &t->facts, why))
				return 0;
			continue;
		}
		/* not traced to a site: everything by kprobes, then nothing */
		tracer_note("loading the registration-path programs failed: %s%s", strerror(-e),
			    allow_fentry ? "; retrying with kprobes only" : "");
		if (!allow_fentry) {
			for (int k = 0; k < t->plan.nreg; k++)
				if (t->plan.sites[k].mech != MECH_NONE)
					tracer_plan_disarm(&t->plan, k, "BPF load failed: %s",
							   strerror(-e));
			return 0;
		}
		allow_fentry = false;
		tracer_plan_regpath(&t->plan, &t->facts, false);
		if (!tracer_plan_armed(&t->plan, false))
			return 0;
	}
	if (!s) {
		for (int k = 0; k < t->plan.nreg; k++)
			if (t->plan.sites[k].mech != MECH_NONE)
				tracer_plan_disarm(&t->plan, k, "BPF load failed");
		return 0;
	}
	t->reg = s;
	if (own_maps(t, s->obj, s->progs.tp_fork_regpath, err, errlen))
		return -1;
	/* an attach failure is the site's note: libbpf need not say it too */
	tracer_log_expect(true);
	for (int i = 0; i < t->plan.nreg; i++)
		if (t->plan.sites[i].mech != MECH_NONE)
			attach_site(t, s->obj, i);
	tracer_log_expect(false);
	return 0;
}

/* ---- the syscall tracepoints ------------------------------------------------------ */

int tracer_load_syscalls(struct tracer *t, char *err, size_t errlen)
{
	struct tracer_plan *pl = &t->plan;
	struct syscalls_bpf *s;

	tracer_plan_syscalls(pl, t->opts.syscalls);
	if (!pl->nsys || pl->sites[pl->sys_first].mech == MECH_NONE)
		return 0;
	s = syscalls_bpf__open();
	if (!s) {
		snprintf(err, errlen, "opening the syscall BPF object failed: %s", strerror(errno));
		return -1;
	}
	SET_COMMON_RODATA(s, &t->opts);
	int e = share_maps(t, s->obj, s->progs.tp_fork_syscalls);
	if (!e)
		e = syscalls_bpf__load(s);
	if (e) {
		for (int i = pl->sys_first; i < pl->sys_first + pl->nsys; i++)
			tracer_plan_disarm(pl, i, "BPF load failed: %s", strerror(-e));
		syscalls_bpf__destroy(s);
		return 0;
	}
	t->sys = s;
	if (own_maps(t, s->obj, s->progs.tp_fork_syscalls, err, errlen))
		return -1;
	tracer_log_expect(true);
	for (int k = 0; k < pl->nsys; k++) {
		const struct tracer_sys_def *d = &tracer_sys_sites[k];
		struct bpf_program *pe = prog_by_name(s->obj, d->prog_enter);
		struct bpf_program *px = prog_by_name(s->obj, d->prog_exit);
		struct bpf_link *le = pe ? bpf_program__attach(pe) : NULL;
		struct bpf_link *lx = le && px ? bpf_program__attach(px) : NULL;
		if (!le || !lx) {
			tracer_plan_disarm(pl, pl->sys_first + k, "tracepoint attach failed: %s",
					   strerror(errno));
			bpf_link__destroy(le);
			continue;
		}
		add_link(t, le);
		add_link(t, lx);
	}
	tracer_log_expect(false);
	return 0;
}

/* ---- libibverbs ----------------------------------------------------------------- */

int tracer_load_uprobes(struct tracer *t, char *err, size_t errlen)
{
	struct tracer_uprobes *u = &t->up;
	struct libibverbs_bpf *s;

	tracer_plan_uprobes(&t->plan);
	s = libibverbs_bpf__open();
	if (!s) {
		snprintf(u->error, sizeof(u->error), "open: %s", strerror(errno));
	} else {
		SET_COMMON_RODATA(s, &t->opts);
		int e = share_maps(t, s->obj, s->progs.tp_fork_uprobes);
		if (!e)
			e = libibverbs_bpf__load(s);
		if (e) {
			snprintf(u->error, sizeof(u->error), "BPF load failed: %s", strerror(-e));
			libibverbs_bpf__destroy(s);
			s = NULL;
		}
	}
	if (s) {
		u->skel = s; /* from here the object is the uprobes' (closed with them) */
		if (own_maps(t, s->obj, s->progs.tp_fork_uprobes, err, errlen))
			return -1;
		/* reg_mr armed in its ustack flavour (5.17+) takes the caller's
		 * stack at a failed REG_MR: the registration calls need no uprobe */
		u->kernel_calls = tracer_reg_mr_takes_stack(&t->plan);
		tracer_uprobes_start(u, s, t->opts.pid);
	}
	if (t->plan.uprobe >= 0)
		tracer_uprobes_describe(u, &t->plan.sites[t->plan.uprobe]);
	return 0;
}
