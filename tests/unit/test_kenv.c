// SPDX-License-Identifier: GPL-2.0-only
/* test_kenv.c - the environment block the kernel copies (issue 47): parsed
 * through the same allow-list as /proc's, with its cuts - the bound, a
 * chunk the kernel could not read, a tail with no NUL - dropping the
 * partial entries they leave and counting them, never taking a fragment
 * for a variable ("LOCAL_RANK=3" cut at its start is not RANK=3); and the
 * correlator's use of it only for the same process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/context.h"
#include "watch/kenv.h"

static struct ctx_env env;

/* A block from "a\0b\0" notation: the string with '|' for NUL. */
static size_t block_of(char *out, const char *spec)
{
	size_t n = strlen(spec);

	for (size_t i = 0; i < n; i++)
		out[i] = spec[i] == '|' ? '\0' : spec[i];
	return n;
}

static void test_whole_block(void **state)
{
	char b[256];
	size_t n = block_of(b, "HOME=/root|SLURM_JOB_ID=42|AWS_SECRET=x|RANK=3|NCCL_DEBUG=INFO|");
	(void)state;

	assert_int_equal(proc_env_from_kernel(&env, b, n, n, 0, 1024), 0);
	assert_int_equal(env.n, 3);
	assert_string_equal(proc_env_get(&env, "SLURM_JOB_ID"), "42");
	assert_string_equal(proc_env_get(&env, "RANK"), "3");
	assert_string_equal(proc_env_get(&env, "NCCL_DEBUG"), "INFO");
	assert_null(proc_env_get(&env, "AWS_SECRET"));
	assert_null(proc_env_get(&env, "HOME"));
	assert_int_equal(env.cut_entries, 0);
	assert_false(env.kernel_cut);
}

/* The bound: total is larger than what was copied; the last entry copied
 * has no NUL and is dropped, counted. */
static void test_bound_cuts_tail(void **state)
{
	char b[256];
	size_t n = block_of(b, "RANK=3|SLURM_JOB_ID=4242|SLURM_STEP_ID=1");
	(void)state;

	assert_int_equal(proc_env_from_kernel(&env, b, n, n + 100, 0, 1024), 1);
	assert_string_equal(proc_env_get(&env, "SLURM_JOB_ID"), "4242");
	assert_null(proc_env_get(&env, "SLURM_STEP_ID")); /* "1" may be "17": not taken */
	assert_int_equal(env.cut_entries, 1);
	assert_true(env.kernel_cut);
}

/* A tail with no NUL in a block that was not cut is the block's real end
 * (as /proc's reader takes it); with the tail flag it is dropped. */
static void test_tail_without_nul(void **state)
{
	char b[64];
	size_t n = block_of(b, "RANK=3|WORLD_SIZE=8");
	(void)state;

	memset(&env, 0, sizeof(env));
	assert_int_equal(proc_env_parse(&env, b, n, 0), 0);
	assert_string_equal(proc_env_get(&env, "WORLD_SIZE"), "8");
	memset(&env, 0, sizeof(env));
	assert_int_equal(proc_env_parse(&env, b, n, ENV_BLOCK_TAIL_CUT), 1);
	assert_null(proc_env_get(&env, "WORLD_SIZE"));
	assert_string_equal(proc_env_get(&env, "RANK"), "3");
	/* a NUL-terminated last entry is whole, cut or not */
	n = block_of(b, "RANK=3|WORLD_SIZE=8|");
	memset(&env, 0, sizeof(env));
	assert_int_equal(proc_env_parse(&env, b, n, ENV_BLOCK_TAIL_CUT), 0);
	assert_string_equal(proc_env_get(&env, "WORLD_SIZE"), "8");
}

/* A chunk the kernel could not read (zeroes, its bit in holes): the entry
 * running into it and the one running out of it are dropped; a fragment
 * after the hole never passes for another name. */
static void test_hole_drops_straddling_entries(void **state)
{
	char b[48];
	(void)state;

	/* chunk 0: "RANK=5|SLURM_J" (16 bytes) ; chunk 1 lost ; chunk 2
	 * starts inside "LOCAL_RANK=3": "RANK=3|WORLD_SIZE=8|" */
	memset(b, 0, sizeof(b));
	memcpy(b, "RANK=5\0SLURM_JOB", 16);
	memcpy(b + 32, "RANK=3\0WORLD_SIZE=8\0", 16);
	assert_int_equal(proc_env_from_kernel(&env, b, 48, 48, 1u << 1, 16), 2);
	assert_string_equal(proc_env_get(&env, "RANK"), "5"); /* not the fragment's 3 */
	assert_null(proc_env_get(&env, "SLURM_JOB_ID"));
	assert_null(proc_env_get(&env, "WORLD_SIZE")); /* in chunk 2, cut at 16 bytes */
	assert_int_equal(env.cut_entries, 2);
	assert_true(env.kernel_cut);
}

/* Entries are bounded too: allowed names beyond CTX_ENV_MAX are counted
 * (dropped), and a long value is cut and marked. */
static void test_entry_bound(void **state)
{
	size_t cap = (CTX_ENV_MAX + 10) * 16 + 400, n = 0;
	char *b = malloc(cap);
	(void)state;

	assert_non_null(b);
	for (int i = 0; i < CTX_ENV_MAX + 10; i++)
		n += (size_t)sprintf(b + n, "NCCL_X%d=1", i) + 1;
	n += (size_t)sprintf(b + n, "RANK=");
	memset(b + n, '7', 300);
	n += 300;
	b[n++] = '\0';
	assert_int_equal(proc_env_from_kernel(&env, b, n, n, 0, 1024), 0);
	assert_int_equal(env.n, CTX_ENV_MAX);
	assert_int_equal(env.dropped, 11); /* 10 NCCL_X and RANK */
	assert_true(env.truncated);
	free(b);
}

/* The correlator's use: the same process only (start, executable, uid). */
static void test_same_process_only(void **state)
{
	static struct mrt_environ e;
	static struct corr_kenv k;
	struct mrt_event ev;
	size_t n;
	(void)state;

	memset(&e, 0, sizeof(e));
	e.kind = MRT_EV_ENVIRON;
	e.pid = 77;
	e.uid = 1000;
	e.start_ns = 123456789;
	e.exe.ino = 99;
	e.nancestors = 2;
	e.anc[0].tgid = 70;
	memcpy(e.anc[0].comm, "bash", 5);
	e.anc[1].tgid = 60;
	memcpy(e.anc[1].comm, "slurmstepd", 11);
	n = block_of(e.env, "SLURM_JOB_ID=9|SLURM_PROCID=4|TOKEN=s3cret|");
	e.env_len = e.env_total = (unsigned int)n;
	corr_kenv_take(&k, &e, n);
	assert_string_equal(proc_env_get(&k.env, "SLURM_PROCID"), "4");
	assert_null(proc_env_get(&k.env, "TOKEN"));

	memset(&ev, 0, sizeof(ev));
	ev.pid = 77;
	ev.uid = 1000;
	ev.start_ns = 123456789;
	ev.exe_ino = 99;
	assert_true(corr_kenv_same(&k, &ev));
	ev.exe_ino = 100; /* exec'd since */
	assert_false(corr_kenv_same(&k, &ev));
	ev.exe_ino = 99;
	ev.start_ns = 1; /* the pid reused */
	assert_false(corr_kenv_same(&k, &ev));
	ev.start_ns = 123456789;
	ev.uid = 0;
	assert_false(corr_kenv_same(&k, &ev));

	static struct proc_context ctx;
	char chain[128];
	memset(&ctx, 0, sizeof(ctx));
	corr_kenv_graft(&k, &ctx);
	assert_true(ctx.have & CTX_HAVE_ENV);
	assert_int_equal(ctx.n_launchers, 2);
	assert_string_equal(proc_context_launcher_chain(&ctx, chain, sizeof(chain)),
			    "bash(70) <- slurmstepd(60)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_block),
		cmocka_unit_test(test_bound_cuts_tail),
		cmocka_unit_test(test_tail_without_nul),
		cmocka_unit_test(test_hole_drops_straddling_entries),
		cmocka_unit_test(test_entry_bound),
		cmocka_unit_test(test_same_process_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
