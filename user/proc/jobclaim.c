// SPDX-License-Identifier: GPL-2.0-only
/* jobclaim.c - the job of a process: a cgroup's fact over an environment's
 * claim (jobclaim.h). */
#include "proc/jobclaim.h"

#include <stdlib.h>
#include <string.h>

long job_claim_parse(const char *value)
{
	size_t n;

	/* strtol would take " 42", "+42" and "42abc": a claim is either a
	 * plain job id or no id at all */
	if (!value || !(n = strspn(value, "0123456789")) || n > 15 || value[n])
		return -1;
	return strtol(value, NULL, 10);
}

void job_claim_resolve(long cgroup_job, long env_job, struct job_claim *out)
{
	out->contradicting = -1;
	if (cgroup_job >= 0) {
		out->job = cgroup_job;
		out->source = JOB_SOURCE_CGROUP;
		if (env_job >= 0 && env_job != cgroup_job)
			out->contradicting = env_job;
	} else if (env_job >= 0) {
		out->job = env_job;
		out->source = JOB_SOURCE_ENVIRONMENT;
	} else {
		out->job = -1;
		out->source = JOB_SOURCE_NONE;
	}
}

const char *job_source_name(enum job_source s)
{
	switch (s) {
	case JOB_SOURCE_CGROUP: return "cgroup";
	case JOB_SOURCE_ENVIRONMENT: return "environment";
	default: return NULL;
	}
}

enum job_source job_source_from_name(const char *name)
{
	if (name && !strcmp(name, "cgroup"))
		return JOB_SOURCE_CGROUP;
	if (name && !strcmp(name, "environment"))
		return JOB_SOURCE_ENVIRONMENT;
	return JOB_SOURCE_NONE;
}

bool job_claim_attributable(enum job_source source, long record_uid, long job_uid)
{
	if (source == JOB_SOURCE_CGROUP)
		return true;
	return source == JOB_SOURCE_ENVIRONMENT && job_uid >= 0 && record_uid == job_uid;
}
