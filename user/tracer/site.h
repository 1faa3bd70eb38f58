/* SPDX-License-Identifier: GPL-2.0-only */
/* site.h - one site as decided on this kernel: what the caller sees of the
 * plan (tracer_site()) and what the planner fills in. */
#ifndef MRTRACE_TRACER_SITE_H
#define MRTRACE_TRACER_SITE_H

#include "tracer/opts.h"

#define TRACER_NOTE_MAX 512
#define TRACER_MODULE_MAX 64
#define TRACER_BTF_MAX 96

struct tracer_site {
	const char *name; /* short id, stable: "umem_get" */
	const char *func; /* kernel function (or its other name), tracepoint, calls */
	const char *gives; /* the evidence it contributes */
	bool opener; /* can open a registration trail */
	enum mech mech; /* armed with; MECH_NONE if not */
	/* where it was found ("vmlinux", "ib_uverbs", "tracepoint", "syscalls",
	 * "user"); "" when not found */
	char module[TRACER_MODULE_MAX];
	/* what a kprobe names: "module:function" when several text symbols
	 * share the name (the kernel refuses an ambiguous bare name since
	 * 6.6 and would otherwise probe the first), else "" = func */
	char ksym[TRACER_MODULE_MAX + 128];
	char note[TRACER_NOTE_MAX]; /* why not armed, or a note; "" if none */
	/* the BTF its programs were typed by: "vmlinux", a module's BTF
	 * ("ib_uverbs"), "file <path>" (external BTF, for kernels without
	 * module BTF), "none" (the structure it reads is typed nowhere: less
	 * evidence, see note); "" for sites that read no kernel types (uprobes)
	 * or are not armed */
	char btf[TRACER_BTF_MAX];
	/* verdict-critical sites: what is unavailable when not armed, and what
	 * verdicts do then (sites.h); NULL for the others */
	const char *critical, *without;
};

#endif
