/* SPDX-License-Identifier: GPL-2.0-only */
/* areas.h - the checklist areas of `mrtrace check`, one file each (host.c,
 * inventory.c, memlock.c with memlock_conf.c, hugepages.c, cma.c, rdma.c,
 * gpudirect.c, iommu.c, topology.c, nccl.c, fabric.c, summary.c).  An area reads the
 * node only through core/sysroot.h, so the unit tests run it on recorded
 * trees, and adds items and a JSON section through the builder
 * (builder.h).  The runner (check.c) calls them in order. */
#ifndef MRTRACE_CHECK_AREAS_H
#define MRTRACE_CHECK_AREAS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check/builder.h"

/* The areas, in the order the runner (check.c) calls them.  Each returns
 * nothing: it records what it found, including what it could not read.
 * host.c reads the target process (-p) and its NCCL once, for all. */
void chk_host(struct chk_report *r);
void chk_inventory_scan(struct chk_report *r);
void check_memlock(struct chk_report *r);
void check_hugepages(struct chk_report *r);
void check_cma(struct chk_report *r);
void check_rdma(struct chk_report *r);
void check_gpudirect(struct chk_report *r);
void check_iommu(struct chk_report *r);
void check_topology(struct chk_report *r);
void check_nccl(struct chk_report *r);
void check_fabric(struct chk_report *r);
void check_summary(struct chk_report *r);

/* ---- what areas expose: to each other and to the unit tests --------------- */

/* rdma.c: the IB MTU of a RoCE port whose interface has this MTU; -1 none */
long chk_roce_mtu(long eth_mtu);

/* inventory.c: "0000:18:00.0" */
bool chk_is_bdf(const char *s);

/* memlock_conf.c */
/* A memlock setting read from configuration. */
struct chk_limit {
	bool exists;              /* the file / unit was found at all */
	bool set;                 /* a value was assigned */
	uint64_t soft, hard;      /* bytes, UINT64_MAX = unlimited */
	char source[256];         /* file that set it last */
};
/* systemd "8M", "infinity", "64K:1G".  0 or -1. */
int chk_parse_systemd_limit(const char *v, uint64_t *soft, uint64_t *hard);
void chk_systemd_default_memlock(const char *root, struct chk_limit *out);
/* A unit's LimitMEMLOCK (main file + drop-ins); out->exists = unit found. */
void chk_unit_memlock(const char *root, const char *unit, struct chk_limit *out);
/* Docker daemon.json default-ulimits; -1 no file, -2 malformed, 0 read. */
int chk_docker_default_memlock(const char *root, struct chk_limit *out);
/* 1: srun/sbatch propagate the submitting shell's memlock to jobs,
 * 0: they do not, -1: no slurm.conf.  source gets the file read. */
int chk_slurm_propagates_memlock(const char *root, char *source, size_t len);

struct chk_limits_entry {         /* one memlock line of limits.conf */
	char domain[64];          /* "*", "@group", "user", "%" */
	char type[16];            /* soft, hard, - */
	uint64_t value;           /* bytes (the file says KiB), UINT64_MAX = unlimited */
	char source[256];
	int line;
};
int chk_parse_limits_conf(const char *text, const char *source, struct chk_limits_entry *out,
			  int max);
int chk_limits_conf_read(const char *root, struct chk_limits_entry *out, int max);

/* topology.c: PCIe distance between two devices from their /sys/devices paths, the way
 * `nvidia-smi topo -m` names it. */
enum chk_topo { CHK_TOPO_PIX, CHK_TOPO_PXB, CHK_TOPO_PHB, CHK_TOPO_NODE, CHK_TOPO_SYS,
		CHK_TOPO_UNKNOWN };
enum chk_topo chk_topo_classify(const char *path_a, long numa_a, const char *path_b, long numa_b);
const char *chk_topo_name(enum chk_topo t);

/* iommu.c: PCIe ACS control word from a config-space dump: 1 found, 0 no ACS
 * capability, -1 extended config space not readable (non-root). */
int chk_acs_from_config(const unsigned char *cfg, size_t len, unsigned *ctrl);

/* klog.c: the load errors of a module in the kernel log (/dev/kmsg below
 * root), the newest last. */
#define CHK_KLOG_LINES 4
#define CHK_KLOG_LINE 200
struct chk_klog {
	int error;                /* -errno: the log was not readable (or not to its end) */
	long records;             /* records read */
	bool truncated;           /* stopped at the bound before the end */
	int n, dropped;           /* lines kept, older distinct lines not kept */
	char lines[CHK_KLOG_LINES][CHK_KLOG_LINE];
};
/* mods: NULL-terminated names a record's text starts with ("nvidia_peermem").
 * 0, or out->error. */
int chk_klog_module_errors(const char *root, const char *const *mods, struct chk_klog *out);

/* peermarkers.c: the marker files and nvidia_peermem's load errors into
 * peer (gpudirect.peer_memory's JSON object); with items, gpudirect.peer_markers
 * and (-p, NCCL mapped) gpudirect.nccl_peermem. */
struct gpu_facts;
struct gpu_dmabuf_state;
void check_peer_markers(struct chk_report *r, const struct gpu_facts *f, const struct gpu_dmabuf_state *d,
			const char *missing, json_object *peer, bool items);

/* topology.c: the table printed after the area's items (text.c). */
void check_topology_text(const struct chk_report *r, FILE *out);

#endif
