/* SPDX-License-Identifier: GPL-2.0-only */
/* site.h - one site as decided on this kernel: what the caller sees of the
 * plan (tracer_site()) and what the planner fills in. */
#ifndef MRTRACE_TRACER_SITE_H
#define MRTRACE_TRACER_SITE_H

#include "tracer/opts.h"

#define TRACER_NOTE_MAX 512
#define TRACER_MODULE_MAX 64
#define TRACER_BTF_MAX 96

/* Why a site is not armed: a value code decides on, never the note's words.
 * Each has its text (site_off_text(), siteoff.c), the part of the note that
 * is the same for every site; the note adds the names and numbers of this
 * one.  SITE_ARMED: armed (its note, if any, says how). */
enum site_off {
	SITE_ARMED = 0,
	SITE_OFF_NOTRACE,          /* the function is notrace */
	SITE_OFF_NEEDS_FEATURE,    /* the candidate needs a kernel feature missing here */
	SITE_OFF_NO_KPROBE_FLAVOUR, /* no trampoline, and no kprobe programs for the site */
	SITE_OFF_NOT_IN_KALLSYMS,  /* no trampoline, and kprobes cannot find the symbol */
	SITE_OFF_NO_KPROBES,       /* no trampoline, and the kernel has no kprobes */
	SITE_OFF_AMBIGUOUS,        /* several vmlinux functions of the name */
	SITE_OFF_NO_TRACEPOINT,    /* the tracepoint is not in this kernel */
	SITE_OFF_ABSENT,           /* no candidate function is in this kernel */
	SITE_OFF_HOT,              /* a hot site, off by default (--hot-sites) */
	SITE_OFF_FROM_UNARMED,     /* read by another site's programs, which is not armed */
	SITE_OFF_NOT_NEEDED,       /* a fallback whose usual site is armed */
	SITE_OFF_NO_BTF_TYPE,      /* the structure it must read is typed by no BTF */
	SITE_OFF_NO_OPENER,        /* no registration entry site could be armed */
	SITE_OFF_LOAD_FAILED,      /* its BPF programs did not load */
	SITE_OFF_ATTACH_FAILED,    /* its programs loaded but did not attach */
	SITE_OFF_SYSCALLS_OFF,     /* syscall tracepoints: --syscalls=off */
	SITE_OFF_SYSCALLS_NO_RDMA, /* syscall tracepoints: no RDMA on the kernel yet */
	SITE_OFF_SYSCALLS_REGPATH, /* syscall tracepoints: registration sites are armed */
	SITE_OFF_NO_LIBIBVERBS,    /* libibverbs: no library probed (its error says why) */
	SITE_OFF_NO_MODULES,       /* modules: the kernel loads none */
	SITE_OFF_MODULES_POLLED,   /* modules: tracepoints not attached, /proc/modules polled */
	SITE_OFF__COUNT
};

/* The reason's text: the words every note of that reason carries. */
const char *site_off_text(enum site_off why);

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
	enum site_off off; /* why not armed, as a value (SITE_ARMED when armed) */
	/* SITE_OFF_LOAD_FAILED, SITE_OFF_ATTACH_FAILED, SITE_OFF_NO_LIBIBVERBS:
	 * the kernel's errno when it refused (EPERM, ...); 0 not known */
	int err;
	bool uprobe_multi; /* libibverbs: its links are uprobe_multi ones */
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
