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
#include <errno.h>

#include "core/privs.h"

#define CAP(c) (1ULL << (c))

static struct privs with(uint64_t eff)
{
	struct privs p = { .eff = eff, .known = true, .euid = 0 };
	return p;
}

/* A refusal is the kernel's errno carried with the site (tracer/site.h:
 * err, uprobe_multi), not words read back from its note. */
static void perf_uprobes_need_sys_admin(void **state)
{
	struct privs p = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON));
	char buf[512];
	(void)state;
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", EACCES, false, buf, sizeof(buf)),
			 PRIV_CAP_SYS_ADMIN);
	assert_non_null(strstr(buf, "libibverbs: needs CAP_SYS_ADMIN"));
	/* EPERM reads as a refusal too */
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", EPERM, false, buf, sizeof(buf)),
			 PRIV_CAP_SYS_ADMIN);
}

static void uprobe_multi_refusal_is_not_sys_admins(void **state)
{
	struct privs p = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON));
	char buf[512];
	(void)state;
	/* CAP_BPF + CAP_PERFMON is all a uprobe_multi link asks: the kernel
	 * refused for another reason, and no capability is named */
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", EPERM, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* without CAP_PERFMON that is what is missing, for either kind */
	p = with(CAP(PRIV_CAP_BPF));
	assert_int_equal(privs_diagnose(&p, "libibverbs", "user", EPERM, true, buf, sizeof(buf)),
			 PRIV_CAP_PERFMON);
	assert_non_null(strstr(buf, "needs CAP_PERFMON to attach uprobes"));
}

static void not_refused_or_fully_privileged_says_nothing(void **state)
{
	struct privs all = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON) | CAP(PRIV_CAP_SYS_ADMIN));
	struct privs few = with(CAP(PRIV_CAP_BPF) | CAP(PRIV_CAP_PERFMON));
	char buf[512];
	(void)state;
	assert_int_equal(privs_diagnose(&all, "libibverbs", "user", EACCES, false, buf, sizeof(buf)), 0);
	assert_int_equal(privs_diagnose(&few, "libibverbs", "user", 0, false, buf, sizeof(buf)),
			 0);
	/* module fentry without CAP_SYS_ADMIN: module BTF is CAP_SYS_ADMIN's */
	assert_int_equal(privs_diagnose(&few, "reg_mr", "ib_uverbs", EACCES, false, buf, sizeof(buf)),
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
