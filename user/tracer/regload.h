/* SPDX-License-Identifier: GPL-2.0-only */
/* regload.h - arming the registration path as the plan says: one
 * generation of BPF objects (copies of build/regpath.bpf.o, each loading
 * some of its sites) and their links.  rearm.c loads a
 * new generation when modules come and go and then destroys the old one. */
#ifndef MRTRACE_TRACER_REGLOAD_H
#define MRTRACE_TRACER_REGLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer/facts.h"
#include "tracer/plan.h"
#include "tracer/shared.h"

struct bpf_object;
struct bpf_link;

#define TRACER_REG_OBJS 64
#define TRACER_MAX_LINKS (2 * TRACER_MAX_SITES + 1)

struct tracer_regpath {
	int nobjs; /* loaded objects: one per family, or per site of a family that failed */
	struct bpf_object *objs[TRACER_REG_OBJS];
	int nlinks;
	struct bpf_link *links[TRACER_MAX_LINKS];
	/* per link: its site (the plan's index), side and program, for the
	 * kernel's count of its misses (probemiss.h) */
	int link_site[TRACER_MAX_LINKS];
	bool link_exit[TRACER_MAX_LINKS];
	int link_prog_fd[TRACER_MAX_LINKS];
	/* where this generation's misses go when it is destroyed (a re-arm),
	 * so that the count never goes down: the shared state's */
	struct tracer_shared *sh;
	const struct tracer_plan *plan;
};

/* Plans the registration path afresh (tracer_plan_regpath) and arms it.
 * The armed sites are loaded as one object; when it does not load, the
 * sites are loaded in halves until the one that fails is alone, so it is
 * known without reading libbpf's messages (which are passed on for it: the
 * verifier's log is shown), moved to its kprobe flavour or disarmed, and
 * the others go on.  A site whose attach fails is disarmed alone.  The
 * objects share the maps of `sh` and, among themselves, the trail maps of
 * bpf/trail.bpf.h.  *out: the generation, or NULL when nothing on the path
 * is armed (the plan says why, per site).  0, or -1 with a message in err:
 * watching cannot go on as asked (cgroup filter, fork following), or a
 * stop was requested (opts.stop) - then nothing is left armed. */
int tracer_regpath_arm(struct tracer_regpath **out, struct tracer_plan *p,
		       const struct tracer_facts *f, struct tracer_shared *sh, char *err,
		       size_t errlen);
/* Links first, then the objects, their misses kept (sh's
 * probes_missed_retired).  NULL is fine. */
void tracer_regpath_destroy(struct tracer_regpath *g);
/* Each armed probe's misses into m (probemiss.h). */
struct probemiss;
void tracer_regpath_misses(const struct tracer_regpath *g, struct probemiss *m);

#endif
