/* SPDX-License-Identifier: GPL-2.0-only */
/* jobs.h - `mrtrace explain --jobs`: the records of many nodes grouped by
 * the job they belong to (Slurm job id, Kubernetes pod), ordered by wall
 * time, each job led by its first kernel-evidenced cause: a port_change
 * (a port that went down, a GID that went) or a failure the kernel proved;
 * the failures after it are what it killed. */
#ifndef MRTRACE_EXPLAIN_JOBS_H
#define MRTRACE_EXPLAIN_JOBS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

struct jobs;

struct jobs *jobs_new(void);
void jobs_free(struct jobs *j);

/* Takes what grouping needs of one record (any kind; those that are not
 * failures or port changes are ignored).  false: it was not taken (not a
 * record of interest, or out of memory). */
bool jobs_add(struct jobs *j, struct json_object *o);

/* Every job, first cause first: text, or one JSON object per job. */
void jobs_print(struct jobs *j, bool json, FILE *out);

#endif
