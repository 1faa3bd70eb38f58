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
#include "proc/ustack_raw.h"

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

/* Before 5.17 the kernel sends the raw top of a failed REG_MR's stack
 * (bpf/ustack_raw.bpf.h): the words that lie in code of a mapped file are
 * the frames, innermost first; locals, heap and stack pointers, the vdso
 * and anonymous (JIT) code are not. */
static const char raw_maps[] =
	"55d0c0000000-55d0c0010000 r-xp 00000000 08:01 100 /usr/bin/python3.11\n"
	"55d0c0010000-55d0c0020000 rw-p 00010000 08:01 100 /usr/bin/python3.11\n"
	"7f0000000000-7f0000100000 r-xp 00000000 08:01 200 /opt/conda/lib/libnccl.so.2\n"
	"7f1000000000-7f1000050000 r-xp 00000000 08:01 300 /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\n"
	"7f3000000000-7f3000010000 r-xp 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
	"7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0 [vdso]\n";

static void raw_stack_words_in_code_are_the_frames(void **state)
{
	uint64_t words[] = {
		0x7f1000001234, /* libibverbs: the caller of write() */
		0x0000000000000040, /* a length */
		0x7ffd00020f00, /* a saved frame pointer into the stack */
		0x55d0c0010010, /* the executable's data, not its code */
		0x7f3000000100, /* anonymous executable memory (a JIT) */
		0x7ffd00100400, /* the vdso */
		0x7f1000002000, /* libibverbs again: ibv_reg_mr_iova2's caller frame */
		0xffff800000001000, /* not a user address */
		0x7f0000004321, /* NCCL */
		0x55d0c0000100, /* the executable */
	};
	uint64_t out[16], ino[16], off[16];
	struct ustack_attr a;
	(void)state;

	int n = ustack_raw_frames(raw_maps, NULL, words, 10, out, ino, off, 16);
	assert_int_equal(n, 4);
	assert_true(out[0] == 0x7f1000001234 && out[1] == 0x7f1000002000);
	assert_true(out[2] == 0x7f0000004321 && out[3] == 0x55d0c0000100);
	/* each in its file, as the kernel's bpf_find_vma would place it */
	assert_true(ino[0] == 300 && off[0] == 0x1234 && ino[1] == 300 && off[1] == 0x2000);
	assert_true(ino[2] == 200 && ino[3] == 100 && off[3] == 0x100);
	/* then attributed as a kernel-scanned stack is */
	ustack_attribute_maps(raw_maps, out, n, &a);
	assert_true(a.via_nccl);
	assert_string_equal(a.caller, "/opt/conda/lib/libnccl.so.2");
	/* bounded by the frames a record holds */
	assert_int_equal(ustack_raw_frames(raw_maps, NULL, words, 10, out, NULL, NULL, 2), 2);
	/* no maps, no frames */
	assert_int_equal(ustack_raw_frames("", NULL, words, 10, out, NULL, NULL, 16), 0);
	/* no maps (the process was gone before they were read), libibverbs'
	 * code as the kernel found it: its two frames, in its file */
	struct ustack_code lib = { 0x7f1000000000, 0x7f1000050000, 0x3000, 300 };
	n = ustack_raw_frames(NULL, &lib, words, 10, out, ino, off, 16);
	assert_int_equal(n, 2);
	assert_true(out[0] == 0x7f1000001234 && ino[0] == 300 && off[0] == 0x4234);
	assert_true(out[1] == 0x7f1000002000 && ino[1] == 300 && off[1] == 0x5000);
	/* an empty range is none */
	lib.hi = 0;
	assert_int_equal(ustack_raw_frames(NULL, &lib, words, 10, out, NULL, NULL, 16), 0);
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
		cmocka_unit_test(raw_stack_words_in_code_are_the_frames),
		cmocka_unit_test(elf_offset_picks_default_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
