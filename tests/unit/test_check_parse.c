// SPDX-License-Identifier: GPL-2.0-only
/* test_check_parse.c - the pure pieces under `check`: limit syntaxes
 * (systemd, limits.conf, Docker, Slurm), drop-in precedence, PCIe ACS
 * parsing, topology classes on synthetic paths, and sysroot rooting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check.h"
#include "check/expect.h"
#include "check/areas.h"
#include "core/sysroot.h"

#define MiB (1ULL << 20)

/* ---- a scratch root ------------------------------------------------------ */

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/mrtrace-parse-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- limit syntaxes ----------------------------------------------------- */

static void test_systemd_limit_values(void **state)
{
	(void)state;
	uint64_t s, h;
	assert_int_equal(chk_parse_systemd_limit("infinity", &s, &h), 0);
	assert_true(s == UINT64_MAX && h == UINT64_MAX);
	assert_int_equal(chk_parse_systemd_limit("8M", &s, &h), 0);
	assert_true(s == 8 * MiB && h == 8 * MiB);
	assert_int_equal(chk_parse_systemd_limit(" 64K:1G ", &s, &h), 0);
	assert_true(s == 64 * 1024 && h == 1024 * MiB);
	assert_int_equal(chk_parse_systemd_limit("65536", &s, &h), 0);
	assert_true(s == 65536);
	assert_int_equal(chk_parse_systemd_limit("lots", &s, &h), -1);
	assert_int_equal(chk_parse_systemd_limit("8M:", &s, &h), -1);
}

static void test_limits_conf(void **state)
{
	(void)state;
	struct chk_limits_entry e[8];
	const char *text =
		"# comment line\n"
		"*       soft    nofile   65536\n"
		"*       soft    memlock  65536   # KiB, so 64 MiB\n"
		"@rdma   -       memlock  unlimited\n"
		"root    hard    memlock  -1\n"
		"broken line\n"
		"bob     hard    memlock  lots\n";
	int n = chk_parse_limits_conf(text, "/etc/security/limits.conf", e, 8);
	assert_int_equal(n, 3);
	assert_string_equal(e[0].domain, "*");
	assert_string_equal(e[0].type, "soft");
	assert_true(e[0].value == 64 * MiB);
	assert_int_equal(e[0].line, 3);
	assert_string_equal(e[1].domain, "@rdma");
	assert_string_equal(e[1].type, "-");
	assert_true(e[1].value == UINT64_MAX);
	assert_true(e[2].value == UINT64_MAX);
	assert_string_equal(e[2].source, "/etc/security/limits.conf");
	/* the output array bound is honoured */
	assert_int_equal(chk_parse_limits_conf(text, "x", e, 1), 1);
}

/* systemd: a drop-in name in /etc masks the same name in /usr/lib; the
 * survivors apply in file-name order, so 20-b beats 10-a. */
static void test_systemd_dropin_order(void **state)
{
	(void)state;
	struct chk_limit l;
	put("/etc/systemd/system.conf", "[Manager]\nDefaultLimitMEMLOCK=64K\n");
	chk_systemd_default_memlock(root, &l);
	assert_true(l.exists && l.set);
	assert_true(l.soft == 64 * 1024);

	put("/usr/lib/systemd/system.conf.d/10-a.conf", "[Manager]\nDefaultLimitMEMLOCK=1G\n");
	put("/etc/systemd/system.conf.d/10-a.conf", "[Manager]\nDefaultLimitMEMLOCK=2G\n");
	chk_systemd_default_memlock(root, &l);
	assert_true(l.soft == 2048 * MiB);
	assert_non_null(strstr(l.source, "/etc/systemd/system.conf.d/10-a.conf"));

	put("/usr/lib/systemd/system.conf.d/20-b.conf", "[Manager]\nDefaultLimitMEMLOCK=infinity\n");
	chk_systemd_default_memlock(root, &l);
	assert_true(l.soft == UINT64_MAX);

	/* an empty assignment resets to the built-in default */
	put("/etc/systemd/system.conf.d/30-reset.conf", "[Manager]\nDefaultLimitMEMLOCK=\n");
	chk_systemd_default_memlock(root, &l);
	assert_false(l.set);
}

static void test_unit_dropin(void **state)
{
	(void)state;
	struct chk_limit u;
	chk_unit_memlock(root, "containerd.service", &u);
	assert_false(u.exists);
	put("/lib/systemd/system/containerd.service", "[Service]\nExecStart=/usr/bin/containerd\n");
	chk_unit_memlock(root, "containerd.service", &u);
	assert_true(u.exists);
	assert_false(u.set);
	put("/etc/systemd/system/containerd.service.d/memlock.conf",
	    "[Service]\nLimitMEMLOCK=infinity\n");
	chk_unit_memlock(root, "containerd.service", &u);
	assert_true(u.set);
	assert_true(u.soft == UINT64_MAX);
	assert_non_null(strstr(u.source, "containerd.service.d/memlock.conf"));
}

static void test_docker_and_slurm(void **state)
{
	(void)state;
	struct chk_limit d;
	char src[256];
	assert_int_equal(chk_docker_default_memlock(root, &d), -1);
	put("/etc/docker/daemon.json", "{ \"default-ulimits\": { \"memlock\": "
	    "{ \"Name\": \"memlock\", \"Hard\": -1, \"Soft\": -1 } } }");
	assert_int_equal(chk_docker_default_memlock(root, &d), 0);
	assert_true(d.set && d.soft == UINT64_MAX && d.hard == UINT64_MAX);
	put("/etc/docker/daemon.json", "{ \"default-ulimits\": ");
	assert_int_equal(chk_docker_default_memlock(root, &d), -2);

	assert_int_equal(chk_slurm_propagates_memlock(root, src, sizeof(src)), -1);
	put("/etc/slurm/slurm.conf", "ClusterName=x\n");
	assert_int_equal(chk_slurm_propagates_memlock(root, src, sizeof(src)), 1);  /* default ALL */
	assert_string_equal(src, "/etc/slurm/slurm.conf");
	put("/etc/slurm/slurm.conf", "PropagateResourceLimitsExcept=NOFILE,MEMLOCK\n");
	assert_int_equal(chk_slurm_propagates_memlock(root, src, sizeof(src)), 0);
	put("/etc/slurm/slurm.conf", "PropagateResourceLimits=NOFILE,CORE\n");
	assert_int_equal(chk_slurm_propagates_memlock(root, src, sizeof(src)), 0);
	put("/etc/slurm/slurm.conf", "#PropagateResourceLimits=NONE\nPropagateResourceLimits=MEMLOCK\n");
	assert_int_equal(chk_slurm_propagates_memlock(root, src, sizeof(src)), 1);
}

/* ---- PCIe ACS ------------------------------------------------------------ */

static void ext_cap(unsigned char *cfg, unsigned off, unsigned id, unsigned next)
{
	unsigned h = id | (1u << 16) | (next << 20);
	memcpy(cfg + off, &h, 4);
}

static void test_acs_parse(void **state)
{
	(void)state;
	unsigned char cfg[4096] = { 0 };
	unsigned ctrl = 0;
	/* what an unprivileged reader gets: 64 bytes */
	assert_int_equal(chk_acs_from_config(cfg, 64, &ctrl), -1);
	/* extended space readable, no capabilities */
	assert_int_equal(chk_acs_from_config(cfg, sizeof(cfg), &ctrl), 0);
	/* AER -> DPC -> ACS with RR|CR set */
	ext_cap(cfg, 0x100, 0x0001, 0x148);
	ext_cap(cfg, 0x148, 0x001d, 0x200);
	ext_cap(cfg, 0x200, 0x000d, 0);
	cfg[0x206] = 0x1d;
	assert_int_equal(chk_acs_from_config(cfg, sizeof(cfg), &ctrl), 1);
	assert_int_equal(ctrl, 0x1d);
	/* a capability list that loops on itself ends */
	ext_cap(cfg, 0x200, 0x0001, 0x100);
	assert_int_equal(chk_acs_from_config(cfg, sizeof(cfg), &ctrl), 0);
}

/* ---- topology classes ---------------------------------------------------- */

static void test_topology_synthetic(void **state)
{
	(void)state;
	const char *sw_gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
	const char *sw_nic = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0";
	/* a second switch level below the first, on the GPU side */
	const char *deep = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/"
			   "0000:05:00.0/0000:06:00.0/0000:07:00.0";
	const char *rp_nic = "/sys/devices/pci0000:00/0000:00:02.0/0000:08:00.0";
	const char *other_hb = "/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0";
	const char *ib_child = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/"
			       "0000:04:00.0/infiniband/mlx5_0";
	assert_int_equal(chk_topo_classify(sw_gpu, 0, sw_nic, 0), CHK_TOPO_PIX);
	assert_int_equal(chk_topo_classify(deep, 0, sw_nic, 0), CHK_TOPO_PXB);
	assert_int_equal(chk_topo_classify(sw_gpu, 0, rp_nic, 0), CHK_TOPO_PHB);
	assert_int_equal(chk_topo_classify(sw_gpu, 0, other_hb, 0), CHK_TOPO_NODE);
	assert_int_equal(chk_topo_classify(sw_gpu, 0, other_hb, 1), CHK_TOPO_SYS);
	assert_int_equal(chk_topo_classify(sw_gpu, -1, other_hb, -1), CHK_TOPO_NODE);
	/* a class-device path below the PCI function resolves to it */
	assert_int_equal(chk_topo_classify(sw_gpu, 0, ib_child, 0), CHK_TOPO_PIX);
	assert_int_equal(chk_topo_classify("", 0, sw_nic, 0), CHK_TOPO_UNKNOWN);
	assert_int_equal(chk_topo_classify("/sys/devices/virtual/infiniband/rxe0", 0, sw_nic, 0),
			 CHK_TOPO_UNKNOWN);
	assert_string_equal(chk_topo_name(CHK_TOPO_PXB), "PXB");
}

/* ---- sysroot ------------------------------------------------------------- */

static void test_sysroot(void **state)
{
	(void)state;
	char p[256];
	assert_int_equal(sr_path("/", "/sys/x", p, sizeof(p)), 0);
	assert_string_equal(p, "/sys/x");
	assert_int_equal(sr_path(NULL, "/sys/x", p, sizeof(p)), 0);
	assert_string_equal(p, "/sys/x");
	assert_int_equal(sr_path("/tmp/t//", "/sys/x", p, sizeof(p)), 0);
	assert_string_equal(p, "/tmp/t/sys/x");
	assert_int_equal(sr_path("/tmp/t", "/sys/x", p, 8), -ENAMETOOLONG);

	put("/sys/class/infiniband_verbs/uverbs10/ibdev", "mlx5_10\n");
	put("/sys/class/infiniband_verbs/uverbs2/ibdev", "mlx5_2\n");
	char **names;
	int n = sr_list(root, "/sys/class/infiniband_verbs", &names);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "uverbs2");   /* version order */
	sr_free_names(names, n);
	assert_int_equal(sr_list(root, "/nope", &names), -ENOENT);

	put("/sys/v", "  0x1f  \n");
	uint64_t v;
	assert_int_equal(sr_read_u64(root, "/sys/v", &v), 0);
	assert_int_equal(v, 0x1f);
	char line[8];
	assert_int_equal(sr_read_line(root, "/sys/v", line, sizeof(line)), 0);
	assert_string_equal(line, "  0x1f");

	/* a recorded tree's absolute symlink must not lead outside the root */
	char lp[256], rp[256];
	snprintf(lp, sizeof(lp), "%s/sys/escape", root);
	assert_int_equal(symlink("/etc", lp), 0);
	assert_int_equal(sr_realpath(root, "/sys/escape", rp, sizeof(rp)), -EXDEV);
	snprintf(lp, sizeof(lp), "%s/sys/inside", root);
	assert_int_equal(symlink("class/infiniband_verbs", lp), 0);
	assert_int_equal(sr_realpath(root, "/sys/inside", rp, sizeof(rp)), 0);
	assert_string_equal(rp, "/sys/class/infiniband_verbs");
	assert_int_equal(sr_link_base(root, "/sys/inside", rp, sizeof(rp)), 0);
	assert_string_equal(rp, "infiniband_verbs");
}

/* A node whose slurmd inherits systemd's 8 MiB and whose Slurm propagates
 * the submitter's limit: defaults warn (never fail: no job was named). */
static void test_defaults_report(void **state)
{
	(void)state;
	char saved[64];
	snprintf(saved, sizeof(saved), "%s", root);
	snprintf(root, sizeof(root), "/tmp/mrtrace-defaults-XXXXXX");
	assert_non_null(mkdtemp(root));
	put("/etc/systemd/system.conf", "[Manager]\n");
	put("/usr/lib/systemd/system/slurmd.service", "[Service]\nExecStart=/usr/sbin/slurmd\n");
	put("/etc/slurm/slurm.conf", "ClusterName=c\n");
	put("/etc/security/limits.d/memlock.conf", "* hard memlock unlimited\n* soft memlock unlimited\n");
	put("/proc/meminfo", "MemTotal: 1048576000 kB\n");

	struct chk_report r;
	struct chk_options o = { .root = root };
	/* a node that expects RDMA (require-rdma=yes): elsewhere every item is
	 * n/a (check/expect.h), and this is about how the defaults are judged */
	chk_rdma_expect_opts.rule = CHK_RDMA_YES;
	assert_int_equal(chk_run(&o, &r), 0);
	chk_rdma_expect_opts.rule = CHK_RDMA_AUTO;
	const struct chk_item *it = chk_find(&r, "memlock.systemd_default");
	assert_non_null(it);
	assert_int_equal(it->verdict, CHK_WARN);
	it = chk_find(&r, "memlock.unit.slurmd.service");
	assert_non_null(it);
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "Slurm jobs get 8 MiB"));
	assert_non_null(strstr(it->fix, "LimitMEMLOCK=infinity"));
	it = chk_find(&r, "memlock.slurm_propagate");
	assert_non_null(it);
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->fix, "PropagateResourceLimitsExcept=MEMLOCK"));
	it = chk_find(&r, "memlock.limits_conf");
	assert_non_null(it);
	assert_int_equal(it->verdict, CHK_OK);
	assert_non_null(strstr(it->note, "root"));   /* '*' does not cover root */
	for (int i = 0; i < r.n_items; i++)
		if (!strncmp(r.items[i].id, "memlock.", 8))
			assert_int_not_equal(r.items[i].verdict, CHK_FAIL);
	chk_report_free(&r);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	snprintf(root, sizeof(root), "%s", saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_limit_values),
		cmocka_unit_test(test_limits_conf),
		cmocka_unit_test(test_systemd_dropin_order),
		cmocka_unit_test(test_unit_dropin),
		cmocka_unit_test(test_docker_and_slurm),
		cmocka_unit_test(test_acs_parse),
		cmocka_unit_test(test_topology_synthetic),
		cmocka_unit_test(test_sysroot),
		cmocka_unit_test(test_defaults_report),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
