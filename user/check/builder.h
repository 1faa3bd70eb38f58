/* SPDX-License-Identifier: GPL-2.0-only */
/* builder.h - the `check` report as it is built: items (one verdict each,
 * what the text prints line by line), the JSON sections under each area's
 * name (the raw facts `diff` and scripts read, docs/check.md), the hardware
 * found once (chk_inventory), and the calls every area makes to add to it.
 * It knows no area: the areas (areas.h) call it, the runner (check.c) calls
 * the areas. */
#ifndef MRTRACE_CHECK_BUILDER_H
#define MRTRACE_CHECK_BUILDER_H
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
	bool target_missing;      /* -p given and no such process (ESRCH) */
	/* RDMA not expected here (check/expect.h): every item is n/a, and check,
	 * --health and --prom all say rdma_na_text ("no RDMA on this node") */
	bool rdma_na;
	char rdma_na_text[160];
	struct proc_context *target; /* allocated by chk_run (84 KB): -p's process,
				      * meaningful when have_target */
	struct nccl_info *nccl;   /* with a target whose NCCL could be read */
	char hostname[128];
	char kernel[128];
	char *json_text;          /* chk_json_string's result */
};

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

/* Worst verdict over all items (overall result). */
enum chk_verdict chk_overall(const struct chk_report *r);
/* Exit status for `check`: 0 ok/unknown/warn only, 1 when something fails. */
int chk_exit_status(const struct chk_report *r);

#endif
