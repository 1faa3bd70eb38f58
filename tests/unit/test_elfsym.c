// SPDX-License-Identifier: GPL-2.0-only
/* test_elfsym.c - the function that holds a return address in a library
 * (tracer_elf_symbol_at): how watch names the libibverbs API from the user
 * stack the kernel took at a failure, with the registration calls not
 * probed.  Runs on this machine's libibverbs (skipped where there is none). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "tracer/tracer.h"
#include "tracer/uprobes.h"

static const char *libibverbs(void)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/libibverbs.so.1",
		"/usr/lib/aarch64-linux-gnu/libibverbs.so.1",
		"/usr/lib64/libibverbs.so.1",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], R_OK))
			return paths[i];
	return NULL;
}

static void test_inside_each_function(void **state)
{
	(void)state;
	const char *lib = libibverbs();
	char buf[128];
	if (!lib)
		skip();
	static const char *const names[] = { "ibv_reg_mr_iova2", "ibv_cmd_reg_mr", "ibv_reg_dmabuf_mr" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t off = tracer_elf_symbol_offset(lib, names[i]);
		assert_true(off > 0);
		/* a few bytes in: where a return address would be */
		assert_non_null(tracer_elf_symbol_at(lib, off + 8, buf, sizeof(buf)));
		assert_string_equal(buf, names[i]);
	}
	/* the ELF header is in no function */
	assert_null(tracer_elf_symbol_at(lib, 0, buf, sizeof(buf)));
	assert_null(tracer_elf_symbol_at("/nonexistent/libibverbs.so.1", 0x1000, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inside_each_function),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
