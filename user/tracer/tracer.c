// SPDX-License-Identifier: GPL-2.0-only
/* tracer.c - the tracer's life cycle and its accessors (tracer.h): facts,
 * plan and loading in order at open, one ring buffer and one counter map
 * while running (the registration path re-armed as modules come and go:
 * rearm.c), everything released at close. */
#include "tracer/gather.h"
#include "tracer/tracer.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mrtrace.h"
#include "tracer/detach.h"
#include "tracer/loader.h"
#include "tracer/log.h"
#include "tracer/priv.h"
#include "tracer/probemiss.h"
#include "tracer/rearm.h"
#include "tracer/regload.h"

int tracer_open(struct tracer **out, const struct tracer_opts *o, tracer_event_fn fn,
		void *cookie, char *err, size_t errlen)
{
	struct tracer *t = calloc(1, sizeof(*t));
	struct tracer_loader *ld;

	*out = t;
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->opts = *o;
	ld = &t->ld;
	ld->opts = &t->opts;
	tracer_shared_init(&ld->shared, &t->opts);
	ld->plan.sys_first = ld->plan.uprobe = -1;
	tracer_log_open(o);
	tracer_rearm_snapshot(&t->rearm, &ld->plan);
	if (tracer_facts_collect(&ld->facts, &t->opts, err, errlen) ||
	    tracer_regpath_arm(&ld->reg, &ld->plan, &ld->facts, &ld->shared, err, errlen) ||
	    tracer_load_syscalls(&ld->sys, &ld->plan, &ld->shared, err, errlen) ||
	    tracer_load_uprobes(&t->up, &ld->plan, &ld->shared, err, errlen))
		return -1;
	int evidence = tracer_plan_armed(&ld->plan, false);
	/* after the armed count: the module watch is no evidence by itself -
	 * but on a kernel without RDMA it is what watch waits on, at no cost
	 * per syscall (plan.c, tracer_plan_syscalls) */
	tracer_rearm_start(&t->rearm, &ld->plan);
	/* nothing armed is an error only where RDMA exists: a kernel without
	 * any (a CPU or login node) is watched at no cost, waiting for an RDMA
	 * module - or, where modules never load, idle and saying so, rather
	 * than failing a service that runs on every node */
	if (!evidence && !tracer_waiting_for_rdma(t)) {
		snprintf(err, errlen, "no evidence source could be armed on kernel %s",
			 ld->facts.kernel);
		return -1;
	}
	if (t->opts.stop && *t->opts.stop) {
		/* asked to stop while arming: the caller closes, nothing stays */
		snprintf(err, errlen, "stopped while arming");
		return -1;
	}
	/* one ring buffer: every object writes into the first one's map */
	t->rb = ring_buffer__new(ld->shared.fd[SHARED_EVENTS], (ring_buffer_sample_fn)fn, cookie,
				 NULL);
	if (!t->rb) {
		snprintf(err, errlen, "ring buffer setup failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Every link of the tracer destroyed together: each perf-event link's close
 * waits for a grace period, and together the waits overlap (detach.h). */
static void detach_all(struct tracer *t)
{
	struct tracer_loader *ld = &t->ld;
	int max = UPROBE_LINKS_MAX + TRACER_MAX_LINKS + 16 + 4, n = 0;
	struct bpf_link **all = calloc(max, sizeof(*all));

	if (!all)
		return; /* each part destroys its own, one after the other */
	for (int i = 0; ld->reg && i < ld->reg->nlinks && n < max; i++)
		all[n++] = ld->reg->links[i];
	if (ld->reg)
		ld->reg->nlinks = 0;
	for (int i = 0; i < ld->sys.nlinks && n < max; i++)
		all[n++] = ld->sys.links[i];
	ld->sys.nlinks = 0;
	for (int i = 0; i < t->up.nlinks && n < max; i++)
		all[n++] = t->up.links[i];
	t->up.nlinks = 0;
	n += tracer_rearm_links(&t->rearm, all + n, max - n);
	if (ld->shared.fork && n < max) {
		all[n++] = ld->shared.fork;
		ld->shared.fork = NULL;
	}
	tracer_detach(all, n, t->up.mfds, t->up.nmfds);
	t->up.nmfds = 0;
	free(all);
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	ring_buffer__free(t->rb);
	detach_all(t);
	tracer_rearm_close(&t->rearm);
	tracer_regpath_destroy(t->ld.reg);
	tracer_syscalls_close(&t->ld.sys);
	tracer_uprobes_close(&t->up);
	tracer_shared_close(&t->ld.shared);
	tracer_log_close();
	free(t);
}

int tracer_site_count(const struct tracer *t)
{
	return t->ld.plan.n;
}

const struct tracer_site *tracer_site(const struct tracer *t, int i)
{
	return i >= 0 && i < t->ld.plan.n ? &t->ld.plan.sites[i] : NULL;
}

const char *tracer_libibverbs_path(const struct tracer *t, unsigned long long ino, uint64_t *dev)
{
	for (int i = 0; i < t->up.nlibs; i++)
		if (t->up.libs[i].ino == ino) {
			*dev = t->up.libs[i].dev;
			return t->up.libs[i].path;
		}
	return NULL;
}

unsigned long tracer_uprobe_libs_full(const struct tracer *t)
{
	return t ? t->up.libs_full : 0;
}

bool tracer_waiting_for_rdma(const struct tracer *t)
{
	return !tracer_plan_armed(&t->ld.plan, true) && !tracer_plan_rdma_present(&t->ld.plan);
}

bool tracer_follows_modules(const struct tracer *t)
{
	return tracer_rearm_following(&t->rearm);
}

bool tracer_kernel_calls(const struct tracer *t)
{
	return t->up.kernel_calls;
}

bool tracer_stack_raw(const struct tracer *t)
{
	return tracer_reg_mr_stack_raw(&t->ld.plan);
}

bool tracer_site_armed(const struct tracer *t, const char *name)
{
	for (int i = 0; i < t->ld.plan.n; i++)
		if (!strcmp(t->ld.plan.sites[i].name, name))
			return t->ld.plan.sites[i].mech != MECH_NONE;
	return false;
}

int tracer_armed_count(const struct tracer *t, bool openers_only)
{
	return tracer_plan_armed(&t->ld.plan, openers_only);
}

const char *tracer_kernel(const struct tracer *t)
{
	return t->ld.facts.kernel;
}

const char *tracer_btf_file(const struct tracer *t)
{
	return t->ld.reg ? t->ld.plan.btf_file : NULL;
}

int tracer_poll(struct tracer *t, int timeout_ms)
{
	return t->rb ? ring_buffer__poll(t->rb, timeout_ms) : -EINVAL;
}

int tracer_poll_also(struct tracer *t, int timeout_ms, int also_fd)
{
	if (also_fd < 0 || !t->rb)
		return tracer_poll(t, timeout_ms);
	/* the ring buffer's epoll set is readable when a ring has records */
	struct pollfd p[2] = { { .fd = ring_buffer__epoll_fd(t->rb), .events = POLLIN },
			       { .fd = also_fd, .events = POLLIN } };
	if (poll(p, 2, timeout_ms) < 0)
		return -errno;
	return ring_buffer__consume(t->rb);
}

int tracer_consume(struct tracer *t)
{
	return t->rb ? ring_buffer__consume(t->rb) : -EINVAL;
}

int tracer_housekeeping(struct tracer *t)
{
	int added = tracer_uprobes_scan(&t->up);

	tracer_rearm_look(&t->rearm, &t->ld.plan);
	if (added <= 0)
		return 0;
	if (t->ld.plan.uprobe >= 0)
		tracer_uprobes_describe(&t->up, &t->ld.plan.sites[t->ld.plan.uprobe]);
	return added;
}

bool tracer_replan_due(const struct tracer *t)
{
	return t->rearm.due;
}

int tracer_replan(struct tracer *t)
{
	return tracer_rearm_run(&t->rearm, &t->ld);
}

int tracer_modchange_count(const struct tracer *t)
{
	return t->rearm.nchanges;
}

const struct tracer_modchange *tracer_modchange(const struct tracer *t, int i)
{
	return i >= 0 && i < t->rearm.nchanges ? &t->rearm.changes[i] : NULL;
}

int tracer_lib_count(const struct tracer *t)
{
	return t->up.nlibs;
}

struct tracer_lib tracer_lib(const struct tracer *t, int i)
{
	struct tracer_lib l = { "", 0 };

	if (i >= 0 && i < t->up.nlibs) {
		l.path = t->up.libs[i].path;
		l.entry_points = t->up.libs[i].nfuncs;
	}
	return l;
}

int tracer_watch_tgid(struct tracer *t, int tgid)
{
	__u32 k = tgid;
	__u8 one = 1;

	/* one map for every object (bpf/common.bpf.h) */
	if (t->ld.shared.fd[SHARED_WATCHED] < 0)
		return -1;
	return bpf_map_update_elem(t->ld.shared.fd[SHARED_WATCHED], &k, &one, BPF_ANY) ? -1 : 0;
}

/* The opener levels of contexts that have outlived MRT_CTX_STALE_NS: returns
 * that never came (a kretprobe missed), whose thread has not registered
 * again since (that registration would have dropped and counted them:
 * bpf/trail.bpf.h ctx_open).  The map holds at most 512 threads; the walk
 * stops after 4096 keys, for a hash walked while the kernel deletes from
 * it may start over.  A registration slower than MRT_CTX_STALE_NS is
 * counted here and stays counted when it returns after all (tracer_counters
 * keeps the count from going down: a counter in the metrics). */
static unsigned long long open_missed(const struct tracer *t)
{
	const struct tracer_regpath *g = t->ld.reg;
	struct bpf_map *m = g && g->nobjs > 0 ? bpf_object__find_map_by_name(g->objs[0], "trail_ctx")
					       : NULL;
	unsigned long long missed = 0, now;
	struct timespec ts;
	struct mrt_ctx *c;
	__u32 key, next;
	int fd, n = 0;

	if (!m || (fd = bpf_map__fd(m)) < 0 || bpf_map__value_size(m) != sizeof(*c) ||
	    clock_gettime(CLOCK_MONOTONIC, &ts) || !(c = malloc(sizeof(*c))))
		return 0;
	now = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
	for (int rc = bpf_map_get_next_key(fd, NULL, &next); !rc && n++ < 4096;
	     rc = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, c))
			continue;
		if (c->ev.ts_ns < now && now - c->ev.ts_ns >= MRT_CTX_STALE_NS && c->depth > 0)
			missed += (unsigned long long)c->depth;
	}
	free(c);
	return missed;
}

void tracer_probe_misses(struct tracer *t, struct probemiss *m)
{
	const struct tracer_syscalls *sc = &t->ld.sys;

	memset(m, 0, sizeof(*m));
	tracer_regpath_misses(t->ld.reg, m);
	for (int i = 0; i < sc->nlinks; i++) {
		unsigned long long n = 0;
		bool ok = probemiss_read(bpf_link__fd(sc->links[i]), sc->link_prog_fd[i], &n);
		probemiss_add(m, sc->link_site[i], sc->link_exit[i], ok, n);
	}
	m->total += t->ld.shared.probes_missed_retired;
}

void tracer_counters(struct tracer *t, unsigned long long out[])
{
	int ncpu = libbpf_num_possible_cpus();
	unsigned long long *vals;

	memset(out, 0, sizeof(out[0]) * MRT_CNT_MAX);
	if (ncpu <= 0 || t->ld.shared.fd[SHARED_COUNTERS] < 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return;
	for (__u32 k = 0; k < MRT_CNT_MAX; k++) {
		if (bpf_map_lookup_elem(t->ld.shared.fd[SHARED_COUNTERS], &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	out[MRT_CNT_RET_MISSED] += open_missed(t);
	if (out[MRT_CNT_RET_MISSED] < t->missed_reported)
		out[MRT_CNT_RET_MISSED] = t->missed_reported;
	t->missed_reported = out[MRT_CNT_RET_MISSED];
}
