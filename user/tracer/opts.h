/* SPDX-License-Identifier: GPL-2.0-only */
/* opts.h - what a caller asks of the tracer, and the mechanism names every
 * part of the tracer shares.  Included by tracer.h and by the tracer's parts
 * (site.h, plan.h), so no part needs tracer.h and tracer.h needs no part
 * (uprobes.h, which once included tracer.h and was included by it, needs
 * neither). */
#ifndef MRTRACE_TRACER_OPTS_H
#define MRTRACE_TRACER_OPTS_H

#include <signal.h>
#include <stdbool.h>

/* How a site is armed, in order of preference for a kernel function:
 * fentry/fexit (cheapest, typed args), kprobe/kretprobe, nothing. */
enum mech {
	MECH_NONE = 0,
	MECH_FENTRY, /* fentry/fexit (BPF trampoline) */
	MECH_KPROBE, /* kprobe/kretprobe */
	MECH_TRACEPOINT, /* static tracepoint */
	MECH_UPROBE, /* uprobe on a user-space library */
};

/* "fentry", "kprobe", ..., "none". */
const char *tracer_mech_name(enum mech m);

/* Syscall tracepoints are a separate, costly source (every syscall of every
 * task slows down while one is enabled). */
enum syscalls_policy {
	SYSCALLS_AUTO = 0, /* only when no registration site is armed */
	SYSCALLS_ON,
	SYSCALLS_OFF,
};

/* What the tracer has to say while it sets up, for the caller to print. */
enum tracer_msg {
	TRACER_MSG_NOTE, /* the tracer's own: one sentence, no newline */
	TRACER_MSG_LIBBPF, /* a libbpf message, as libbpf formatted it */
};
typedef void (*tracer_msg_fn)(void *cookie, enum tracer_msg kind, const char *text);

struct tracer_opts {
	int pid; /* 0: all processes */
	int follow_pid; /* a process tree rooted here (-- CMD), 0: none */
	const char *cgroup; /* cgroup v2 directory, NULL: none */
	enum syscalls_policy syscalls;
	/* also arm the hot sites (sites.h): capable(), pin_user_pages_fast(),
	 * the DMA, IOVA and dma-buf functions, page migration - their exact
	 * answers, paid for by every process that calls them */
	bool hot_sites;
	/* external BTF for kernels whose modules carry none (5.10): this file,
	 * or NULL to look for <kernel release>.btf (facts.h says where) */
	const char *btf_file;
	/* libbpf's warnings are passed on (a program that fails to load shows
	 * its verifier log), except where a failure is expected and reported
	 * in the site table; with debug_libbpf, everything libbpf says. */
	bool debug_libbpf;
	/* gather the kernel facts afresh, neither reading nor writing their
	 * cache (tracer/factscache.h) */
	bool no_cache;
	tracer_msg_fn msg; /* NULL: nothing is passed on */
	void *msg_cookie;
	/* a stop request (the caller's signal handler sets it): looked at
	 * between sites while the tracer looks at the kernel, loads and
	 * attaches, at open and at a re-plan, which then end early with
	 * nothing of theirs left armed; NULL: never */
	const volatile sig_atomic_t *stop;
};

#endif
