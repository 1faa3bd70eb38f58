/* SPDX-License-Identifier: GPL-2.0-only */
/* uprobes.h - libibverbs uprobes: find every libibverbs a process maps
 * (also inside containers, through /proc/PID/root), resolve the entry points
 * in its ELF symbol table, attach, and keep looking for new ones.  The BPF
 * object itself is loaded by loader.c, after the others. */
#ifndef MRTRACE_UPROBES_H
#define MRTRACE_UPROBES_H

#include <stdbool.h>
#include <stdint.h>

#include "tracer/seen.h"

struct libibverbs_bpf;
struct bpf_link;
struct tracer_site;

#define UPROBE_LIBS_MAX 32
#define UPROBE_LINKS_MAX (UPROBE_LIBS_MAX * 8)
#define UPROBE_LIB_LINKS 16 /* a library's uprobes: 8 entry points, entry and return */
/* A library no scanned process has mapped for this long (two full scans)
 * gives its slot to a new one: any user can map copies of libibverbs, and
 * a table filled for good would leave a container started later unprobed. */
#define UPROBE_STALE_S 65.0

struct tracer_uprobe_lib {
	uint64_t dev, ino; /* the library file: one attach per inode */
	char path[512]; /* as attached (may be /proc/PID/root/...) */
	int nfuncs; /* entry points found and attached */
	bool host; /* the distribution's own: never given up */
	double last_seen; /* when a scanned process last mapped it (monotonic s) */
	int nat, at[UPROBE_LIB_LINKS]; /* its uprobes: indices in links (or mfds) */
};

struct tracer_uprobes {
	struct libibverbs_bpf *skel; /* loaded; NULL: could not be */
	int pid; /* 0: scan every process */
	int nlibs;
	struct tracer_uprobe_lib libs[UPROBE_LIBS_MAX];
	int nlinks;
	struct bpf_link *links[UPROBE_LINKS_MAX];
	/* The kernel makes uprobe_multi links (6.6+, umulti.h): the programs
	 * are loaded for them and every uprobe is one, an fd in mfds, closed
	 * in parallel at the stop; otherwise perf-event uprobes in links. */
	bool multi;
	int nmfds;
	int mfds[UPROBE_LINKS_MAX];
	char error[256]; /* why nothing could be armed */
	int err; /* the errno behind error, 0 none */
	/* The kernel trail of ib_uverbs_reg_mr is armed and takes the caller's
	 * stack at a failure (common.bpf.h, kernel_ustack): ibv_reg_mr,
	 * ibv_reg_mr_iova, ibv_reg_mr_iova2 and ibv_cmd_reg_mr are not probed
	 * (nothing on the success path of a registration). */
	bool kernel_calls;
	/* ...from the stack's raw top, scanned in user space (before 5.17) */
	bool kernel_raw;
	double last_scan, last_full_scan;
	/* libraries not attached: the table held UPROBE_LIBS_MAX that
	 * processes still mapped (in the stop record, uprobe_libs_full) */
	unsigned long libs_full;
	struct seen_table seen; /* when each live process was first seen */
};

/* Takes a loaded object (owned from now on) and attaches to the host's
 * libibverbs and to those the watched processes map. */
void tracer_uprobes_start(struct tracer_uprobes *u, struct libibverbs_bpf *skel, int pid);
/* Looks for libibverbs in the maps of the watched processes, attaching to
 * each new inode.  Returns the number of libraries newly attached, or -1. */
int tracer_uprobes_scan(struct tracer_uprobes *u);
/* The libibverbs site as it stands: armed when an entry point is attached,
 * the libraries (or why none) in the note. */
void tracer_uprobes_describe(const struct tracer_uprobes *u, struct tracer_site *s);
void tracer_uprobes_close(struct tracer_uprobes *u);
/* The library open at fd (a regular file), attached as a scan finds it,
 * shown as `shown`; 1 when something attached.  With no object loaded
 * (u->skel NULL: the unit tests) nothing attaches but the table is kept
 * the same way. */
int tracer_uprobes_attach_fd(struct tracer_uprobes *u, int fd, const char *shown, double now);

#endif
