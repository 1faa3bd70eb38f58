/* SPDX-License-Identifier: GPL-2.0-only */
/* rdmares_async.h - the QP holders (rdmares.h) asked without waiting for
 * the answer: `rdma -j res show qp` runs as a child whose output is read
 * from a non-blocking pipe and parsed as it comes, a piece per call, by
 * the loop that also drains the ring buffer (watch.c).  A switch reboot
 * takes ports down exactly when failures burst: the loop must go on
 * consuming records while the tool answers (it ran inside the loop, and a
 * slow or stuck tool stalled it).
 *
 * Bounded: one run at a time (a port change while it runs waits for that
 * run's answer), 64 MiB of output, and a deadline after which the tool is
 * killed and the holders are unknown, with the reason. */
#ifndef MRTRACE_PROC_RDMARES_ASYNC_H
#define MRTRACE_PROC_RDMARES_ASYNC_H

#include <stdbool.h>

#include "proc/rdmares.h"

struct rdmares_query;

/* deadline_s: how long a run may take (0: 10 s).  NULL only when out of
 * memory. */
struct rdmares_query *rdmares_query_new(double deadline_s);
/* Kills a run in progress. */
void rdmares_query_free(struct rdmares_query *q);

/* Asks for the holders as of now (CLOCK_MONOTONIC seconds): true when an
 * answer serves at once (one given less than a second after the last ask,
 * at most 10 s old: a burst of port changes is one run), false when the
 * asker waits for the run in progress (started now, or joined). */
bool rdmares_query_ask(struct rdmares_query *q, double now);

/* Reads what the tool wrote (never blocks; a bounded piece) and kills it
 * past the deadline.  true when the run in progress has just ended (its
 * answer, or why not, is what rdmares_query_holders() says now). */
bool rdmares_query_step(struct rdmares_query *q, double now);

/* The pipe to wait on while a run is in progress (poll for POLLIN), else -1. */
int rdmares_query_fd(const struct rdmares_query *q);
bool rdmares_query_running(const struct rdmares_query *q);

/* Ends a run in progress now (watch stops): killed, its askers unknown with
 * RDMARES_WHY_STOPPED.  true when there was one. */
bool rdmares_query_cancel(struct rdmares_query *q);

/* The holders of device/port in the last answer: 0, or -1 with out->why. */
int rdmares_query_holders(const struct rdmares_query *q, const char *device, unsigned port,
			  struct rdma_qp_holders *out);

#endif
