/* SPDX-License-Identifier: GPL-2.0-only */
/* probe.h - the run: allocate each planned buffer, register it, report it,
 * keep it registered; or search the largest registration (--find-max). */
#ifndef MRPROBE_PROBE_H
#define MRPROBE_PROBE_H
#include <stddef.h>
#include <stdint.h>

#include "memsrc.h"
#include "options.h"
#include "plan.h"
#include "output.h"
#include "verbs.h"

struct held_mr {
	struct ibv_mr *mr;
	struct mrbuf buf;
};

struct probe {
	const struct mrprobe_opts *o;
	struct rdma *rdma;
	struct plan plan;
	uint64_t page;
	unsigned access;
	struct held_mr *held;
	size_t nheld;
	uint64_t cumulative;       /* bytes pinned by live memlock-accounted MRs */
	struct summary_report sum;
	char last_note[200];
	char plan_text[400];
	char err[512];             /* a setup failure during the run */
	int status;                /* exit status: 0, 1 or 2 */
};

/* Builds the plan and describes it.  Returns 0, or -1 with err set. */
int mp_probe_prepare(struct probe *p, const struct mrprobe_opts *o, struct rdma *r);

/* Reports the setup, runs the registrations (on a second thread with
 * --thread) and the summary.  Returns the exit status. */
int mp_probe_exec(struct probe *p);

/* Sleeps while the MRs stay registered; SIGINT/SIGTERM end it early. */
void mp_probe_hold(struct probe *p, double seconds);

/* --no-device: the memory of the first planned buffer only (GPU memory
 * through the CUDA driver API, exported as a dma-buf with --api dmabuf),
 * reported as a note and given back; nothing is registered.  Returns the
 * exit status: 0, or 2 when the memory could not be had. */
int mp_probe_memory_only(const struct mrprobe_opts *o);

/* Deregisters and frees everything. */
void mp_probe_release(struct probe *p);

#endif
