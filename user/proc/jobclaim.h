/* SPDX-License-Identifier: GPL-2.0-only */
/* jobclaim.h - which Slurm job a process belongs to, and on what ground.
 *
 * The cgroup slurmd (or systemd for it) placed the process in is a fact: a
 * process cannot leave it.  SLURM_JOB_ID in the process's environment is a
 * claim: anyone can start a process with any value.  A record says which
 * it is (process.slurm_job_source), a cgroup's job always wins, and an
 * environment that names another job than the cgroup is kept as what it
 * is: a contradiction (process.slurm_job_claimed).  Pure functions: the
 * writers (record/process.c, watch/journal.c) and the readers (explain
 * --jobs, the epilog's jq) apply the same rule. */
#ifndef MRTRACE_JOBCLAIM_H
#define MRTRACE_JOBCLAIM_H

#include <stdbool.h>

enum job_source {
	JOB_SOURCE_NONE = 0,
	JOB_SOURCE_CGROUP,      /* the job's cgroup: a fact */
	JOB_SOURCE_ENVIRONMENT, /* SLURM_JOB_ID alone: a claim */
};

struct job_claim {
	long job;               /* the job the record names; -1 none */
	enum job_source source; /* JOB_SOURCE_NONE when job is -1 */
	long contradicting;     /* the environment's id where it is not the
				   cgroup's job; -1 none */
};

/* How a job only claimed is named where jobs are grouped by name (explain
 * --jobs, the log reader's journald job): "slurm job 4242 (claimed)" is
 * never the job "slurm job 4242" the cgroup places. */
#define JOB_CLAIMED_SUFFIX " (claimed)"

/* A SLURM_JOB_ID value as a job id: decimal digits only, at most 15 of
 * them (no sign, no space, nothing after); -1 for anything else or NULL. */
long job_claim_parse(const char *value);

/* The job from the cgroup's id (-1 none) and the environment's (-1 none). */
void job_claim_resolve(long cgroup_job, long env_job, struct job_claim *out);

/* "cgroup" / "environment" for JSON; NULL for JOB_SOURCE_NONE. */
const char *job_source_name(enum job_source s);
/* Its inverse; JOB_SOURCE_NONE for NULL or a name it does not know. */
enum job_source job_source_from_name(const char *name);

/* Whether a record of job `job` from `source` may be filed under that job
 * as a fact: from the cgroup, or a claim by a process of the job's own user
 * (job_uid, the uid Slurm gives the job; -1: not known, and a claim is then
 * never enough).  record_uid -1: the record names none. */
bool job_claim_attributable(enum job_source source, long record_uid, long job_uid);

#endif
