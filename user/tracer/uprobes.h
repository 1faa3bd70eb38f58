/* SPDX-License-Identifier: GPL-2.0-only */
/* uprobes.h - libibverbs uprobes: find every libibverbs a process maps
 * (also inside containers, through /proc/PID/root), resolve the entry points
 * in its ELF symbol table, attach, and keep looking for new ones. */
#ifndef MRTRACE_UPROBES_H
#define MRTRACE_UPROBES_H

#include <stdbool.h>
#include <stdint.h>

struct libibverbs_bpf;
struct ring_buffer;
struct bpf_link;

#define UPROBE_LIBS_MAX 32
#define UPROBE_LINKS_MAX (UPROBE_LIBS_MAX * 8)

struct uprobe_lib {
	uint64_t dev, ino; /* the library file: one attach per inode */
	char path[512]; /* as attached (may be /proc/PID/root/...) */
	int nfuncs; /* entry points found and attached */
};

struct uprobes {
	struct libibverbs_bpf *skel;
	int pid; /* 0: scan every process */
	int nlibs;
	struct uprobe_lib libs[UPROBE_LIBS_MAX];
	int nlinks;
	struct bpf_link *links[UPROBE_LINKS_MAX];
	char error[200]; /* why nothing could be armed */
	double last_scan, last_full_scan;
};

struct tracer_opts;

/* Loads the object (filters as in opts).  0, or -1 with u->error set. */
int uprobes_open(struct uprobes *u, const struct tracer_opts *o);
/* Looks for libibverbs in the host's default location and in the maps of
 * the watched processes, attaching to each new inode.  Returns the number of
 * libraries newly attached, or -1. */
int uprobes_scan(struct uprobes *u);
int uprobes_events_fd(const struct uprobes *u);
int uprobes_watch_tgid(struct uprobes *u, int tgid);
void uprobes_close(struct uprobes *u);

/* Offset in the file of the default-version definition of `sym` (for
 * uprobes); 0 when absent.  Exposed for tests. */
uint64_t elf_symbol_file_offset(const char *path, const char *sym);

#endif
