// SPDX-License-Identifier: GPL-2.0-only
/* test_modwatch.c - the pure part of "sites follow the kernel"
 * (user/tracer/modwatch.c): which modules of /proc/modules matter, what
 * changed between two looks (a module still loading is no load yet; one
 * unloading is gone), and which sites a re-plan armed and detached. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tracer/modwatch.h"
#include "tracer/rearm.h"

/* /proc/modules as 6.12 shows it, trimmed: rdma_rxe still loading */
static const char *const coming =
	"dummy 12288 0 - Live 0xffffffffc0a4e000\n"
	"rdma_rxe 200704 0 - Loading 0xffffffffc0b00000\n"
	"ib_uverbs 200704 1 rdma_rxe, Live 0xffffffffc0a10000\n"
	"ip6_udp_tunnel 16384 1 rdma_rxe, Live 0xffffffffc09f0000\n"
	"ib_core 499712 2 rdma_rxe,ib_uverbs, Live 0xffffffffc0960000\n"
	"my_vendor_drv 4096 0 - Live 0xffffffffc0900000"; /* no final newline */

static void parse_keeps_relevant(void **state)
{
	struct modwatch_set s;

	(void)state;
	assert_int_equal(modwatch_parse(&s, coming, NULL, 0), 3);
	assert_string_equal(s.mods[0].name, "rdma_rxe");
	assert_int_equal(s.mods[0].state, MODWATCH_COMING);
	assert_string_equal(s.mods[1].name, "ib_uverbs");
	assert_int_equal(s.mods[1].state, MODWATCH_LIVE);
	assert_string_equal(s.mods[2].name, "ib_core");
	assert_true(modwatch_settling(&s));
	/* a module an armed site was found in is relevant too */
	const char *extra[] = { "my_vendor_drv" };
	assert_int_equal(modwatch_parse(&s, coming, extra, 1), 4);
	assert_string_equal(s.mods[3].name, "my_vendor_drv");
	assert_int_equal(s.mods[3].state, MODWATCH_LIVE);
	assert_false(modwatch_relevant("dummy", extra, 1));
	assert_true(modwatch_relevant("mlx5_ib", NULL, 0));
	assert_int_equal(modwatch_parse(&s, "", NULL, 0), 0);
	assert_false(modwatch_settling(&s));
}

static void diff_waits_for_live(void **state)
{
	struct modwatch_set before, during, after, gone;
	struct modwatch_change c[8];

	(void)state;
	modwatch_parse(&before, "dummy 1 0 - Live 0x0\n", NULL, 0);
	modwatch_parse(&during, coming, NULL, 0);
	/* ib_core and ib_uverbs are live: loads; rdma_rxe is not yet */
	assert_int_equal(modwatch_diff(&before, &during, c, 8), 2);
	assert_string_equal(c[0].name, "ib_uverbs");
	assert_int_equal(c[0].kind, MODWATCH_LOADED);
	assert_string_equal(c[1].name, "ib_core");
	modwatch_parse(&after,
		       "rdma_rxe 1 0 - Live 0x0\nib_uverbs 1 1 rdma_rxe, Live 0x0\n"
		       "ib_core 1 2 rdma_rxe,ib_uverbs, Live 0x0\n",
		       NULL, 0);
	assert_false(modwatch_settling(&after));
	assert_int_equal(modwatch_diff(&during, &after, c, 8), 1);
	assert_string_equal(c[0].name, "rdma_rxe");
	assert_int_equal(c[0].kind, MODWATCH_LOADED);
	assert_int_equal(modwatch_diff(&after, &after, c, 8), 0);
	/* rdma_rxe unloading, ib_uverbs gone: both unloaded */
	modwatch_parse(&gone, "rdma_rxe 1 0 - Unloading 0x0\nib_core 1 0 - Live 0x0\n", NULL, 0);
	assert_int_equal(modwatch_diff(&after, &gone, c, 8), 2);
	assert_string_equal(c[0].name, "rdma_rxe");
	assert_int_equal(c[0].kind, MODWATCH_UNLOADED);
	assert_string_equal(c[1].name, "ib_uverbs");
	assert_int_equal(c[1].kind, MODWATCH_UNLOADED);
	/* came and went between two looks: nothing; max is honoured */
	assert_int_equal(modwatch_diff(&before, &before, c, 8), 0);
	assert_int_equal(modwatch_diff(&before, &after, c, 1), 1);
}

static struct tracer_site site(const char *name, const char *func, enum mech m, const char *mod)
{
	struct tracer_site s = { .name = name, .func = func, .mech = m };

	strcpy(s.module, mod);
	return s;
}

static void site_changes(void **state)
{
	struct tracer_site before[4] = {
		site("reg_mr", "ib_uverbs_reg_mr", MECH_NONE, ""),
		site("cap_ipc_lock", "capable", MECH_FENTRY, "vmlinux"),
		site("rxe_reg", "rxe_reg_user_mr", MECH_KPROBE, "rdma_rxe"),
		site("pin", "pin_user_pages_fast", MECH_FENTRY, "vmlinux"),
	};
	struct tracer_site after[4] = {
		site("reg_mr", "ib_uverbs_reg_mr", MECH_FENTRY, "ib_uverbs"),
		site("cap_ipc_lock", "capable", MECH_FENTRY, "vmlinux"),
		site("rxe_reg", "rxe_reg_user_mr", MECH_FENTRY, "rdma_rxe"),
		site("pin", "pin_user_pages_fast", MECH_NONE, "vmlinux"),
	};
	struct modwatch_site armed[4], detached[4];
	int na, nd;

	(void)state;
	modwatch_site_changes(before, after, 4, armed, &na, detached, &nd);
	/* reg_mr new; rxe_reg moved from kprobe to fentry (both); pin gone */
	assert_int_equal(na, 2);
	assert_string_equal(armed[0].name, "reg_mr");
	assert_int_equal(armed[0].mech, MECH_FENTRY);
	assert_string_equal(armed[0].module, "ib_uverbs");
	assert_string_equal(armed[1].name, "rxe_reg");
	assert_int_equal(nd, 2);
	assert_string_equal(detached[0].name, "rxe_reg");
	assert_int_equal(detached[0].mech, MECH_KPROBE);
	assert_string_equal(detached[1].name, "pin");
	/* the same plan again: nothing */
	modwatch_site_changes(after, after, 4, armed, &na, detached, &nd);
	assert_int_equal(na + nd, 0);
}

/* A module whose trampoline test the kernel refused with ENXIO is still
 * coming up: decided by the errno, whatever the text says (a refusal
 * whose text happens to read like ENXIO's is not; one in another module
 * is no reason either). */
static void settling_by_errno(void **state)
{
	static struct tracer_facts f;
	struct tracer_func_facts *ff = &f.funcs[0];

	(void)state;
	memset(&f, 0, sizeof(f));
	f.module_btf = false; /* no /sys/kernel/btf lookups */
	f.nfuncs = 1;
	snprintf(ff->name, sizeof(ff->name), "irdma_reg_user_mr");
	ff->in_kallsyms = true;
	snprintf(ff->ksym_module, sizeof(ff->ksym_module), "irdma");
	ff->tramp = TRAMP_REFUSED;
	ff->tramp_errno = ENXIO;
	snprintf(ff->tramp_why, sizeof(ff->tramp_why), "fexit attach refused");
	assert_true(tracer_rearm_settling(&f, "irdma"));
	assert_true(tracer_rearm_settling(&f, "rdma_rxe, irdma"));
	assert_false(tracer_rearm_settling(&f, "rdma_rxe"));
	assert_false(tracer_rearm_settling(&f, "irdma_x"));

	ff->tramp_errno = EPERM;
	snprintf(ff->tramp_why, sizeof(ff->tramp_why), "fexit attach refused: %s", strerror(ENXIO));
	assert_false(tracer_rearm_settling(&f, "irdma"));
	ff->tramp = TRAMP_OK;
	ff->tramp_errno = 0;
	assert_false(tracer_rearm_settling(&f, "irdma"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_keeps_relevant),
		cmocka_unit_test(diff_waits_for_live),
		cmocka_unit_test(site_changes),
		cmocka_unit_test(settling_by_errno),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
