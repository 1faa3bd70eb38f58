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
#include "explain/verdict.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proc/context.h"
#include "nccl/nccl.h"
#include "core/pages.h"
#include "core/units.h"

/* the page size of the kernel that recorded the event in scope */
#define PAGE_SZ event_page_size(ev)



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
void memlock_fixes(const struct proc_context *ctx, const struct nccl_info *nccl,
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
			 verdict_bytes(ev->ml.live_pages * PAGE_SZ, b));
	else
		buf[0] = 0;
	return buf;
}

bool explain_memlock(const struct mrt_event *ev, const struct proc_context *ctx,
		     const struct nccl_info *nccl, struct verdict *v, int umem_step)
{
	const struct mrt_memlock *m = &ev->ml;
	char l[32], p[32], r[32], n[32], by[160], pg[64];
	uint64_t limit_pages = m->limit_cur == UINT64_MAX ? UINT64_MAX : m->limit_cur / PAGE_SZ;
	int cap = trail_find(ev, MRT_SITE_CAP_IPC_LOCK);

	if (!m->valid || umem_step < 0)
		return false;
	int err = -ev->steps[umem_step].ret;

	/* can_do_mlock(): RLIMIT_MEMLOCK == 0 and no CAP_IPC_LOCK -> EPERM, before
	 * anything is pinned. */
	if (err == EPERM && m->limit_cur == 0 && trail_first_failed(ev, MRT_SITE_PIN) < 0) {
		v->cause = CAUSE_MEMLOCK_ZERO;
		v->decisive_step = cap >= 0 ? cap : umem_step;
		memlock_numbers(ev, v);
		verdict_say(v->summary, "RLIMIT_MEMLOCK is 0 and CAP_IPC_LOCK does not apply: "
				"this request %s",
		    fmt_pages(m->requested_pages, PAGE_SZ, pg, sizeof(pg)));
		verdict_say(v->explanation,
		    "ib_umem_get refused before pinning anything (can_do_mlock() is false): "
		    "a memlock limit of 0 forbids every RDMA registration unless the process "
		    "holds CAP_IPC_LOCK in the initial user namespace%s.",
		    m->cap_checked ? " (capable() was asked and returned false)" : "");
		memlock_fixes(ctx, nccl, v, ev->kind == MRT_EV_REG_FAILURE);
		return true;
	}
	/* new_pinned = pinned_vm + npages > limit and !capable(CAP_IPC_LOCK) -> ENOMEM */
	if (err == ENOMEM && trail_first_failed(ev, MRT_SITE_PIN) < 0 &&
	    (m->cap_checked ? !m->cap_result : true) &&
	    limit_pages != UINT64_MAX && m->pinned_pages_before + m->requested_pages > limit_pages) {
		v->cause = CAUSE_MEMLOCK_LIMIT;
		v->decisive_step = cap >= 0 ? cap : umem_step;
		memlock_numbers(ev, v);
		verdict_say(v->summary,
		    "limit %s, already pinned %s%s, this request %s: needs %s, over by %s",
		    verdict_bytes(m->limit_cur, l), verdict_bytes(v->pinned_before_bytes, p),
		    pinned_by(ev, by, sizeof(by)), fmt_pages(m->requested_pages, PAGE_SZ, pg, sizeof(pg)),
		    verdict_bytes(v->need_bytes, n), verdict_bytes(v->need_bytes - m->limit_cur, r));
		verdict_say(v->explanation,
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
	int i = trail_first_failed(ev, MRT_SITE_PIN);
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
		verdict_say(v->summary, "page pinning at 0x%llx hit a %s mapping (device memory): %s",
		    (unsigned long long)s->a0, (fl & VM_IO) ? "VM_IO|VM_PFNMAP" : "VM_PFNMAP",
		    errno_name(err));
		verdict_say(v->explanation,
		    "The buffer is not ordinary RAM: its VMA has vm_flags 0x%llx (VM_IO/VM_PFNMAP), "
		    "as GPU BAR memory or other device memory does. pin_user_pages cannot pin such "
		    "pages; registering GPU memory needs a peer-memory client (nvidia-peermem) or "
		    "the dma-buf path.",
		    (unsigned long long)fl);
		verdict_fix(v, FIX_PRIMARY,
		    "Load the NVIDIA peer-memory module on the host: `modprobe nvidia-peermem` "
		    "(check: /sys/module/nvidia_peermem), or use dma-buf registration "
		    "(NCCL_DMABUF_ENABLE=1, the default since NCCL 2.13, needs CUDA >= 11.7 and a "
		    "NIC driver with dma-buf support).");
		verdict_fix(v, FIX_STOPGAP,
		    "Stopgap: NCCL_NET_GDR_LEVEL=LOC disables GPUDirect RDMA so NCCL registers "
		    "host memory instead (slower; counts against the memlock limit).");
		return true;
	}
	if (flags_known && (fl & VM_HUGETLB)) {
		v->cause = CAUSE_PIN_HUGETLB;
		verdict_say(v->summary, "page pinning at 0x%llx failed in a hugetlb mapping: %s",
		    (unsigned long long)s->a0, errno_name(err));
		verdict_say(v->explanation,
		    "The buffer is backed by hugetlbfs (VM_HUGETLB) and faulting its pages in for "
		    "the pin failed, which happens when the huge page pool has no free pages "
		    "(HugePages_Free 0 in /proc/meminfo for that size).");
		verdict_fix(v, FIX_PRIMARY,
		    "Reserve huge pages before the job: `echo N > "
		    "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages` (or the 1 GiB size), "
		    "or set vm.nr_overcommit_hugepages; check `mrtrace check` hugepages.");
		verdict_fix(v, FIX_ALTERNATIVE,
		    "Or stop allocating this buffer from hugetlbfs (unset the allocator's huge page "
		    "option).");
		return true;
	}
	if (err == ENOMEM || trail_find(ev, MRT_SITE_MIGRATE) >= 0) {
		v->cause = CAUSE_PIN_MIGRATE;
		uint64_t before = 0;
		for (int k = 0; k < i; k++)
			if (ev->steps[k].site == MRT_SITE_PIN && ev->steps[k].ret > 0)
				before += (uint64_t)ev->steps[k].ret;
		verdict_say(v->summary, "long-term page pinning at 0x%llx failed with %s (%s pinned before)",
		    (unsigned long long)s->a0, errno_name(err), fmt_pages(before, PAGE_SZ, pg, sizeof(pg)));
		verdict_say(v->explanation,
		    "A long-term pin (FOLL_LONGTERM) must first migrate pages out of ZONE_MOVABLE "
		    "or CMA areas; that migration failed, so the pin returned %s. The memlock "
		    "limit was not the problem.",
		    errno_name(err));
		verdict_fix(v, FIX_PRIMARY,
		    "Look at movable_node / kernelcore= / movablecore= and CMA settings on the "
		    "kernel command line, and at memory pressure on the NUMA node (%s).",
		    "grep -i -e cma -e movable /proc/meminfo");
		verdict_fix(v, FIX_ALTERNATIVE, "Retry after dropping caches or compacting memory: "
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
	verdict_say(v->summary, "page pinning at 0x%llx failed: %s (%s)", (unsigned long long)s->a0, why,
	    errno_name(err));
	verdict_say(v->explanation,
	    "pin_user_pages could not fault in the buffer's pages: %s. The application passed "
	    "an address range it cannot use for DMA%s.",
	    why, fl == MRT_VMA_UNKNOWN ? " (the VMA could not be read on this kernel)" : "");
	verdict_fix(v, FIX_PRIMARY,
	    "Register only memory the process has mapped with read/write access for the whole "
	    "range (check the buffer's lifetime: a use-after-free of a registered buffer "
	    "looks like this).");
	verdict_fix(v, FIX_ALTERNATIVE,
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
	v->decisive_step = trail_first_failed(ev, MRT_SITE_UVERBS_REG_MR);
	/* The kernel's order: page offsets of start and iova, then access bits. */
	if ((ev->cmd_start ^ ev->cmd_iova) & (PAGE_SZ - 1)) {
		v->cause = CAUSE_IOVA_MISALIGNED;
		verdict_say(v->summary,
		    "iova 0x%llx and address 0x%llx have different offsets in their page "
		    "(0x%llx vs 0x%llx)",
		    (unsigned long long)ev->cmd_iova, (unsigned long long)ev->cmd_start,
		    (unsigned long long)(ev->cmd_iova & (PAGE_SZ - 1)),
		    (unsigned long long)(ev->cmd_start & (PAGE_SZ - 1)));
		verdict_say(v->explanation,
		    "ib_uverbs_reg_mr rejects a registration whose iova is not congruent with its "
		    "start address modulo the page size, before touching memory.");
		verdict_fix(v, FIX_PRIMARY,
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
		verdict_say(v->summary, "access flags %s rejected: %s", access_names(acc, a, sizeof(a)),
		    unknown ? "unknown bits" : "REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE");
		verdict_say(v->explanation,
		    "ib_check_mr_access refuses %s before any memory is pinned.",
		    unknown ? "access bits the kernel does not know (a newer rdma-core flag on an "
			      "older kernel, or garbage)"
			    : "remote write or atomic access without local write");
		verdict_fix(v, FIX_PRIMARY, "%s",
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
	int get = trail_find(ev, MRT_SITE_DMABUF_GET);
	int i;

	if (ev->opener != MRT_SITE_UVERBS_REG_DMABUF && get < 0)
		return false;
	if ((i = trail_first_failed(ev, MRT_SITE_DMABUF_ATTACH)) >= 0 ||
	    (i = trail_first_failed(ev, MRT_SITE_DMABUF_PIN)) >= 0 ||
	    (i = trail_first_failed(ev, MRT_SITE_DMABUF_MAP)) >= 0) {
		v->cause = CAUSE_DMABUF_ATTACH;
		v->decisive_step = i;
		verdict_say(v->summary, "the dma-buf exporter refused: %s returned %s",
		    site_name(ev->steps[i].site), errno_name(-ev->steps[i].ret));
		verdict_say(v->explanation,
		    "The RDMA driver got the dma-buf but attaching, pinning or mapping it for the "
		    "NIC failed in the exporter (the GPU driver): peer-to-peer DMA between this "
		    "GPU and NIC is not possible as configured.");
		verdict_fix(v, FIX_PRIMARY,
		    "Check the GPU driver's dma-buf/P2P support (open kernel modules, "
		    "NVreg_EnableStreamMemOPs and PCIe topology: `mrtrace check`), or fall back "
		    "with NCCL_DMABUF_ENABLE=0 and nvidia-peermem.");
		return true;
	}
	if (err == EBADF || (get >= 0 && ev->steps[get].ret == -EBADF)) {
		v->cause = CAUSE_DMABUF_BAD_FD;
		v->decisive_step = get;
		verdict_say(v->summary, "dma-buf fd %d is not an open dma-buf (EBADF)", ev->dmabuf_fd);
		verdict_say(v->explanation, "ib_umem_dmabuf_get could not resolve the file descriptor.");
		verdict_fix(v, FIX_PRIMARY, "Pass a dma-buf fd exported by the GPU driver "
				    "(cuMemGetHandleForAddressRange) and keep it open until the "
				    "registration returns.");
		return true;
	}
	if ((err == EOPNOTSUPP || err == EPROTONOSUPPORT) && get < 0) {
		v->cause = CAUSE_DMABUF_UNSUPPORTED;
		v->decisive_step = trail_first_failed(ev, MRT_SITE_UVERBS_REG_DMABUF);
		if (ev->cmd_valid == 2)
			verdict_say(v->summary,
			    "this RDMA device's driver does not support dma-buf MRs (%s; fd %d, "
			    "length %llu)",
			    errno_name(err), ev->dmabuf_fd, (unsigned long long)ev->cmd_length);
		else
			verdict_say(v->summary, "this RDMA device's driver does not support dma-buf MRs (%s)",
			    errno_name(err));
		verdict_say(v->explanation,
		    "The REG_DMABUF_MR method returned %s before looking at the fd: the driver has "
		    "no reg_user_mr_dmabuf operation (soft-RoCE and older drivers), so the kernel "
		    "does not even offer the method for this device.",
		    errno_name(err));
		verdict_fix(v, FIX_PRIMARY,
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
	int get = trail_find(ev, MRT_SITE_DMABUF_GET);

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

bool explain_rdma_cgroup(const struct mrt_event *ev, struct verdict *v, int err)
{
	static const char *const what[MRT_OP_MAX] = {
		[MRT_OP_NONE] = "the MR", [MRT_OP_OPEN_DEVICE] = "the device context (hca_handle)",
		[MRT_OP_ALLOC_PD] = "the PD", [MRT_OP_CREATE_CQ] = "the CQ",
		[MRT_OP_CREATE_QP] = "the QP", [MRT_OP_CREATE_AH] = "the AH",
	};
	const char *obj = ev->kind == MRT_EV_FAILURE && ev->op < MRT_OP_MAX && what[ev->op]
				  ? what[ev->op] : "the MR";
	int i = trail_first_failed(ev, MRT_SITE_RDMACG_CHARGE);

	if (i < 0 && !(err == EAGAIN && trail_first_failed(ev, MRT_SITE_UOBJ_ALLOC) >= 0))
		return false;
	if (i < 0)
		i = trail_first_failed(ev, MRT_SITE_UOBJ_ALLOC);
	v->cause = CAUSE_RDMA_CGROUP_LIMIT;
	v->decisive_step = i;
	bool handle = ev->kind == MRT_EV_FAILURE && ev->op == MRT_OP_OPEN_DEVICE;
	verdict_say(v->summary, "the rdma cgroup's %s limit is reached (%s)",
		    handle ? "hca_handle" : "hca_object", errno_name(err));
	verdict_say(v->explanation,
	    "Every device context (hca_handle) and verbs object (PD, MR, QP, CQ...: hca_object) "
	    "is charged to the process's rdma cgroup before it is created; the charge failed, "
	    "so %s was never allocated. Memory limits are not involved.", obj);
	verdict_fix(v, FIX_PRIMARY,
	    "Raise %s in the cgroup's rdma.max (e.g. `echo \"<dev> %s=max\" > "
	    "/sys/fs/cgroup/<cgroup>/rdma.max`), or in the container runtime's rdma limits.",
	    handle ? "hca_handle" : "hca_object", handle ? "hca_handle" : "hca_object");
	verdict_fix(v, FIX_ALTERNATIVE, "Check for leaked verbs objects: compare rdma.current with the "
				"number of MRs the job should hold.");
	return true;
}

static void explain_unknown(const struct mrt_event *ev, struct verdict *v, int err)
{
	int last = -1;

	for (int i = 0; i < trail_nsteps(ev); i++)
		if (ev->steps[i].ret < 0) {
			last = i;
			break;
		}
	v->cause = CAUSE_UNKNOWN;
	v->decisive_step = last;
	if (last >= 0)
		verdict_say(v->summary, "%s failed first (%s); no known cause matches this trail",
		    site_name(ev->steps[last].site), errno_name(-ev->steps[last].ret));
	else
		verdict_say(v->summary, "the registration failed with %s and no armed site recorded why",
		    errno_name(err));
	verdict_say(v->explanation,
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
	int drv = trail_find(ev, MRT_SITE_DRIVER_REG);
	enum cause c;

	if ((err != ENOMEM && err != EPERM) || ev->ml.valid || ev->opener != MRT_SITE_UVERBS_REG_MR ||
	    trail_find(ev, MRT_SITE_UMEM_GET) >= 0)
		return false;
	for (int i = 0; i < trail_nsteps(ev); i++)
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
	v->decisive_step = trail_first_failed(ev, MRT_SITE_UVERBS_REG_MR);
	return true;
}

enum cause explain_event(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct nccl_info *nccl, struct verdict *v)
{
	int err = ev->err;
	int umem = trail_find(ev, MRT_SITE_UMEM_GET);

	if (ev->kind == MRT_EV_USER_CALL)
		return explain_user_call(ev, ctx, nccl, v);
	if (ev->kind == MRT_EV_FAILURE)
		return explain_failure(ev, ctx, NULL, v);
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
			verdict_say(v->summary, "mlockall(0x%llx) refused (%s): limit %s, already locked %s",
			    (unsigned long long)ev->sys_len, errno_name(err), verdict_bytes(ev->ml.limit_cur, l),
			    verdict_bytes(v->pinned_before_bytes, p));
			verdict_say(v->explanation, "mlockall() locks the whole address space, held to "
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
			verdict_say(v->summary, "mlock of %s failed (%s) within the limit %s: not the memlock "
					"limit (an unmapped range gives ENOMEM too)",
			    verdict_bytes(ev->sys_len, r), errno_name(err), verdict_bytes(ev->ml.limit_cur, l));
			verdict_say(v->explanation, "The request fits under RLIMIT_MEMLOCK, so the limit "
					    "did not refuse it.");
			return v->cause;
		}
		verdict_say(v->summary, "mlock of %s refused (%s): limit %s, already locked %s (VmLck)",
		    verdict_bytes(ev->sys_len, r), errno_name(err), verdict_bytes(ev->ml.limit_cur, l),
		    verdict_bytes(v->pinned_before_bytes, p));
		verdict_say(v->explanation,
		    "mlock() is held to the same RLIMIT_MEMLOCK that RDMA registration is: locked "
		    "pages (VmLck) plus this request may not exceed it without CAP_IPC_LOCK. A "
		    "process that cannot mlock this much cannot register it as an MR either.");
		memlock_fixes(ctx, nccl, v, ev->kind == MRT_EV_REG_FAILURE);
		return v->cause;
	}

	if (nccl_dmabuf_probe_shape(ev, err))
		v->harmless = true;
	if (explain_validation(ev, v, err) || explain_rdma_cgroup(ev, v, err) ||
	    explain_dmabuf(ev, v, err) || explain_memlock(ev, ctx, nccl, v, umem) ||
	    explain_pin(ev, v) || explain_dma_map(ev, v) || explain_mlx5_cmd(ev, v))
		return v->cause;
	if (explain_without_umem(ev, ctx, nccl, v, err))
		return v->cause;
	explain_unknown(ev, v, err);
	return v->cause;
}
