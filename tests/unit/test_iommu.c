// SPDX-License-Identifier: GPL-2.0-only
/* test_iommu.c - whether an IOMMU translates DMA (user/tracer/iommu.c), over
 * trees laid out as /sys/kernel/iommu_groups: no groups, identity (iommu=pt)
 * and blocked groups translate nothing; one DMA or DMA-FQ group does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracer/iommu.h"

static char dir[] = "/tmp/mrt-iommu-XXXXXX";

static void group(const char *name, const char *type)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/type", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", type);
	fclose(f);
}

static void translating_groups(void **state)
{
	char missing[300];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(missing, sizeof(missing), "%s/none", dir);
	assert_false(tracer_iommu_translates_at(missing));
	assert_false(tracer_iommu_translates_at(dir));
	group("0", "identity");
	group("1", "blocked");
	assert_false(tracer_iommu_translates_at(dir));
	group("7", "DMA-FQ");
	assert_true(tracer_iommu_translates_at(dir));
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	/* DMA alone */
	snprintf(dir, sizeof(dir), "/tmp/mrt-iommu-XXXXXX");
	assert_non_null(mkdtemp(dir));
	group("3", "DMA");
	assert_true(tracer_iommu_translates_at(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(translating_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
