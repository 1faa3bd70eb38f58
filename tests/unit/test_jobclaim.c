// SPDX-License-Identifier: GPL-2.0-only
/* test_jobclaim.c - a Slurm job id is a fact only from the cgroup
 * (proc/jobclaim.c, issue 47 item 3): the environment's SLURM_JOB_ID is a
 * claim any user can make, recorded as one (process.slurm_job_source), a
 * cgroup's job always wins, a contradicting claim is kept as such, and only
 * the cgroup or the job's own uid attributes a record to a job.  The
 * record's writer and reader (record/process.c) keep the distinction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/jobclaim.h"
#include "record/parts.h"
#include "proc/context.h"

static void parse_takes_plain_ids_only(void **state)
{
	(void)state;
	assert_int_equal(job_claim_parse("4242"), 4242);
	assert_int_equal(job_claim_parse("0"), 0);
	assert_int_equal(job_claim_parse(NULL), -1);
	assert_int_equal(job_claim_parse(""), -1);
	assert_int_equal(job_claim_parse(" 42"), -1);
	assert_int_equal(job_claim_parse("+42"), -1);
	assert_int_equal(job_claim_parse("-42"), -1);
	assert_int_equal(job_claim_parse("42abc"), -1);
	assert_int_equal(job_claim_parse("42\n"), -1);
	assert_int_equal(job_claim_parse("1234567890123456"), -1); /* 16 digits */
	assert_int_equal(job_claim_parse("123456789012345"), 123456789012345L);
}

static void cgroup_wins_and_a_contradiction_is_kept(void **state)
{
	struct job_claim jc;

	(void)state;
	job_claim_resolve(12, -1, &jc);
	assert_int_equal(jc.job, 12);
	assert_int_equal(jc.source, JOB_SOURCE_CGROUP);
	assert_int_equal(jc.contradicting, -1);
	job_claim_resolve(12, 12, &jc); /* agreeing: nothing to say */
	assert_int_equal(jc.source, JOB_SOURCE_CGROUP);
	assert_int_equal(jc.contradicting, -1);
	job_claim_resolve(12, 4242, &jc);
	assert_int_equal(jc.job, 12);
	assert_int_equal(jc.source, JOB_SOURCE_CGROUP);
	assert_int_equal(jc.contradicting, 4242);
	job_claim_resolve(-1, 4242, &jc);
	assert_int_equal(jc.job, 4242);
	assert_int_equal(jc.source, JOB_SOURCE_ENVIRONMENT);
	assert_int_equal(jc.contradicting, -1);
	job_claim_resolve(-1, -1, &jc);
	assert_int_equal(jc.job, -1);
	assert_int_equal(jc.source, JOB_SOURCE_NONE);
	assert_string_equal(job_source_name(JOB_SOURCE_CGROUP), "cgroup");
	assert_string_equal(job_source_name(JOB_SOURCE_ENVIRONMENT), "environment");
	assert_null(job_source_name(JOB_SOURCE_NONE));
	assert_int_equal(job_source_from_name("environment"), JOB_SOURCE_ENVIRONMENT);
	assert_int_equal(job_source_from_name("cgroup"), JOB_SOURCE_CGROUP);
	assert_int_equal(job_source_from_name("Cgroup"), JOB_SOURCE_NONE);
	assert_int_equal(job_source_from_name(NULL), JOB_SOURCE_NONE);
}

static void a_claim_attributes_only_for_the_jobs_uid(void **state)
{
	(void)state;
	assert_true(job_claim_attributable(JOB_SOURCE_CGROUP, 65534, 1000));
	assert_true(job_claim_attributable(JOB_SOURCE_CGROUP, -1, -1));
	assert_true(job_claim_attributable(JOB_SOURCE_ENVIRONMENT, 1000, 1000));
	assert_false(job_claim_attributable(JOB_SOURCE_ENVIRONMENT, 65534, 1000)); /* nobody's forgery */
	assert_false(job_claim_attributable(JOB_SOURCE_ENVIRONMENT, 1000, -1)); /* job uid unknown */
	assert_false(job_claim_attributable(JOB_SOURCE_ENVIRONMENT, -1, -1));
	assert_false(job_claim_attributable(JOB_SOURCE_NONE, 1000, 1000));
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static long jnum(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? (long)json_object_get_int64(v) : -1;
}

/* process_to_json and back: ctx with the cgroup path, and the claim */
static void roundtrip(const char *cgroup, long env_job, long want_job, const char *want_source,
		      long want_claimed, long want_ctx_job)
{
	static struct proc_context in, out;
	static struct mrt_event ev;
	char setting[64], err[128] = "", line[600];
	struct jwhere w = { .obj = "process", .err = err, .errlen = sizeof(err) };
	long back = -2;

	proc_context_init(&in, 4242);
	if (cgroup) {
		snprintf(line, sizeof(line), "0::%s\n", cgroup);
		proc_context_parse_cgroup(line, &in);
	}
	struct json_object *o = process_to_json(&in, env_job);
	assert_int_equal(jnum(o, "slurm_job"), want_job);
	if (want_source)
		assert_string_equal(jstr(o, "slurm_job_source"), want_source);
	else
		assert_null(jstr(o, "slurm_job_source"));
	assert_int_equal(jnum(o, "slurm_job_claimed"), want_claimed);
	ev.pid = 4242;
	assert_int_equal(process_from_json(o, &ev, &out, setting, sizeof(setting), &back, &w), 0);
	/* read back, a claim never becomes the context's (the cgroup's) job */
	assert_int_equal(out.slurm_job, want_ctx_job);
	assert_int_equal(back, want_claimed >= 0 ? want_claimed
			       : !strcmp(want_source ? want_source : "", "environment") ? env_job : -1);
	json_object_put(o);
}

static void the_record_says_where_the_job_came_from(void **state)
{
	(void)state;
	/* as nobody, env SLURM_JOB_ID=4242 outside any job: a claim */
	roundtrip("/user.slice/user-65534.slice/session-3.scope", 4242, 4242, "environment", -1, -1);
	roundtrip(NULL, 4242, 4242, "environment", -1, -1);
	/* a step of job 12 whose environment names job 4242: the cgroup wins */
	roundtrip("/system.slice/slurmstepd.scope/job_12/step_0/user/task_0", 4242, 12, "cgroup", 4242, 12);
	roundtrip("/system.slice/slurmstepd.scope/job_12/step_0/user/task_0", 12, 12, "cgroup", -1, 12);
	roundtrip("/system.slice/slurmstepd.scope/job_12/step_0/user/task_0", -1, 12, "cgroup", -1, 12);
	roundtrip("/", -1, -1, NULL, -1, -1);
}

static long job_of_path(const char *line, char *step, size_t len)
{
	static struct proc_context c;
	proc_context_init(&c, 1);
	proc_context_parse_cgroup(line, &c);
	snprintf(step, len, "%s", c.slurm_step);
	return c.slurm_job;
}

/* The cgroup is a fact only where slurmd named it: not in a subtree
 * delegated to the user (their user@UID.service), and not below the job
 * slurmd made (the job's own user nesting cgroups in their step). */
static void a_cgroup_name_the_user_chose_is_no_job(void **state)
{
	char step[24];
	(void)state;
	assert_int_equal(job_of_path("0::/system.slice/slurmstepd.scope/job_12/step_0/user/task_0\n",
				     step, sizeof(step)), 12);
	assert_string_equal(step, "0");
	assert_int_equal(job_of_path("4:memory:/slurm/uid_1000/job_13/step_batch/task_0\n", step,
				     sizeof(step)), 13);
	assert_int_equal(job_of_path("0::/system.slice/slurmstepd.scope/job_12/step_0/user/task_0/"
				     "job_4242/step_9\n", step, sizeof(step)), 12);
	assert_string_equal(step, "0");
	assert_int_equal(job_of_path("0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
				     "slurmstepd.scope/job_4242/step_0\n", step, sizeof(step)), -1);
	assert_int_equal(job_of_path("0::/user.slice/user-65534.slice/session-3.scope/slurm/uid_0/job_4242\n",
				     step, sizeof(step)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_takes_plain_ids_only),
		cmocka_unit_test(cgroup_wins_and_a_contradiction_is_kept),
		cmocka_unit_test(a_claim_attributes_only_for_the_jobs_uid),
		cmocka_unit_test(the_record_says_where_the_job_came_from),
		cmocka_unit_test(a_cgroup_name_the_user_chose_is_no_job),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
