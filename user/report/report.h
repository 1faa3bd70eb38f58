/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h - one explained event, ready for output: what the kernel
 * recorded, the verdict, and what we know about the process that asked;
 * its text (text.c) and the repeat counts text uses (repeats.c).  It is
 * explained and written as JSON by its record kind (record/record.h). */
#ifndef MRTRACE_REPORT_H
#define MRTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "proc/context.h"
#include "verdict/explain.h"
#include "nccl/nccl.h"
#include "proc/ustack.h"
#include "proc/gates.h"
#include "proc/k8s.h"

/* The context and NCCL data are pointed to, not copied: a consumer keeps
 * them once per process and builds a report per record (they are tens of
 * KiB). */
struct report {
	const struct mrt_event *ev; /* the kernel trail, or the user call alone */
	const struct mrt_event *uev; /* the libibverbs call joined to ev, or NULL */
	struct ustack_attr ua; /* where that call came from */
	struct verdict v;
	const struct proc_context *ctx; /* what we know of the process, or NULL */
	const struct nccl_info *nccl; /* NULL: no NCCL data */
	const char *api; /* "ibv_reg_mr" / "ibv_reg_dmabuf_mr" / ... */
	const char *what; /* what failed, for people: "registration", "mlock", "modify_qp" */
	bool have_gates; /* facts read at the failure (a failure's, GPU memory's) */
	struct gate_facts gates;
	/* A storm's summary (docs/json.md, "Storms"): count identical failures
	 * folded in the kernel, the first and last at these times (ns, the
	 * clock of ts_ns).  0: an ordinary record, standing for itself. */
	unsigned long long count, first_ts_ns, last_ts_ns;
	/* Set by the writer, for text: the wall-clock time and host ("" or
	 * NULL: not printed). */
	const char *when;
	/* What the node says of the process beyond /proc (watch looks them up):
	 * its Kubernetes pod (NULL: none), its Slurm job from the environment
	 * when the cgroup names none. */
	const struct k8s_names *k8s;
	bool have_slurm_job;
	long slurm_job;
};

/* ---- repeats ------------------------------------------------------------------
 * The first failure of a process with a given cause gets the full
 * explanation; repeats (NCCL registering buffer after buffer, several ranks'
 * proxy threads) get one line each, with their own numbers. */
#define REPORT_REPEATS_MAX 256

struct report_repeats {
	int n;
	struct {
		unsigned int pid;
		int cause;
		unsigned long count;
	} seen[REPORT_REPEATS_MAX];
};

/* Counts this (pid, cause) and returns which occurrence it is: 1 for the
 * first.  When the table is full a new pair is not remembered and every one
 * of its failures counts as a first (explained in full: nothing is lost). */
unsigned long report_repeats_count(struct report_repeats *t, unsigned int pid, int cause);
/* The same for n failures at once (a storm summary): the occurrence of the
 * last of them. */
unsigned long report_repeats_add(struct report_repeats *t, unsigned int pid, int cause,
				 unsigned long n);

/* The one line for the nth (> 1) failure of a process with that cause (a
 * storm summary: the last of its r->count failures is the nth). */
void report_print_repeat(FILE *out, const struct report *r, unsigned long nth);

/* Human text; verbose adds the raw trail. */
void report_print_text(FILE *out, const struct report *r, bool verbose);

#endif
