// SPDX-License-Identifier: GPL-2.0-only
/* test_plan.c - the site planner (user/tracer/plan.c) over kernel facts read
 * from tests/fixtures/plan (recorded on real kernels) and edited here into
 * the kernels we cannot boot: which site is armed by which mechanism, and
 * what it says when it is not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "tracer/plan.h"

static struct tracer_facts facts;
static struct tracer_plan plan;

/* Reads a .facts fixture: "kernel R", "kprobes yes|no", "tracepoint NAME
 * yes|no", "func NAME KALLSYMS-MODULE BTF-MODULE ok|refused|- [WHY]". */
static void load_facts(const char *name)
{
	FILE *f = fopen(fixture_path("plan", name), "re");
	char line[512];

	assert_non_null(f);
	memset(&facts, 0, sizeof(facts));
	while (fgets(line, sizeof(line), f)) {
		char a[128], b[128], c[64], d[64], e[16];
		int why = 0;
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		if (sscanf(line, "kernel %127s", a) == 1) {
			snprintf(facts.kernel, sizeof(facts.kernel), "%s", a);
		} else if (sscanf(line, "kprobes %127s", a) == 1) {
			facts.kprobes = !strcmp(a, "yes");
		} else if (sscanf(line, "tracepoint %127s %127s", a, b) == 2) {
			struct tracer_tp_facts *tp = &facts.tps[facts.ntps++];
			snprintf(tp->name, sizeof(tp->name), "%s", a);
			tp->exists = !strcmp(b, "yes");
		} else if (sscanf(line, "func %127s %63s %63s %15s %n", a, c, d, e, &why) >= 4) {
			struct tracer_func_facts *ff = &facts.funcs[facts.nfuncs++];
			snprintf(ff->name, sizeof(ff->name), "%s", a);
			ff->in_kallsyms = strcmp(c, "-") != 0;
			if (ff->in_kallsyms)
				snprintf(ff->ksym_module, sizeof(ff->ksym_module), "%s", c);
			ff->in_btf = strcmp(d, "-") != 0;
			if (ff->in_btf)
				snprintf(ff->btf_module, sizeof(ff->btf_module), "%s", d);
			ff->tramp = !strcmp(e, "ok") ? TRAMP_OK : !strcmp(e, "refused") ? TRAMP_REFUSED
										: TRAMP_UNTRIED;
			if (why > 0)
				snprintf(ff->tramp_why, sizeof(ff->tramp_why), "%s", line + why);
		} else {
			fail_msg("%s: cannot read '%s'", name, line);
		}
	}
	fclose(f);
	assert_true(facts.nfuncs > 20);
}

static struct tracer_func_facts *func(const char *name)
{
	struct tracer_func_facts *ff = (struct tracer_func_facts *)tracer_facts_func(&facts, name);
	assert_non_null(ff);
	return ff;
}

static void drop(const char *name)
{
	struct tracer_func_facts *ff = func(name);
	ff->in_kallsyms = ff->in_btf = false;
	ff->tramp = TRAMP_UNTRIED;
}

/* Every function trampoline-refused, as on a locked-down kernel. */
static void refuse_trampolines(void)
{
	for (int i = 0; i < facts.nfuncs; i++)
		if (facts.funcs[i].tramp == TRAMP_OK) {
			facts.funcs[i].tramp = TRAMP_REFUSED;
			snprintf(facts.funcs[i].tramp_why, sizeof(facts.funcs[i].tramp_why),
				 "fexit load refused: Operation not permitted");
		}
}

static const struct tracer_site *site(const char *name)
{
	const struct tracer_site *s = tracer_plan_site(&plan, name);
	if (!s)
		fail_msg("no site %s in the plan", name);
	return s;
}

static void assert_site(const char *name, enum mech m, const char *module, const char *note)
{
	const struct tracer_site *s = site(name);
	if (s->mech != m || strcmp(s->module, module) || (note && !strstr(s->note, note)))
		fail_msg("%s: %s in '%s', note '%s'; expected %s in '%s', note with '%s'", name,
			 tracer_mech_name(s->mech), s->module, s->note, tracer_mech_name(m), module,
			 note ? note : "");
}

/* The restricted host (no RDMA, no kprobes, fentry refused) arms nothing on
 * the registration path, and every site says why: exactly what mrtrace
 * printed there before the planner was split out. */
static void restricted_host_arms_nothing_and_says_why(void **state)
{
	FILE *f = fopen(fixture_path("plan", "restricted-6.18.sites"), "re");
	char want[512], got[512];
	int rows = 0;

	(void)state;
	assert_non_null(f);
	load_facts("restricted-6.18.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true), 0);
	assert_int_equal(tracer_plan_armed(&plan, false), 0);
	assert_site("cap_ipc_lock", MECH_NONE, "vmlinux",
		    "fexit load refused: Operation not permitted; kprobes not supported by this "
		    "kernel");
	assert_site("umem_get", MECH_NONE, "",
		    "neither ib_umem_get nor ib_umem_get_va is in this kernel");
	assert_site("migrate", MECH_NONE, "tracepoint", "no registration entry site");
	while (fgets(want, sizeof(want), f)) {
		if (want[0] == '#')
			continue;
		const struct tracer_site *s = &plan.sites[rows++];
		snprintf(got, sizeof(got), "%-16s %-10s %-10s %s%s%s\n", s->name,
			 s->mech == MECH_NONE ? "no" : tracer_mech_name(s->mech),
			 s->module[0] ? s->module : "-", s->func, s->note[0] ? ": " : "", s->note);
		assert_string_equal(got, want);
	}
	fclose(f);
	assert_int_equal(rows, plan.nreg);
	/* with nothing on the path, the syscall tracepoints stand in (auto) */
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_int_equal(plan.nsys, 5);
	assert_site("sys_mlock", MECH_TRACEPOINT, "syscalls", "costly");
	assert_site("sys_prlimit64", MECH_TRACEPOINT, "syscalls", "costly");
}

/* Debian's 6.12 with soft-RoCE: fentry wherever a trampoline attaches,
 * kprobe where it is refused, nothing where the function is absent. */
static void kernel_612_arms_fentry_everywhere_possible(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true), 4);
	for (int i = 0; i < plan.nreg; i++) {
		const struct tracer_func_facts *ff = tracer_facts_func(&facts, plan.sites[i].func);
		if (ff && ff->tramp == TRAMP_OK && strcmp(plan.sites[i].name, "pin_gup"))
			assert_int_equal(plan.sites[i].mech, MECH_FENTRY);
	}
	assert_site("reg_mr", MECH_FENTRY, "ib_uverbs", "");
	assert_site("umem_get", MECH_FENTRY, "ib_uverbs", "");
	assert_string_equal(site("umem_get")->note, "");
	assert_site("cap_ipc_lock", MECH_FENTRY, "vmlinux", "");
	assert_site("rxe_reg", MECH_FENTRY, "rdma_rxe", "");
	assert_site("rdmacg", MECH_FENTRY, "ib_core", "");
	assert_site("mlx5_reg", MECH_NONE, "", "not in this kernel");
	assert_site("migrate", MECH_TRACEPOINT, "tracepoint", "");
	/* eight arguments: the trampoline is refused, a kprobe is planned */
	assert_site("sg_alloc", MECH_KPROBE, "vmlinux", "fexit");
	/* with openers armed, the costly syscall tracepoints stay off (auto) */
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_site("sys_mlock", MECH_NONE, "syscalls", "enable with --syscalls=on");
}

/* fentry refused but kprobes supported: each site falls back to its
 * kprobe flavour and says why; sites without one stay unarmed. */
static void fentry_refused_falls_back_to_kprobes(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe.facts");
	refuse_trampolines();
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true), 4);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", "fexit load refused");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", "fexit load refused");
	assert_site("rxe_reg", MECH_KPROBE, "rdma_rxe", "fexit load refused");
	assert_site("iova", MECH_NONE, "vmlinux",
		    "fexit load refused: Operation not permitted; no kprobe flavour for this site");
	/* the retry after a failed load ignores the trampoline facts */
	load_facts("debian-6.12-rxe.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, false), 4);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", NULL);
	assert_string_equal(site("reg_mr")->note, "");
	assert_site("iova", MECH_NONE, "vmlinux", "no kprobe flavour for this site");
	/* and without kprobes either, nothing at all */
	facts.kprobes = false;
	refuse_trampolines();
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true), 0);
	assert_site("reg_mr", MECH_NONE, "ib_uverbs", "kprobes not supported by this kernel");
}

/* MLNX_OFED's modules rarely carry BTF: a function only in kallsyms gets a
 * kprobe, found in its module; a trampoline is armed only once proven. */
static void kallsyms_only_function_gets_a_kprobe(void **state)
{
	struct tracer_func_facts *peer;

	(void)state;
	load_facts("debian-6.12-rxe.facts");
	peer = func("ib_peer_umem_get");
	peer->in_kallsyms = true;
	snprintf(peer->ksym_module, sizeof(peer->ksym_module), "ib_core");
	func("ib_uverbs_reg_mr")->tramp = TRAMP_UNTRIED;
	tracer_plan_regpath(&plan, &facts, true);
	assert_site("peer_get", MECH_KPROBE, "ib_core", "");
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", "");
}

/* ib_umem_get gone, ib_umem_get_va there: the site arms the other name. */
static void missing_function_uses_its_other_name(void **state)
{
	struct tracer_func_facts *va;

	(void)state;
	load_facts("debian-6.12-rxe.facts");
	va = func("ib_umem_get_va");
	assert_false(va->in_kallsyms || va->in_btf);
	*va = *func("ib_umem_get");
	snprintf(va->name, sizeof(va->name), "ib_umem_get_va");
	drop("ib_umem_get");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true), 4);
	assert_string_equal(site("umem_get")->func, "ib_umem_get_va");
	assert_site("umem_get", MECH_FENTRY, "ib_uverbs", "");
	/* by kprobe, too */
	refuse_trampolines();
	tracer_plan_regpath(&plan, &facts, true);
	assert_string_equal(site("umem_get")->func, "ib_umem_get_va");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", NULL);
	/* present under its usual name, the other is never looked at */
	load_facts("debian-6.12-rxe.facts");
	tracer_plan_regpath(&plan, &facts, true);
	assert_string_equal(site("umem_get")->func, "ib_umem_get");
}

/* pin_gup (get_user_pages, 5.4) is armed only where pin is not. */
static void pin_gup_only_without_pin(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe.facts");
	tracer_plan_regpath(&plan, &facts, true);
	assert_site("pin", MECH_FENTRY, "vmlinux", "");
	assert_site("pin_gup", MECH_NONE, "vmlinux",
		    "not needed: pin is armed (this kernel pins with pin_user_pages_fast)");
	/* a 5.4-like kernel: no pin_user_pages_fast */
	drop("pin_user_pages_fast");
	tracer_plan_regpath(&plan, &facts, true);
	assert_site("pin", MECH_NONE, "", "not in this kernel");
	assert_site("pin_gup", MECH_KPROBE, "vmlinux", "");
	/* pin there but unarmable: pin_gup is not held back either */
	load_facts("debian-6.12-rxe.facts");
	refuse_trampolines();
	func("pin_user_pages_fast")->in_kallsyms = false;
	tracer_plan_regpath(&plan, &facts, true);
	assert_site("pin", MECH_NONE, "vmlinux", "not in kallsyms");
	assert_site("pin_gup", MECH_KPROBE, "vmlinux", NULL);
}

/* No site that opens a trail (ib_uverbs not loaded): nested sites would
 * record nothing, so nothing on the path is armed, and they say so. */
static void no_opener_arms_nothing(void **state)
{
	static const char *const uverbs[] = { "ib_uverbs_reg_mr", "ib_uverbs_cmd_verbs",
					      "ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR",
					      "ib_umem_get" };

	(void)state;
	load_facts("debian-6.12-rxe.facts");
	for (size_t i = 0; i < sizeof(uverbs) / sizeof(uverbs[0]); i++)
		drop(uverbs[i]);
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true), 0);
	assert_int_equal(tracer_plan_armed(&plan, false), 0);
	assert_site("cap_ipc_lock", MECH_NONE, "vmlinux",
		    "not armed: no registration entry site (reg_mr, umem_get) could be armed");
	assert_site("migrate", MECH_NONE, "tracepoint", "no registration entry site");
	assert_site("umem_get", MECH_NONE, "", "neither ib_umem_get nor ib_umem_get_va");
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_site("sys_mlock", MECH_TRACEPOINT, "syscalls", NULL);
}

/* --syscalls=on and off override the automatic choice. */
static void syscalls_policy(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe.facts");
	tracer_plan_regpath(&plan, &facts, true);
	tracer_plan_syscalls(&plan, SYSCALLS_ON);
	assert_site("sys_mlock2", MECH_TRACEPOINT, "syscalls", "costly");
	load_facts("restricted-6.18.facts");
	tracer_plan_regpath(&plan, &facts, true);
	tracer_plan_syscalls(&plan, SYSCALLS_OFF);
	assert_site("sys_mlockall", MECH_NONE, "syscalls", "off (--syscalls=off)");
	tracer_plan_uprobes(&plan);
	assert_int_equal(plan.n, plan.nreg + 5 + 1);
	assert_site("libibverbs", MECH_NONE, "user", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(restricted_host_arms_nothing_and_says_why),
		cmocka_unit_test(kernel_612_arms_fentry_everywhere_possible),
		cmocka_unit_test(fentry_refused_falls_back_to_kprobes),
		cmocka_unit_test(kallsyms_only_function_gets_a_kprobe),
		cmocka_unit_test(missing_function_uses_its_other_name),
		cmocka_unit_test(pin_gup_only_without_pin),
		cmocka_unit_test(no_opener_arms_nothing),
		cmocka_unit_test(syscalls_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
