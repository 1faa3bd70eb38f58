// SPDX-License-Identifier: GPL-2.0-only
/* test_args.c - pids and durations from the command line (core/args.h):
 * out-of-range pids (4294967297 was pid 1), signs, spaces, NaN and
 * infinity are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/args.h"

static void test_pids(void **state)
{
	(void)state;
	int pid = -7;
	assert_int_equal(args_pid("1", &pid), 0);
	assert_int_equal(pid, 1);
	assert_int_equal(args_pid("4194304", &pid), 0);
	static const char *const bad[] = { "0", "-1", "+1", " 1", "1 ", "4194305", "4294967297",
					   "18446744073709551617", "0x10", "1e3", "", "pid" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid = -7;
		if (args_pid(bad[i], &pid) != -1 || pid != -7)
			fail_msg("pid \"%s\" accepted", bad[i]);
	}
}

static void test_seconds(void **state)
{
	(void)state;
	double d = 0;
	assert_int_equal(args_seconds("600", &d), 0);
	assert_true(d == 600);
	assert_int_equal(args_seconds("0.5", &d), 0);
	static const char *const bad[] = { "nan", "NaN", "inf", "-inf", "infinity", "0", "-1", "1e999",
					   "5s", "", " " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (args_seconds(bad[i], &d) != -1)
			fail_msg("duration \"%s\" accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_seconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
