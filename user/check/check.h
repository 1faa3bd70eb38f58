/* SPDX-License-Identifier: GPL-2.0-only */
/* check.h - `mrtrace check`: inspect a node (and optionally one process) for
 * everything that decides whether RDMA memory registration can work, and give
 * each item a verdict with its evidence.
 *
 * Shape: chk_run() fills a struct chk_report.  Each checklist area lives in its
 * own file (check_memlock.c, check_rdma.c, ...) and adds
 *   - items: one verdict each (what the text output prints, line by line), and
 *   - a JSON section under its area name with the raw facts (what `diff` and
 *     scripts read; the schema is in docs/check.md).
 * Areas read the node only through sysroot.h, so the unit tests run them on
 * recorded trees; they share discovered hardware through chk_inventory.
 */
#ifndef MRTRACE_CHECK_H
#define MRTRACE_CHECK_H
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/schema.h"
#include "core/strbuf.h"
#include "proc/context.h"
#include "nccl/nccl.h"


/* Ordered by how loudly they are reported in the summary: fail > warn >
 * unknown > ok (see chk_worse). */
enum chk_verdict { CHK_OK = 0, CHK_UNKNOWN, CHK_WARN, CHK_FAIL };

/* The two families experienced operators split `ncclSystemError` into: the
 * node/job environment (limits, privileges, container passthrough, drivers,
 * settings) versus the InfiniBand fabric resources (port, SM, LID, PKey).
 * The split decides who fixes it and what to run next. */
enum chk_class { CHK_CLS_NONE = 0, CHK_CLS_ENV, CHK_CLS_IB };

#define CHK_AREA_MAX 16
struct chk_item {
	char area[CHK_AREA_MAX];  /* "memlock", "rdma", ... (JSON section name) */
	char id[64];              /* stable, e.g. "rdma.mlx5_0.port1" */
	enum chk_verdict verdict;
	enum chk_class cls;
	char title[48];           /* left column: what this line is about */
	char value[256];          /* the evidence, in human units */
	char note[640];           /* what it means (printed under non-ok items) */
	char fix[640];            /* what to change or run next */
};

/* Hardware found once and used by several areas. */
#define CHK_BDF_MAX 16            /* "0000:18:00.0" */
#define CHK_MAX_GPUS 32
#define CHK_MAX_RDMA 64
struct chk_gpu {
	int index;                /* 0.. in PCI order, like nvidia-smi without CUDA_VISIBLE_DEVICES */
	char bdf[CHK_BDF_MAX];
	char path[512];           /* /sys/devices/pci0000:15/... (topology) */
	long numa;                /* -1 unknown */
	char device_id[8];        /* "2330" */
};
struct chk_rdma_dev {
	char name[64];            /* mlx5_0, rxe0 */
	char driver[32];          /* mlx5_core, rdma_rxe, ... ("" unknown) */
	char bdf[CHK_BDF_MAX];    /* "" for software devices (rxe, siw) */
	char path[512];           /* PCI device path, "" without one */
	long numa;
	char netdev[32];          /* RoCE/rxe: the Ethernet device of port 1 */
};
struct chk_inventory {
	int n_gpus;
	struct chk_gpu gpus[CHK_MAX_GPUS];
	int n_rdma;
	struct chk_rdma_dev rdma[CHK_MAX_RDMA];
	int gpus_dropped, rdma_dropped;   /* found beyond the tables: said by an item */
	bool sysfs_infiniband;    /* /sys/class/infiniband exists */
};

struct chk_options {
	const char *root;         /* --sysroot; NULL or "/" = live */
	int pid;                  /* -p; 0 = node only */
};

struct chk_report {
	struct chk_options opt;
	json_object *doc;         /* the JSON document being built */
	struct chk_item *items;
	int n_items, cap_items;
	struct chk_inventory inv;
	bool have_target;         /* -p given and the process was read */
	struct proc_context target;
	struct nccl_info *nccl;   /* with a target whose NCCL could be read */
	char hostname[128];
	char kernel[128];
	char *json_text;          /* chk_json_string's result */
};

bool chk_is_bdf(const char *s);

/* Runs every area.  Returns 0, or -ENOMEM.  An unreadable file is never an
 * error: it makes the item "unknown" with the reason. */
int chk_run(const struct chk_options *opt, struct chk_report *r);
void chk_report_free(struct chk_report *r);

/* Worst verdict over all items (overall result). */
enum chk_verdict chk_overall(const struct chk_report *r);
/* Exit status for `check`: 0 ok/unknown/warn only, 1 when something fails. */
int chk_exit_status(const struct chk_report *r);

/* Output. */
void chk_print_text(const struct chk_report *r, FILE *out);
/* Full document (items, summary and sections); caller owns nothing. */
const char *chk_json_string(struct chk_report *r);

/* ---- for the area files --------------------------------------------------- */
/* Adds an item; the strings are printf formats for value.  Returns the item
 * (valid until the next chk_add) so note/fix can be set; NULL on ENOMEM. */
struct chk_item *chk_add(struct chk_report *r, const char *area, const char *id,
			 enum chk_verdict v, enum chk_class cls, const char *title,
			 const char *value_fmt, ...) __attribute__((format(printf, 7, 8)));
void chk_note(struct chk_item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void chk_fix(struct chk_item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The area's JSON section, created on first use. */
json_object *chk_section(struct chk_report *r, const char *area);
const struct chk_item *chk_find(const struct chk_report *r, const char *id);

const char *chk_verdict_name(enum chk_verdict v);   /* "ok", "warn", ... */
const char *chk_class_name(enum chk_class c);       /* "none", "environment", "infiniband" */
enum chk_verdict chk_worse(enum chk_verdict a, enum chk_verdict b);

/* JSON helpers: null for "unknown" numbers, "unlimited" spelled as null too
 * would lose information, so limits use chk_json_limit (string "unlimited"
 * or a number). */
json_object *chk_json_limit(uint64_t bytes);
void chk_json_str(json_object *o, const char *key, const char *s);  /* "" -> null */

/* The areas, in report order.  Each returns nothing: it records what it
 * found, including what it could not read. */
void chk_inventory_scan(struct chk_report *r);
void chk_host(struct chk_report *r);
void check_memlock(struct chk_report *r);
void check_hugepages(struct chk_report *r);
void check_rdma(struct chk_report *r);
void check_gpudirect(struct chk_report *r);
void check_iommu(struct chk_report *r);
void check_topology(struct chk_report *r);
void check_nccl(struct chk_report *r);
void check_summary(struct chk_report *r);

/* ---- pure helpers, exposed for the unit tests ---------------------------- */
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

/* PCIe distance between two devices from their /sys/devices paths, the way
 * `nvidia-smi topo -m` names it. */
enum chk_topo { CHK_TOPO_PIX, CHK_TOPO_PXB, CHK_TOPO_PHB, CHK_TOPO_NODE, CHK_TOPO_SYS,
		CHK_TOPO_UNKNOWN };
enum chk_topo chk_topo_classify(const char *path_a, long numa_a, const char *path_b, long numa_b);
const char *chk_topo_name(enum chk_topo t);

/* PCIe ACS control word from a config-space dump: 1 found, 0 no ACS
 * capability, -1 extended config space not readable (non-root). */
int chk_acs_from_config(const unsigned char *cfg, size_t len, unsigned *ctrl);

/* Area text extras printed after an area's items (tables), or NULL. */
void check_topology_text(const struct chk_report *r, FILE *out);

#endif
