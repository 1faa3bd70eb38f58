/* SPDX-License-Identifier: GPL-2.0-only */
/* diff.h - `mrtrace diff`: compare `check --json` reports from many nodes.
 *
 * One odd node fails a whole NCCL job, and it hides among identical ones.
 * diff turns each report into facets (one comparable value each: a memlock
 * default, a port's state, a firmware version, an NCCL setting, an item's
 * verdict), compares every facet across the nodes that have it, names the
 * nodes outside the majority first, and groups nodes that agree everywhere.
 *
 * A facet is "breaking" when a difference in it can make a job fail (memlock,
 * port state, PKeys, device access, GPUDirect path, IOMMU mode, NCCL settings
 * and version, a verdict that is FAIL somewhere) and "drift" otherwise
 * (firmware, driver and kernel versions, hugepage pools, link rate).
 */
#ifndef MRTRACE_DIFF_H
#define MRTRACE_DIFF_H
#include <stdio.h>

struct diff_result {
	int nodes;
	int breaking;     /* facets with a breaking difference */
	int drift;        /* facets that differ without breaking */
	int shared_fail;  /* items that FAIL on every node (no difference, still bad) */
};

/* Reads the reports, prints the comparison to out.  Returns the exit
 * status: 0 no breaking difference, 1 at least one, 2 bad input (err names
 * the file and what was wrong; nothing is printed to out). */
int diff_files(int n, const char *const *files, FILE *out, struct diff_result *res, char *err,
	       size_t errlen);

#endif
