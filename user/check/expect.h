/* SPDX-License-Identifier: GPL-2.0-only */
/* expect.h - whether RDMA is expected on this node, which decides whether
 * `check --health` judges RDMA at all (a Slurm prolog runs on every node:
 * CPU and login nodes have no RDMA and must not be drained for it).
 *
 * Expected when the node has RDMA hardware (a device in
 * /sys/class/infiniband, or a PCI function of the InfiniBand or fabric
 * class, or a network function of a vendor whose NICs are RDMA NICs) or when
 * --require-rdma (`require-rdma` in [check] of mrtrace.conf) says so: `yes`,
 * or selectors `partition:PATTERN`, `feature:PATTERN` matched against the
 * job's partition and the node's features the prolog passes.  `no` expects
 * none even with hardware (a ConnectX used as a plain Ethernet NIC).  An
 * expectation the node cannot meet (the HCA fell off the bus, the driver
 * did not load) is what drains it. */
#ifndef MRTRACE_CHECK_EXPECT_H
#define MRTRACE_CHECK_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "check/builder.h" /* struct chk_report (not check.h: check.c calls this) */

enum chk_rdma_rule { CHK_RDMA_AUTO = 0, CHK_RDMA_YES, CHK_RDMA_NO };

struct chk_rdma_expect {
	enum chk_rdma_rule rule;
	char selectors[256]; /* "partition:gpu*,feature:ib", with auto */
	char partition[64];  /* the job's partition (--slurm-partition) */
	char features[256];  /* the node's features, comma-separated (--node-features) */
};

/* What the command line and the configuration set (cmd.c fills it, the
 * health judge reads it). */
extern struct chk_rdma_expect chk_rdma_expect_opts;

/* --require-rdma's value: auto, yes, no, or a comma-separated list of
 * partition:PATTERN / feature:PATTERN (fnmatch).  0, or -1 with the word
 * that is wrong in bad. */
int chk_rdma_expect_parse(const char *spec, struct chk_rdma_expect *e, char *bad, size_t len);

/* True when RDMA is expected; why says by what, in a few words
 * ("RDMA hardware: mlx5_0", "require-rdma: partition gpu", "no RDMA
 * hardware"). */
bool chk_rdma_expected(const struct chk_report *r, const struct chk_rdma_expect *e, char *why,
		       size_t len);

/* What a node where RDMA is not expected is called, the same words in
 * check's RESULT, --health and the items: "no RDMA on this node" (no
 * hardware), else "RDMA not expected on this node (require-rdma=no)". */
void chk_rdma_na_text(const char *why, char *out, size_t len);

/* Where RDMA is not expected: sets r->rdma_na and its text, and makes every
 * item that warns or fails n/a (verdict ok, the value saying why), so that
 * check's verdict and exit status, --health and --prom agree.  Runs after
 * the areas, before the summary. */
void chk_rdma_na_apply(struct chk_report *r);

#endif
