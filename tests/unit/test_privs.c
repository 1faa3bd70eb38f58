// SPDX-License-Identifier: GPL-2.0-only
/* test_privs.c - which capability a refused site is missing (core/privs.c):
 * the sentence must blame the capability the kernel really checks for that
 * kind of attachment, and nothing when the process holds it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/privs.h"

#define CAP(c) (1ULL << (c))

static struct privs with(uint64_t eff)
{
	struct privs p = { .eff = eff, .known = true, .euid = 0 };
	return p;
}

/* The notes as tracer/uprobes.c writes them for a refused library. */
#define REFUSED_PERF "/usr/lib/x86_64-linux-gnu/libibverbs.so.1: no libibverbs entry point could " \
		     "be attached as " UPROBE_KIND_PERF " (Permission denied)"
#define REFUSED_MULTI "/usr/lib/x86_64-linux-gnu/libibverbs.so.1: no libibverbs entry point could " \
		      "be attached as " UPROBE_KIND_MULTI " (Operation not permitted)"

static void perf_uprobes_need_sys_admin(void **state)
{
	struct privs p = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON));
	char buf[512];
	(void)state;
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", REFUSED_PERF, buf, sizeof(buf)),
			 PRIV_CAP_SYS_ADMIN);
	assert_non_null(strstr(buf, "libibverbs: needs CAP_SYS_ADMIN"));
	/* a note from before the kind was named reads as the stricter kind */
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", "x: (Permission denied)", buf,
					sizeof(buf)),
			 PRIV_CAP_SYS_ADMIN);
}

static void uprobe_multi_refusal_is_not_sys_admins(void **state)
{
	struct privs p = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON));
	char buf[512];
	(void)state;
	/* CAP_BPF + CAP_PERFMON is all a uprobe_multi link asks: the kernel
	 * refused for another reason, and no capability is named */
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", REFUSED_MULTI, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* without CAP_PERFMON that is what is missing, for either kind */
	p = with(CAP(PRIV_CAP_BPF));
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", REFUSED_MULTI, buf, sizeof(buf)),
			 PRIV_CAP_PERFMON);
	assert_non_null(strstr(buf, "needs CAP_PERFMON to attach uprobes"));
}

static void not_refused_or_fully_privileged_says_nothing(void **state)
{
	struct privs all = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON) | CAP(PRIV_CAP_SYS_ADMIN));
	struct privs few = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON));
	char buf[512];
	(void)state;
	assert_int_equal(privs_diagnose(&all, "libibverbs", "user", REFUSED_PERF, buf, sizeof(buf)), 0);
	assert_int_equal(privs_diagnose(&few, "libibverbs", "user", "no libibverbs on this host", buf,
					sizeof(buf)),
			 0);
	/* module fentry without CAP_SYS_ADMIN: module BTF is CAP_SYS_ADMIN's */
	assert_int_equal(privs_diagnose(&few, "reg_mr", "ib_uverbs", "attach: Permission denied", buf,
					sizeof(buf)),
			 PRIV_CAP_SYS_ADMIN);
	assert_non_null(strstr(buf, "module function (ib_uverbs)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_uprobes_need_sys_admin),
		cmocka_unit_test(uprobe_multi_refusal_is_not_sys_admins),
		cmocka_unit_test(not_refused_or_fully_privileged_says_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
