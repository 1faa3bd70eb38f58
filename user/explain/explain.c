// SPDX-License-Identifier: GPL-2.0-only
/* explain.c - from a registration's kernel trail to a cause, with numbers.
 *
 * The order of the tests follows the kernel's own order of checks on the
 * registration path (docs/design.md section 2): uverbs command validation, rdma
 * cgroup charge, dma-buf handling, then ib_umem_get's memlock check, page
 * pinning, DMA mapping and the driver's firmware command.  The first site
 * that failed is the decisive one; everything after it is consequence.
 */
#include "explain/explain.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proc/context.h"
#include "nccl/nccl.h"
#include "core/units.h"

#define PAGE_SZ 4096ULL

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

/* vm_flags bits (include/linux/mm.h), stable for decades */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_PFNMAP 0x400
#define VM_IO 0x4000
#define VM_HUGETLB 0x400000

static const char *const cause_names[CAUSE__COUNT] = {
	[CAUSE_UNKNOWN] = "unknown",
	[CAUSE_MEMLOCK_LIMIT] = "memlock_limit",
	[CAUSE_MEMLOCK_ZERO] = "memlock_zero",
	[CAUSE_PIN_DEVICE_MEMORY] = "pin_device_memory",
	[CAUSE_PIN_HUGETLB] = "pin_hugetlb",
	[CAUSE_PIN_MIGRATE] = "pin_migrate",
	[CAUSE_PIN_FAULT] = "pin_fault",
	[CAUSE_DMA_MAP_IOVA] = "dma_map_iova",
	[CAUSE_DMABUF_UNSUPPORTED] = "dmabuf_unsupported",
	[CAUSE_DMABUF_BAD_FD] = "dmabuf_bad_fd",
	[CAUSE_DMABUF_ATTACH] = "dmabuf_attach",
	[CAUSE_MLX5_FIRMWARE] = "mlx5_firmware",
	[CAUSE_BAD_ACCESS_FLAGS] = "bad_access_flags",
	[CAUSE_IOVA_MISALIGNED] = "iova_misaligned",
	[CAUSE_RDMA_CGROUP_LIMIT] = "rdma_cgroup_limit",
	[CAUSE_NO_DEVICE_ACCESS] = "no_device_access",
};

const char *cause_name(enum cause c)
{
	return (c >= 0 && c < CAUSE__COUNT) ? cause_names[c] : "unknown";
}

enum cause cause_from_name(const char *name)
{
	for (int i = 0; i < CAUSE__COUNT; i++)
		if (name && !strcmp(cause_names[i], name))
			return (enum cause)i;
	return CAUSE__COUNT;
}

const char *site_name(unsigned int site)
{
	static const char *const names[MRT_SITE_MAX] = {
		[MRT_SITE_NONE] = "none",
		[MRT_SITE_UVERBS_REG_MR] = "ib_uverbs_reg_mr",
		[MRT_SITE_UVERBS_REG_DMABUF] = "uverbs_reg_dmabuf_mr",
		[MRT_SITE_UVERBS_REREG_MR] = "ib_uverbs_rereg_mr",
		[MRT_SITE_DRIVER_REG] = "driver_reg_user_mr",
		[MRT_SITE_UMEM_GET] = "ib_umem_get",
		[MRT_SITE_CAP_IPC_LOCK] = "capable(CAP_IPC_LOCK)",
		[MRT_SITE_PIN] = "pin_user_pages",
		[MRT_SITE_SG_ALLOC] = "sg_alloc_append_table_from_pages",
		[MRT_SITE_DMA_MAP] = "dma_map_sgtable",
		[MRT_SITE_IOVA_ALLOC] = "alloc_iova_fast",
		[MRT_SITE_DMABUF_GET] = "ib_umem_dmabuf_get",
		[MRT_SITE_DMABUF_ATTACH] = "dma_buf_dynamic_attach",
		[MRT_SITE_DMABUF_PIN] = "dma_buf_pin",
		[MRT_SITE_DMABUF_MAP] = "dma_buf_map_attachment",
		[MRT_SITE_MLX5_REG] = "mlx5_reg_create",
		[MRT_SITE_MLX5_CMD] = "mlx5_cmd_exec",
		[MRT_SITE_PEER_GET] = "ib_peer_umem_get",
		[MRT_SITE_RDMACG_CHARGE] = "ib_rdmacg_try_charge",
		[MRT_SITE_MIGRATE] = "migrate_pages",
		[MRT_SITE_UOBJ_ALLOC] = "rdma_alloc_begin_uobject",
	};
	return site < MRT_SITE_MAX && names[site] ? names[site] : "?";
}

const char *errno_name(int err)
{
	switch (err) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EREMOTEIO: return "EREMOTEIO";
	case ENXIO: return "ENXIO";
	case 524: return "ENOTSUPP"; /* kernel-internal, returned by some dma-buf exporters */
	case EOVERFLOW: return "EOVERFLOW";
	default: return "E?";
	}
}

const char *access_names(uint32_t access, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ IB_LOCAL_WRITE, "LOCAL_WRITE" },	 { IB_REMOTE_WRITE, "REMOTE_WRITE" },
		{ IB_REMOTE_READ, "REMOTE_READ" },	 { IB_REMOTE_ATOMIC, "REMOTE_ATOMIC" },
		{ IB_MW_BIND, "MW_BIND" },		 { IB_ZERO_BASED, "ZERO_BASED" },
		{ IB_ON_DEMAND, "ON_DEMAND" },		 { IB_HUGETLB, "HUGETLB" },
		{ IB_RELAXED_ORDERING, "RELAXED_ORDERING" },
	};
	size_t off = 0;
	uint32_t rest = access;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (!(access & bits[i].bit))
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? "|" : "",
				bits[i].name);
		rest &= ~bits[i].bit;
	}
	if (rest || !access)
		snprintf(buf + off, off < len ? len - off : 0, "%s0x%x", off ? "|" : "", rest);
	return buf;
}

const char *mlx5_status_name(unsigned int status)
{
	/* MLX5_CMD_STAT_* (include/linux/mlx5/device.h) */
	switch (status) {
	case 0x0: return "OK";
	case 0x1: return "INT_ERR";
	case 0x2: return "BAD_OP_ERR";
	case 0x3: return "BAD_PARAM_ERR";
	case 0x4: return "BAD_SYS_STATE_ERR";
	case 0x5: return "BAD_RES_ERR";
	case 0x6: return "RES_BUSY";
	case 0x8: return "LIM_ERR";
	case 0x9: return "BAD_RES_STATE_ERR";
	case 0xa: return "IX_ERR";
	case 0xf: return "NO_RES_ERR";
	case 0x10: return "BAD_INP_LEN_ERR";
	case 0x11: return "BAD_OUTP_LEN_ERR";
	case 0x40: return "BAD_QP_STATE_ERR";
	case 0x41: return "BAD_PKT_ERR";
	case 0x42: return "BAD_SIZE_OUTS_CQES_ERR";
	default: return "?";
	}
}

/* ---- small helpers ---------------------------------------------------------- */

static void say(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(char *dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, VERDICT_TEXT_MAX, fmt, ap);
	va_end(ap);
}

static int steps_recorded(const struct mrt_event *ev)
{
	return ev->nsteps < MRT_TRAIL_MAX ? (int)ev->nsteps : MRT_TRAIL_MAX;
}

/* First step of `site` that failed, or -1. */
static int first_failed(const struct mrt_event *ev, unsigned int site)
{
	for (int i = 0; i < steps_recorded(ev); i++)
		if (ev->steps[i].site == site && ev->steps[i].ret < 0)
			return i;
	return -1;
}

static int find_step(const struct mrt_event *ev, unsigned int site)
{
	for (int i = 0; i < steps_recorded(ev); i++)
		if (ev->steps[i].site == site)
			return i;
	return -1;
}

static const char *hb(uint64_t bytes, char *buf)
{
	return fmt_bytes(bytes, buf, 32);
}

/* Fixes that do not depend on where the job runs. */
static void fix(struct verdict *v, enum fix_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fix(struct verdict *v, enum fix_kind kind, const char *fmt, ...)
{
	struct fix_list *l = &v->fixes;
	va_list ap;

	if (l->n >= FIX_MAX) {
		l->truncated = true;
		return;
	}
	l->items[l->n].kind = kind;
	va_start(ap, fmt);
	vsnprintf(l->items[l->n].text, FIX_TEXT_MAX, fmt, ap);
	va_end(ap);
	l->n++;
}

/* ---- memlock ---------------------------------------------------------------- */

static void memlock_numbers(const struct mrt_event *ev, struct verdict *v)
{
	const struct mrt_memlock *m = &ev->ml;

	v->has_memlock = true;
	v->limit_bytes = m->limit_cur;
	v->pinned_before_bytes = m->pinned_pages_before * PAGE_SZ;
	v->request_bytes = m->requested_pages * PAGE_SZ;
	v->need_bytes = v->pinned_before_bytes + v->request_bytes;
}

/* The fix list for a memlock verdict, from the numbers already in v. */
static void memlock_fixes(const struct proc_context *ctx, const struct nccl_info *nccl,
			  struct verdict *v, bool have_pinned)
{
	struct fix_input in = {
		.cause = cause_name(v->cause),
		.ctx = ctx,
		.nccl = nccl,
		.have_limit = true,
		.have_pinned = have_pinned,
		.have_request = v->request_bytes > 0,
		.limit_bytes = v->limit_bytes,
		.pinned_before = v->pinned_before_bytes,
		.request_bytes = v->request_bytes,
	};
	fixes_for(&in, &v->fixes);
}

static const char *pinned_by(const struct mrt_event *ev, char *buf, size_t len)
{
	char b[32];

	if (ev->ml.live_mrs)
		snprintf(buf, len, " by %u MR%s (%s seen registered since mrtrace started)",
			 ev->ml.live_mrs, ev->ml.live_mrs == 1 ? "" : "s",
			 hb(ev->ml.live_pages * PAGE_SZ, b));
	else
		buf[0] = 0;
	return buf;
}

static bool explain_memlock(const struct mrt_event *ev, const struct proc_context *ctx,
			    const struct nccl_info *nccl, struct verdict *v, int umem_step)
{
	const struct mrt_memlock *m = &ev->ml;
	char l[32], p[32], r[32], n[32], by[160], pg[64];
	uint64_t limit_pages = m->limit_cur == UINT64_MAX ? UINT64_MAX : m->limit_cur / PAGE_SZ;
	int cap = find_step(ev, MRT_SITE_CAP_IPC_LOCK);

	if (!m->valid || umem_step < 0)
		return false;
	int err = -ev->steps[umem_step].ret;

	/* can_do_mlock(): RLIMIT_MEMLOCK == 0 and no CAP_IPC_LOCK -> EPERM, before
	 * anything is pinned. */
	if (err == EPERM && m->limit_cur == 0 && first_failed(ev, MRT_SITE_PIN) < 0) {
		v->cause = CAUSE_MEMLOCK_ZERO;
		v->decisive_step = cap >= 0 ? cap : umem_step;
		memlock_numbers(ev, v);
		say(v->summary, "RLIMIT_MEMLOCK is 0 and CAP_IPC_LOCK does not apply: "
				"this request %s",
		    fmt_pages(m->requested_pages, PAGE_SZ, pg, sizeof(pg)));
		say(v->explanation,
		    "ib_umem_get refused before pinning anything (can_do_mlock() is false): "
		    "a memlock limit of 0 forbids every RDMA registration unless the process "
		    "holds CAP_IPC_LOCK in the initial user namespace%s.",
		    m->cap_checked ? " (capable() was asked and returned false)" : "");
		memlock_fixes(ctx, nccl, v, ev->kind == MRT_EV_REG_FAILURE);
		return true;
	}
	/* new_pinned = pinned_vm + npages > limit and !capable(CAP_IPC_LOCK) -> ENOMEM */
	if (err == ENOMEM && first_failed(ev, MRT_SITE_PIN) < 0 &&
	    (m->cap_checked ? !m->cap_result : true) &&
	    limit_pages != UINT64_MAX && m->pinned_pages_before + m->requested_pages > limit_pages) {
		v->cause = CAUSE_MEMLOCK_LIMIT;
		v->decisive_step = cap >= 0 ? cap : umem_step;
		memlock_numbers(ev, v);
		say(v->summary,
		    "limit %s, already pinned %s%s, this request %s: needs %s, over by %s",
		    hb(m->limit_cur, l), hb(v->pinned_before_bytes, p),
		    pinned_by(ev, by, sizeof(by)), fmt_pages(m->requested_pages, PAGE_SZ, pg, sizeof(pg)),
		    hb(v->need_bytes, n), hb(v->need_bytes - m->limit_cur, r));
		say(v->explanation,
		    "ib_umem_get adds the request to the process's pinned_vm (%llu + %llu = %llu "
		    "pages) and refuses when that exceeds RLIMIT_MEMLOCK (%llu pages)%s. Free "
		    "memory does not matter: the per-process memlock limit does, and it counts "
		    "every live MR of the process.",
		    (unsigned long long)m->pinned_pages_before,
		    (unsigned long long)m->requested_pages,
		    (unsigned long long)(m->pinned_pages_before + m->requested_pages),
		    (unsigned long long)limit_pages,
		    m->cap_checked ? "; capable(CAP_IPC_LOCK), which would lift the limit, "
				     "returned false (it checks the initial user namespace)"
				   : "; CAP_IPC_LOCK was not observed (assumed absent)");
		memlock_fixes(ctx, nccl, v, ev->kind == MRT_EV_REG_FAILURE);
		return true;
	}
	return false;
}

/* ---- page pinning ----------------------------------------------------------- */

static bool explain_pin(const struct mrt_event *ev, struct verdict *v)
{
	int i = first_failed(ev, MRT_SITE_PIN);
	char pg[64];

	if (i < 0)
		return false;
	const struct mrt_step *s = &ev->steps[i];
	int err = -s->ret;
	uint64_t fl = s->a2;
	bool flags_known = fl != MRT_VMA_UNKNOWN && fl != MRT_VMA_NONE;

	v->decisive_step = i;
	if (flags_known && (fl & (VM_IO | VM_PFNMAP))) {
		v->cause = CAUSE_PIN_DEVICE_MEMORY;
		say(v->summary, "page pinning at 0x%llx hit a %s mapping (device memory): %s",
		    (unsigned long long)s->a0, (fl & VM_IO) ? "VM_IO|VM_PFNMAP" : "VM_PFNMAP",
		    errno_name(err));
		say(v->explanation,
		    "The buffer is not ordinary RAM: its VMA has vm_flags 0x%llx (VM_IO/VM_PFNMAP), "
		    "as GPU BAR memory or other device memory does. pin_user_pages cannot pin such "
		    "pages; registering GPU memory needs a peer-memory client (nvidia-peermem) or "
		    "the dma-buf path.",
		    (unsigned long long)fl);
		fix(v, FIX_PRIMARY,
		    "Load the NVIDIA peer-memory module on the host: `modprobe nvidia-peermem` "
		    "(check: /sys/module/nvidia_peermem), or use dma-buf registration "
		    "(NCCL_DMABUF_ENABLE=1, the default since NCCL 2.13, needs CUDA >= 11.7 and a "
		    "NIC driver with dma-buf support).");
		fix(v, FIX_STOPGAP,
		    "Stopgap: NCCL_NET_GDR_LEVEL=LOC disables GPUDirect RDMA so NCCL registers "
		    "host memory instead (slower; counts against the memlock limit).");
		return true;
	}
	if (flags_known && (fl & VM_HUGETLB)) {
		v->cause = CAUSE_PIN_HUGETLB;
		say(v->summary, "page pinning at 0x%llx failed in a hugetlb mapping: %s",
		    (unsigned long long)s->a0, errno_name(err));
		say(v->explanation,
		    "The buffer is backed by hugetlbfs (VM_HUGETLB) and faulting its pages in for "
		    "the pin failed, which happens when the huge page pool has no free pages "
		    "(HugePages_Free 0 in /proc/meminfo for that size).");
		fix(v, FIX_PRIMARY,
		    "Reserve huge pages before the job: `echo N > "
		    "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages` (or the 1 GiB size), "
		    "or set vm.nr_overcommit_hugepages; check `mrtrace check` hugepages.");
		fix(v, FIX_ALTERNATIVE,
		    "Or stop allocating this buffer from hugetlbfs (unset the allocator's huge page "
		    "option).");
		return true;
	}
	if (err == ENOMEM || find_step(ev, MRT_SITE_MIGRATE) >= 0) {
		v->cause = CAUSE_PIN_MIGRATE;
		uint64_t before = 0;
		for (int k = 0; k < i; k++)
			if (ev->steps[k].site == MRT_SITE_PIN && ev->steps[k].ret > 0)
				before += (uint64_t)ev->steps[k].ret;
		say(v->summary, "long-term page pinning at 0x%llx failed with %s (%s pinned before)",
		    (unsigned long long)s->a0, errno_name(err), fmt_pages(before, PAGE_SZ, pg, sizeof(pg)));
		say(v->explanation,
		    "A long-term pin (FOLL_LONGTERM) must first migrate pages out of ZONE_MOVABLE "
		    "or CMA areas; that migration failed, so the pin returned %s. The memlock "
		    "limit was not the problem.",
		    errno_name(err));
		fix(v, FIX_PRIMARY,
		    "Look at movable_node / kernelcore= / movablecore= and CMA settings on the "
		    "kernel command line, and at memory pressure on the NUMA node (%s).",
		    "grep -i -e cma -e movable /proc/meminfo");
		fix(v, FIX_ALTERNATIVE, "Retry after dropping caches or compacting memory: "
					"`echo 1 > /proc/sys/vm/compact_memory`.");
		return true;
	}
	v->cause = CAUSE_PIN_FAULT;
	const char *why;
	if (fl == MRT_VMA_NONE)
		why = "no mapping at that address (freed, or never mapped)";
	else if (flags_known && !(fl & (VM_READ | VM_WRITE)))
		why = "the mapping is PROT_NONE";
	else if (flags_known && !(fl & VM_WRITE))
		why = "the mapping is read-only but the MR asks for write access";
	else
		why = "the page fault for the pin failed";
	say(v->summary, "page pinning at 0x%llx failed: %s (%s)", (unsigned long long)s->a0, why,
	    errno_name(err));
	say(v->explanation,
	    "pin_user_pages could not fault in the buffer's pages: %s. The application passed "
	    "an address range it cannot use for DMA%s.",
	    why, fl == MRT_VMA_UNKNOWN ? " (the VMA could not be read on this kernel)" : "");
	fix(v, FIX_PRIMARY,
	    "Register only memory the process has mapped with read/write access for the whole "
	    "range (check the buffer's lifetime: a use-after-free of a registered buffer "
	    "looks like this).");
	fix(v, FIX_ALTERNATIVE,
	    "If this is GPU memory passed as a host pointer, see pin_device_memory: "
	    "nvidia-peermem or dma-buf is needed.");
	return true;
}

/* ---- uverbs command validation ------------------------------------------- */

static bool explain_validation(const struct mrt_event *ev, struct verdict *v, int err)
{
	char a[160];

	if (err != EINVAL || !ev->cmd_valid || ev->opener != MRT_SITE_UVERBS_REG_MR)
		return false;
	/* the command handler itself refused: its step is the decisive one */
	v->decisive_step = first_failed(ev, MRT_SITE_UVERBS_REG_MR);
	/* The kernel's order: page offsets of start and iova, then access bits. */
	if ((ev->cmd_start ^ ev->cmd_iova) & (PAGE_SZ - 1)) {
		v->cause = CAUSE_IOVA_MISALIGNED;
		say(v->summary,
		    "iova 0x%llx and address 0x%llx have different offsets in their page "
		    "(0x%llx vs 0x%llx)",
		    (unsigned long long)ev->cmd_iova, (unsigned long long)ev->cmd_start,
		    (unsigned long long)(ev->cmd_iova & (PAGE_SZ - 1)),
		    (unsigned long long)(ev->cmd_start & (PAGE_SZ - 1)));
		say(v->explanation,
		    "ib_uverbs_reg_mr rejects a registration whose iova is not congruent with its "
		    "start address modulo the page size, before touching memory.");
		fix(v, FIX_PRIMARY,
		    "Pass an iova with the same page offset as the buffer (NCCL passes iova = addr "
		    "to ibv_reg_mr_iova2); a plugin or wrapper that rewrites iova must keep the "
		    "offset.");
		return true;
	}
	uint32_t acc = ev->cmd_access;
	bool unknown = acc & ~IB_ACCESS_SUPPORTED;
	bool remote_wo_local =
		(acc & (IB_REMOTE_WRITE | IB_REMOTE_ATOMIC)) && !(acc & IB_LOCAL_WRITE);
	if (unknown || remote_wo_local) {
		v->cause = CAUSE_BAD_ACCESS_FLAGS;
		say(v->summary, "access flags %s rejected: %s", access_names(acc, a, sizeof(a)),
		    unknown ? "unknown bits" : "REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE");
		say(v->explanation,
		    "ib_check_mr_access refuses %s before any memory is pinned.",
		    unknown ? "access bits the kernel does not know (a newer rdma-core flag on an "
			      "older kernel, or garbage)"
			    : "remote write or atomic access without local write");
		fix(v, FIX_PRIMARY, "%s",
		    unknown ? "Drop the unsupported flag (e.g. IBV_ACCESS_RELAXED_ORDERING on a "
			      "kernel without it: NCCL_IB_PCI_RELAXED_ORDERING=0), or update the "
			      "kernel/driver."
			    : "Add IBV_ACCESS_LOCAL_WRITE whenever REMOTE_WRITE or REMOTE_ATOMIC "
			      "is requested.");
		return true;
	}
	/* ODP on a device without it is EINVAL too (<= 6.1): left to `unknown` */
	return false;
}

/* ---- dma-buf --------------------------------------------------------------- */

static bool explain_dmabuf(const struct mrt_event *ev, struct verdict *v, int err)
{
	int get = find_step(ev, MRT_SITE_DMABUF_GET);
	int i;

	if (ev->opener != MRT_SITE_UVERBS_REG_DMABUF && get < 0)
		return false;
	if ((i = first_failed(ev, MRT_SITE_DMABUF_ATTACH)) >= 0 ||
	    (i = first_failed(ev, MRT_SITE_DMABUF_PIN)) >= 0 ||
	    (i = first_failed(ev, MRT_SITE_DMABUF_MAP)) >= 0) {
		v->cause = CAUSE_DMABUF_ATTACH;
		v->decisive_step = i;
		say(v->summary, "the dma-buf exporter refused: %s returned %s",
		    site_name(ev->steps[i].site), errno_name(-ev->steps[i].ret));
		say(v->explanation,
		    "The RDMA driver got the dma-buf but attaching, pinning or mapping it for the "
		    "NIC failed in the exporter (the GPU driver): peer-to-peer DMA between this "
		    "GPU and NIC is not possible as configured.");
		fix(v, FIX_PRIMARY,
		    "Check the GPU driver's dma-buf/P2P support (open kernel modules, "
		    "NVreg_EnableStreamMemOPs and PCIe topology: `mrtrace check`), or fall back "
		    "with NCCL_DMABUF_ENABLE=0 and nvidia-peermem.");
		return true;
	}
	if (err == EBADF || (get >= 0 && ev->steps[get].ret == -EBADF)) {
		v->cause = CAUSE_DMABUF_BAD_FD;
		v->decisive_step = get;
		say(v->summary, "dma-buf fd %d is not an open dma-buf (EBADF)", ev->dmabuf_fd);
		say(v->explanation, "ib_umem_dmabuf_get could not resolve the file descriptor.");
		fix(v, FIX_PRIMARY, "Pass a dma-buf fd exported by the GPU driver "
				    "(cuMemGetHandleForAddressRange) and keep it open until the "
				    "registration returns.");
		return true;
	}
	if ((err == EOPNOTSUPP || err == EPROTONOSUPPORT) && get < 0) {
		v->cause = CAUSE_DMABUF_UNSUPPORTED;
		v->decisive_step = first_failed(ev, MRT_SITE_UVERBS_REG_DMABUF);
		if (ev->cmd_valid == 2)
			say(v->summary,
			    "this RDMA device's driver does not support dma-buf MRs (%s; fd %d, "
			    "length %llu)",
			    errno_name(err), ev->dmabuf_fd, (unsigned long long)ev->cmd_length);
		else
			say(v->summary, "this RDMA device's driver does not support dma-buf MRs (%s)",
			    errno_name(err));
		say(v->explanation,
		    "The REG_DMABUF_MR method returned %s before looking at the fd: the driver has "
		    "no reg_user_mr_dmabuf operation (soft-RoCE and older drivers), so the kernel "
		    "does not even offer the method for this device.",
		    errno_name(err));
		fix(v, FIX_PRIMARY,
		    "Use a NIC/driver with dma-buf support (mlx5 on kernel >= 5.12 with "
		    "rdma-core >= 34), or NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU "
		    "memory.");
		return true;
	}
	return false;
}

/* NCCL's init probe: ibv_reg_dmabuf_mr(pd, 0, 0, 0, fd=-1, 0), expecting EBADF
 * (supported) or EOPNOTSUPP/EPROTONOSUPPORT (unsupported). */
static bool nccl_dmabuf_probe_shape(const struct mrt_event *ev, int err)
{
	int get = find_step(ev, MRT_SITE_DMABUF_GET);

	if (ev->opener != MRT_SITE_UVERBS_REG_DMABUF)
		return false;
	if (err != EBADF && err != EOPNOTSUPP && err != EPROTONOSUPPORT)
		return false;
	/* The shape must have been seen: the ioctl's attributes, or the fd and
	 * size at ib_umem_dmabuf_get.  Without them mrtrace cannot tell. */
	if (ev->cmd_valid == 2)
		return ev->dmabuf_fd == -1 && ev->cmd_length == 0;
	if (get >= 0)
		return ev->dmabuf_fd == -1 && ev->steps[get].a1 == 0;
	return false;
}

/* ---- the rest ------------------------------------------------------------- */

static bool explain_cgroup(const struct mrt_event *ev, struct verdict *v, int err)
{
	int i = first_failed(ev, MRT_SITE_RDMACG_CHARGE);

	if (i < 0 && !(err == EAGAIN && first_failed(ev, MRT_SITE_UOBJ_ALLOC) >= 0))
		return false;
	if (i < 0)
		i = first_failed(ev, MRT_SITE_UOBJ_ALLOC);
	v->cause = CAUSE_RDMA_CGROUP_LIMIT;
	v->decisive_step = i;
	say(v->summary, "the rdma cgroup's hca_object limit is reached (%s)", errno_name(err));
	say(v->explanation,
	    "Every verbs object (PD, MR, QP, CQ...) is charged to the process's rdma cgroup "
	    "before it is created; the charge failed, so the MR object was never allocated. "
	    "Memory limits are not involved.");
	fix(v, FIX_PRIMARY,
	    "Raise hca_object in the cgroup's rdma.max (e.g. `echo \"<dev> hca_object=max\" > "
	    "/sys/fs/cgroup/<cgroup>/rdma.max`), or in the container runtime's rdma limits.");
	fix(v, FIX_ALTERNATIVE, "Check for leaked verbs objects: compare rdma.current with the "
				"number of MRs the job should hold.");
	return true;
}

static bool explain_dma(const struct mrt_event *ev, struct verdict *v)
{
	int i = -1;

	/* alloc_iova_fast fails routinely on its first, 32-bit-limited try
	 * (flush_rcache false) before the full-range retry: only a failure after
	 * flushing the caches means the space is exhausted. */
	for (int k = 0; k < steps_recorded(ev); k++)
		if (ev->steps[k].site == MRT_SITE_IOVA_ALLOC && ev->steps[k].ret < 0 &&
		    ev->steps[k].a2) {
			i = k;
			break;
		}
	if (i < 0)
		i = first_failed(ev, MRT_SITE_DMA_MAP);
	if (i < 0)
		return false;
	const struct mrt_step *s = &ev->steps[i];
	v->cause = CAUSE_DMA_MAP_IOVA;
	v->decisive_step = i;
	if (s->site == MRT_SITE_IOVA_ALLOC)
		say(v->summary,
		    "IOMMU IOVA space exhausted: alloc_iova_fast(%llu pages, limit pfn 0x%llx) "
		    "failed even after flushing its caches",
		    (unsigned long long)s->a0, (unsigned long long)s->a1);
	else
		say(v->summary, "DMA mapping of the MR's %llu scatterlist entries failed: %s",
		    (unsigned long long)s->a0, errno_name(-s->ret));
	say(v->explanation,
	    "The pages were pinned, but the IOMMU could not map them for the NIC: the device's "
	    "IOVA aperture (often 32-bit limited or fragmented) has no room for this MR.");
	fix(v, FIX_PRIMARY,
	    "Boot with the IOMMU in passthrough for the NIC (iommu=pt, or "
	    "intel_iommu=on iommu=pt), which is what RDMA vendors recommend for HPC nodes.");
	fix(v, FIX_ALTERNATIVE,
	    "If the NIC is limited to a small DMA window, check BAR/IOVA layout (pci=realloc, "
	    "above-4G decoding in firmware) and the driver's DMA mask.");
	return true;
}

static bool explain_mlx5(const struct mrt_event *ev, struct verdict *v)
{
	for (int i = 0; i < steps_recorded(ev); i++) {
		const struct mrt_step *s = &ev->steps[i];
		if (s->site != MRT_SITE_MLX5_CMD || (s->a1 == 0 && s->ret >= 0))
			continue;
		v->cause = CAUSE_MLX5_FIRMWARE;
		v->decisive_step = i;
		say(v->summary,
		    "mlx5 firmware refused command 0x%llx: status 0x%llx (%s), syndrome 0x%llx",
		    (unsigned long long)s->a0, (unsigned long long)s->a1, mlx5_status_name(s->a1),
		    (unsigned long long)s->a2);
		say(v->explanation,
		    "The kernel accepted the registration and pinned the memory, but the NIC's "
		    "firmware rejected the memory-key command; %s maps to errno %s.",
		    mlx5_status_name(s->a1), errno_name(-s->ret));
		if (s->a1 == 0x8)
			fix(v, FIX_PRIMARY,
			    "LIM_ERR: a firmware resource limit (MKeys or translation entries) is "
			    "reached; reduce the number/size of MRs (NCCL_BUFFSIZE, channels) or "
			    "check the NIC's profile (mlxconfig) and firmware version.");
		else
			fix(v, FIX_PRIMARY,
			    "Look up syndrome 0x%llx for this opcode in the firmware release notes; "
			    "`dmesg` shows mlx5_cmd_out_err with the same syndrome.",
			    (unsigned long long)s->a2);
		fix(v, FIX_ALTERNATIVE, "Update the NIC firmware to the version matching the driver "
					"(`mrtrace check` shows fw_ver per device).");
		return true;
	}
	return false;
}

static void explain_unknown(const struct mrt_event *ev, struct verdict *v, int err)
{
	int last = -1;

	for (int i = 0; i < steps_recorded(ev); i++)
		if (ev->steps[i].ret < 0) {
			last = i;
			break;
		}
	v->cause = CAUSE_UNKNOWN;
	v->decisive_step = last;
	if (last >= 0)
		say(v->summary, "%s failed first (%s); no known cause matches this trail",
		    site_name(ev->steps[last].site), errno_name(-ev->steps[last].ret));
	else
		say(v->summary, "the registration failed with %s and no armed site recorded why",
		    errno_name(err));
	say(v->explanation,
	    "mrtrace does not guess: the raw trail is attached. Sites that were not armed on "
	    "this kernel (see `mrtrace watch --list-probes`) may hold the answer.");
}

/* A REG_MR that failed with ENOMEM or EPERM and passed no pinning entry:
 * on a kernel where no candidate of that site (ib_umem_get, and its later
 * names) could be armed, the trail holds the command alone (the driver may
 * pass the errno on).  The process's own numbers then judge it as they do
 * a libibverbs call seen without kernel sites, and the verdict is marked
 * inferred (docs/causes.md); any other failing site, or no /proc numbers,
 * leaves it to explain_unknown(). */
static bool explain_without_umem(const struct mrt_event *ev, const struct proc_context *ctx,
				 const struct nccl_info *nccl, struct verdict *v, int err)
{
	static struct mrt_event u; /* large; explain runs on one thread */
	static struct verdict iv;
	int drv = find_step(ev, MRT_SITE_DRIVER_REG);
	enum cause c;

	if ((err != ENOMEM && err != EPERM) || ev->ml.valid || ev->opener != MRT_SITE_UVERBS_REG_MR ||
	    find_step(ev, MRT_SITE_UMEM_GET) >= 0)
		return false;
	for (int i = 0; i < steps_recorded(ev); i++)
		if (ev->steps[i].ret < 0 && ev->steps[i].site != MRT_SITE_UVERBS_REG_MR &&
		    ev->steps[i].site != MRT_SITE_DRIVER_REG)
			return false;
	u = *ev;
	u.kind = MRT_EV_USER_CALL;
	u.opener = MRT_API_REG_MR;
	u.cmd_reached = 1;
	if (ev->cmd_valid != 1 && drv >= 0) {
		/* the command unread (no BTF for its bundle): the driver's arguments */
		u.cmd_start = ev->steps[drv].a0;
		u.cmd_length = ev->steps[drv].a1;
	}
	c = explain_user_call(&u, ctx, nccl, &iv);
	if (c != CAUSE_MEMLOCK_LIMIT && c != CAUSE_MEMLOCK_ZERO)
		return false;
	*v = iv;
	v->decisive_step = first_failed(ev, MRT_SITE_UVERBS_REG_MR);
	return true;
}

enum cause explain_event(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct nccl_info *nccl, struct verdict *v)
{
	int err = ev->err;
	int umem = find_step(ev, MRT_SITE_UMEM_GET);

	if (ev->kind == MRT_EV_USER_CALL)
		return explain_user_call(ev, ctx, nccl, v);
	memset(v, 0, sizeof(*v));
	v->decisive_step = -1;
	v->certainty = CERT_PROVEN;
	v->err = err;

	if (ev->kind == MRT_EV_MLOCK_FAILURE) {
		char l[32], p[32], r[32];
		bool all = ev->syscall == MRT_SYS_MLOCKALL; /* sys_len holds flags, not bytes */
		memlock_numbers(ev, v);
		v->pinned_before_bytes = ev->ml.locked_pages * PAGE_SZ;
		v->request_bytes = all ? 0 : ev->sys_len;
		v->need_bytes = v->pinned_before_bytes + v->request_bytes;
		if (all) {
			v->cause = err == EPERM && ev->ml.limit_cur == 0 ? CAUSE_MEMLOCK_ZERO
									 : CAUSE_MEMLOCK_LIMIT;
			say(v->summary, "mlockall(0x%llx) refused (%s): limit %s, already locked %s",
			    (unsigned long long)ev->sys_len, errno_name(err), hb(ev->ml.limit_cur, l),
			    hb(v->pinned_before_bytes, p));
			say(v->explanation, "mlockall() locks the whole address space, held to "
					    "RLIMIT_MEMLOCK like RDMA registration.");
			memlock_fixes(ctx, nccl, v, ev->kind == MRT_EV_REG_FAILURE);
			return v->cause;
		}
		/* mlock() also fails with ENOMEM on an unmapped range: only a request
		 * over the limit is the limit's doing */
		if (err == EPERM && ev->ml.limit_cur == 0)
			v->cause = CAUSE_MEMLOCK_ZERO;
		else if (err == ENOMEM && ev->ml.limit_cur != UINT64_MAX &&
			 v->need_bytes > ev->ml.limit_cur)
			v->cause = CAUSE_MEMLOCK_LIMIT;
		else {
			v->cause = CAUSE_UNKNOWN;
			say(v->summary, "mlock of %s failed (%s) within the limit %s: not the memlock "
					"limit (an unmapped range gives ENOMEM too)",
			    hb(ev->sys_len, r), errno_name(err), hb(ev->ml.limit_cur, l));
			say(v->explanation, "The request fits under RLIMIT_MEMLOCK, so the limit "
					    "did not refuse it.");
			return v->cause;
		}
		say(v->summary, "mlock of %s refused (%s): limit %s, already locked %s (VmLck)",
		    hb(ev->sys_len, r), errno_name(err), hb(ev->ml.limit_cur, l),
		    hb(v->pinned_before_bytes, p));
		say(v->explanation,
		    "mlock() is held to the same RLIMIT_MEMLOCK that RDMA registration is: locked "
		    "pages (VmLck) plus this request may not exceed it without CAP_IPC_LOCK. A "
		    "process that cannot mlock this much cannot register it as an MR either.");
		memlock_fixes(ctx, nccl, v, ev->kind == MRT_EV_REG_FAILURE);
		return v->cause;
	}

	if (nccl_dmabuf_probe_shape(ev, err))
		v->harmless = true;
	if (explain_validation(ev, v, err) || explain_cgroup(ev, v, err) ||
	    explain_dmabuf(ev, v, err) || explain_memlock(ev, ctx, nccl, v, umem) ||
	    explain_pin(ev, v) || explain_dma(ev, v) || explain_mlx5(ev, v))
		return v->cause;
	if (explain_without_umem(ev, ctx, nccl, v, err))
		return v->cause;
	explain_unknown(ev, v, err);
	return v->cause;
}

/* ---- user-level evidence (libibverbs uprobes) ----------------------------- */

const char *api_name(unsigned int api)
{
	switch (api) {
	case MRT_API_REG_MR: return "ibv_reg_mr";
	case MRT_API_REG_MR_IOVA: return "ibv_reg_mr_iova";
	case MRT_API_REG_MR_IOVA2: return "ibv_reg_mr_iova2";
	case MRT_API_REG_DMABUF_MR: return "ibv_reg_dmabuf_mr";
	default: return "?";
	}
}

static uint64_t range_pages(uint64_t addr, uint64_t len)
{
	return ((addr + len + PAGE_SZ - 1) & ~(PAGE_SZ - 1)) / PAGE_SZ - addr / PAGE_SZ;
}

enum cause explain_user_call(const struct mrt_event *uev, const struct proc_context *ctx,
			     const struct nccl_info *nccl, struct verdict *v)
{
	bool dmabuf = uev->opener == MRT_API_REG_DMABUF_MR;
	char l[32], p[32], r[32], n[32];

	memset(v, 0, sizeof(*v));
	v->decisive_step = -1;
	v->cause = CAUSE_UNKNOWN;
	v->err = uev->err;

	if (!uev->cmd_reached) {
		/* libibverbs returned NULL without issuing the command */
		v->certainty = CERT_PROVEN;
		if (dmabuf) {
			v->err = EOPNOTSUPP;
			v->cause = CAUSE_DMABUF_UNSUPPORTED;
			v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
			say(v->summary,
			    "libibverbs refused %s before the kernel (EOPNOTSUPP; fd %d, length "
			    "%llu): the device's provider library has no dma-buf support",
			    api_name(uev->opener), uev->dmabuf_fd,
			    (unsigned long long)uev->cmd_length);
			say(v->explanation,
			    "The verbs provider for this device does not implement reg_dmabuf_mr, so "
			    "libibverbs fails the call itself and the kernel is never asked.");
			fix(v, FIX_PRIMARY,
			    "Use a NIC whose provider supports dma-buf (mlx5 with rdma-core >= 34 on "
			    "kernel >= 5.12), or NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU "
			    "memory.");
			return v->cause;
		}
		say(v->summary, "%s failed inside libibverbs before the kernel was asked",
		    api_name(uev->opener));
		say(v->explanation,
		    "No registration command reached the kernel; libibverbs' own checks (for "
		    "instance madvise(MADV_DONTFORK) when fork support is enabled) failed.");
		return v->cause;
	}

	v->certainty = CERT_INFERRED;
	uint64_t pages = range_pages(uev->cmd_start, uev->cmd_length);
	bool have_ml = ctx && (ctx->have & CTX_HAVE_MEMLOCK) && (ctx->have & CTX_HAVE_VMPIN);
	bool cap = ctx && (ctx->have & CTX_HAVE_CAPS) && ctx->cap_ipc_lock && !ctx->in_userns;

	if (uev->err == EPERM && have_ml && ctx->memlock_soft == 0 && !cap) {
		v->cause = CAUSE_MEMLOCK_ZERO;
	} else if (uev->err == ENOMEM && have_ml && !cap && ctx->memlock_soft != UINT64_MAX &&
		   ctx->vm_pin + pages * PAGE_SZ > ctx->memlock_soft) {
		v->cause = CAUSE_MEMLOCK_LIMIT;
	} else if (dmabuf && (uev->err == EOPNOTSUPP || uev->err == EPROTONOSUPPORT)) {
		v->cause = CAUSE_DMABUF_UNSUPPORTED;
		v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
		say(v->summary, "the kernel refused the dma-buf MR with %s (fd %d, length %llu)",
		    errno_name(uev->err), uev->dmabuf_fd, (unsigned long long)uev->cmd_length);
		say(v->explanation, "The RDMA driver does not support dma-buf MRs (inferred from "
				    "the errno; no kernel site was observed).");
		fix(v, FIX_PRIMARY, "Use a NIC/driver with dma-buf support, or "
				    "NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU memory.");
		return v->cause;
	} else if (dmabuf && uev->err == EBADF) {
		v->cause = CAUSE_DMABUF_BAD_FD;
		v->harmless = uev->dmabuf_fd == -1 && uev->cmd_length == 0;
		say(v->summary, "dma-buf fd %d is not an open dma-buf (EBADF)", uev->dmabuf_fd);
		say(v->explanation, "The kernel could not resolve the fd (inferred from the errno).");
		return v->cause;
	}
	if (v->cause == CAUSE_MEMLOCK_LIMIT || v->cause == CAUSE_MEMLOCK_ZERO) {
		v->has_memlock = true;
		v->limit_bytes = ctx->memlock_soft;
		v->pinned_before_bytes = ctx->vm_pin;
		v->request_bytes = pages * PAGE_SZ;
		v->need_bytes = v->pinned_before_bytes + v->request_bytes;
		if (v->cause == CAUSE_MEMLOCK_ZERO)
			say(v->summary, "RLIMIT_MEMLOCK is 0 and CAP_IPC_LOCK does not apply "
					"(from /proc; ib_umem_get not observed)");
		else
			say(v->summary,
			    "limit %s, pinned now %s (VmPin), this request %llu pages (%s): needs "
			    "%s (from /proc; ib_umem_get not observed)",
			    hb(v->limit_bytes, l), hb(v->pinned_before_bytes, p),
			    (unsigned long long)pages, hb(v->request_bytes, r), hb(v->need_bytes, n));
		say(v->explanation,
		    "The kernel answered %s, and the process's own numbers explain it: ib_umem_get "
		    "refuses when pinned_vm plus the request exceeds RLIMIT_MEMLOCK without "
		    "CAP_IPC_LOCK. Inferred, not observed: this kernel does not let mrtrace probe "
		    "ib_umem_get (see --list-probes).",
		    errno_name(uev->err));
		memlock_fixes(ctx, nccl, v, true);
		return v->cause;
	}
	say(v->summary, "%s failed with %s; no kernel site was armed to say why",
	    api_name(uev->opener), errno_name(uev->err));
	say(v->explanation, "mrtrace does not guess: arm the kernel sites (a kernel that allows "
			    "fentry or kprobes, with the RDMA modules loaded) to get the cause.");
	return v->cause;
}
