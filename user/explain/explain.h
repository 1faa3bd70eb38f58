/* SPDX-License-Identifier: GPL-2.0-only */
/* explain.h - evidence in, verdict out.
 *
 * The explanation engine is pure: it reads a struct mrt_event (what the BPF
 * programs recorded, or a recorded trail replayed from a fixture) and an
 * optional process context, and fills a struct verdict.  No libbpf, no /proc,
 * so every cause is testable by replaying recorded evidence.
 */
#ifndef MRTRACE_EXPLAIN_H
#define MRTRACE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrtrace.h"
#include "explain/fixes.h"

struct proc_context;
struct nccl_info;
struct gate_facts;

/* Stable cause identifiers (docs/causes.md).  Append only. */
enum cause {
	CAUSE_UNKNOWN = 0,
	CAUSE_MEMLOCK_LIMIT,
	CAUSE_MEMLOCK_ZERO,
	CAUSE_PIN_DEVICE_MEMORY,
	CAUSE_PIN_HUGETLB,
	CAUSE_PIN_MIGRATE,
	CAUSE_PIN_FAULT,
	CAUSE_DMA_MAP_IOVA,
	CAUSE_DMABUF_UNSUPPORTED,
	CAUSE_DMABUF_BAD_FD,
	CAUSE_DMABUF_ATTACH,
	CAUSE_MLX5_FIRMWARE,
	CAUSE_BAD_ACCESS_FLAGS,
	CAUSE_IOVA_MISALIGNED,
	CAUSE_RDMA_CGROUP_LIMIT,
	CAUSE_NO_DEVICE_ACCESS,
	/* the refusals beyond registration (MRT_EV_FAILURE, explain/failure.c) */
	CAUSE_DEVICE_MISSING,
	CAUSE_DEVICE_PERMISSION,
	CAUSE_DEVICE_CGROUP,
	CAUSE_HCA_RESOURCE_LIMIT,
	CAUSE_PORT_NOT_ACTIVE,
	CAUSE_BAD_GID_INDEX,
	CAUSE_BAD_PKEY_INDEX,
	CAUSE_QP_ATTR_INVALID,
	CAUSE_SHM_EXHAUSTED,
	CAUSE_FD_IMPORT_DENIED,
	CAUSE__COUNT
};

const char *cause_name(enum cause c);
/* Returns CAUSE__COUNT for an unknown name. */
enum cause cause_from_name(const char *name);

/* How sure the verdict is. */
enum certainty {
	CERT_PROVEN = 0, /* the decisive kernel site was observed */
	CERT_INFERRED, /* deduced from user-level evidence and /proc, no kernel site */
};

#define VERDICT_TEXT_MAX 1024

struct verdict {
	enum cause cause;
	enum certainty certainty;
	int err; /* the errno the verdict explains */
	int decisive_step; /* index into ev->steps, -1 when none */
	bool harmless; /* an expected probe (NCCL's dma-buf capability probe) */
	/* memlock arithmetic, bytes (valid when has_memlock) */
	bool has_memlock;
	uint64_t limit_bytes, pinned_before_bytes, request_bytes, need_bytes;
	char summary[VERDICT_TEXT_MAX]; /* one line: what failed, with numbers */
	char explanation[VERDICT_TEXT_MAX]; /* why, causally */
	struct fix_list fixes; /* for where this process runs, best first */
};

/* ctx and nccl may be NULL (process gone, or replay).  Returns v->cause. */
enum cause explain_event(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct nccl_info *nccl, struct verdict *v);

/* A failed libibverbs call seen by the uprobes with no kernel trail to join:
 * the kernel sites are not armed here, or libibverbs refused before the
 * kernel.  Kernel-free causes are proven (no command was issued); the rest
 * are inferred from the errno and the process's /proc numbers (ctx), and
 * marked CERT_INFERRED.  v->err receives the errno the call failed with
 * (set by libibverbs when no command was issued). */
enum cause explain_user_call(const struct mrt_event *uev, const struct proc_context *ctx,
			     const struct nccl_info *nccl, struct verdict *v);

/* A MRT_EV_FAILURE record (a verbs command, device open, /dev/shm
 * allocation or fd import the kernel refused).  gates: what stood in the
 * way, read from /proc and sysfs at the failure (proc/gates.h); NULL in a
 * replay without them, when only the kernel's own evidence decides.
 * explain_event() calls this with gates NULL. */
enum cause explain_failure(const struct mrt_event *ev, const struct proc_context *ctx,
			   const struct gate_facts *gates, struct verdict *v);

/* The two families operators split ncclSystemError into: who fixes it. */
enum cause_class { CLASS_ENVIRONMENT = 0, CLASS_INFINIBAND };
enum cause_class cause_class(enum cause c, unsigned int op);
const char *cause_class_name(enum cause_class c); /* "environment", "infiniband" */
/* "modify_qp" for an enum mrt_op value; NULL for MRT_OP_NONE. */
const char *op_name(unsigned int op);
enum mrt_op op_from_name(const char *name); /* MRT_OP_NONE when unknown */

/* The page size of the kernel that recorded ev: the unit of every *_pages
 * number in it (records from before page_shift existed: 4 KiB). */
static inline uint64_t event_page_size(const struct mrt_event *ev)
{
	/* page_shift comes from the kernel, or from a record replay checked */
	return 1ULL << (ev->page_shift && ev->page_shift < 64 ? ev->page_shift : 12);
}

/* "ibv_reg_mr_iova2" for an enum mrt_api value. */
const char *api_name(unsigned int api);

/* Helpers shared with output: names of sites, errnos and IB access bits. */
const char *site_name(unsigned int site);
const char *errno_name(int err); /* "ENOMEM"; "E?" for unknown */
/* "LOCAL_WRITE|REMOTE_WRITE|0x100000"; returns buf */
const char *access_names(uint32_t access, char *buf, size_t len);
/* mlx5 command status name ("LIM_ERR"), "?" when unknown */
const char *mlx5_status_name(unsigned int status);

#endif
