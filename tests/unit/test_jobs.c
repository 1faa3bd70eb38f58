// SPDX-License-Identifier: GPL-2.0-only
/* test_jobs.c - `mrtrace explain --jobs` (explain/jobs.h): the records of
 * three nodes of one Slurm job, out of order; the port that went down on
 * one of them leads (dated when it went down, not when it came back), an
 * inferred failure before it does not, and what failed after it is
 * counted per process, rank and node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "explain/jobs.h"

static const char *const lines[] = {
	/* gpu19: a failure the kernel proved, after the flap */
	"{\"event\":\"failure\",\"time\":\"2026-12-01T12:03:07.000000Z\",\"host\":\"gpu19\",\"pid\":7,"
	"\"comm\":\"python3\",\"cause\":\"qp_attr_invalid\",\"certainty\":\"proven\","
	"\"summary\":\"modify_qp to RTS was refused\",\"process\":{\"slurm_job\":4242},\"nccl\":{\"rank\":2}}",
	/* gpu19: an inferred one before it: not a lead */
	"{\"event\":\"reg_failure\",\"time\":\"2026-12-01T12:03:01.000000Z\",\"host\":\"gpu19\",\"pid\":6,"
	"\"comm\":\"python3\",\"cause\":\"memlock_limit\",\"certainty\":\"inferred\","
	"\"summary\":\"over the limit\",\"process\":{\"slurm_job\":4242}}",
	/* gpu17: the port's return, 1.8 s after it went down at 12:03:05.120 */
	"{\"event\":\"port_change\",\"time\":\"2026-12-01T12:03:06.920000Z\",\"host\":\"gpu17\","
	"\"device\":\"mlx5_0\",\"port\":1,\"state\":\"ACTIVE\",\"previous\":\"DOWN\",\"reason\":\"carrier_lost\","
	"\"down_ms\":1800,\"affected\":[{\"pid\":812,\"comm\":\"python3\",\"qps\":4}],"
	"\"summary\":\"mlx5_0 port 1 went DOWN (carrier lost on eth0) for 1.8 s; 1 process held 4 QPs on it\"}",
	/* gpu17: the process that held the QPs, failing later (its job by pid) */
	"{\"event\":\"failure\",\"time\":\"2026-12-01T12:03:06.950000Z\",\"host\":\"gpu17\",\"pid\":812,"
	"\"comm\":\"python3\",\"cause\":\"port_not_active\",\"certainty\":\"proven\","
	"\"summary\":\"modify_qp on a port that is DOWN\",\"process\":{\"slurm_job\":4242},\"nccl\":{\"rank\":0}}",
	/* gpu18 */
	"{\"event\":\"failure\",\"time\":\"2026-12-01T12:03:06.500000Z\",\"host\":\"gpu18\",\"pid\":5,"
	"\"comm\":\"python3\",\"cause\":\"port_not_active\",\"certainty\":\"proven\","
	"\"summary\":\"x\",\"process\":{\"slurm_job\":4242},\"nccl\":{\"rank\":1}}",
	/* another job, and something that is not a failure */
	"{\"event\":\"failure\",\"time\":\"2026-12-01T12:00:00.000000Z\",\"host\":\"gpu30\",\"pid\":9,"
	"\"comm\":\"python3\",\"cause\":\"shm_exhausted\",\"certainty\":\"proven\",\"summary\":\"full\","
	"\"process\":{\"slurm_job\":77}}",
	"{\"event\":\"start\",\"time\":\"2026-12-01T11:00:00.000000Z\",\"host\":\"gpu17\"}",
};

static char *run(bool json)
{
	struct jobs *j = jobs_new();
	char *out = NULL;
	size_t len = 0;
	int taken = 0;

	assert_non_null(j);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct json_object *o = json_tokener_parse(lines[i]);
		assert_non_null(o);
		taken += jobs_add(j, o);
		json_object_put(o);
	}
	assert_int_equal(taken, 6);
	FILE *f = open_memstream(&out, &len);
	jobs_print(j, json, f);
	fclose(f);
	jobs_free(j);
	return out;
}

static void test_first_cause_leads(void **state)
{
	(void)state;
	char *out = run(false);
	const char *want = "slurm job 4242: gpu17 mlx5_0 port 1 went DOWN (carrier lost on eth0) for "
			   "1.8 s; 1 process held 4 QPs on it at 12:03:05.120; 3 processes (3 ranks) "
			   "on 3 nodes failed after it\n";
	if (strncmp(out, want, strlen(want)))
		fail_msg("got:\n%s", out);
	/* ordered by wall time, the lead marked */
	const char *inferred = strstr(out, "12:03:01.000"), *lead = strstr(out, "* 12:03:05.120 gpu17");
	assert_non_null(inferred);
	assert_non_null(lead);
	assert_true(inferred < lead);
	assert_true(strstr(out, "12:03:06.500 gpu18") > lead);
	assert_non_null(strstr(out, "slurm job 77: gpu30 full at 12:00:00.000; 0 processes on 0 nodes"));
	free(out);
}

static void test_json(void **state)
{
	(void)state;
	char *out = run(true);
	char *nl = strchr(out, '\n');
	assert_non_null(nl);
	*nl = 0;
	struct json_object *o = json_tokener_parse(out), *x, *c;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "job", &x));
	assert_string_equal(json_object_get_string(x), "slurm job 4242");
	assert_true(json_object_object_get_ex(o, "first_cause", &c));
	assert_true(json_object_object_get_ex(c, "host", &x));
	assert_string_equal(json_object_get_string(x), "gpu17");
	assert_true(json_object_object_get_ex(c, "reason", &x));
	assert_string_equal(json_object_get_string(x), "carrier_lost");
	assert_true(json_object_object_get_ex(o, "failed_after", &c));
	assert_true(json_object_object_get_ex(c, "nodes", &x));
	assert_int_equal(json_object_get_int(x), 3);
	assert_true(json_object_object_get_ex(o, "records", &x));
	assert_int_equal(json_object_array_length(x), 5);
	json_object_put(o);
	free(out);
}

static void add_line(struct jobs *j, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	struct json_object *o = json_tokener_parse(line);
	assert_non_null(o);
	assert_true(jobs_add(j, o));
	json_object_put(o);
}

static char *print_of(struct jobs *j, bool json)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	jobs_print(j, json, f);
	fclose(f);
	char *copy = strdup(out); /* gcc takes out for open_memstream's own buffer */
	free(out);
	return copy;
}

/* Many records of one job, many jobs: the counts are those of every record
 * though only the earliest are listed; a port change joins the job of the
 * failures of its holder's pid that come after it in the input. */
static void test_grouping_at_scale(void **state)
{
	(void)state;
	struct jobs *j = jobs_new();
	assert_non_null(j);
	/* the port's return comes first; its holder (pid 1 on n0) is named later */
	add_line(j, "{\"event\":\"port_change\",\"time\":\"2026-12-01T12:00:10.000000Z\",\"host\":\"n0\","
		    "\"reason\":\"carrier_lost\",\"down_ms\":5000,\"affected\":[{\"pid\":1}],\"summary\":\"port\"}");
	/* job 1: 1,000 failures of 500 processes on 10 hosts after the port
	 * went down (12:00:05), each process twice; one before it */
	add_line(j, "{\"event\":\"failure\",\"time\":\"2026-12-01T12:00:01.000000Z\",\"host\":\"n9\","
		    "\"pid\":9999,\"cause\":\"early\",\"certainty\":\"inferred\",\"process\":{\"slurm_job\":1}}");
	for (int i = 0; i < 1000; i++)
		add_line(j, "{\"event\":\"failure\",\"time\":\"2026-12-01T12:00:%02d.%06dZ\",\"host\":\"n%d\","
			    "\"pid\":%d,\"cause\":\"c\",\"certainty\":\"proven\",\"process\":{\"slurm_job\":1},"
			    "\"nccl\":{\"rank\":%d}}",
			 20 + i % 30, i, (i % 500) % 10, 1 + i % 500, i % 500);
	/* 20,000 jobs of one failure each */
	for (int i = 0; i < 20000; i++)
		add_line(j, "{\"event\":\"failure\",\"time\":\"2026-12-01T13:00:00.000000Z\",\"host\":\"m\","
			    "\"pid\":%d,\"cause\":\"c\",\"certainty\":\"proven\",\"process\":{\"slurm_job\":%d}}",
			 100000 + i, 1000 + i);
	char *out = print_of(j, true);
	jobs_free(j);
	char *nl = strchr(out, '\n');
	assert_non_null(nl);
	*nl = 0;
	struct json_object *o = json_tokener_parse(out), *x, *c;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "job", &x));
	assert_string_equal(json_object_get_string(x), "slurm job 1");
	assert_true(json_object_object_get_ex(o, "first_cause", &c));
	assert_true(json_object_object_get_ex(c, "event", &x));
	assert_string_equal(json_object_get_string(x), "port_change");
	assert_true(json_object_object_get_ex(o, "failed_after", &c));
	assert_true(json_object_object_get_ex(c, "processes", &x));
	assert_int_equal(json_object_get_int(x), 500);
	assert_true(json_object_object_get_ex(c, "ranks", &x));
	assert_int_equal(json_object_get_int(x), 500);
	assert_true(json_object_object_get_ex(c, "nodes", &x));
	assert_int_equal(json_object_get_int(x), 10);
	assert_true(json_object_object_get_ex(o, "records", &x));
	assert_int_equal(json_object_array_length(x), 64);
	/* listed: the earliest, in time order, the early failure first */
	c = json_object_array_get_idx(x, 0);
	assert_true(json_object_object_get_ex(c, "cause", &c));
	assert_string_equal(json_object_get_string(c), "early");
	assert_true(json_object_object_get_ex(o, "records_omitted", &x));
	assert_int_equal(json_object_get_int(x), 1002 - 64);
	json_object_put(o);
	/* every other job follows, one line each */
	int lines = 1;
	for (char *p = nl + 1; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 1 + 20000);
	free(out);
}

/* A crafted down_ms that would overflow microseconds leaves the time as
 * recorded (was undefined behaviour: UBSan in fuzz_records). */
static void test_crafted_down_ms(void **state)
{
	(void)state;
	struct jobs *j = jobs_new();
	add_line(j, "{\"event\":\"port_change\",\"time\":\"2026-12-01T12:00:10.000000Z\",\"host\":\"n0\","
		    "\"reason\":\"carrier_lost\",\"down_ms\":9223372036854776,"
		    "\"affected\":[{\"pid\":1,\"slurm_job\":5}],\"summary\":\"port\"}");
	char *out = print_of(j, false);
	jobs_free(j);
	if (!strstr(out, "slurm job 5: n0 port at 12:00:10.000"))
		fail_msg("got:\n%s", out);
	free(out);
}

/* Records from other nodes are hostile text: a comm, a host, a pod, a
 * summary holding U+202E (RIGHT-TO-LEFT OVERRIDE) or ESC are printed
 * escaped by explain --jobs, never raw (issue 34, item 13). */
static void test_text_escapes_bidi_and_esc(void **state)
{
	(void)state;
	struct jobs *j = jobs_new();
	add_line(j, "{\"event\":\"failure\",\"time\":\"2026-12-01T12:00:01.000000Z\",\"host\":\"n\\u001b[2J1\","
		    "\"pid\":7,\"comm\":\"py\\u202ethon\\u001b]0;x\",\"cause\":\"port_not_active\","
		    "\"certainty\":\"proven\",\"summary\":\"modify_qp \\u202egnp.exe\\u001b[31m\","
		    "\"kubernetes\":{\"namespace\":\"ns\\u202e\",\"pod\":\"p\\u001bo\"}}");
	add_line(j, "{\"event\":\"port_change\",\"time\":\"2026-12-01T12:00:00.500000Z\",\"host\":\"n\\u001b[2J1\","
		    "\"reason\":\"carrier_lost\\u202e\",\"affected\":[{\"pid\":7}],"
		    "\"summary\":\"eth\\u202e0 went \\u001b[8mDOWN\"}");
	char *out = print_of(j, false);
	jobs_free(j);
	if (strchr(out, '\033') || strstr(out, "\xe2\x80\xae"))
		fail_msg("raw ESC or U+202E in:\n%s", out);
	assert_non_null(strstr(out, "py\\u202ethon\\e]0;x"));
	assert_non_null(strstr(out, "n\\e[2J1"));
	free(out);
}

/* issue 47: nobody's `env SLURM_JOB_ID=4242` and a failing mlock, beside a
 * failure of job 4242's own step: the claim is a job of its own, never in
 * the job the cgroup placed (nor leading it); a pod, a fact, wins over it */
static void test_claimed_job_apart(void **state)
{
	(void)state;
	struct jobs *j = jobs_new();
	add_line(j, "{\"event\":\"failure\",\"time\":\"2026-12-01T12:00:02.000000Z\",\"host\":\"n1\","
		    "\"pid\":7,\"comm\":\"python3\",\"cause\":\"port_not_active\",\"certainty\":\"proven\","
		    "\"summary\":\"the job's own\",\"process\":{\"uid\":1000,\"slurm_job\":4242,"
		    "\"slurm_job_source\":\"cgroup\"}}");
	add_line(j, "{\"event\":\"mlock_failure\",\"time\":\"2026-12-01T12:00:01.000000Z\",\"host\":\"n1\","
		    "\"pid\":8,\"comm\":\"mlocker\",\"cause\":\"memlock_limit\",\"certainty\":\"proven\","
		    "\"summary\":\"forged\",\"process\":{\"uid\":65534,\"slurm_job\":4242,"
		    "\"slurm_job_source\":\"environment\"}}");
	add_line(j, "{\"event\":\"mlock_failure\",\"time\":\"2026-12-01T12:00:03.000000Z\",\"host\":\"n1\","
		    "\"pid\":9,\"comm\":\"mlocker\",\"cause\":\"memlock_limit\",\"certainty\":\"proven\","
		    "\"summary\":\"in a pod\",\"process\":{\"slurm_job\":4242,\"slurm_job_source\":\"environment\","
		    "\"pod_uid\":\"p1\"},\"kubernetes\":{\"namespace\":\"ns\",\"pod\":\"web\"}}");
	char *out = print_of(j, false);
	jobs_free(j);
	assert_non_null(strstr(out, "slurm job 4242: n1 the job's own at 12:00:02.000"));
	assert_non_null(strstr(out, "slurm job 4242 (claimed): n1 forged at 12:00:01.000"));
	assert_non_null(strstr(out, "pod ns/web: n1 in a pod"));
	/* the claim's record is listed under the claim only */
	const char *claim = strstr(out, "slurm job 4242 (claimed)");
	const char *forged = strstr(out, "pid 8 (mlocker)");
	assert_non_null(forged);
	assert_true(forged > claim);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_cause_leads),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_grouping_at_scale),
		cmocka_unit_test(test_crafted_down_ms),
		cmocka_unit_test(test_text_escapes_bidi_and_esc),
		cmocka_unit_test(test_claimed_job_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
