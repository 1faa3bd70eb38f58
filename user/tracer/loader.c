// SPDX-License-Identifier: GPL-2.0-only
/* loader.c - the syscall tracepoints and the libibverbs object (loader.h):
 * open the skeleton -> .rodata and the shared maps -> load -> attach.
 *
 * The objects keep their fault isolation: one that fails to load disarms
 * its own sites and the others go on.  Whichever object loads first owns
 * the shared maps and attaches the one fork follower (shared.c). */
#include "tracer/loader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "tracer/detach.h"
#include "tracer/log.h"
#include "tracer/umulti.h"
#include "syscalls.skel.h"
#include "libibverbs.skel.h"

static struct bpf_program *prog_by_name(struct bpf_object *obj, const char *name)
{
	return name ? bpf_object__find_program_by_name(obj, name) : NULL;
}

int tracer_load_syscalls(struct tracer_syscalls *sc, struct tracer_plan *pl,
			 struct tracer_shared *sh, char *err, size_t errlen)
{
	struct syscalls_bpf *s;

	tracer_plan_syscalls(pl, sh->opts->syscalls);
	if (!pl->nsys || pl->sites[pl->sys_first].mech == MECH_NONE)
		return 0;
	s = syscalls_bpf__open();
	if (!s) {
		snprintf(err, errlen, "opening the syscall BPF object failed: %s", strerror(errno));
		return -1;
	}
	int e = tracer_shared_prepare(sh, s->obj);
	if (!e)
		e = syscalls_bpf__load(s);
	if (e) {
		for (int i = pl->sys_first; i < pl->sys_first + pl->nsys; i++) {
			tracer_plan_disarm(pl, i, SITE_OFF_LOAD_FAILED, "BPF load failed: %s",
					   strerror(-e));
			pl->sites[i].err = -e;
		}
		syscalls_bpf__destroy(s);
		return 0;
	}
	sc->skel = s;
	if (tracer_shared_adopt(sh, s->obj, err, errlen))
		return -1;
	tracer_log_expect(true);
	for (int k = 0; k < pl->nsys && sc->nlinks + 2 <= (int)(sizeof(sc->links) / sizeof(sc->links[0])); k++) {
		const struct tracer_sys_def *d = &tracer_sys_sites[k];
		struct bpf_program *pe = prog_by_name(s->obj, d->prog_enter);
		struct bpf_program *px = prog_by_name(s->obj, d->prog_exit);
		struct bpf_link *le = pe ? bpf_program__attach(pe) : NULL;
		struct bpf_link *lx = le && px ? bpf_program__attach(px) : NULL;
		if (!le || !lx) {
			int ae = errno;
			tracer_plan_disarm(pl, pl->sys_first + k, SITE_OFF_ATTACH_FAILED,
					   "tracepoint attach failed: %s", strerror(ae));
			pl->sites[pl->sys_first + k].err = ae;
			bpf_link__destroy(le);
			continue;
		}
		for (int e = 0; e < 2; e++) {
			sc->link_prog_fd[sc->nlinks] = bpf_program__fd(e ? px : pe);
			sc->link_site[sc->nlinks] = d->name;
			sc->link_exit[sc->nlinks] = e == 1;
			sc->links[sc->nlinks++] = e ? lx : le;
		}
	}
	tracer_log_expect(false);
	return 0;
}

int tracer_syscalls_detach(struct tracer_syscalls *sc)
{
	int n = sc->nlinks;

	tracer_links_destroy(sc->links, sc->nlinks);
	sc->nlinks = 0;
	return n;
}

void tracer_syscalls_close(struct tracer_syscalls *sc)
{
	tracer_syscalls_detach(sc);
	syscalls_bpf__destroy(sc->skel);
	sc->skel = NULL;
}

int tracer_load_uprobes(struct tracer_uprobes *u, struct tracer_plan *p, struct tracer_shared *sh,
			char *err, size_t errlen)
{
	struct libibverbs_bpf *s;

	tracer_plan_uprobes(p);
	s = libibverbs_bpf__open();
	if (!s) {
		u->err = errno;
		snprintf(u->error, sizeof(u->error), "open: %s", strerror(u->err));
	} else {
		int e = tracer_shared_prepare(sh, s->obj);
		/* uprobe_multi links close in parallel (umulti.h): decided
		 * before the load, the programs' attach type depends on it */
		u->multi = umulti_supported();
		if (u->multi)
			umulti_prepare(s->obj);
		if (!e)
			e = libibverbs_bpf__load(s);
		if (e) {
			u->err = -e;
			snprintf(u->error, sizeof(u->error), "BPF load failed: %s", strerror(-e));
			libibverbs_bpf__destroy(s);
			s = NULL;
		}
	}
	if (s) {
		u->skel = s; /* from here the object is the uprobes' (closed with them) */
		if (tracer_shared_adopt(sh, s->obj, err, errlen))
			return -1;
		/* reg_mr armed in a flavour that takes the caller's stack at a
		 * failed REG_MR (scanned in the kernel on 5.17+, copied raw
		 * before): the registration calls need no uprobe */
		u->kernel_calls = tracer_reg_mr_takes_stack(p);
		u->kernel_raw = tracer_reg_mr_stack_raw(p);
		tracer_uprobes_start(u, s, sh->opts->pid);
	}
	if (p->uprobe >= 0)
		tracer_uprobes_describe(u, &p->sites[p->uprobe]);
	return 0;
}
