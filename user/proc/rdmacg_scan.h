/* SPDX-License-Identifier: GPL-2.0-only */
/* rdmacg_scan.h - the rdma cgroup of a node, for judging a log's refused
 * verbs object after the fact: whether cgroup v2's root enables the rdma
 * controller at all, and which cgroups' rdma.max limits something now.
 *
 * A log says EAGAIN from ibv_create_cq; the process and its cgroup are
 * gone.  What the node can still say is whether any cgroup limits RDMA
 * objects (the controller off: no rdma.max anywhere can refuse), and the
 * first one that does, for the reader to look at.
 *
 * The tree belongs to whoever may create cgroups (a delegated subtree is a
 * user's): the walk is bounded in depth and width, follows no symlink, and
 * reads at most RDMACG_MAX_READ bytes of a regular rdma.max. */
#ifndef MRTRACE_PROC_RDMACG_SCAN_H
#define MRTRACE_PROC_RDMACG_SCAN_H
#include <stdbool.h>
#include <stddef.h>

#define RDMACG_MAX_DEPTH 8
#define RDMACG_MAX_DIRS  4096
#define RDMACG_MAX_READ  1024

struct rdmacg_scan {
	int controller;     /* 1: the root's cgroup.controllers lists rdma, 0: it
			     * does not, -1: not read (no cgroup v2 there) */
	unsigned limited;   /* cgroups whose rdma.max limits something */
	unsigned dirs;      /* cgroups read */
	bool cut;           /* the walk stopped at RDMACG_MAX_DEPTH/DIRS: the
			     * count is a lower bound */
	char first[256];    /* the first limiting cgroup, "/job.slice/x" */
	char first_line[128]; /* its rdma.max line that limits, "rxe0 hca_handle=max hca_object=2" */
};

/* Scans <root>/sys/fs/cgroup ("/" for the live node).  Fills out; 0, or
 * -errno when the cgroup v2 root cannot be opened (out->controller -1). */
int rdmacg_scan(const char *root, struct rdmacg_scan *out);

/* Whether one rdma.max line (n bytes, "rxe0 hca_handle=max hca_object=3")
 * limits anything: a value other than "max". */
bool rdmacg_line_limits(const char *line, size_t n);

#endif
