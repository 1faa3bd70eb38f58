// SPDX-License-Identifier: GPL-2.0-only
/* test_probemiss.c - the tally of probes that missed (user/tracer/probemiss.c):
 * an uncounted probe is said as such and never adds a 0 that reads as
 * "none missed"; the per-probe list is bounded and counts what it cuts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tracer/probemiss.h"

static void test_uncounted_is_said(void **state)
{
	struct probemiss m = { 0 };
	char buf[512];

	(void)state;
	probemiss_add(&m, "reg_mr", false, false, 0);
	probemiss_add(&m, "reg_mr", true, false, 0);
	probemiss_add(&m, "mlock", true, true, 0);
	assert_int_equal(m.unreadable, 2);
	assert_int_equal(m.readable, 1);
	assert_int_equal(m.total, 0);
	probemiss_sentence(&m, buf, sizeof(buf));
	assert_non_null(strstr(buf, "this kernel does not count the misses of 2 armed probes"));
	assert_null(strstr(buf, "probe hits missed"));
}

static void test_counted_misses_named(void **state)
{
	struct probemiss m = { 0 };
	char buf[512];

	(void)state;
	probemiss_add(&m, "reg_mr", false, true, 0);
	probemiss_add(&m, "reg_mr", true, true, 6);
	probemiss_add(&m, "umem_get", true, true, 2);
	assert_int_equal(m.total, 8);
	assert_int_equal(m.nsites, 2);
	probemiss_sentence(&m, buf, sizeof(buf));
	assert_non_null(strstr(buf, "8 probe hits missed"));
	assert_non_null(strstr(buf, "reg_mr exit: 6, umem_get exit: 2"));
	assert_null(strstr(buf, "does not count"));
	/* nothing missed and all counted: nothing to say */
	struct probemiss z = { 0 };
	probemiss_add(&z, "reg_mr", true, true, 0);
	probemiss_sentence(&z, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void test_list_bounded(void **state)
{
	struct probemiss m = { 0 };
	char buf[4096];

	(void)state;
	for (int i = 0; i < PROBEMISS_SITES_MAX + 5; i++)
		probemiss_add(&m, "site_with_a_long_name_that_is_cut_here", i & 1, true, 1);
	assert_int_equal(m.nsites, PROBEMISS_SITES_MAX);
	assert_int_equal(m.sites_cut, 5);
	assert_int_equal(m.total, PROBEMISS_SITES_MAX + 5);
	probemiss_sentence(&m, buf, 100); /* a short buffer: cut, still a string */
	assert_true(strlen(buf) < 100);
	probemiss_sentence(&m, buf, sizeof(buf));
	assert_non_null(strstr(buf, "more cut)"));
}

static void test_no_link_is_uncounted(void **state)
{
	unsigned long long n = 99;

	(void)state;
	/* no descriptor (a kprobe attached through its perf event before
	 * 5.15 has no link info at all): not readable, nothing added */
	assert_false(probemiss_read(-1, -1, &n));
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uncounted_is_said),
		cmocka_unit_test(test_counted_misses_named),
		cmocka_unit_test(test_list_bounded),
		cmocka_unit_test(test_no_link_is_uncounted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
