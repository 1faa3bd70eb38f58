// SPDX-License-Identifier: GPL-2.0-only
/* test_ustack.c - user stack attribution (user/ustack.c) and the ELF
 * symbol lookup that places uprobes (user/tracer/uprobes.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracer/elfsym.h"
#include "proc/ustack.h"

static const char maps[] =
	"55d0c0000000-55d0c0010000 r-xp 00000000 08:01 100 /usr/bin/python3.11\n"
	"7f0000000000-7f0000100000 r-xp 00000000 08:01 200 /opt/conda/lib/libnccl.so.2\n"
	"7f1000000000-7f1000050000 r-xp 00000000 08:01 300 /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\n"
	"7f2000000000-7f2000200000 r-xp 00000000 08:01 400 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";

static void nccl_frame_found_past_plumbing(void **state)
{
	struct ustack_attr a;
	/* return address inside libibverbs (ibv_reg_mr -> _iova2), then NCCL */
	uint64_t ips[] = { 0x7f1000001234, 0x7f0000004321, 0x55d0c0000100, 0 };
	(void)state;
	ustack_attribute_maps(maps, ips, 4, &a);
	assert_true(a.resolved);
	assert_true(a.via_nccl);
	assert_string_equal(a.caller, "/opt/conda/lib/libnccl.so.2");
	assert_int_equal(a.frames, 3);
}

static void no_nccl_anywhere(void **state)
{
	struct ustack_attr a;
	uint64_t ips[] = { 0x55d0c0000100, 0x7f2000000010 };
	(void)state;
	ustack_attribute_maps(maps, ips, 2, &a);
	assert_false(a.via_nccl);
	assert_string_equal(a.caller, "/usr/bin/python3.11");
}

static void unmapped_frames_are_ignored(void **state)
{
	struct ustack_attr a;
	uint64_t ips[] = { 0x1234, 0xdeadbeef };
	(void)state;
	ustack_attribute_maps(maps, ips, 2, &a);
	assert_false(a.via_nccl);
	assert_string_equal(a.caller, "");
	assert_int_equal(a.frames, 2);
}

/* The default-version symbol (ibv_reg_mr@@IBVERBS_1.1), not the compat one
 * (ibv_reg_mr@IBVERBS_1.0): compared with nm's own reading of the library
 * that tools/deps.sh installs. */
static void elf_offset_picks_default_version(void **state)
{
	/* the machine's own multiarch directory (x86_64 or aarch64) */
	const char *lib = access("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", R_OK)
				  ? "/usr/lib/aarch64-linux-gnu/libibverbs.so.1"
				  : "/usr/lib/x86_64-linux-gnu/libibverbs.so.1";
	char line[256], cmd[300];
	unsigned long long want = 0;
	FILE *p;
	(void)state;
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s", lib);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char t, name[200];
		if (sscanf(line, "%llx %c %199s", &a, &t, name) == 3 &&
		    !strcmp(name, "ibv_reg_mr@@IBVERBS_1.1"))
			want = a;
	}
	pclose(p);
	assert_true(want != 0);
	/* libibverbs' text segment has file offset == vaddr */
	assert_int_equal(tracer_elf_symbol_offset(lib, "ibv_reg_mr"), want);
	assert_true(tracer_elf_symbol_offset(lib, "ibv_reg_mr_iova2") != 0);
	assert_int_equal(tracer_elf_symbol_offset(lib, "no_such_symbol"), 0);
	assert_int_equal(tracer_elf_symbol_offset("/nonexistent", "ibv_reg_mr"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nccl_frame_found_past_plumbing),
		cmocka_unit_test(no_nccl_anywhere),
		cmocka_unit_test(unmapped_frames_are_ignored),
		cmocka_unit_test(elf_offset_picks_default_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
