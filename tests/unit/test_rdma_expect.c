// SPDX-License-Identifier: GPL-2.0-only
/* test_rdma_expect.c - where RDMA is expected (check/expect.h) and what
 * `check --health` says where it is not: on made-up sysfs trees (no RDMA at
 * all, an RDMA NIC without its driver, NICs of vendors that are not RDMA
 * vendors) and on the recorded fixtures, with each require-rdma rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/expect.h"
#include "check/fleet.h"

static char tree[] = "/tmp/mrtrace-expect-XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512], cmd[1100];
	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* a node's tree with one PCI function (or none) and nothing else */
static void node(const char *cls, const char *vendor, const char *device)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/proc' '%s/sys/bus/pci/devices' '%s/etc'",
		 tree, tree, tree, tree);
	assert_int_equal(system(cmd), 0);
	if (!cls)
		return;
	put("sys/bus/pci/devices/0000:18:00.0/class", cls);
	put("sys/bus/pci/devices/0000:18:00.0/vendor", vendor);
	put("sys/bus/pci/devices/0000:18:00.0/device", device);
}

/* --health on root with the rule; returns the verdict, line in out */
static enum chk_health health(const char *root, const char *rule, char *out)
{
	struct chk_options o = { .root = root };
	struct chk_report r;
	struct chk_health_opts h = { .min_memlock = 64ULL << 20 };
	char bad[64];

	memset(&chk_rdma_expect_opts, 0, sizeof(chk_rdma_expect_opts));
	assert_int_equal(chk_rdma_expect_parse(rule, &chk_rdma_expect_opts, bad, sizeof(bad)), 0);
	assert_int_equal(chk_run(&o, &r), 0);
	enum chk_health v = chk_health_judge(&r, &h, out, CHK_HEALTH_LINE_MAX + 1);
	assert_true(strlen(out) <= CHK_HEALTH_LINE_MAX);
	chk_report_free(&r);
	return v;
}

static void expect_line(const char *root, const char *rule, enum chk_health want, const char *word)
{
	char line[CHK_HEALTH_LINE_MAX + 1];
	enum chk_health got = health(root, rule, line);
	if (got != want || !strstr(line, word))
		fail_msg("%s, require-rdma=%s: '%s' (%d), wanted %d with '%s'", root, rule, line, got,
			 want, word);
}

static void test_no_rdma_is_na(void **state)
{
	(void)state;
	node(NULL, NULL, NULL);
	expect_line(tree, "auto", CHK_HEALTH_OK, "OK no RDMA on this node");
	/* an Intel or Broadcom Ethernet NIC is no RDMA expectation by itself */
	node("0x020000", "0x8086", "0x1593");
	expect_line(tree, "auto", CHK_HEALTH_OK, "no RDMA on this node");
	/* Amazon's ENA is not its EFA */
	node("0x020000", "0x1d0f", "0xec20");
	expect_line(tree, "auto", CHK_HEALTH_OK, "no RDMA on this node");
}

static void test_rdma_nic_without_driver_fails(void **state)
{
	(void)state;
	/* a ConnectX on the bus, no mlx5_ib: the expectation is broken */
	node("0x020000", "0x15b3", "0x101d");
	expect_line(tree, "auto", CHK_HEALTH_FAIL, "devices: no /sys/class/infiniband");
	node("0x020700", "0x1234", "0x0001"); /* InfiniBand class, any vendor */
	expect_line(tree, "auto", CHK_HEALTH_FAIL, "devices:");
	node("0x020000", "0x1d0f", "0xefa1"); /* EFA */
	expect_line(tree, "auto", CHK_HEALTH_FAIL, "devices:");
	/* ...unless the configuration says this node needs none */
	node("0x020000", "0x15b3", "0x101d");
	expect_line(tree, "no", CHK_HEALTH_OK, "RDMA not expected on this node (require-rdma=no)");
}

static void test_rules(void **state)
{
	(void)state;
	char why[160];
	struct chk_report r;
	struct chk_options o = { .root = tree };
	struct chk_rdma_expect e = { 0 };
	char bad[64];

	node(NULL, NULL, NULL);
	expect_line(tree, "yes", CHK_HEALTH_FAIL, "devices: no /sys/class/infiniband");
	assert_int_equal(chk_run(&o, &r), 0);
	assert_int_equal(chk_rdma_expect_parse("partition:gpu*,feature:ib", &e, bad, sizeof(bad)), 0);
	snprintf(e.partition, sizeof(e.partition), "gpu-a100");
	assert_true(chk_rdma_expected(&r, &e, why, sizeof(why)));
	assert_string_equal(why, "require-rdma: partition gpu-a100");
	snprintf(e.partition, sizeof(e.partition), "cpu");
	assert_false(chk_rdma_expected(&r, &e, why, sizeof(why)));
	snprintf(e.features, sizeof(e.features), "avx512,ib");
	assert_true(chk_rdma_expected(&r, &e, why, sizeof(why)));
	assert_string_equal(why, "require-rdma: feature ib");
	snprintf(e.features, sizeof(e.features), "ibx");
	assert_false(chk_rdma_expected(&r, &e, why, sizeof(why)));
	chk_report_free(&r);

	assert_int_equal(chk_rdma_expect_parse("maybe", &e, bad, sizeof(bad)), -1);
	assert_string_equal(bad, "maybe");
	assert_int_equal(chk_rdma_expect_parse("partition:", &e, bad, sizeof(bad)), -1);
	assert_int_equal(chk_rdma_expect_parse("feature:ib,node:x", &e, bad, sizeof(bad)), -1);
	assert_string_equal(bad, "node:x");
}

static void test_fixtures_keep_their_verdicts(void **state)
{
	(void)state;
	/* the recorded nodes have RDMA devices: judged as before */
	expect_line(fixture_path("check", "container"), "auto", CHK_HEALTH_FAIL, "uverbs0 missing");
	expect_line(fixture_path("check", "portdown"), "auto", CHK_HEALTH_FAIL, "port 1: DOWN");
	expect_line(fixture_path("check", "h100"), "auto", CHK_HEALTH_OK, "memlock, RDMA devices");
	expect_line(fixture_path("check", "container"), "no", CHK_HEALTH_OK, "require-rdma=no");
}

static void test_ignored_are_counted(void **state)
{
	(void)state;
	struct chk_options o = { .root = fixture_path("check", "container") };
	struct chk_report r;
	struct chk_health_opts h = { .min_memlock = 64ULL << 20 };
	char line[CHK_HEALTH_LINE_MAX + 1];

	memset(&chk_rdma_expect_opts, 0, sizeof(chk_rdma_expect_opts));
	assert_int_equal(chk_run(&o, &r), 0);
	snprintf(h.ignore, sizeof(h.ignore), "rdma.*");
	assert_int_equal(chk_health_judge(&r, &h, line, sizeof(line)), CHK_HEALTH_OK);
	if (!strstr(line, " ignored)"))
		fail_msg("'%s' hides what it ignored", line);
	chk_report_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tree) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_rdma_is_na),
		cmocka_unit_test(test_rdma_nic_without_driver_fails),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_fixtures_keep_their_verdicts),
		cmocka_unit_test(test_ignored_are_counted),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
