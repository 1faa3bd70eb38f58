/* SPDX-License-Identifier: GPL-2.0-only */
/* verdict.h - the bottom of the explanation engine: what a verdict is (a
 * cause, how sure, the numbers, the texts and the fixes), how a trail is
 * read and how a verdict is written.  Every explainer and every fix
 * generator of verdict/ builds on this header; it includes none of them,
 * so nothing here can call back into a dispatcher (docs/design.md section 7,
 * checked by tools/loops.py). */
#ifndef MRTRACE_VERDICT_VERDICT_H
#define MRTRACE_VERDICT_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrtrace.h"

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
	/* the refusals beyond registration (MRT_EV_FAILURE, verdict/failure.c) */
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
	/* a GPU-memory registration refused while the GPU's BAR1 is full */
	CAUSE_GPU_BAR1_EXHAUSTED,
	/* RoCE: the remote GID resolved to no route or no neighbour (modify_qp
	 * to RTR, create_ah; MRT_SITE_ADDR_RESOLVE) */
	CAUSE_GID_UNREACHABLE,
	/* a dma-buf MR whose offset + length lies past the dma-buf's end
	 * (ib_umem_dmabuf_get's range check) */
	CAUSE_DMABUF_RANGE,
	/* EAGAIN from the registration's own firmware command: the HCA had no
	 * free resource for it (mlx5 status NO_RES_ERR), the kernel's "try
	 * again", which nothing below the application retries */
	CAUSE_REG_RETRY,
	/* the device is in its fatal (internal-error) state after a
	 * catastrophic error: the driver no longer posts commands (mlx5
	 * status MLX5_DRIVER_STATUS_ABORTED, EIO) */
	CAUSE_DEVICE_FATAL,
	/* a long-term pin refused because the buffer maps a file on a DAX
	 * file system (EOPNOTSUPP, MRT_VMA_FSDAX in the pin step) */
	CAUSE_PIN_FSDAX,
	CAUSE__COUNT,
	/* What a log can report that no kernel call refused (a completion's
	 * status, an async event, NCCL's own choices, CUDA's errors): the
	 * inferred side's leads only, never a record's verdict, so they come
	 * after CAUSE__COUNT, which bounds docs/causes.md's table, the fixes
	 * and the replays.  Their rows' class is CLASS_NO_REFUSAL. */
	CAUSE_FABRIC_RETRY = CAUSE__COUNT,
	CAUSE_FLUSHED_AFTER_ERROR,
	CAUSE_PROTECTION_ERROR,
	CAUSE_COMPLETION_ERROR,
	CAUSE_PORT_EVENT,
	CAUSE_GID_CHANGE,
	CAUSE_GDR_DISABLED,
	CAUSE_GID_TYPE_UNREADABLE,
	CAUSE_CUDA_ERROR,
	CAUSE__ALL
};

/* How sure the verdict is. */
enum certainty {
	CERT_PROVEN = 0, /* the decisive kernel site was observed */
	CERT_INFERRED, /* deduced from user-level evidence and /proc, no kernel site */
};

/* ---- fixes: what to change, best first ----------------------------------- */

enum fix_kind {
	FIX_PRIMARY,      /* the change that fixes it where the job runs */
	FIX_ALTERNATIVE,  /* also works, or needed in addition in some setups */
	FIX_STOPGAP,      /* reduces the need (NCCL settings); not a fix */
	FIX_NOTE,         /* why common advice does not apply here */
};

#define FIX_MAX      16
#define FIX_TEXT_MAX 512
struct fix {
	enum fix_kind kind;
	char text[FIX_TEXT_MAX];
};
struct fix_list {
	int n;
	bool truncated;
	struct fix items[FIX_MAX];
};

/* ---- the verdict ----------------------------------------------------------- */

#define VERDICT_TEXT_MAX 1536

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

/* The page size of the kernel that recorded ev: the unit of every *_pages
 * number in it (records from before page_shift existed: 4 KiB). */
static inline uint64_t event_page_size(const struct mrt_event *ev)
{
	/* page_shift comes from the kernel, or from a record replay checked */
	return 1ULL << (ev->page_shift && ev->page_shift < 64 ? ev->page_shift : 12);
}

/* ---- kernel bits the evidence carries ------------------------------------- */

/* IB access bits (include/rdma/ib_verbs.h, enum ib_access_flags). */
#define IB_LOCAL_WRITE 0x1
#define IB_REMOTE_WRITE 0x2
#define IB_REMOTE_READ 0x4
#define IB_REMOTE_ATOMIC 0x8
#define IB_MW_BIND 0x10
#define IB_ZERO_BASED 0x20
#define IB_ON_DEMAND 0x40
#define IB_HUGETLB 0x80
#define IB_OPTIONAL_FIRST (1u << 20)
#define IB_OPTIONAL_LAST (1u << 29)
#define IB_RELAXED_ORDERING IB_OPTIONAL_FIRST
/* ib_check_mr_access: bits 0..7 plus the optional range */
#define IB_ACCESS_SUPPORTED \
	(((IB_HUGETLB << 1) - 1) | (((IB_OPTIONAL_LAST << 1) - 1) & ~(IB_OPTIONAL_FIRST - 1)))

/* Access bits ib_check_mr_access does not know (a newer rdma-core flag on an
 * older kernel, or garbage): the verdict and its fix both ask. */
static inline bool ib_access_unknown(uint32_t access)
{
	return access & ~IB_ACCESS_SUPPORTED;
}

/* vm_flags bits (include/linux/mm.h), stable for decades */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_PFNMAP 0x400
#define VM_IO 0x4000
#define VM_HUGETLB 0x400000

/* ---- reading a trail ---------------------------------------------------------- */

/* Steps actually recorded (a trail longer than MRT_TRAIL_MAX lost the rest). */
int trail_nsteps(const struct mrt_event *ev);
/* First step of `site` that failed, or -1. */
int trail_first_failed(const struct mrt_event *ev, unsigned int site);
/* First step of `site`, or -1. */
int trail_find(const struct mrt_event *ev, unsigned int site);

/* ---- writing a verdict ---------------------------------------------------- */

/* Clears v for a new verdict about errno err: no cause yet (unknown), no
 * decisive step, the given certainty. */
void verdict_init(struct verdict *v, int err, enum certainty certainty);
/* printf into a verdict text field (summary, explanation). */
void verdict_say(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "16 MiB" into a 32-byte buffer, for the numbers in a summary. */
const char *verdict_bytes(uint64_t bytes, char *buf);
/* Appends one printf-formatted fix: a text that does not fit ends in "...",
 * a full list marks `truncated` and keeps what it has. */
void fix_add(struct fix_list *out, enum fix_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
