/* SPDX-License-Identifier: GPL-2.0-only */
/* rdmares.h - which processes hold QPs on an RDMA port, from the kernel's
 * own resource tracking (RDMA netlink, RDMA_NLDEV_CMD_RES_QP_GET, read
 * through iproute2's `rdma -j res show qp`).  Cold: read at a port event,
 * never per verb.  Kernel QPs (QP0/QP1, no pid) are left out. */
#ifndef MRTRACE_PROC_RDMARES_H
#define MRTRACE_PROC_RDMARES_H

struct rdma_qp_holder {
	int pid;
	char comm[16];
	int qps;
};

struct rdma_qp_holders {
	int n;                  /* in h[] */
	int dropped;            /* holders beyond max */
	int qps;                /* their QPs together */
	struct rdma_qp_holder h[16];
	const char *why;        /* when they could not be read: why (a static string) */
};

/* Why the holders could not be read (rdma_qp_holders.why). */
#define RDMARES_WHY_TOOL "rdma (iproute2) failed or is missing"
#define RDMARES_WHY_BIG "its output is over 64 MiB"
#define RDMARES_WHY_JSON "its output is not the JSON expected"
#define RDMARES_WHY_MEMORY "out of memory"
/* (rdmares_async.h: a run that watch's loop does not wait for) */
#define RDMARES_WHY_SLOW "it did not answer in time and was killed"
#define RDMARES_WHY_STUCK "an earlier run that was killed has not exited yet"
#define RDMARES_WHY_STOPPED "watch stopped before it answered"
#define RDMARES_WHY_BUSY "too many port changes were waiting for it"

/* The holders of QPs on device/port (port 0: every port) in the JSON
 * `rdma -j res show qp` prints.  0, or -1 when it is not that JSON. */
int rdmares_parse_qp(const char *json, const char *device, unsigned port, struct rdma_qp_holders *out);

struct json_object;
/* The same in the parsed array (rdmares_async.c parses it as it comes). */
void rdmares_holders_of(struct json_object *a, const char *device, unsigned port,
			struct rdma_qp_holders *out);

/* An answer of the tool serves the askers of a burst: every ask less than
 * RDMARES_REUSE_S after the previous one, for at most RDMARES_REUSE_MAX_S
 * from the answer (a switch reboot's port changes, a job's refused QPs). */
#define RDMARES_REUSE_S 1.0
#define RDMARES_REUSE_MAX_S 10.0
/* (rdmares_res.h: the answers waited for, by type) */

#endif
