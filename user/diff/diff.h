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
 *
 * Reports come from other machines: diff reads them as untrusted input.  A
 * report is at most DIFF_REPORT_MAX bytes and DIFF_CONTAINERS_MAX JSON
 * objects and arrays (a node's report is a few KiB), every member is
 * type-checked before use, and the comparison is linear in the number of
 * facets (hash tables, no pairwise search).
 */
#ifndef MRTRACE_DIFF_H
#define MRTRACE_DIFF_H
#include <stdio.h>

#define DIFF_REPORT_MAX (16u << 20)
#define DIFF_CONTAINERS_MAX 1000000

struct diff_result {
	int nodes;        /* distinct reports compared */
	int breaking;     /* facets with a breaking difference */
	int drift;        /* facets that differ without breaking */
	int shared_fail;  /* items that FAIL on every node (no difference, still bad) */
};

/* Reads the reports ("-" is standard input), prints the comparison to out.
 * A file named twice (or under two names) is compared once.  Returns the
 * exit status: 0 no breaking difference, 1 at least one, 2 bad input (err
 * names the file and what was wrong; nothing is printed to out). */
int diff_files(int n, const char *const *files, FILE *out, struct diff_result *res, char *err,
	       size_t errlen);

#endif
