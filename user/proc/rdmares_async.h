/* SPDX-License-Identifier: GPL-2.0-only */
/* rdmares_async.h - `rdma -j res show [TYPE]` (rdmares.h) asked without
 * waiting for the answer: the tool runs as a child whose output is read
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

/* type: "" (the counts per device), "pd", "cq" or "qp"; deadline_s: how
 * long a run may take (0: 10 s).  NULL when out of memory or type is none
 * of these. */
struct rdmares_query *rdmares_query_new(const char *type, double deadline_s);
/* Kills a run in progress. */
void rdmares_query_free(struct rdmares_query *q);

/* Asks for the answer as of now (CLOCK_MONOTONIC seconds): true when an
 * answer serves at once (one given less than RDMARES_REUSE_S after the
 * last ask, at most RDMARES_REUSE_MAX_S old: a burst of port changes or of
 * refusals is one run), false when the asker waits for the run in progress
 * (started now, or joined). */
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

/* The last answer, a JSON array the query owns (valid until the next
 * answer), or NULL: with *why NULL the tool printed nothing (no object of
 * the type), else why there is no answer. */
struct json_object *rdmares_query_array(const struct rdmares_query *q, const char **why);

/* The holders of device/port in the last answer of a "qp" query: 0, or -1
 * with out->why. */
int rdmares_query_holders(const struct rdmares_query *q, const char *device, unsigned port,
			  struct rdma_qp_holders *out);

#endif
