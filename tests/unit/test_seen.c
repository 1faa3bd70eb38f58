// SPDX-License-Identifier: GPL-2.0-only
/* test_seen.c - the libibverbs scan's first-seen table (user/tracer/seen.c):
 * exited processes are forgotten with the pass that no longer meets them,
 * so after any number of them a new process is new (issue 24, row 10: the
 * table filled after 8,192 pids and every later process was rescanned
 * every 2 s as if it had just started, forever), an old one stays old, and
 * a table over capacity still answers (as new). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tracer/seen.h"

static void pass(struct seen_table *t, int from, int to, double now)
{
	seen_pass(t);
	for (int pid = from; pid < to; pid++)
		seen_first(t, pid, now);
}

static void exited_processes_are_forgotten(void **state)
{
	struct seen_table t;

	(void)state;
	assert_int_equal(seen_init(&t, 16384), 0);
	/* pid 1 lives throughout; 20,000 short-lived processes come and go,
	 * 1,000 per pass, far more than the table holds */
	for (int k = 0; k < 20; k++) {
		seen_pass(&t);
		assert_true(seen_first(&t, 1, k * 2.0) == 0.0);
		for (int pid = 1000 + k * 1000; pid < 2000 + k * 1000; pid++)
			assert_true(seen_first(&t, pid, k * 2.0) == k * 2.0);
		assert_int_equal(seen_count(&t), 1001);
	}
	/* later: a process never met is new, pid 1 still old */
	seen_pass(&t);
	assert_true(seen_first(&t, 1, 700.0) == 0.0);
	assert_true(seen_first(&t, 123456, 700.0) == 700.0);
	assert_int_equal(seen_count(&t), 2);
	/* and it keeps its first time from pass to pass */
	seen_pass(&t);
	assert_true(seen_first(&t, 123456, 702.0) == 700.0);
	/* a pid met twice in one pass keeps one entry */
	assert_true(seen_first(&t, 123456, 702.0) == 700.0);
	assert_int_equal(seen_count(&t), 1);
	seen_free(&t);
}

static void over_capacity_counts_as_new(void **state)
{
	struct seen_table t;

	(void)state;
	assert_int_equal(seen_init(&t, 64), 0);
	pass(&t, 1, 100, 0.0); /* 32 fit, the rest do not */
	assert_int_equal(seen_count(&t), 32);
	seen_pass(&t);
	unsigned old = 0, young = 0;
	for (int pid = 1; pid < 100; pid++) {
		if (seen_first(&t, pid, 10.0) == 0.0)
			old++;
		else
			young++;
	}
	assert_int_equal(old, 32);
	assert_int_equal(young, 99 - 32);
	seen_free(&t);
	/* no table: every process is new */
	assert_int_equal(seen_init(&t, 100), -1);
	assert_true(seen_first(&t, 5, 3.0) == 3.0);
	seen_pass(&t);
	assert_int_equal(seen_count(&t), 0);
	seen_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exited_processes_are_forgotten),
		cmocka_unit_test(over_capacity_counts_as_new),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
