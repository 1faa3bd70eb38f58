/* SPDX-License-Identifier: GPL-2.0-only */
/* seen.h - when the libibverbs scan (uprobes.c) first saw each live
 * process, so that a young process is rescanned often and an old one
 * rarely (seen.c).
 *
 * A scan of /proc is a pass: every pid met in it is looked up in the table
 * of the pass before, and carried into the table of this one with the time
 * it was first seen (now, if it is new).  A pid not met in a pass - the
 * process exited - is forgotten with that pass, so the table holds the live
 * processes only, however many have come and gone (issue 24: a table that
 * filled with 8,192 exited pids made every later process "new" forever).
 * Lookups hash the pid: a pass costs O(processes), not their square. */
#ifndef MRTRACE_TRACER_SEEN_H
#define MRTRACE_TRACER_SEEN_H

#include <stdbool.h>

struct seen_slot {
	int pid; /* 0: empty */
	double first; /* when it was first seen (the caller's clock) */
};

struct seen_table {
	struct seen_slot *slots[2]; /* the pass before and this one */
	unsigned cap; /* slots per table, a power of two */
	unsigned n[2];
	int cur; /* slots[cur]: this pass */
};

/* Tables for up to cap/2 live processes (cap a power of two); beyond that
 * a process is taken as new at every pass (scanned often, never lost).
 * 0, or -1 when out of memory (then every process is new). */
int seen_init(struct seen_table *t, unsigned cap);
void seen_free(struct seen_table *t);

/* A new pass: the table of this pass starts empty. */
void seen_pass(struct seen_table *t);
/* pid met in this pass: when it was first seen (now, if it was not in the
 * pass before). */
double seen_first(struct seen_table *t, int pid, double now);
/* The processes this pass met. */
unsigned seen_count(const struct seen_table *t);

#endif
