// SPDX-License-Identifier: GPL-2.0-only
/* test_units.c - human units both ways (user/units.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmt_exact_and_fractional),
		cmocka_unit_test(parse_forms),
		cmocka_unit_test(parse_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
