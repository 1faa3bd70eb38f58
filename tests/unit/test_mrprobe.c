// SPDX-License-Identifier: GPL-2.0-only
/* test_mrprobe.c - mrprobe's arithmetic and parsing, without an RDMA device:
 * the pages a registration pins, NCCL's buffer layout, option and access
 * flag parsing, and the --find-max search over a fake register function. */
#include <argp.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "access.h"
#include "findmax.h"
#include "nccl/layout.h"
#include "options.h"
#include "core/pages.h"
#include "plan.h"
#include "core/units.h"

#define MiB (1ull << 20)
#define PAGE 4096ull

/* ---- pages ------------------------------------------------------------ */

static void test_malloc_16mib_pins_4097_pages(void **state)
{
	(void)state;
	/* glibc's malloc(16 MiB) returns an mmap'd chunk + 16 bytes of header. */
	uint64_t base = 0x7f0000000000ull;
	assert_int_equal(pages_spanned(base + 16, 16 * MiB, PAGE), 4097);
	assert_int_equal(pages_spanned(base, 16 * MiB, PAGE), 4096);
}

static void test_pages_edges(void **state)
{
	(void)state;
	assert_int_equal(pages_spanned(0x1000, 0, PAGE), 0);
	assert_int_equal(pages_spanned(0x1000, 1, PAGE), 1);
	assert_int_equal(pages_spanned(0x1fff, 1, PAGE), 1);
	assert_int_equal(pages_spanned(0x1fff, 2, PAGE), 2);
	assert_int_equal(pages_spanned(0x1000, PAGE + 1, PAGE), 2);
	/* 9.2M as parsed (9646899 bytes) at a page boundary: 2356 pages. */
	assert_int_equal(pages_spanned(0x10000, 9646899, PAGE), 2356);
}

static void test_round_up(void **state)
{
	(void)state;
	assert_int_equal(pages_round_up(0, PAGE), 0);
	assert_int_equal(pages_round_up(1, PAGE), PAGE);
	assert_int_equal(pages_round_up(PAGE, PAGE), PAGE);
	assert_int_equal(pages_round_up(PAGE + 1, PAGE), 2 * PAGE);
	assert_int_equal(pages_round_up(5, 3), 6);
	assert_int_equal(pages_round_up(UINT64_MAX - 1, PAGE), 0); /* overflow */
}

/* ---- NCCL layout ------------------------------------------------------ */

static void test_nccl_connection_bytes(void **state)
{
	(void)state;
	struct nccl_layout l = { .channels = 1, .peers = 1, .buffsize = NCCL_BUFFSIZE_DEFAULT };
	assert_int_equal(nccl_layout_proto_bytes(&l, NCCL_PROTO_LL, PAGE), 524288);
	assert_int_equal(nccl_layout_proto_bytes(&l, NCCL_PROTO_LL128, PAGE), 4915200);
	assert_int_equal(nccl_layout_proto_bytes(&l, NCCL_PROTO_SIMPLE, PAGE), 4194304);
	/* 512 KiB + 4,915,200 + 4 MiB = 9,633,792 B, the "9.2 MiB" of docs/design.md section 4 */
	assert_int_equal(nccl_layout_conn_bytes(&l, PAGE), 9633792);
	char buf[32];
	assert_string_equal(fmt_bytes(nccl_layout_conn_bytes(&l, PAGE), buf, sizeof(buf)), "9.2 MiB");
}

static void test_nccl_totals(void **state)
{
	(void)state;
	struct nccl_layout l = { .channels = 2, .peers = 1, .buffsize = NCCL_BUFFSIZE_DEFAULT };
	assert_int_equal(nccl_layout_connections(&l), 4); /* 2 channels x (send + recv) */
	assert_int_equal(nccl_layout_total_bytes(&l, PAGE), 4 * 9633792ull);
	assert_int_equal(nccl_layout_host_bytes(&l, PAGE), 4 * 9633792ull);

	l = (struct nccl_layout){ .channels = 4, .peers = 2, .buffsize = NCCL_BUFFSIZE_DEFAULT };
	assert_int_equal(nccl_layout_connections(&l), 16);
	assert_int_equal(nccl_layout_total_bytes(&l, PAGE), 154140672ull); /* 147 MiB */

	/* With GDR only LL stays in pinned host memory. */
	l.gdr = true;
	assert_int_equal(nccl_layout_host_bytes(&l, PAGE), 16 * 524288ull);
	assert_int_equal(nccl_layout_total_bytes(&l, PAGE), 154140672ull);
	assert_true(nccl_layout_proto_on_gpu(&l, NCCL_PROTO_SIMPLE));
	assert_false(nccl_layout_proto_on_gpu(&l, NCCL_PROTO_LL));
}

static void test_nccl_buffsize_rounds_to_pages(void **state)
{
	(void)state;
	struct nccl_layout l = { .channels = 1, .peers = 1, .buffsize = MiB + 1 };
	assert_int_equal(nccl_layout_proto_bytes(&l, NCCL_PROTO_SIMPLE, PAGE), MiB + PAGE);
	l.buffsize = 8 * MiB;
	assert_int_equal(nccl_layout_conn_bytes(&l, PAGE), 524288 + 4915200 + 8 * MiB);
}

static void test_plan_nccl(void **state)
{
	(void)state;
	struct nccl_layout l = { .channels = 2, .peers = 1, .buffsize = NCCL_BUFFSIZE_DEFAULT };
	struct plan p;
	assert_int_equal(mp_plan_nccl(&p, &l, PAGE, false), 0);
	assert_int_equal(p.n, 12); /* 4 connections x 3 protocols */
	assert_int_equal(p.skipped_gpu, 0);
	assert_int_equal(mp_plan_bytes(&p), 4 * 9633792ull);
	assert_string_equal(p.v[0].label, "ch0 peer0 send LL");
	assert_string_equal(p.v[4].label, "ch0 peer0 recv LL128");
	assert_string_equal(p.v[11].label, "ch1 peer0 recv Simple");
	mp_plan_free(&p);

	l.gdr = true;
	assert_int_equal(mp_plan_nccl(&p, &l, PAGE, false), 0);
	assert_int_equal(p.n, 4); /* only LL: the rest is GPU memory */
	assert_int_equal(p.skipped_gpu, 8);
	assert_int_equal(mp_plan_bytes(&p), 4 * 524288ull);
	mp_plan_free(&p);

	assert_int_equal(mp_plan_nccl(&p, &l, PAGE, true), 0);
	assert_int_equal(p.n, 12);
	assert_false(p.v[0].on_gpu);
	assert_true(p.v[1].on_gpu);
	mp_plan_free(&p);
}

static void test_plan_sized(void **state)
{
	(void)state;
	struct plan p;
	assert_int_equal(mp_plan_sized(&p, 9646899, 64), 0);
	assert_int_equal(p.n, 64);
	assert_int_equal(mp_plan_bytes(&p), 64 * 9646899ull);
	mp_plan_free(&p);
}

/* ---- options ---------------------------------------------------------- */

/* Parses a NULL-terminated argument list quietly: returns argp's result. */
static int parse(struct mrprobe_opts *o, ...)
{
	char *argv[32] = { "mrprobe" };
	int argc = 1;
	va_list ap;
	va_start(ap, o);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	return mp_opts_parse(argc, argv, ARGP_NO_EXIT | ARGP_NO_ERRS, o);
}

static void test_size_parsing(void **state)
{
	(void)state;
	struct mrprobe_opts o;
	assert_int_equal(parse(&o, NULL), 0);
	assert_false(o.nccl_probe);
	assert_int_equal(parse(&o, "--nccl-probe", "--mem", "vvar", NULL), 0);
	assert_true(o.nccl_probe);
	assert_int_equal(o.mem, MEM_VVAR);
	assert_int_equal(parse(&o, NULL), 0);
	assert_int_equal(o.size, 16 * MiB);
	assert_int_equal(o.count, 1);
	assert_int_equal(parse(&o, "--size", "9.2M", "--count", "64", NULL), 0);
	assert_int_equal(o.size, 9646899); /* 9.2 x 2^20, rounded */
	assert_int_equal(o.count, 64);
	assert_int_equal(parse(&o, "-s", "64K", NULL), 0);
	assert_int_equal(o.size, 65536);
	assert_int_equal(parse(&o, "--size", "65536", NULL), 0);
	assert_int_equal(o.size, 65536);
	assert_int_not_equal(parse(&o, "--size", "lots", NULL), 0);
	assert_int_not_equal(parse(&o, "--size", "unlimited", NULL), 0);
	assert_int_not_equal(parse(&o, "--count", "0", NULL), 0);
	assert_int_not_equal(parse(&o, "--count", "-3", NULL), 0);
}

static void test_nccl_options(void **state)
{
	(void)state;
	struct mrprobe_opts o;
	assert_int_equal(parse(&o, "--nccl-channels", "4", "--nccl-peers", "2", "--nccl-buffsize",
			       "8M", "--nccl-gdr", NULL), 0);
	assert_true(o.nccl_set);
	assert_int_equal(o.nccl.channels, 4);
	assert_int_equal(o.nccl.peers, 2);
	assert_int_equal(o.nccl.buffsize, 8 * MiB);
	assert_true(o.nccl.gdr);
	/* defaults: 1 channel, 1 peer, 4 MiB */
	assert_int_equal(parse(&o, "--nccl-peers", "3", NULL), 0);
	assert_int_equal(o.nccl.channels, 1);
	assert_int_equal(o.nccl.buffsize, 4 * MiB);
	/* sizes come from one place only */
	assert_int_not_equal(parse(&o, "--nccl-channels", "2", "--size", "1M", NULL), 0);
	assert_int_not_equal(parse(&o, "--nccl-channels", "0", NULL), 0);
	assert_int_not_equal(parse(&o, "--nccl-channels", "2", "--find-max", NULL), 0);
}

static void test_api_and_memory_rules(void **state)
{
	(void)state;
	struct mrprobe_opts o;
	assert_int_equal(parse(&o, NULL), 0);
	assert_int_equal(o.api, API_IOVA2); /* NCCL's call, the one in its warning */
	assert_int_equal(o.mem, MEM_ANON);
	assert_int_equal(parse(&o, "--api", "reg_mr", NULL), 0);
	assert_int_equal(o.api, API_REG_MR);
	assert_int_equal(parse(&o, "--api", "ibv_reg_mr_iova2", NULL), 0);
	assert_int_equal(o.api, API_IOVA2);
	assert_int_not_equal(parse(&o, "--api", "verbs", NULL), 0);

	/* dma-buf sources imply --api dmabuf and refuse the others */
	assert_int_equal(parse(&o, "--mem", "udmabuf", NULL), 0);
	assert_int_equal(o.api, API_DMABUF);
	assert_int_not_equal(parse(&o, "--mem", "udmabuf", "--api", "iova2", NULL), 0);
	assert_int_not_equal(parse(&o, "--api", "dmabuf", NULL), 0);
	assert_int_equal(parse(&o, "--gpu", "--api", "dmabuf", NULL), 0);
	assert_int_equal(o.mem, MEM_GPU);

	/* NCCL's init probe: ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) */
	assert_int_equal(parse(&o, "--dmabuf-fd", "-1", NULL), 0);
	assert_int_equal(o.mem, MEM_DMABUF_FD);
	assert_int_equal(o.dmabuf_fd, -1);
	assert_int_equal(o.api, API_DMABUF);
	assert_int_equal(o.size, 0);
	assert_int_equal(mp_opts_access(&o), 0);
	assert_int_not_equal(parse(&o, "--dmabuf-fd", "-1", "--mem", "anon", NULL), 0);
	assert_int_not_equal(parse(&o, "--mem", "anon", "--dmabuf-fd", "3", NULL), 0);
	assert_int_not_equal(parse(&o, "--dmabuf-fd", "-2", NULL), 0);

	assert_int_equal(parse(&o, "--mem", "prot-none", NULL), 0);
	assert_int_equal(o.mem, MEM_PROT_NONE);
	assert_int_not_equal(parse(&o, "--mem", "tmpfs", NULL), 0);

	/* ibv_reg_mr has no iova to shift */
	assert_int_equal(parse(&o, "--iova-offset", "16", NULL), 0);
	assert_int_equal(o.iova_offset, 16);
	assert_int_equal(parse(&o, "--iova-offset", "-0x10", NULL), 0);
	assert_int_equal(o.iova_offset, -16);
	assert_int_not_equal(parse(&o, "--api", "reg_mr", "--iova-offset", "16", NULL), 0);

	assert_int_not_equal(parse(&o, "--offset", "16", "--mem", "malloc", NULL), 0);
	assert_int_not_equal(parse(&o, "--find-max", "--count", "2", NULL), 0);
	assert_int_not_equal(parse(&o, "--find-max", "--mem", "udmabuf", NULL), 0);
}

static void test_privilege_and_misc_options(void **state)
{
	(void)state;
	struct mrprobe_opts o;
	assert_int_equal(parse(&o, "--memlock", "40M", "--as-nobody", "--drop-ipc-lock", "--thread",
			       "--hold", "2.5", "--json", "-d", "rxe0", NULL), 0);
	assert_true(o.memlock_set);
	assert_int_equal(o.memlock, 40 * MiB);
	assert_true(o.as_nobody && o.drop_ipc_lock && o.thread && o.json);
	assert_true(o.hold > 2.4 && o.hold < 2.6);
	assert_string_equal(o.device, "rxe0");
	assert_int_equal(parse(&o, "--memlock", "unlimited", NULL), 0);
	assert_true(o.memlock == UINT64_MAX);
	assert_int_equal(parse(&o, "--memlock", "0", NULL), 0);
	assert_int_equal(o.memlock, 0);
	assert_int_not_equal(parse(&o, "--hold", "-1", NULL), 0);
	assert_int_not_equal(parse(&o, "--no-such-option", NULL), 0);
	assert_int_not_equal(parse(&o, "stray", NULL), 0);
}

/* ---- access flags ----------------------------------------------------- */

static void test_access_parse(void **state)
{
	(void)state;
	unsigned a;
	const char *bad;
	assert_int_equal(mp_access_parse("remote-write", &a, &bad), 0);
	assert_int_equal(a, IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(mp_access_parse("local-write,remote-write,remote-read", &a, &bad), 0);
	assert_int_equal(a, ACCESS_NCCL);
	assert_int_equal(ACCESS_NCCL, 0x7);
	assert_int_equal(mp_access_parse("LOCAL_WRITE|Remote_Atomic", &a, &bad), 0);
	assert_int_equal(a, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(mp_access_parse("relaxed-ordering", &a, &bad), 0);
	assert_int_equal(a, IBV_ACCESS_RELAXED_ORDERING);
	assert_int_equal(mp_access_parse("0x7", &a, &bad), 0);
	assert_int_equal(a, 7);
	assert_int_equal(mp_access_parse("0x80000000", &a, &bad), 0); /* unknown bits pass */
	assert_int_equal(a, 0x80000000u);
	assert_int_equal(mp_access_parse("none", &a, &bad), 0);
	assert_int_equal(a, 0);
	assert_int_equal(mp_access_parse("local-write,bogus", &a, &bad), -1);
	assert_string_equal(bad, "bogus");
	assert_int_equal(mp_access_parse("", &a, &bad), -1);
	assert_int_equal(mp_access_parse("0x1zz", &a, &bad), -1);
}

static void test_access_format(void **state)
{
	(void)state;
	char buf[160];
	assert_string_equal(mp_access_format(ACCESS_NCCL, buf, sizeof(buf)),
			    "LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ");
	assert_string_equal(mp_access_format(IBV_ACCESS_REMOTE_WRITE, buf, sizeof(buf)), "REMOTE_WRITE");
	assert_string_equal(mp_access_format(0, buf, sizeof(buf)), "0x0");
	assert_string_equal(mp_access_format(IBV_ACCESS_LOCAL_WRITE | 0x40000000u, buf, sizeof(buf)),
			    "LOCAL_WRITE|0x40000000");
	char tiny[8];
	mp_access_format(ACCESS_NCCL, tiny, sizeof(tiny)); /* truncates, never overflows */
	assert_int_equal(strlen(tiny), 7);
}

static void test_effective_access(void **state)
{
	(void)state;
	struct mrprobe_opts o;
	assert_int_equal(parse(&o, NULL), 0);
	assert_int_equal(mp_opts_access(&o), ACCESS_NCCL);
	assert_int_equal(parse(&o, "--relaxed-ordering", "--remote-atomic", NULL), 0);
	assert_int_equal(mp_opts_access(&o),
			 ACCESS_NCCL | IBV_ACCESS_RELAXED_ORDERING | IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(parse(&o, "--access", "remote-write", NULL), 0);
	assert_int_equal(mp_opts_access(&o), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(parse(&o, "--access", "0x3", "--remote-atomic", NULL), 0);
	assert_int_equal(mp_opts_access(&o), 0xb);
	assert_int_not_equal(parse(&o, "--access", "write", NULL), 0);
}

/* ---- find-max --------------------------------------------------------- */

/* A fake registration: fails with ENOMEM once pinned + pages exceeds the
 * limit, like ib_umem_get's memlock check; counts its calls. */
struct fake {
	uint64_t limit_pages;
	uint64_t pinned_pages;
	int err;
	unsigned calls;
};

static bool fake_try(void *ctx, uint64_t pages, int *err)
{
	struct fake *f = ctx;
	f->calls++;
	if (f->pinned_pages + pages > f->limit_pages) {
		*err = f->err;
		return false;
	}
	return true;
}

static unsigned log2_ceil(uint64_t v)
{
	unsigned n = 0;
	while ((1ull << n) < v)
		n++;
	return n;
}

static void test_find_max_exact(void **state)
{
	(void)state;
	/* 40 MiB = 10240 pages, the VM case's limit, and awkward neighbours. */
	const uint64_t limits[] = { 1, 2, 3, 5, 1023, 1024, 1025, 10239, 10240, 10241, 12345, 262143 };
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct fake f = { .limit_pages = limits[i], .err = ENOMEM };
		struct findmax_result r;
		assert_int_equal(mp_findmax_run(1u << 20, fake_try, &f, &r), 0);
		assert_int_equal(r.max_pages, limits[i]);
		assert_int_equal(r.fail_pages, limits[i] + 1);
		assert_int_equal(r.fail_errno, ENOMEM);
		assert_false(r.hit_cap);
		assert_int_equal(r.trials, f.calls);
		assert_true(r.trials <= 2 * log2_ceil(limits[i] + 1) + 2);
	}
}

static void test_find_max_minds_pinned_pages(void **state)
{
	(void)state;
	/* 100 pages already pinned by the process: 10140 more fit under 40 MiB. */
	struct fake f = { .limit_pages = 10240, .pinned_pages = 100, .err = ENOMEM };
	struct findmax_result r;
	assert_int_equal(mp_findmax_run(1u << 20, fake_try, &f, &r), 0);
	assert_int_equal(r.max_pages, 10140);
	assert_int_equal(r.max_pages + f.pinned_pages, 10240);
}

static void test_find_max_nothing_fits(void **state)
{
	(void)state;
	/* RLIMIT_MEMLOCK 0 without CAP_IPC_LOCK: EPERM at the first page. */
	struct fake f = { .limit_pages = 0, .err = EPERM };
	struct findmax_result r;
	assert_int_equal(mp_findmax_run(1000, fake_try, &f, &r), 0);
	assert_int_equal(r.max_pages, 0);
	assert_int_equal(r.fail_pages, 1);
	assert_int_equal(r.fail_errno, EPERM);
	assert_int_equal(r.trials, 1);
}

static void test_find_max_cap(void **state)
{
	(void)state;
	struct findmax_result r;
	/* Nothing fails below the cap (root with CAP_IPC_LOCK). */
	struct fake f = { .limit_pages = UINT64_MAX / 2, .err = ENOMEM };
	assert_int_equal(mp_findmax_run(3000, fake_try, &f, &r), 0);
	assert_true(r.hit_cap);
	assert_int_equal(r.max_pages, 3000);
	assert_int_equal(r.fail_errno, 0);
	/* The limit is exactly the cap, and the cap a power of two. */
	f = (struct fake){ .limit_pages = 4096, .err = ENOMEM };
	assert_int_equal(mp_findmax_run(4096, fake_try, &f, &r), 0);
	assert_true(r.hit_cap);
	assert_int_equal(r.max_pages, 4096);
	/* One below the cap. */
	f = (struct fake){ .limit_pages = 2999, .err = ENOMEM };
	assert_int_equal(mp_findmax_run(3000, fake_try, &f, &r), 0);
	assert_false(r.hit_cap);
	assert_int_equal(r.max_pages, 2999);
	assert_int_equal(mp_findmax_run(0, fake_try, &f, &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malloc_16mib_pins_4097_pages),
		cmocka_unit_test(test_pages_edges),
		cmocka_unit_test(test_round_up),
		cmocka_unit_test(test_nccl_connection_bytes),
		cmocka_unit_test(test_nccl_totals),
		cmocka_unit_test(test_nccl_buffsize_rounds_to_pages),
		cmocka_unit_test(test_plan_nccl),
		cmocka_unit_test(test_plan_sized),
		cmocka_unit_test(test_size_parsing),
		cmocka_unit_test(test_nccl_options),
		cmocka_unit_test(test_api_and_memory_rules),
		cmocka_unit_test(test_privilege_and_misc_options),
		cmocka_unit_test(test_access_parse),
		cmocka_unit_test(test_access_format),
		cmocka_unit_test(test_effective_access),
		cmocka_unit_test(test_find_max_exact),
		cmocka_unit_test(test_find_max_minds_pinned_pages),
		cmocka_unit_test(test_find_max_nothing_fits),
		cmocka_unit_test(test_find_max_cap),
	};
	return cmocka_run_group_tests_name("mrprobe", tests, NULL, NULL);
}
