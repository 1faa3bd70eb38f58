// SPDX-License-Identifier: GPL-2.0-only
/* test_loggroups.c - explain's groups of a merged log (explain/logs.c,
 * issue 32 item 6): the same failure on many ranks of one job is one group
 * led by its first line, "the same on N other ranks" with their hosts; the
 * same failure in two jobs of one input (`cat slurm-111.out slurm-222.out`,
 * a console kept across runs) is two groups, each with its own job and
 * ranks, never one job's failure counted among the other's ranks.  Read
 * end to end: a file through the log reader, judged against a check
 * document (--facts) so that no fact of this machine weighs, written as
 * --json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture_path.h"
#include "explain/logs.h"
#include "logs/logline.h"

#define MAX_OUT 8

static struct json_object *out[MAX_OUT];
static int nout;

static void collect(void *arg, const char *s, size_t n)
{
	(void)arg;
	char *t = strndup(s, n);

	if (t && nout < MAX_OUT)
		out[nout++] = json_tokener_parse(t);
	free(t);
}

static const char *jstr(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	return json_object_get_string(v);
}

/* Writes lines to a temporary file named like sbatch's output (or not),
 * explains it, and leaves the records in out[]; returns the groups. */
static char tally[512]; /* explain_logs_tally's line of the last explain_file */

static int explain_file(const char *name, const char *lines)
{
	char dir[] = "/tmp/test_loggroups_XXXXXX", path[128], err[256];
	struct explain_logs_opts o = { .setting = INF_SET_SLURM, .json = true,
				       .facts_file = fixture_path("logs", "node02-check.json") };
	struct explain_logs *l;
	struct log_reader *r;
	struct log_event *ev = malloc(sizeof(*ev));
	FILE *f;
	int n;

	for (int i = 0; i < nout; i++)
		json_object_put(out[i]);
	nout = 0;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(lines, f);
	fclose(f);
	assert_non_null(r = log_reader_open(path, err, sizeof(err)));
	assert_non_null(l = explain_logs_new(&o));
	while (log_reader_next(r, ev) == 1)
		explain_logs_event(l, ev);
	n = explain_logs_finish(l, collect, NULL, err, sizeof(err));
	FILE *t = fmemopen(tally, sizeof(tally), "w");
	assert_non_null(t);
	explain_logs_tally(l, t);
	fclose(t);
	explain_logs_free(l);
	log_reader_free(r);
	free(ev);
	unlink(path);
	rmdir(dir);
	return n;
}

#define ENOMEM_LINE(rank, host, pid)                                                               \
	#rank ": " host ":" #pid ":" #pid " [0] misc/ibvwrap.cc:262 NCCL WARN Call to "           \
	      "ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"

/* one job, four ranks on two hosts: one group, the first line leads */
static void one_job_one_group(void **state)
{
	(void)state;
	assert_int_equal(explain_file("slurm-4242.out",
				      "0: NCCL version 2.21.5+cuda12.4\n"
				      ENOMEM_LINE(2, "node02", 5002) ENOMEM_LINE(0, "node01", 5000)
				      ENOMEM_LINE(1, "node01", 5001) ENOMEM_LINE(3, "node02", 5003)),
			 1);
	assert_string_equal(jstr(out[0], "host", NULL), "node02");
	assert_int_equal(json_object_get_int(json_object_object_get(out[0], "rank")), 2);
	assert_string_equal(jstr(out[0], "same_on", "ranks"), "3");
	assert_non_null(jstr(out[0], "job", NULL));
	assert_string_equal(jstr(out[0], "job", NULL), "slurm job 4242");
}

/* a context line that names the buffer as a GPU buffer (perftest's
 * "allocated GPU buffer ... for type CUDA_MEM_DEVICE") speaks for the
 * EFAULT of the registration after it: device memory pinned as host
 * memory leads, not an unmapped range (perftest-346) */
static void gpu_buffer_context_word(void **state)
{
	(void)state;
	assert_int_equal(explain_file("perftest.log",
				      "allocated GPU buffer of a 16777216 address at 0x594ca786d9b0 "
				      "for type CUDA_MEM_DEVICE\n"
				      "Couldn't allocate MR with error=14\n"),
			 1);
	assert_string_equal(jstr(out[0], "cause", NULL), "pin_device_memory");
}

/* the kernel's own line that the firmware refused CREATE_QP with limits
 * exceeded speaks for the ENOMEM of the QP the program saw fail: the HCA's
 * count used up leads, not RLIMIT_MEMLOCK (libfabric-7368); a CREATE_CQ
 * line does not speak for a QP */
static void kernel_lim_same_object(void **state)
{
	(void)state;
	static const char qp_line[] = "ibv_create_qp failed: Cannot allocate memory\n";

	assert_int_equal(explain_file("qp.log", qp_line), 1);
	assert_string_equal(jstr(out[0], "cause", NULL), "memlock_limit");
	assert_int_equal(explain_file("qp-dmesg.log",
				      "ibv_create_qp failed: Cannot allocate memory\n"
				      "[1899678.679848] mlx5_core 0000:5e:00.0: mlx5_cmd_out_err:838:(pid 4242): "
				      "CREATE_QP(0x500) op_mod(0x0) failed, status limits exceeded(0x8), "
				      "syndrome (0x19c6d6), err(-12)\n"),
			 2);
	assert_string_equal(jstr(out[0], "cause", NULL), "hca_resource_limit");
	assert_int_equal(explain_file("cq-dmesg.log",
				      "ibv_create_qp failed: Cannot allocate memory\n"
				      "[1899678.679848] mlx5_core 0000:5e:00.0: mlx5_cmd_out_err:838:(pid 4242): "
				      "CREATE_CQ(0x400) op_mod(0x0) failed, status limits exceeded(0x8), "
				      "syndrome (0x1234), err(-12)\n"),
			 2);
	assert_string_equal(jstr(out[0], "cause", NULL), "memlock_limit");
}

/* two jobs merged (each announced by srun), the same ENOMEM in both: two
 * groups, each counting only its own ranks, the earlier job first */
static void two_jobs_two_groups(void **state)
{
	(void)state;
	assert_int_equal(explain_file("merged.log",
				      "srun: job 111 queued and waiting for resources\n"
				      "srun: job 111 has been allocated resources\n"
				      ENOMEM_LINE(5, "node02", 5005) ENOMEM_LINE(0, "node01", 5000)
				      ENOMEM_LINE(1, "node01", 5001)
				      "slurmstepd: error: *** JOB 111 ON node01 CANCELLED AT 2026-12-01T12:00:00 ***\n"
				      "srun: job 222 has been allocated resources\n"
				      ENOMEM_LINE(3, "gpu07", 6003) ENOMEM_LINE(0, "gpu06", 6000)),
			 2);
	assert_string_equal(jstr(out[0], "job", NULL), "slurm job 111");
	assert_string_equal(jstr(out[0], "host", NULL), "node02");
	assert_string_equal(jstr(out[0], "same_on", "ranks"), "2");
	assert_string_equal(json_object_to_json_string(json_object_object_get(
				    json_object_object_get(out[0], "same_on"), "hosts")),
			    "[ \"node01\" ]");
	assert_string_equal(jstr(out[1], "job", NULL), "slurm job 222");
	assert_string_equal(jstr(out[1], "host", NULL), "gpu07");
	assert_string_equal(jstr(out[1], "same_on", "ranks"), "1");
	assert_string_equal(json_object_to_json_string(json_object_object_get(
				    json_object_object_get(out[1], "same_on"), "hosts")),
			    "[ \"gpu06\" ]");
}

/* every group the tally counts is a verdict shown: a wrapper folded into
 * its job's failure is said with the wrapper lines, not a group */
static void every_group_a_verdict(void **state)
{
	(void)state;
	assert_int_equal(explain_file("a.log", ENOMEM_LINE(0, "node01", 5000) ENOMEM_LINE(1, "node01", 5001)
				      "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1269, "
				      "unhandled system error, NCCL version 2.21.5\n"),
			 1);
	assert_non_null(strstr(tally, "3 failure lines in 1 group ("));
	assert_non_null(strstr(tally, "the echo of their job's failure"));
	/* a wrapper alone is its own verdict */
	assert_int_equal(explain_file("b.log", "torch.distributed.DistBackendError: NCCL error in: "
					       "ProcessGroupNCCL.cpp:1269, unhandled system error, NCCL version 2.21.5\n"),
			 1);
	assert_non_null(strstr(tally, "1 failure line in 1 group"));
}

/* the job from the input's name, then a line that names another */
static void job_from_name_then_line(void **state)
{
	(void)state;
	assert_int_equal(explain_file("slurm-300_2.out",
				      ENOMEM_LINE(0, "node01", 5000) ENOMEM_LINE(1, "node01", 5001)
				      "SLURM_JOB_ID=301\n" ENOMEM_LINE(0, "node03", 7000)),
			 2);
	assert_string_equal(jstr(out[0], "job", NULL), "slurm job 300_2");
	assert_string_equal(jstr(out[0], "same_on", "ranks"), "1");
	assert_string_equal(jstr(out[1], "job", NULL), "slurm job 301");
	assert_string_equal(jstr(out[1], "same_on", "ranks"), "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_job_one_group),
		cmocka_unit_test(two_jobs_two_groups),
		cmocka_unit_test(job_from_name_then_line),
		cmocka_unit_test(every_group_a_verdict),
		cmocka_unit_test(gpu_buffer_context_word),
		cmocka_unit_test(kernel_lim_same_object),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	for (int i = 0; i < nout; i++)
		json_object_put(out[i]);
	return rc;
}
