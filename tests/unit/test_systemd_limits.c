// SPDX-License-Identifier: GPL-2.0-only
/* test_systemd_limits.c - LimitMEMLOCK and DefaultLimitMEMLOCK resolved the
 * way systemd resolves them (systemd.unit(5)): the unit file from the first
 * search-path directory that has it (system.control, transient, generators,
 * /etc, /run, /usr/local/lib, /usr/lib), drop-ins from <unit>.d/, from the
 * dash-prefix directories (a-.service.d/) and from the type directory
 * (service.d/) in every search path, a name in a higher-priority directory
 * masking the same name below, all applied in file-name order.  A unit set
 * to infinity anywhere systemd looks must not be reported as 8 MiB. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check.h"
#include "check/areas.h"

static char tree[40];

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	for (char *s = strchr(p + strlen(tree) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void reset(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/proc' '%s/etc'", tree, tree, tree);
	assert_int_equal(system(cmd), 0);
}

static struct chk_limit unit(const char *name)
{
	struct chk_limit l;
	chk_unit_memlock(tree, name, &l);
	return l;
}

#define UNLIMITED UINT64_MAX

static void expect(const char *what, const struct chk_limit *l, bool exists, bool set, uint64_t soft)
{
	if (l->exists != exists || l->set != set || (set && l->soft != soft))
		fail_msg("%s: exists %d set %d soft %llu (source %s), expected exists %d set %d soft %llu",
			 what, l->exists, l->set, (unsigned long long)l->soft, l->source, exists, set,
			 (unsigned long long)soft);
}

static const char svc[] = "[Service]\nExecStart=/usr/sbin/slurmd\n";

static void test_type_dropin(void **state)
{
	(void)state;
	reset();
	put("usr/lib/systemd/system/slurmd.service", svc);
	put("etc/systemd/system/service.d/10-memlock.conf", "[Service]\nLimitMEMLOCK=infinity\n");
	struct chk_limit l = unit("slurmd.service");
	expect("service.d/ applies to every service", &l, true, true, UNLIMITED);
	/* a unit's own drop-in of the same name wins over the type's */
	put("usr/lib/systemd/system/slurmd.service.d/10-memlock.conf", "[Service]\nLimitMEMLOCK=64K\n");
	l = unit("slurmd.service");
	expect("slurmd.service.d/10-memlock.conf masks service.d/10-memlock.conf", &l, true, true,
	       64 << 10);
}

static void test_control_and_transient(void **state)
{
	(void)state;
	reset();
	put("usr/lib/systemd/system/containerd.service", svc);
	put("etc/systemd/system.control/containerd.service.d/50-LimitMEMLOCK.conf",
	    "[Service]\nLimitMEMLOCK=infinity\n");
	struct chk_limit l = unit("containerd.service");
	expect("system.control drop-in", &l, true, true, UNLIMITED);
	reset();
	put("run/systemd/transient/job-42.service", "[Service]\nLimitMEMLOCK=infinity\n");
	l = unit("job-42.service");
	expect("transient unit", &l, true, true, UNLIMITED);
}

static void test_dash_prefix(void **state)
{
	(void)state;
	reset();
	put("etc/systemd/system/slurm-node-a.service", svc);
	put("run/systemd/system/slurm-.service.d/limits.conf", "[Service]\nLimitMEMLOCK=infinity\n");
	struct chk_limit l = unit("slurm-node-a.service");
	expect("slurm-.service.d/ applies to slurm-node-a.service", &l, true, true, UNLIMITED);
	put("run/systemd/system/slurm-node-.service.d/limits.conf", "[Service]\nLimitMEMLOCK=1M\n");
	l = unit("slurm-node-a.service");
	expect("slurm-node-.service.d/ is more specific", &l, true, true, 1 << 20);
}

/* Names in a higher-priority directory mask the same name below; the rest
 * are applied in file-name order across directories. */
static void test_order(void **state)
{
	(void)state;
	reset();
	put("usr/lib/systemd/system/kubelet.service", "[Service]\nLimitMEMLOCK=infinity\n");
	put("usr/lib/systemd/system/kubelet.service.d/90-vendor.conf", "[Service]\nLimitMEMLOCK=8M\n");
	put("etc/systemd/system/kubelet.service.d/90-vendor.conf", "[Service]\nLimitMEMLOCK=16M\n");
	put("run/systemd/system/kubelet.service.d/50-x.conf", "[Service]\nLimitMEMLOCK=2M\n");
	struct chk_limit l = unit("kubelet.service");
	expect("/etc/.../90-vendor.conf masks /usr/lib's and is applied last", &l, true, true, 16 << 20);
	/* the unit file: the first search path that has it */
	put("etc/systemd/system/docker.service", "[Service]\nLimitMEMLOCK=64K\n");
	put("usr/lib/systemd/system/docker.service", "[Service]\nLimitMEMLOCK=infinity\n");
	l = unit("docker.service");
	expect("/etc/systemd/system/docker.service wins over /usr/lib's", &l, true, true, 64 << 10);
}

/* More drop-ins than a fixed table held: the last one still counts. */
static void test_many_dropins(void **state)
{
	(void)state;
	reset();
	put("usr/lib/systemd/system/crio.service", svc);
	char rel[128];
	for (int i = 0; i < 200; i++) {
		snprintf(rel, sizeof(rel), "etc/systemd/system/crio.service.d/%03d-x.conf", i);
		put(rel, i == 199 ? "[Service]\nLimitMEMLOCK=infinity\n" : "[Service]\nNice=1\n");
	}
	struct chk_limit l = unit("crio.service");
	expect("the 200th drop-in", &l, true, true, UNLIMITED);
}

static void test_default_in_usr(void **state)
{
	(void)state;
	reset();
	/* systemd 256+ ships the defaults in /usr/lib/systemd/system.conf */
	put("usr/lib/systemd/system.conf", "[Manager]\nDefaultLimitMEMLOCK=infinity\n");
	struct chk_limit d;
	chk_systemd_default_memlock(tree, &d);
	expect("DefaultLimitMEMLOCK in /usr/lib/systemd/system.conf", &d, true, true, UNLIMITED);
	put("etc/systemd/system.conf", "[Manager]\n#DefaultLimitMEMLOCK=\n");
	chk_systemd_default_memlock(tree, &d);
	expect("an /etc/systemd/system.conf replaces /usr/lib's", &d, true, false, 0);
	put("run/systemd/system.conf.d/50-mem.conf", "[Manager]\nDefaultLimitMEMLOCK=1G\n");
	chk_systemd_default_memlock(tree, &d);
	expect("system.conf.d in /run", &d, true, true, 1ULL << 30);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tree, sizeof(tree), "/tmp/mrtrace-sd-XXXXXX");
	return mkdtemp(tree) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_dropin),
		cmocka_unit_test(test_control_and_transient),
		cmocka_unit_test(test_dash_prefix),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_many_dropins),
		cmocka_unit_test(test_default_in_usr),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
