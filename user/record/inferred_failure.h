/* SPDX-License-Identifier: GPL-2.0-only */
/* inferred_failure.h - a failure read from a log and judged without a kernel
 * site (verdict/inferred.h): JSON "inferred_failure" (docs/json.md), made by
 * `mrtrace explain` from the logs a job left, never by watch.  One record
 * per group of the same failure of the same job (explain/logs.c): the
 * first in time leads, the others are counted with their hosts. */
#ifndef MRTRACE_RECORD_INFERRED_FAILURE_H
#define MRTRACE_RECORD_INFERRED_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "verdict/inferred.h"

struct record_kind;

#define INFERRED_HOSTS_MAX 16

struct record_inferred {
	struct inferred_in in;
	struct inferred v;
	/* where the leading line was */
	char file[128];
	long line;
	char text[INFERRED_TEXT]; /* the line itself, cut */
	char time[40];            /* the line's own timestamp, "" none */
	long pid, rank;           /* -1 unknown */
	char job[40];             /* "slurm job 12345" (logs/job.c), "" none */
	bool other_host;          /* the log's host is not the one judged on */
	bool no_host;             /* the line names no host (and --host none): judged alone */
	char judged_on[64];       /* the host whose facts weighed; "" none */
	/* the same failure elsewhere */
	unsigned long same_ranks; /* further lines of it (ranks, or lines without one) */
	int nhosts, hosts_dropped;
	char hosts[INFERRED_HOSTS_MAX][64];
	/* a watch record of the same process among the inputs */
	bool have_watch;
	char watch_cause[32];
	bool agrees;
};

extern const struct record_kind record_kind_inferred_failure;

/* An inferred_failure line back (explain reads its own output again):
 * "what" and "cause" are required, the rest optional.  0, or -1 with a
 * message naming the member. */
int inferred_failure_from_json(struct json_object *o, struct record_inferred *r, char *err,
			       size_t errlen);

#endif
