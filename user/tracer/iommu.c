// SPDX-License-Identifier: GPL-2.0-only
/* iommu.c - whether an IOMMU translates DMA here (iommu.h): each iommu
 * group's default domain type, as sysfs names it (drivers/iommu: "DMA",
 * "DMA-FQ" translate; "identity" (iommu=pt) and "blocked" do not). */
#include "tracer/iommu.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/regfile.h"

bool tracer_iommu_translates_at(const char *groups_dir)
{
	DIR *d = opendir(groups_dir);
	struct dirent *e;
	bool translates = false;

	if (!d)
		return false; /* no IOMMU groups: no IOMMU */
	while (!translates && (e = readdir(d))) {
		char path[512], *text = NULL;
		size_t len = 0;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", groups_dir, e->d_name);
		if (regfile_read(path, 0, 4096, &text, &len) < 0) /* sysfs says 4096 */
			continue;
		text[strcspn(text, "\n")] = 0;
		translates = !strcmp(text, "DMA") || !strcmp(text, "DMA-FQ");
		free(text);
	}
	closedir(d);
	return translates;
}

bool tracer_iommu_translates(void)
{
	return tracer_iommu_translates_at("/sys/kernel/iommu_groups");
}
