/* SPDX-License-Identifier: GPL-2.0-only */
/* attach.h - which kernel sites mrtrace can watch on this kernel, by which
 * mechanism, and the honest report of what is not armed.
 *
 * Per site, in order of preference: fentry/fexit (cheapest, typed args),
 * kprobe/kretprobe, nothing.  Syscall tracepoints are a separate, costly
 * source (every syscall of every task slows down while one is enabled), so
 * they are armed only when asked, or when no registration site can be. */
#ifndef MRTRACE_ATTACH_H
#define MRTRACE_ATTACH_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "core/pages.h"

enum mech {
	MECH_NONE = 0,
	MECH_FENTRY, /* fentry/fexit (BPF trampoline) */
	MECH_KPROBE, /* kprobe/kretprobe */
	MECH_TRACEPOINT, /* static tracepoint */
	MECH_UPROBE, /* uprobe on a user-space library */
};

enum syscalls_policy {
	SYSCALLS_AUTO = 0, /* only when no registration site is armed */
	SYSCALLS_ON,
	SYSCALLS_OFF,
};

struct tracer_opts {
	int pid; /* 0: all processes */
	int follow_pid; /* a process tree rooted here (-- CMD), 0: none */
	const char *cgroup; /* cgroup v2 directory, NULL: none */
	enum syscalls_policy syscalls;
	bool verbose; /* libbpf's own messages */
};

#define SITE_REASON_MAX 256

struct site_status {
	const char *name; /* short id, stable: "umem_get" */
	const char *func; /* kernel function or tracepoint */
	const char *gives; /* the evidence it contributes */
	bool opener; /* can open a registration trail */
	const char *module; /* where it was found ("vmlinux", "ib_uverbs"), NULL if not */
	enum mech mech; /* armed with, MECH_NONE if not */
	char reason[SITE_REASON_MAX]; /* why not armed, or a note */
};

#define TRACER_MAX_SITES 40

#include "tracer/uprobes.h"

struct regpath_bpf;
struct syscalls_bpf;
struct ring_buffer;
struct bpf_link;

struct tracer {
	struct regpath_bpf *reg;
	struct syscalls_bpf *sys;
	struct ring_buffer *rb;
	int nsites;
	struct site_status sites[TRACER_MAX_SITES];
	int nlinks;
	struct bpf_link *links[2 * TRACER_MAX_SITES];
	bool reg_loaded, sys_loaded;
	struct uprobes up; /* libibverbs */
	int up_site; /* index of the libibverbs site */
	char kernel[128];
};

typedef int (*tracer_event_fn)(void *cookie, void *data, size_t size);

/* Decides per site, loads, attaches.  Returns 0 when at least one site is
 * armed, -1 (with a message on stderr) when nothing could be. */
int tracer_open(struct tracer *t, const struct tracer_opts *o, tracer_event_fn fn,
		void *cookie);
/* Periodic work between polls: look for new libibverbs copies to attach.
 * Returns how many libraries were newly attached (the last entries of
 * t->up.libs). */
int tracer_housekeeping(struct tracer *t);
/* Adds a process to the watched tree (-- CMD) in every loaded object. */
int tracer_watch_tgid(struct tracer *t, int tgid);
void tracer_close(struct tracer *t);

/* Counters summed over CPUs and objects (enum mrt_counter). */
void tracer_counters(const struct tracer *t, unsigned long long out[]);

int tracer_armed_count(const struct tracer *t, bool openers_only);
/* Points a BPF_MAP_TYPE_CGROUP_ARRAY at a cgroup v2 directory given as a
 * path or relative to the cgroup2 mount.  0, or -1 with a message in err. */
int tracer_cgroup_filter(int map_fd, const char *cgroup, char *err, size_t errlen);

/* The filters every BPF object carries in .rodata (bpf/common.bpf.h). */
#define TRACER_SET_FILTERS(rodata, o)                       \
	do {                                                \
		(rodata)->targ_tgid = (o)->pid;             \
		(rodata)->filter_tgid_map = (o)->follow_pid != 0; \
		(rodata)->filter_cgroup = (o)->cgroup != NULL; \
		(rodata)->page_shift = __builtin_ctzll(page_size()); \
	} while (0)
const char *mech_name(enum mech m);

/* The armed/unavailable report: text for people, JSON array for machines. */
void tracer_print_sites(const struct tracer *t, FILE *out);
struct json_object *tracer_sites_json(const struct tracer *t);
/* What the unarmed sites mean for the verdicts, one paragraph. */
void tracer_print_consequences(const struct tracer *t, FILE *out);

#endif
