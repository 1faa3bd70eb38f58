/* SPDX-License-Identifier: GPL-2.0-only */
/* start.h - what `watch` armed, said once before anything is traced: JSON
 * "start" (docs/json.md), and the "sites" array `--list-probes --json`
 * prints alone.  Plain data, filled by watch from the tracer, so this
 * folder needs no tracer. */
#ifndef MRTRACE_RECORD_START_H
#define MRTRACE_RECORD_START_H

struct record_kind;

#include <json-c/json.h>
#include <stdbool.h>

/* One site as decided on this kernel (tracer/site.h, in words). */
struct record_site {
	const char *site; /* stable short id: "umem_get" */
	const char *function;
	const char *module; /* NULL: not found */
	bool armed;
	const char *mechanism; /* "fentry", ..., "none" */
	const char *btf; /* NULL: none */
	const char *gives;
	const char *note; /* NULL: none */
	/* not in JSON: the kernel's errno when it refused the site's load or
	 * attach (0 none), and whether libibverbs' links were uprobe_multi */
	int refused_err;
	bool uprobe_multi;
};

struct record_start {
	const char *kernel;
	int armed_sites;
	bool registration_path_armed;
	/* no RDMA on this kernel yet: nothing armed until an RDMA module loads */
	bool waiting_for_rdma;
	int pid; /* -p PID, 0: none */
	int command_pid; /* -- COMMAND, 0: none */
	const struct record_site *sites;
	int nsites;
	/* what the privileges cost (watch/service.c): capability names and
	 * one sentence each; host_root NULL without --host-root */
	const char *const *missing_capabilities;
	int nmissing;
	const char *const *privilege_notes;
	int nnotes;
	const char *host_root;
};

/* The "sites" array.  The caller owns it. */
struct json_object *record_sites_json(const struct record_site *sites, int n);

/* Its row of the table of record kinds (record/kind.h). */
extern const struct record_kind record_kind_start;

#endif
