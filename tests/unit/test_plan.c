// SPDX-License-Identifier: GPL-2.0-only
/* test_plan.c - the site planner (user/tracer/plan.c) over kernel facts read
 * from tests/fixtures/plan (recorded on real kernels) and edited here into
 * the kernels we cannot boot: which candidate function of each site is armed
 * by which mechanism, typed by which BTF, and what it says when it is not;
 * and, for the recorded kernels, that the plan arms exactly what
 * `mrtrace watch --list-probes` armed there (tests/fixtures/list-probes).
 *
 * `test_plan --record FILE` writes the running kernel's facts in the
 * fixture format instead of testing (as root, in a tests/vm guest: see
 * tests/fixtures/list-probes/README.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "tracer/gather.h"
#include "tracer/plan.h"

static struct tracer_facts facts;
static struct tracer_plan plan;

/* The fixture format, one fact a line ("-" = absent/untried):
 *   kernel R | kprobes yes|no | module-btf yes|no | btf-file PATH|-
 *   feature NAME yes|no | type NAME BTF-MODULE|- file|-
 *   tracepoint NAME yes|no
 *   func NAME KALLSYMS-MODULE BTF-MODULE ok|refused|- [WHY]
 *   notrace NAME (after NAME's func line) */
static void read_facts(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[1024];

	if (!f)
		fail_msg("cannot read %s", path);
	memset(&facts, 0, sizeof(facts));
	while (fgets(line, sizeof(line), f)) {
		char a[512], b[128], c[64], d[64], e[16];
		int why = 0;
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		if (sscanf(line, "kernel %127s", a) == 1) {
			snprintf(facts.kernel, sizeof(facts.kernel), "%.127s", a);
		} else if (sscanf(line, "kprobes %127s", a) == 1) {
			facts.kprobes = !strcmp(a, "yes");
		} else if (sscanf(line, "module-btf %127s", a) == 1) {
			facts.module_btf = !strcmp(a, "yes");
		} else if (sscanf(line, "btf-file %511s", a) == 1) {
			snprintf(facts.btf_file, sizeof(facts.btf_file), "%s", strcmp(a, "-") ? a : "");
		} else if (sscanf(line, "feature %127s %127s", a, b) == 2) {
			struct tracer_feature_facts *ft = &facts.features[facts.nfeatures++];
			snprintf(ft->name, sizeof(ft->name), "%.31s", a);
			ft->present = !strcmp(b, "yes");
		} else if (sscanf(line, "type %127s %127s %63s", a, b, c) == 3) {
			struct tracer_type_facts *t = &facts.types[facts.ntypes++];
			snprintf(t->name, sizeof(t->name), "%.63s", a);
			snprintf(t->btf_module, sizeof(t->btf_module), "%.63s", strcmp(b, "-") ? b : "");
			t->in_file = !strcmp(c, "file");
		} else if (sscanf(line, "notrace %127s", a) == 1) {
			struct tracer_func_facts *ff =
				(struct tracer_func_facts *)tracer_facts_func(&facts, a);
			if (!ff)
				fail_msg("%s: notrace %s before its func line", path, a);
			ff->notrace = true;
		} else if (sscanf(line, "tracepoint %127s %127s", a, b) == 2) {
			struct tracer_tp_facts *tp = &facts.tps[facts.ntps++];
			snprintf(tp->name, sizeof(tp->name), "%.127s", a);
			tp->exists = !strcmp(b, "yes");
		} else if (sscanf(line, "func %127s %63s %63s %15s %n", a, c, d, e, &why) >= 4) {
			struct tracer_func_facts *ff = &facts.funcs[facts.nfuncs++];
			snprintf(ff->name, sizeof(ff->name), "%.127s", a);
			ff->in_kallsyms = strcmp(c, "-") != 0;
			if (ff->in_kallsyms) {
				snprintf(ff->ksym_module, sizeof(ff->ksym_module), "%s", c);
				ff->ksym_count = 1;
			}
			ff->in_btf = strcmp(d, "-") != 0;
			if (ff->in_btf)
				snprintf(ff->btf_module, sizeof(ff->btf_module), "%s", d);
			ff->tramp = !strcmp(e, "ok") ? TRAMP_OK : !strcmp(e, "refused") ? TRAMP_REFUSED
										: TRAMP_UNTRIED;
			if (why > 0)
				snprintf(ff->tramp_why, sizeof(ff->tramp_why), "%s", line + why);
		} else {
			fail_msg("%s: cannot read '%s'", path, line);
		}
	}
	fclose(f);
	assert_true(facts.nfuncs > 20);
}

static void load_facts(const char *name)
{
	read_facts(fixture_path("plan", name));
}

/* The last two components of a path ("btf/5.10.0-46-amd64.btf"): where
 * the file lies on the recording machine is no fact about the kernel. */
static const char *short_path(const char *p)
{
	const char *last = strrchr(p, '/'), *q;

	if (!last)
		return p;
	for (q = last - 1; q > p && *q != '/'; q--)
		;
	return q > p ? q + 1 : p;
}

/* test_plan --record FILE: this kernel's facts, in the format above. */
static int record(const char *path)
{
	char err[256];
	FILE *o;

	if (tracer_facts_collect(&facts, NULL, err, sizeof(err))) {
		fprintf(stderr, "test_plan: %s\n", err);
		return 1;
	}
	if (!(o = fopen(path, "we"))) {
		perror(path);
		return 1;
	}
	fprintf(o, "# Kernel facts (user/tracer/facts.h) as tracer_facts_collect() gathered them\n"
		   "# (recorded by build/tests/test_plan --record; format: test_plan.c).\n");
	fprintf(o, "kernel %s\nkprobes %s\nmodule-btf %s\nbtf-file %s\n", facts.kernel,
		facts.kprobes ? "yes" : "no", facts.module_btf ? "yes" : "no",
		facts.btf_file[0] ? short_path(facts.btf_file) : "-");
	for (int i = 0; i < facts.nfeatures; i++)
		fprintf(o, "feature %s %s\n", facts.features[i].name,
			facts.features[i].present ? "yes" : "no");
	for (int i = 0; i < facts.ntypes; i++)
		fprintf(o, "type %s %s %s\n", facts.types[i].name,
			facts.types[i].btf_module[0] ? facts.types[i].btf_module : "-",
			facts.types[i].in_file ? "file" : "-");
	for (int i = 0; i < facts.ntps; i++)
		fprintf(o, "tracepoint %s %s\n", facts.tps[i].name, facts.tps[i].exists ? "yes" : "no");
	for (int i = 0; i < facts.nfuncs; i++) {
		const struct tracer_func_facts *ff = &facts.funcs[i];
		fprintf(o, "func %s %s %s %s%s%s\n", ff->name, ff->in_kallsyms ? ff->ksym_module : "-",
			ff->in_btf ? ff->btf_module : "-",
			ff->tramp == TRAMP_OK ? "ok" : ff->tramp == TRAMP_REFUSED ? "refused" : "-",
			ff->tramp_why[0] ? " " : "", ff->tramp_why);
	}
	for (int i = 0; i < facts.nfuncs; i++)
		if (facts.funcs[i].notrace)
			fprintf(o, "notrace %s\n", facts.funcs[i].name);
	return fclose(o) ? 1 : 0;
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

#define KEEP "by kprobe: a trampoline would keep "

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
 * the registration path, and every site says why: exactly what
 * `mrtrace watch --list-probes` prints there. */
static void restricted_host_arms_nothing_and_says_why(void **state)
{
	FILE *f = fopen(fixture_path("plan", "restricted-6.18.sites"), "re");
	char want[512], got[512];
	int rows = 0;

	(void)state;
	assert_non_null(f);
	load_facts("restricted-6.18.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 0);
	assert_int_equal(tracer_plan_armed(&plan, false), 0);
	assert_site("cap_ipc_lock", MECH_NONE, "vmlinux",
		    "fexit load refused: Operation not permitted; kprobes not supported by this "
		    "kernel");
	assert_site("umem_get", MECH_NONE, "",
		    "none of ib_umem_get (5.10-6.12, in ib_uverbs), __ib_umem_get_va (7.2: static, "
		    "in ib_core, behind ib_umem_get_attr*, ib_umem_get_desc, ib_umem_get_cq_buf*), "
		    "ib_umem_get_va (part of the 2026 series that moved umem into ib_core) is in this "
		    "kernel");
	assert_site("migrate", MECH_NONE, "tracepoint", "no registration entry site");
	while (fgets(want, sizeof(want), f)) {
		if (want[0] == '#')
			continue;
		const struct tracer_site *s = &plan.sites[rows++];
		snprintf(got, sizeof(got), "%-18s %-10s %-10s %s%s%s\n", s->name,
			 s->mech == MECH_NONE ? "no" : tracer_mech_name(s->mech),
			 s->module[0] ? s->module : "-", s->func, s->note[0] ? ": " : "", s->note);
		assert_string_equal(got, want);
	}
	fclose(f);
	assert_int_equal(rows, plan.nreg);
	/* no RDMA at all here: auto arms nothing per syscall (issue 23): watch
	 * waits for an RDMA module, and says so */
	assert_false(tracer_plan_rdma_present(&plan));
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_int_equal(plan.nsys, 5);
	assert_site("sys_mlock", MECH_NONE, "syscalls",
		    "off: no RDMA on this kernel yet (no ib_uverbs, no ib_umem_get): nothing is "
		    "armed per syscall while watch waits for an RDMA module; enable with "
		    "--syscalls=on");
	assert_site("sys_prlimit64", MECH_NONE, "syscalls", "no RDMA on this kernel yet");
	assert_int_equal(tracer_plan_armed(&plan, false), 0);
}

/* Debian's 6.12 with soft-RoCE: vmlinux functions by fentry wherever a
 * trampoline attaches, kprobe where it is refused; module functions by
 * kprobe, for a trampoline would hold the module (no unload while
 * watched); nothing where the function is absent. */
static void kernel_612_arms_vmlinux_by_fentry_modules_by_kprobe(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 4);
	for (int i = 0; i < plan.nreg; i++) {
		const struct tracer_func_facts *ff = tracer_facts_func(&facts, plan.sites[i].func);
		if (!ff || !strcmp(plan.sites[i].name, "pin_gup") || plan.sites[i].mech == MECH_NONE)
			continue;
		if (strcmp(ff->ksym_module, "vmlinux"))
			assert_int_equal(plan.sites[i].mech, MECH_KPROBE);
		else if (ff->tramp == TRAMP_OK)
			assert_int_equal(plan.sites[i].mech, MECH_FENTRY);
	}
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs from unloading");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs from unloading");
	assert_site("cap_ipc_lock", MECH_FENTRY, "vmlinux", "");
	assert_string_equal(site("cap_ipc_lock")->note, "");
	assert_site("rxe_reg", MECH_KPROBE, "rdma_rxe", KEEP "rdma_rxe");
	assert_site("rdmacg", MECH_KPROBE, "ib_core", KEEP "ib_core");
	assert_site("mlx5_reg", MECH_KPROBE, "mlx5_ib", KEEP "mlx5_ib");
	assert_site("migrate", MECH_TRACEPOINT, "tracepoint", "");
	/* built without ftrace in Debian's kernels: nothing attaches there */
	assert_site("sg_alloc", MECH_NONE, "vmlinux",
		    "sg_alloc_append_table_from_pages is notrace on this kernel");
	/* were it traceable, the refused trampoline would leave its kprobe */
	func("sg_alloc_append_table_from_pages")->notrace = false;
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("sg_alloc", MECH_KPROBE, "vmlinux", "fexit attach refused");
	/* with openers armed, the costly syscall tracepoints stay off (auto) */
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_site("sys_mlock", MECH_NONE, "syscalls", "enable with --syscalls=on");
}

/* fentry refused but kprobes supported: each site falls back to its
 * kprobe flavour and says why; sites without one stay unarmed. */
static void fentry_refused_falls_back_to_kprobes(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	refuse_trampolines();
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 4);
	/* module functions take kprobes whatever the trampolines say */
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs");
	assert_site("rxe_reg", MECH_KPROBE, "rdma_rxe", KEEP "rdma_rxe");
	/* alloc_iova_fast has a kprobe flavour since 5.10 needed one */
	assert_site("iova", MECH_KPROBE, "vmlinux", "fexit load refused: Operation not permitted");
	/* the retry after a failed load ignores the trampoline facts */
	load_facts("debian-6.12-rxe-mlx5.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, false, true), 4);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", NULL);
	assert_string_equal(site("reg_mr")->note, "");
	assert_site("iova", MECH_KPROBE, "vmlinux", "");
	/* and without kprobes either, nothing at all */
	facts.kprobes = false;
	refuse_trampolines();
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 0);
	assert_site("reg_mr", MECH_NONE, "ib_uverbs", "kprobes not supported by this kernel");
}

/* MLNX_OFED's modules rarely carry BTF: a function only in kallsyms gets a
 * kprobe, found in its module; a trampoline is armed only once proven. */
static void kallsyms_only_function_gets_a_kprobe(void **state)
{
	struct tracer_func_facts *peer;

	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	peer = func("ib_peer_umem_get");
	peer->in_kallsyms = true;
	snprintf(peer->ksym_module, sizeof(peer->ksym_module), "ib_core");
	func("ib_uverbs_reg_mr")->tramp = TRAMP_UNTRIED;
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("peer_get", MECH_KPROBE, "ib_core", "");
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", "");
}

/* A static function whose name several modules have (mlx5_ib's
 * reg_create): the kprobe names the module, which kernels since 6.6
 * require; the same name twice in vmlinux cannot be told apart. */
static void ambiguous_name_is_probed_in_its_module(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	refuse_trampolines();
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_string_equal(site("mlx5_reg_create")->ksym, "");
	func("reg_create")->ksym_count = 3;
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("mlx5_reg_create", MECH_KPROBE, "mlx5_ib", "3 functions named reg_create");
	assert_string_equal(site("mlx5_reg_create")->ksym, "mlx5_ib:reg_create");
	snprintf(func("reg_create")->ksym_module, sizeof(func("reg_create")->ksym_module), "vmlinux");
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("mlx5_reg_create", MECH_NONE, "vmlinux", "cannot tell them apart");
}

/* ib_umem_get gone, ib_umem_get_va there: the site arms the other name. */
static void missing_function_uses_its_other_name(void **state)
{
	struct tracer_func_facts *va;

	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	va = func("ib_umem_get_va");
	assert_false(va->in_kallsyms || va->in_btf);
	*va = *func("ib_umem_get");
	snprintf(va->name, sizeof(va->name), "ib_umem_get_va");
	drop("ib_umem_get");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 4);
	assert_string_equal(site("umem_get")->func, "ib_umem_get_va");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs");
	/* by kprobe, too */
	refuse_trampolines();
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_string_equal(site("umem_get")->func, "ib_umem_get_va");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", NULL);
	/* present under its usual name, the other is never looked at */
	load_facts("debian-6.12-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_string_equal(site("umem_get")->func, "ib_umem_get");
}

/* pin_gup (get_user_pages, 5.4) is armed only where pin is not. */
static void pin_gup_only_without_pin(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("pin", MECH_FENTRY, "vmlinux", "");
	assert_site("pin_gup", MECH_NONE, "vmlinux",
		    "not needed: pin is armed (this kernel pins with pin_user_pages_fast)");
	/* a 5.4-like kernel: no pin_user_pages_fast */
	drop("pin_user_pages_fast");
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("pin", MECH_NONE, "", "not in this kernel");
	assert_site("pin_gup", MECH_KPROBE, "vmlinux", "");
	/* pin there but unarmable: pin_gup is not held back either */
	load_facts("debian-6.12-rxe-mlx5.facts");
	refuse_trampolines();
	func("pin_user_pages_fast")->in_kallsyms = false;
	tracer_plan_regpath(&plan, &facts, true, true);
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
	load_facts("debian-6.12-rxe-mlx5.facts");
	for (size_t i = 0; i < sizeof(uverbs) / sizeof(uverbs[0]); i++)
		drop(uverbs[i]);
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 0);
	/* only the sites that record their own failures stay */
	for (int i = 0; i < plan.nreg; i++)
		if (!plan.defs[i]->standalone)
			assert_int_equal(plan.sites[i].mech, MECH_NONE);
	assert_site("cap_ipc_lock", MECH_NONE, "vmlinux",
		    "not armed: no registration entry site (reg_mr, umem_get) could be armed");
	assert_site("migrate", MECH_NONE, "tracepoint", "no registration entry site");
	assert_site("umem_get", MECH_NONE, "", "none of ib_umem_get (5.10-6.12");
	/* without the uverbs functions there is no RDMA: nothing per syscall */
	assert_false(tracer_plan_rdma_present(&plan));
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_site("sys_mlock", MECH_NONE, "syscalls", "no RDMA on this kernel yet");

	/* RDMA there but no opener armable (no kprobes, trampolines refused):
	 * the syscall tracepoints stand in (auto) */
	load_facts("debian-6.12-rxe-mlx5.facts");
	facts.kprobes = false;
	refuse_trampolines();
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, false), 0);
	assert_true(tracer_plan_rdma_present(&plan));
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_site("sys_mlock", MECH_TRACEPOINT, "syscalls", "costly");
	assert_site("sys_prlimit64", MECH_TRACEPOINT, "syscalls", "costly");
}

/* The candidate the plan armed site `name` with. */
static const struct tracer_cand *cand_of(const char *name)
{
	for (int i = 0; i < plan.nreg; i++)
		if (!strcmp(plan.sites[i].name, name))
			return &plan.cand[i];
	fail_msg("no site %s", name);
	return NULL;
}

static void assert_btf(const char *name, const char *btf)
{
	const struct tracer_site *s = site(name);
	if (strcmp(s->btf, btf))
		fail_msg("%s: typed by '%s', expected '%s'", name, s->btf, btf);
}

/* Debian's 5.10: vmlinux BTF but none for modules.  Module functions are
 * armed by kprobe, vmlinux ones keep fentry, the roles resolve to 5.10's
 * functions (dma_map_sg_attrs, __sg_alloc_table_from_pages, the rb-tree
 * flavour of pin), and the module structures come from the external BTF,
 * which then types the whole object. */
static void kernel_510_arms_every_site_by_kprobe_or_vmlinux_fentry(void **state)
{
	(void)state;
	load_facts("debian-5.10-rxe-mlx5.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 3);
	assert_string_equal(plan.btf_file, "btf/5.10.0-46-amd64.btf");
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", "no module BTF on this kernel (fentry needs it)");
	assert_btf("reg_mr", "file");
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", NULL);
	assert_string_equal(site("umem_get")->func, "ib_umem_get");
	assert_site("umem_release", MECH_KPROBE, "ib_uverbs", NULL);
	assert_btf("umem_release", "file");
	assert_site("rxe_reg", MECH_KPROBE, "rdma_rxe", NULL);
	assert_site("mlx5_reg_create", MECH_KPROBE, "mlx5_ib", "");
	assert_site("rdmacg", MECH_KPROBE, "ib_core", NULL);
	assert_site("cap_ipc_lock", MECH_FENTRY, "vmlinux", "");
	assert_btf("cap_ipc_lock", "vmlinux+file");
	/* no bpf_find_vma: the flavour that walks the VMA tree */
	assert_site("pin", MECH_FENTRY, "vmlinux", "");
	assert_string_equal(cand_of("pin")->fexit, "fexit_pin_fast_rb");
	assert_site("dma_map", MECH_FENTRY, "vmlinux", "");
	assert_string_equal(site("dma_map")->func, "dma_map_sg_attrs");
	assert_string_equal(cand_of("dma_map")->fexit, "fexit_dma_map_sg");
	assert_site("sg_alloc", MECH_NONE, "vmlinux",
		    "__sg_alloc_table_from_pages is notrace on this kernel");
	assert_string_equal(site("sg_alloc")->func, "__sg_alloc_table_from_pages");
	assert_site("iova", MECH_FENTRY, "vmlinux", "");
	assert_site("migrate", MECH_TRACEPOINT, "tracepoint", "");
	assert_btf("migrate", "file");
	assert_site("dmabuf_get", MECH_NONE, "", "ib_umem_dmabuf_get not in this kernel");
	assert_site("mlx5_create_mr", MECH_NONE, "",
		    "it is the function in 6.1-7.2; 5.10 has none, reg_create covers it");
	/* where it can be probed, 5.10's scatterlist function has its own
	 * program (it returns a pointer) */
	func("__sg_alloc_table_from_pages")->notrace = false;
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("sg_alloc", MECH_KPROBE, "vmlinux", "");
	assert_string_equal(cand_of("sg_alloc")->kretprobe, "kretprobe_sg_alloc_ptr");
	load_facts("debian-5.10-rxe-mlx5.facts");

	/* no btf/<kernel>.btf: the sites that only read less still arm; the
	 * release, which cannot do without struct ib_umem, does not */
	facts.btf_file[0] = 0;
	for (int i = 0; i < facts.ntypes; i++)
		facts.types[i].in_file = false;
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 3);
	assert_null(plan.btf_file);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs",
		    "no BTF has struct uverbs_attr_bundle (this kernel has no module BTF; no "
		    "5.10.0-46-amd64.btf, see tools/make-btf.sh); read without it");
	assert_btf("reg_mr", "none");
	assert_site("umem_release", MECH_NONE, "ib_uverbs", "no BTF has struct ib_umem");
	assert_btf("umem_get", "vmlinux");
	assert_btf("cap_ipc_lock", "vmlinux");

	/* and a 5.10 without kprobes keeps only what a trampoline reaches in
	 * vmlinux: no opener, so nothing */
	load_facts("debian-5.10-rxe-mlx5.facts");
	facts.kprobes = false;
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 0);
	assert_site("cap_ipc_lock", MECH_NONE, "vmlinux", "no registration entry site");
}

/* sid's 7.2: ib_umem_get is gone; the pinning entry is found under its new
 * name in ib_core, and a role with no candidate at all says which names it
 * knows for which kernels. */
static void kernel_72_resolves_the_pinning_entry_under_its_new_name(void **state)
{
	(void)state;
	load_facts("debian-7.2-rxe-mlx5.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 4);
	assert_null(plan.btf_file);
	assert_site("umem_get", MECH_KPROBE, "ib_core", KEEP "ib_core from unloading");
	assert_string_equal(site("umem_get")->func, "__ib_umem_get_va");
	assert_btf("umem_get", "vmlinux");
	assert_site("umem_release", MECH_KPROBE, "ib_core", KEEP "ib_core");
	assert_btf("umem_release", "ib_core");
	assert_site("uobj_alloc", MECH_KPROBE, "ib_uverbs_support", KEEP "ib_uverbs_support");
	assert_site("mlx5_reg_create", MECH_NONE, "",
		    "it is the function in 5.10-6.12; 7.2 has none, create_real_mr covers it");
	assert_site("mlx5_create_mr", MECH_KPROBE, "mlx5_ib", "");
	assert_btf("mlx5_create_mr", "vmlinux");
	assert_string_equal(cand_of("pin")->fexit, "fexit_pin_fast");
	assert_string_equal(site("dma_map")->func, "dma_map_sgtable");
	/* a kernel with none of the names: all of them, with their kernels */
	drop("__ib_umem_get_va");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, true), 3);
	assert_site("umem_get", MECH_NONE, "",
		    "none of ib_umem_get (5.10-6.12, in ib_uverbs), __ib_umem_get_va (7.2: static, "
		    "in ib_core");
	assert_string_equal(site("umem_get")->critical, "memlock evidence");
	assert_non_null(strstr(site("umem_get")->without, "inferred"));
}

/* A site whose program fails to load is planned again without
 * trampolines, or disarmed; the openers rule still holds. */
static void failed_load_demotes_one_site(void **state)
{
	int reg_mr = -1, iova = -1;

	(void)state;
	load_facts("debian-7.2-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	for (int i = 0; i < plan.nreg; i++) {
		if (!strcmp(plan.sites[i].name, "reg_mr"))
			reg_mr = i;
		if (!strcmp(plan.sites[i].name, "iova"))
			iova = i;
	}
	/* a module's function is armed by kprobe from the start */
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs");
	assert_string_equal(cand_of("reg_mr")->kprobe, "kprobe_reg_mr");
	assert_site("cap_ipc_lock", MECH_FENTRY, "vmlinux", "");
	/* iova has a kprobe flavour now (5.10 needed one) */
	assert_int_equal(tracer_plan_demote(&plan, iova, &facts, "fentry load failed: Z"), 4);
	assert_site("iova", MECH_KPROBE, "vmlinux", "fentry load failed: Z");
	/* a kprobe that fails too: the site's next flavour (reg_mr's exit that
	 * scans the stack, then the one that copies it raw, then the plain one
	 * whose caller the libibverbs uprobes give), then gone */
	assert_string_equal(cand_of("reg_mr")->kretprobe, "kretprobe_reg_mr_ustack");
	assert_true(tracer_reg_mr_takes_stack(&plan) && !tracer_reg_mr_stack_raw(&plan));
	assert_int_equal(tracer_plan_demote(&plan, reg_mr, &facts, "kprobe load failed: Y"), 4);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", "kprobe load failed: Y; then before 5.17");
	assert_true(tracer_reg_mr_stack_raw(&plan));
	assert_int_equal(tracer_plan_demote(&plan, reg_mr, &facts, "kprobe load failed: Y"), 4);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", "then the caller from the libibverbs uprobes");
	assert_string_equal(cand_of("reg_mr")->kretprobe, "kretprobe_reg_mr");
	assert_false(tracer_reg_mr_takes_stack(&plan));
	assert_int_equal(tracer_plan_demote(&plan, reg_mr, &facts, "kprobe load failed: Y"), 3);
	assert_site("reg_mr", MECH_NONE, "ib_uverbs", "kprobe load failed: Y");
	/* the last opener gone: nothing stays armed */
	for (int i = 0; i < plan.nreg; i++)
		if (plan.sites[i].opener && plan.sites[i].mech != MECH_NONE) {
			plan.sites[i].mech = MECH_KPROBE;
			tracer_plan_demote(&plan, i, &facts, "gone");
		}
	for (int i = 0; i < plan.nreg; i++)
		if (!plan.defs[i]->standalone)
			assert_int_equal(plan.sites[i].mech, MECH_NONE);
	assert_site("cap_ipc_lock", MECH_NONE, "vmlinux", "no registration entry site");
}

/* For each kernel booted in tests/vm: the plan over its recorded facts arms
 * what `mrtrace watch --list-probes` armed there, by the same function,
 * module and BTF.  A site the plan arms may only show unarmed in the
 * listing when loading or attaching failed on that kernel (the loader's
 * part), and it says so. */
static void plan_matches_list_probes(const char *facts_file, const char *probes_file)
{
	FILE *f;
	char line[1024];
	int rows = 0;

	load_facts(facts_file);
	/* the listings are `watch --list-probes` as run: hot sites off */
	tracer_plan_regpath(&plan, &facts, true, false);
	f = fopen(fixture_path("list-probes", probes_file), "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[64], armed[32], module[64], btf[96];
		int rest = 0;
		const struct tracer_site *s;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%63s %31s %63s %95s %n", name, armed, module, btf, &rest) < 4 ||
		    !rest || !(s = tracer_plan_site(&plan, name)) || s - plan.sites >= plan.nreg)
			continue;
		rows++;
		const char *fn = line + rest, *colon = strstr(fn, ": ");
		const char *note = colon ? colon + 2 : "";
		char func[160];
		snprintf(func, sizeof(func), "%.*s", colon ? (int)(colon - fn) : (int)strlen(fn), fn);
		if (strcmp(armed, "no")) {
			if (s->mech == MECH_NONE || strcmp(tracer_mech_name(s->mech), armed) ||
			    strcmp(s->func, func) || strcmp(s->module, module) || strcmp(s->btf, btf))
				fail_msg("%s %s: listed %s %s %s %s; planned %s %s %s %s", probes_file,
					 name, armed, module, btf, func, tracer_mech_name(s->mech),
					 s->module[0] ? s->module : "-", s->btf[0] ? s->btf : "-",
					 s->func);
		} else if (s->mech != MECH_NONE) {
			if (!strstr(note, "attach failed") && !strstr(note, "load failed"))
				fail_msg("%s %s: planned %s, listed unarmed: %s", probes_file, name,
					 tracer_mech_name(s->mech), note);
		} else if (strcmp(s->note, note)) {
			fail_msg("%s %s: note '%s', listed '%s'", probes_file, name, s->note, note);
		}
	}
	fclose(f);
	/* every site of the registration path, those of the refusals beyond
	 * registration (standalone) included */
	assert_int_equal(rows, plan.nreg);
}

static void plan_arms_what_each_recorded_kernel_armed(void **state)
{
	(void)state;
	plan_matches_list_probes("debian-5.10-rxe-mlx5.facts", "5.10.txt");
	plan_matches_list_probes("debian-6.1-rxe-mlx5.facts", "6.1.txt");
	plan_matches_list_probes("debian-6.12-rxe-mlx5.facts", "6.12.txt");
	plan_matches_list_probes("debian-7.2-rxe-mlx5.facts", "newest.txt");
}

/* 5.17+: reg_mr's exit takes the caller's user stack at a failure (its
 * ustack flavour) and the libibverbs registration uprobes stand down;
 * before, its raw flavour does, and they stand down as well.  A demotion to kprobes keeps the
 * flavour (its kretprobe takes the stack too). */
static void reg_mr_takes_the_stack_where_the_kernel_can(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs");
	assert_string_equal(cand_of("reg_mr")->kretprobe, "kretprobe_reg_mr_ustack");
	assert_string_equal(cand_of("reg_mr")->kprobe, "kprobe_reg_mr");
	assert_true(tracer_reg_mr_takes_stack(&plan));
	assert_false(tracer_reg_mr_stack_raw(&plan));
	/* the drivers' reg_user_mr has its exit only: its range is the command's */
	assert_site("rxe_reg", MECH_KPROBE, "rdma_rxe", NULL);
	assert_null(cand_of("rxe_reg")->kprobe);
	assert_string_equal(cand_of("rxe_reg")->kretprobe, "kretprobe_rxe_reg");
	assert_null(cand_of("mlx5_reg")->kprobe);
	/* without kprobes, the trampoline flavour takes it too (gather.c then
	 * tests the trampoline of a module's function: here it passed) */
	facts.kprobes = false;
	func("ib_uverbs_reg_mr")->tramp = TRAMP_OK;
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("reg_mr", MECH_FENTRY, "ib_uverbs", "");
	assert_string_equal(cand_of("reg_mr")->fexit, "fexit_reg_mr_ustack");
	assert_true(tracer_reg_mr_takes_stack(&plan));
	tracer_plan_demote(&plan, 0, &facts, "fexit attach refused");
	assert_site("reg_mr", MECH_NONE, "ib_uverbs", "fexit attach refused");
	assert_false(tracer_reg_mr_takes_stack(&plan));

	/* before 5.17 the exit copies the stack raw for user space to scan
	 * (bpf/ustack_raw.bpf.h): the uprobes stand down there too */
	load_facts("debian-5.10-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("reg_mr", MECH_KPROBE, "ib_uverbs", NULL);
	assert_string_equal(cand_of("reg_mr")->kretprobe, "kretprobe_reg_mr_raw");
	assert_true(tracer_reg_mr_takes_stack(&plan));
	assert_true(tracer_reg_mr_stack_raw(&plan));

	/* a 5.17+ kernel where reg_mr cannot be armed: nothing takes the stack */
	load_facts("debian-6.12-rxe-mlx5.facts");
	facts.kprobes = false;
	refuse_trampolines();
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("reg_mr", MECH_NONE, "ib_uverbs", NULL);
	assert_false(tracer_reg_mr_takes_stack(&plan));
}

/* --syscalls=on and off override the automatic choice. */
static void syscalls_policy(void **state)
{
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	tracer_plan_syscalls(&plan, SYSCALLS_ON);
	assert_site("sys_mlock2", MECH_TRACEPOINT, "syscalls", "costly");
	load_facts("restricted-6.18.facts");
	tracer_plan_regpath(&plan, &facts, true, true);
	tracer_plan_syscalls(&plan, SYSCALLS_OFF);
	assert_site("sys_mlockall", MECH_NONE, "syscalls", "off (--syscalls=off)");
	tracer_plan_uprobes(&plan);
	assert_int_equal(plan.n, plan.nreg + 5 + 1);
	assert_site("libibverbs", MECH_NONE, "user", "");
}

/* By default nothing is armed on a function that runs for work that
 * registers nothing (issue 20, docs/design.md section 5): CAP_IPC_LOCK and
 * the pinning causes are read by ib_umem_get's own programs - the sites
 * armed with it, by its function, mechanism, module and BTF - and the
 * migration, DMA, IOVA and dma-buf sites are off, saying why and that
 * --hot-sites arms them; the umem exit's flavour follows bpf_find_vma. */
static void hot_sites_are_off_by_default(void **state)
{
	static const char *const off[] = { "migrate", "dma_map", "iova", "dmabuf_attach",
					   "dmabuf_pin", "dmabuf_map" };
	(void)state;
	load_facts("debian-6.12-rxe-mlx5.facts");
	assert_int_equal(tracer_plan_regpath(&plan, &facts, true, false), 4);
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs from unloading");
	assert_string_equal(cand_of("umem_get")->kretprobe, "kretprobe_umem_get_vma");
	assert_site("cap_ipc_lock", MECH_KPROBE, "ib_uverbs",
		    "at ib_umem_get: CAP_IPC_LOCK from the task's credentials at its failed exit "
		    "(capable itself runs for every privilege check of every process: --hot-sites "
		    "probes it)");
	assert_string_equal(site("cap_ipc_lock")->func, "ib_umem_get");
	assert_string_equal(site("cap_ipc_lock")->btf, site("umem_get")->btf);
	assert_site("pin", MECH_KPROBE, "ib_uverbs", "from the VMAs of the range at its exit");
	assert_string_equal(site("pin")->func, "ib_umem_get");
	assert_false(tracer_plan_site_probed(&plan, "cap_ipc_lock"));
	assert_false(tracer_plan_site_probed(&plan, "pin"));
	assert_true(tracer_plan_site_probed(&plan, "umem_get"));
	/* derived sites name no program: the loader attaches nothing for them */
	assert_null(cand_of("cap_ipc_lock")->fexit);
	assert_null(cand_of("pin")->kretprobe);
	assert_site("pin_gup", MECH_NONE, "vmlinux", "not needed: pin is armed");
	for (size_t k = 0; k < sizeof(off) / sizeof(off[0]); k++) {
		assert_site(off[k], MECH_NONE, strcmp(off[k], "migrate") ? "vmlinux" : "tracepoint",
			    "off by default: ");
		assert_non_null(strstr(site(off[k])->note, "--hot-sites arms it"));
	}
	/* a reason it could not be armed anyway stays the reason */
	assert_site("sg_alloc", MECH_NONE, "vmlinux",
		    "sg_alloc_append_table_from_pages is notrace on this kernel");
	/* cold functions stay armed */
	assert_site("dmabuf_get", MECH_KPROBE, "ib_uverbs", KEEP "ib_uverbs");
	assert_site("rdmacg", MECH_KPROBE, "ib_core", KEEP "ib_core");

	/* --hot-sites: the functions themselves, as before */
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_site("cap_ipc_lock", MECH_FENTRY, "vmlinux", "");
	assert_true(tracer_plan_site_probed(&plan, "cap_ipc_lock"));
	assert_true(tracer_plan_site_probed(&plan, "pin"));
	assert_site("iova", MECH_FENTRY, "vmlinux", "");

	/* the pinning entry lost: the sites it reads go with it */
	tracer_plan_regpath(&plan, &facts, true, false);
	for (int i = 0; i < plan.nreg; i++)
		if (!strcmp(plan.sites[i].name, "umem_get")) {
			/* its bpf_find_vma exit first, then its rb-tree one */
			tracer_plan_demote(&plan, i, &facts, "kprobe load failed: X");
			assert_site("umem_get", MECH_KPROBE, "ib_uverbs",
				    "kprobe load failed: X; then 5.10-5.16");
			assert_string_equal(cand_of("umem_get")->kretprobe, "kretprobe_umem_get");
			tracer_plan_demote(&plan, i, &facts, "kprobe load failed: X");
		}
	assert_site("umem_get", MECH_NONE, "ib_uverbs", "kprobe load failed: X");
	assert_site("cap_ipc_lock", MECH_NONE, "ib_uverbs",
		    "not armed: umem_get is not, whose programs read this by default");
	assert_site("pin", MECH_NONE, "ib_uverbs", "not armed: umem_get is not");

	/* 5.10: no bpf_find_vma, the exit walks the rb-tree */
	load_facts("debian-5.10-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, false);
	assert_site("umem_get", MECH_KPROBE, "ib_uverbs", NULL);
	assert_string_equal(cand_of("umem_get")->kretprobe, "kretprobe_umem_get");
	assert_site("cap_ipc_lock", MECH_KPROBE, "ib_uverbs", "at ib_umem_get: ");
	assert_site("pin", MECH_KPROBE, "ib_uverbs", "at ib_umem_get: ");
	assert_string_equal(site("pin")->btf, site("umem_get")->btf);
	assert_site("dma_map", MECH_NONE, "vmlinux", "off by default: dma_map_sg_attrs runs for");

	/* 7.2: the pinning entry under its new name, and what reads with it */
	load_facts("debian-7.2-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, false);
	assert_site("cap_ipc_lock", MECH_KPROBE, "ib_core", "at __ib_umem_get_va: ");
	assert_string_equal(cand_of("umem_get")->kretprobe, "kretprobe_umem_get_vma");
}

/* Every site, armed or not, carries why as a value (site.h) whose text is in
 * its note: armed <=> SITE_ARMED, on every recorded kernel and the
 * restricted host, hot sites off and on, syscalls in each policy. */
static void assert_reasons_agree(const char *facts_file, bool hot, enum syscalls_policy sys)
{
	load_facts(facts_file);
	tracer_plan_regpath(&plan, &facts, true, hot);
	tracer_plan_syscalls(&plan, sys);
	for (int i = 0; i < plan.n; i++) {
		const struct tracer_site *s = &plan.sites[i];
		if ((s->mech == MECH_NONE) != (s->off != SITE_ARMED))
			fail_msg("%s %s: %s, reason %d (%s)", facts_file, s->name,
				 tracer_mech_name(s->mech), s->off, site_off_text(s->off));
		if (s->off != SITE_ARMED && !strstr(s->note, site_off_text(s->off)))
			fail_msg("%s %s: reason '%s' not in its note '%s'", facts_file, s->name,
				 site_off_text(s->off), s->note);
	}
}

static enum site_off site_reason(const char *name)
{
	return site(name)->off;
}

/* Why a site is not armed is decided and told by its value (issue 33):
 * the reasons of the recorded kernels, each one's text in its note; the
 * derived sites say "not armed: X is not" once however often the openers
 * are planned again, which used to be decided by comparing the note's
 * first words. */
static void reasons_are_values_with_their_text(void **state)
{
	static const char *const kernels[] = { "debian-5.10-rxe-mlx5.facts",
					       "debian-6.1-rxe-mlx5.facts",
					       "debian-6.12-rxe-mlx5.facts",
					       "debian-7.2-rxe-mlx5.facts", "restricted-6.18.facts" };
	(void)state;
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		assert_reasons_agree(kernels[k], false, SYSCALLS_AUTO);
		assert_reasons_agree(kernels[k], true, SYSCALLS_OFF);
	}
	for (int w = 0; w < SITE_OFF__COUNT; w++)
		assert_string_not_equal(site_off_text((enum site_off)w), "?");
	assert_string_equal(site_off_text(SITE_OFF__COUNT), "?");

	load_facts("debian-6.12-rxe-mlx5.facts");
	tracer_plan_regpath(&plan, &facts, true, false);
	assert_int_equal(site_reason("umem_get"), SITE_ARMED);
	assert_int_equal(site_reason("cap_ipc_lock"), SITE_ARMED); /* read at ib_umem_get */
	assert_int_equal(site_reason("pin_gup"), SITE_OFF_NOT_NEEDED);
	assert_int_equal(site_reason("iova"), SITE_OFF_HOT);
	assert_int_equal(site_reason("sg_alloc"), SITE_OFF_NOTRACE);
	/* the pinning entry lost, then the plan's openers redone twice more:
	 * the derived site's reason is said once, with its own reason after */
	int umem = (int)(site("umem_get") - plan.sites);
	tracer_plan_demote(&plan, umem, &facts, "kprobe load failed: X");
	assert_int_equal(site_reason("umem_get"), SITE_ARMED); /* its rb-tree exit */
	tracer_plan_demote(&plan, umem, &facts, "kprobe load failed: X");
	assert_int_equal(site_reason("umem_get"), SITE_OFF_LOAD_FAILED);
	for (int again = 0; again < 2; again++)
		tracer_plan_demote(&plan, umem, &facts, "kprobe load failed: X");
	const char *n = site("cap_ipc_lock")->note;
	assert_int_equal(site_reason("cap_ipc_lock"), SITE_OFF_FROM_UNARMED);
	assert_non_null(strstr(n, "not armed: umem_get is not"));
	assert_null(strstr(strstr(n, "not armed: ") + 1, "not armed: "));
	/* the hot site pin said "not armed" and stays its value */
	assert_int_equal(site_reason("pin"), SITE_OFF_FROM_UNARMED);

	/* no opener at all: the nested sites' reason */
	static const char *const uverbs[] = { "ib_uverbs_reg_mr", "ib_uverbs_cmd_verbs",
					      "ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR",
					      "ib_umem_get" };
	for (size_t i = 0; i < sizeof(uverbs) / sizeof(uverbs[0]); i++)
		drop(uverbs[i]);
	tracer_plan_regpath(&plan, &facts, true, true);
	assert_int_equal(site_reason("cap_ipc_lock"), SITE_OFF_NO_OPENER);
	assert_int_equal(site_reason("umem_get"), SITE_OFF_ABSENT);
	tracer_plan_syscalls(&plan, SYSCALLS_AUTO);
	assert_int_equal(site_reason("sys_mlock"), SITE_OFF_SYSCALLS_NO_RDMA);
	tracer_plan_uprobes(&plan);
	assert_int_equal(site_reason("libibverbs"), SITE_OFF_NO_LIBIBVERBS);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--record"))
		return record(argv[2]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(restricted_host_arms_nothing_and_says_why),
		cmocka_unit_test(kernel_612_arms_vmlinux_by_fentry_modules_by_kprobe),
		cmocka_unit_test(fentry_refused_falls_back_to_kprobes),
		cmocka_unit_test(kallsyms_only_function_gets_a_kprobe),
		cmocka_unit_test(ambiguous_name_is_probed_in_its_module),
		cmocka_unit_test(missing_function_uses_its_other_name),
		cmocka_unit_test(pin_gup_only_without_pin),
		cmocka_unit_test(no_opener_arms_nothing),
		cmocka_unit_test(syscalls_policy),
		cmocka_unit_test(kernel_510_arms_every_site_by_kprobe_or_vmlinux_fentry),
		cmocka_unit_test(kernel_72_resolves_the_pinning_entry_under_its_new_name),
		cmocka_unit_test(failed_load_demotes_one_site),
		cmocka_unit_test(plan_arms_what_each_recorded_kernel_armed),
		cmocka_unit_test(reg_mr_takes_the_stack_where_the_kernel_can),
		cmocka_unit_test(hot_sites_are_off_by_default),
		cmocka_unit_test(reasons_are_values_with_their_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
