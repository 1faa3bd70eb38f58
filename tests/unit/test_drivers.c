// SPDX-License-Identifier: GPL-2.0-only
/* test_drivers.c - the driver tables (user/drivers/): each is whole and
 * agrees with the BPF object and the other tables, and the readers that
 * used to carry driver names of their own (the GPU facts, check's
 * inventory, the module watcher, the user-stack attribution) answer from
 * them.  A new driver's table passes these or says which line it lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/libbpf.h>

#include "drivers/driver.h"
#include "tracer/modwatch.h"
#include "tracer/plan.h"
#include "tracer/sites.h"
#include "regpath.skel.h"

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && !strcmp(s + n - k, tail);
}

/* Every program a driver's site names is in the registration path's
 * object, by that name: a table line without its DRIVER_REG_PROGS line in
 * bpf/regpath/driver.bpf.c fails here, not on a node. */
static void every_site_has_its_programs(void **state)
{
	size_t size = 0;
	const void *elf = regpath_bpf__elf_bytes(&size);
	struct bpf_object *obj = bpf_object__open_mem(elf, size, NULL);
	int checked = 0;

	(void)state;
	assert_non_null(obj);
	for (int i = 0; i < rdma_n_drivers; i++) {
		const struct rdma_driver *d = rdma_drivers[i];
		for (int k = 0; k < d->nsites; k++) {
			const struct tracer_site_def *s = &d->sites[k];
			const char *progs[4] = { s->fentry, s->fexit, s->kprobe, s->kretprobe };
			int named = 0;
			for (int p = 0; p < 4; p++) {
				if (!progs[p])
					continue;
				named++;
				if (!bpf_object__find_program_by_name(obj, progs[p]))
					fail_msg("%s: site %s names program %s, not in the object",
						 d->name, s->name, progs[p]);
				checked++;
			}
			/* a module function is armed by kprobe: every site has one */
			if (!s->kretprobe && !s->kprobe)
				fail_msg("%s: site %s has no kprobe flavour", d->name, s->name);
			assert_true(named > 0);
		}
	}
	bpf_object__close(obj);
	assert_true(checked >= 2 * 10);
}

/* Each table is whole: a name, modules, a provider, sites named after the
 * driver; a hardware driver says what its device is bound to, a software
 * one how its devices are named; dma-buf support and a dma-buf site go
 * together. */
static void every_table_is_whole(void **state)
{
	(void)state;
	assert_true(rdma_n_drivers >= 6);
	for (int i = 0; i < rdma_n_drivers; i++) {
		const struct rdma_driver *d = rdma_drivers[i];
		bool dmabuf_site = false;

		assert_non_null(d->name);
		assert_non_null(d->device);
		assert_non_null(d->modules[0]);
		assert_non_null(d->provider);
		if (!d->soft_prefix == !d->bound[0])
			fail_msg("%s: exactly one of soft_prefix (software) and bound (hardware)",
				 d->name);
		assert_true(d->nsites >= 1);
		for (int k = 0; k < d->nsites; k++) {
			const char *n = d->sites[k].name;
			if (strncmp(n, d->name, strlen(d->name)) || n[strlen(d->name)] != '_')
				fail_msg("%s: site %s is not named after its driver", d->name, n);
			dmabuf_site |= ends_with(d->sites[k].func, "_dmabuf");
			assert_false(d->sites[k].opener); /* nested: the uverbs site opens */
		}
		if (dmabuf_site != d->dmabuf)
			fail_msg("%s: dmabuf %d but %s dma-buf site", d->name, d->dmabuf,
				 dmabuf_site ? "a" : "no");
	}
}

/* The site table with the drivers' in it: names unique and within
 * list-probes' 18-wide column, the drivers' after the pinning entry's and
 * before the peer-memory lookup, and room in a plan for all of them with
 * the syscall, libibverbs and modules sites. */
static void the_site_table_holds_them(void **state)
{
	int n = tracer_n_reg_sites(), at_rxe = -1, at_umem = -1, at_peer = -1, drv = 0;

	(void)state;
	for (int i = 0; i < rdma_n_drivers; i++)
		drv += rdma_drivers[i]->nsites;
	for (int i = 0; i < n; i++) {
		const struct tracer_site_def *s = tracer_reg_site(i);
		assert_non_null(s);
		assert_true(strlen(s->name) <= 18);
		for (int k = 0; k < i; k++)
			if (!strcmp(tracer_reg_site(k)->name, s->name))
				fail_msg("site %s twice (%d and %d)", s->name, k, i);
		at_rxe = !strcmp(s->name, "rxe_reg") ? i : at_rxe;
		at_umem = !strcmp(s->name, "umem_get") ? i : at_umem;
		at_peer = !strcmp(s->name, "peer_get") ? i : at_peer;
	}
	assert_null(tracer_reg_site(n));
	assert_null(tracer_reg_site(-1));
	assert_true(at_umem >= 0 && at_umem < at_rxe && at_rxe + drv <= at_peer);
	assert_string_equal(tracer_reg_site(at_rxe + 1)->name, "mlx5_reg");
	assert_true(n + tracer_n_sys_sites + 2 <= TRACER_MAX_SITES);
}

/* What a device's `device/driver` link or a software device's name says. */
static void devices_find_their_driver(void **state)
{
	(void)state;
	assert_string_equal(rdma_driver_named("mlx5_core")->name, "mlx5");
	assert_string_equal(rdma_driver_named("ice")->name, "irdma");
	assert_string_equal(rdma_driver_named("i40e")->name, "irdma");
	assert_string_equal(rdma_driver_named("bnxt_en")->name, "bnxt_re");
	assert_string_equal(rdma_driver_named("efa")->name, "efa");
	/* what inventory writes for a software device reads back */
	assert_string_equal(rdma_driver_named("rdma_rxe")->name, "rxe");
	assert_string_equal(rdma_driver_named("siw")->name, "siw");
	assert_null(rdma_driver_named("e1000e"));
	assert_null(rdma_driver_named("mlx5_ib")); /* a module, not a bound driver */
	assert_null(rdma_driver_named(""));
	assert_null(rdma_driver_named(NULL));
	assert_string_equal(rdma_driver_soft("rxe0", "")->name, "rxe");
	assert_string_equal(rdma_driver_soft("roce_a", "rxe on dummy0")->name, "rxe");
	assert_string_equal(rdma_driver_soft("siw_eth0", NULL)->name, "siw");
	assert_null(rdma_driver_soft("mlx5_0", "node1 HCA-1"));
	assert_true(rdma_driver_named("mlx5_core")->dmabuf);
	assert_false(rdma_driver_named("rdma_rxe")->dmabuf);
}

/* The module watcher re-plans for every module a driver's site lives in;
 * the user-stack attribution skips every provider library. */
static void modules_and_providers(void **state)
{
	const char *mods = "irdma 1 0 - Live 0x0\nbnxt_re 1 0 - Live 0x0\nefa 1 0 - Live 0x0\n"
			   "mlx5_core 1 0 - Live 0x0\nice 1 1 irdma, Live 0x0\nnvme 1 0 - Live 0x0\n";
	struct modwatch_set s;

	(void)state;
	for (int i = 0; i < rdma_n_drivers; i++)
		for (int k = 0; k < RDMA_DRIVER_NAMES && rdma_drivers[i]->modules[k]; k++)
			assert_true(modwatch_relevant(rdma_drivers[i]->modules[k], NULL, 0));
	assert_int_equal(modwatch_parse(&s, mods, NULL, 0), 4);
	assert_false(modwatch_relevant("ice", NULL, 0)); /* no site of ours is in ice */
	assert_true(rdma_driver_provider("libirdma-rdmav34.so"));
	assert_true(rdma_driver_provider("libmlx5.so.1.25.56.0"));
	assert_true(rdma_driver_provider("libbnxt_re-rdmav34.so"));
	assert_false(rdma_driver_provider("libnccl.so.2"));
	assert_false(rdma_driver_provider(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_site_has_its_programs),
		cmocka_unit_test(every_table_is_whole),
		cmocka_unit_test(the_site_table_holds_them),
		cmocka_unit_test(devices_find_their_driver),
		cmocka_unit_test(modules_and_providers),
	};
	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
