/* SPDX-License-Identifier: GPL-2.0-only */
/* loader.h - arming what the plan says, object by object: open the
 * skeleton, set .rodata, enable the programs the plan chose, share the
 * common maps, load, attach site by site (a failure disarms that site
 * only, with a note).  Called in this order by tracer_open(). */
#ifndef MRTRACE_TRACER_LOADER_H
#define MRTRACE_TRACER_LOADER_H

#include <stddef.h>

struct tracer;

/* Each returns 0 (sites that could not be armed say why in the plan), or -1
 * with a message in err when watching cannot go on as asked (cgroup filter,
 * fork following). */
int tracer_load_regpath(struct tracer *t, char *err, size_t errlen);
int tracer_load_syscalls(struct tracer *t, char *err, size_t errlen);
int tracer_load_uprobes(struct tracer *t, char *err, size_t errlen);

#endif
