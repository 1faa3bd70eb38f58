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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_cause_leads),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
