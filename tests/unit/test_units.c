// SPDX-License-Identifier: GPL-2.0-only
/* test_units.c - human units both ways (user/units.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/units.h"

static void fmt_exact_and_fractional(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(fmt_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(fmt_bytes(4097, b, sizeof(b)), "4.0 KiB");
	assert_string_equal(fmt_bytes(65536, b, sizeof(b)), "64 KiB");
	assert_string_equal(fmt_bytes(16ULL << 20, b, sizeof(b)), "16 MiB");
	assert_string_equal(fmt_bytes(4097ULL * 4096, b, sizeof(b)), "16.0 MiB");
	assert_string_equal(fmt_bytes(UINT64_MAX, b, sizeof(b)), "unlimited");
	assert_string_equal(fmt_pages(4097, 4096, b, sizeof(b)), "4097 pages (16.0 MiB)");
	assert_string_equal(fmt_pages(1, 4096, b, sizeof(b)), "1 page (4 KiB)");
	/* arm64 with 64 KiB pages: the same count is 16 times the bytes */
	assert_string_equal(fmt_pages(256, 65536, b, sizeof(b)), "256 pages (16 MiB)");
}

static void parse_forms(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(parse_bytes("65536", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_bytes("64K", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_bytes("64KiB", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_bytes("9.2M", &v), 0);
	assert_int_equal(v, 9646899); /* 9.2 * 2^20, rounded */
	assert_int_equal(parse_bytes("1G", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(parse_bytes("unlimited", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void parse_rejects(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(parse_bytes("", &v), -1);
	assert_int_equal(parse_bytes("M", &v), -1);
	assert_int_equal(parse_bytes("12Q", &v), -1);
	assert_int_equal(parse_bytes("-5", &v), -1);
	assert_int_equal(parse_bytes("1KB2", &v), -1);
	assert_int_equal(parse_bytes("99999999999T", &v), -1); /* overflow */
	/* past 2^64, not numbers, hexadecimal floats: refused, never wrapped */
	assert_int_equal(parse_bytes("1e20", &v), -1);
	assert_int_equal(parse_bytes("17179869184G", &v), -1);   /* exactly 2^64 */
	assert_int_equal(parse_bytes("inf", &v), -1);
	assert_int_equal(parse_bytes("nan", &v), -1);
	assert_int_equal(parse_bytes("0x1p70", &v), -1);
	assert_int_equal(parse_bytes("0x10", &v), -1);
	assert_int_equal(parse_bytes("1e999", &v), -1);
	assert_int_equal(parse_bytes("16777216T", &v), -1);   /* 2^64 again */
	assert_int_equal(parse_bytes("16777215T", &v), 0);    /* 2^64 - 2^40 fits */
	assert_true(v == UINT64_MAX - (1ULL << 40) + 1);
}

/* The parser of --min-memlock (and every size in the configuration): a
 * value past 2^64, inf, nan or a negative one is an error, not a size
 * that happens to be huge, and never undefined behaviour (issue 24,
 * row 8: =1e20 passed a 64 KiB job, =nan switched the drain gate off). */
static void cfg_bytes_rejects(void **state)
{
	unsigned long long b = 12345;
	(void)state;
	static const char *const bad[] = { "1e20", "1e30", "inf", "-inf", "nan", "NaN",
					   "17179869184G", "-1", "-5", "-0", "0x10", "1e999",
					   "", " ", "64M ", "12Q", "1KB2", NULL };
	for (int i = 0; bad[i]; i++) {
		b = 12345;
		if (cfg_parse_bytes(bad[i], &b) != -1)
			fail_msg("cfg_parse_bytes(\"%s\") accepted: %llu", bad[i], b);
	}
	assert_int_equal(cfg_parse_bytes("64M", &b), 0);
	assert_true(b == 64ULL << 20);
	assert_int_equal(cfg_parse_bytes("1.5G", &b), 0);
	assert_true(b == 3ULL << 29);
	assert_int_equal(cfg_parse_bytes("16777215T", &b), 0);
	assert_true(b == UINT64_MAX - (1ULL << 40) + 1);
	assert_int_equal(cfg_parse_bytes("unlimited", &b), 0);
	assert_true(b == UINT64_MAX);
	assert_int_equal(cfg_parse_bytes("0", &b), 0);
	assert_true(b == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmt_exact_and_fractional),
		cmocka_unit_test(parse_forms),
		cmocka_unit_test(parse_rejects),
		cmocka_unit_test(cfg_bytes_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
