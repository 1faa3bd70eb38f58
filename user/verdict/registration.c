// SPDX-License-Identifier: GPL-2.0-only
/* registration.c - from a registration's kernel trail to a cause, with
 * numbers (explain_registration(), explain.h).
 *
 * The order of the tests follows the kernel's own order of checks on the
 * registration path (docs/design.md section 2): uverbs command validation, rdma
 * cgroup charge, dma-buf handling, then ib_umem_get's memlock check, page
 * pinning, DMA mapping and the driver's firmware command.  For GPU memory,
 * the node's facts read at the failure (gates->gpu) decide a full BAR1 and
 * say which path GPU memory has here (gpu_memory.c); for a failed
 * long-term pin its CMA pageblocks (gates->cma) say whether a kexec
 * handover's scratch memory is behind it.  The first site
 * that failed is the decisive one; everything after it is consequence.
 * The memlock rules are memlock.c's, the fixes the table's (fixes.c).
 */
#include "verdict/explain.h"
#include "verdict/gpu_memory.h"
#include "verdict/hardware.h"
#include "verdict/memlock.h"
#include "verdict/rdma_cgroup.h"

#include <errno.h>
#include <stdio.h>

#include "core/escape.h"
#include "core/units.h"

/* the page size of the kernel that recorded the event in scope */
#define PAGE_SZ event_page_size(ev)

/* ---- page pinning ----------------------------------------------------------- */

/* A long-term pin whose migration failed.  The node's CMA pageblocks, read
 * at the failure, tell a kexec handover's scratch memory (most of the node
 * MIGRATE_CMA, CmaTotal about zero: check/cma.c's rule) from a node whose
 * CMA is what CmaTotal says, where ZONE_MOVABLE or memory pressure remain. */
static void explain_pin_migrate(uint64_t addr, const char *pinned, int err, const struct cma_facts *c,
				struct verdict *v)
{
	enum cma_state st = c ? cma_facts_state(c) : CMA_STATE_UNKNOWN;
	char bytes[24], cma[40] = "";

	/* counted with the smallest page size when the node's is unknown */
	if (st != CMA_STATE_UNKNOWN)
		snprintf(cma, sizeof(cma), "%s%s", c->page_size ? "" : "at least ",
			 fmt_bytes(cma_facts_bytes(c, -1), bytes, sizeof(bytes)));
	if (st == CMA_STATE_HIDDEN) {
		verdict_say(v->summary, "long-term page pinning at 0x%llx failed with %s (%s pinned before): "
		    "%s of MIGRATE_CMA pageblocks on this node while CmaTotal is %llu kB: memory a "
		    "kexec handover left as CMA",
		    (unsigned long long)addr, errno_name(err), pinned, cma, c->cma_total_kb);
		verdict_say(v->explanation,
		    "A long-term pin (FOLL_LONGTERM) must first migrate each page out of MIGRATE_CMA "
		    "pageblocks and ZONE_MOVABLE; that migration failed, so the pin returned %s. "
		    "%s of this node's memory is in MIGRATE_CMA pageblocks (/proc/pagetypeinfo) that no "
		    "CMA area accounts for (CmaTotal %llu kB in /proc/meminfo): kexec handover (KHO) "
		    "marks its scratch regions so, on some arm64 systems most of memory. Processes get "
		    "ordinary movable pages from there, and every registration has to move them out "
		    "first. The memlock limit was not the problem.",
		    errno_name(err), cma, c->cma_total_kb);
		return;
	}
	verdict_say(v->summary, "long-term page pinning at 0x%llx failed with %s (%s pinned before)%s",
	    (unsigned long long)addr, errno_name(err), pinned,
	    st == CMA_STATE_ORDINARY ? "; CMA is not the cause" : "");
	if (st == CMA_STATE_ORDINARY) {
		verdict_say(v->explanation,
		    "A long-term pin (FOLL_LONGTERM) must first migrate pages out of ZONE_MOVABLE "
		    "or CMA areas; that migration failed, so the pin returned %s. CMA is not the "
		    "cause: this node's MIGRATE_CMA pageblocks (%s) are what its CMA areas account "
		    "for (CmaTotal %llu kB). The pages were in ZONE_MOVABLE (movablecore=, "
		    "kernelcore=, movable_node) or could not be moved under memory pressure. The "
		    "memlock limit was not the problem.",
		    errno_name(err), cma, c->cma_total_kb);
		return;
	}
	char why[96];
	if (!c || !c->read)
		snprintf(why, sizeof(why), "not read at the failure");
	else if (c->pti_error)
		snprintf(why, sizeof(why), "/proc/pagetypeinfo: %s, root only", errno_name(-c->pti_error));
	else
		snprintf(why, sizeof(why), "no CmaTotal in /proc/meminfo");
	verdict_say(v->explanation,
	    "A long-term pin (FOLL_LONGTERM) must first migrate pages out of ZONE_MOVABLE "
	    "or CMA areas; that migration failed, so the pin returned %s. The memlock "
	    "limit was not the problem. The node's CMA pageblocks were not readable (%s), "
	    "so whether kexec handover left memory as CMA is not known.",
	    errno_name(err), why);
}

/* A long-term pin refused in fs-dax memory: the kernel marked the VMA
 * (MRT_VMA_FSDAX) and the pin returned EOPNOTSUPP.  The file (the kernel's
 * device, inode and name; the path while the process lived) and its mount,
 * read at the failure, are named when known. */
static void explain_pin_fsdax(const struct mrt_step *s, const struct vma_file *f, struct verdict *v)
{
	char where[700] = "", file[300] = "";
	const char *gone = "";

	if (f && f->read) {
		/* paths and names are the process's to choose: escaped */
		if (f->path[0])
			snprintf(file, sizeof(file), "%s", esc(f->path));
		else if (f->name[0])
			snprintf(file, sizeof(file), "a file named %s", esc(f->name));
		int n = snprintf(where, sizeof(where), ": %s (device %u:%u, inode %llu)",
				 file[0] ? file : "a file", f->major, f->minor, f->ino);
		if (f->mount_found && n > 0 && (size_t)n < sizeof(where))
			snprintf(where + n, sizeof(where) - (size_t)n, " on %s, %s mounted %s at %s",
				 esc(f->source), esc(f->fstype), esc(f->options), esc(f->mount_point));
		if (!f->path[0])
			gone = " The process had exited before its maps could be read: the kernel's "
			       "record names the file, not its directory.";
	} else if (f && f->maps_error) {
		gone = " The file is not named: the process had exited before its maps could be read.";
	}
	verdict_say(v->summary,
	    "long-term page pinning at 0x%llx refused: the buffer maps a file on a DAX file system "
	    "(fs-dax%s%s) (EOPNOTSUPP)", (unsigned long long)s->a0, file[0] ? ": " : "", file);
	verdict_say(v->explanation,
	    "The buffer is a shared mapping of a file on a file system mounted with DAX "
	    "(persistent memory, /dev/pmemN, -o dax)%s. Its pages are the device's own, not the "
	    "page cache's, and the kernel refuses to pin fs-dax pages long-term (FOLL_LONGTERM, "
	    "which every RDMA registration asks for): the file system could no longer truncate "
	    "or move the file's blocks while a NIC holds them. No page was pinned; memlock was not "
	    "the problem.%s", where, gone);
}

static bool explain_pin(const struct mrt_event *ev, const struct gate_facts *g, struct verdict *v)
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
	if (flags_known && (fl & MRT_VMA_FSDAX) && err == EOPNOTSUPP) {
		v->cause = CAUSE_PIN_FSDAX;
		explain_pin_fsdax(s, g ? &g->vma_file : NULL, v);
		return true;
	}
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
		return true;
	}
	if (err == ENOMEM || trail_find(ev, MRT_SITE_MIGRATE) >= 0) {
		v->cause = CAUSE_PIN_MIGRATE;
		uint64_t before = 0;
		for (int k = 0; k < i; k++)
			if (ev->steps[k].site == MRT_SITE_PIN && ev->steps[k].ret > 0)
				before += (uint64_t)ev->steps[k].ret;
		fmt_pages(before, PAGE_SZ, pg, sizeof(pg));
		explain_pin_migrate(s->a0, pg, err, g ? &g->cma : NULL, v);
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
		return true;
	}
	uint32_t acc = ev->cmd_access;
	bool unknown = ib_access_unknown(acc);
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
		return true;
	}
	/* ODP on a device without it is EINVAL too (<= 6.1): left to `unknown` */
	return false;
}

/* ---- dma-buf --------------------------------------------------------------- */

/* EINVAL from ib_umem_dmabuf_get before any attach: its checks are the
 * range (offset + length overflowing, or past the dma-buf's size) and the
 * fd being a dma-buf at all (dma_buf_get).  The fd's size from its fdinfo
 * tells them apart; without it the range is only inferred. */
static bool explain_dmabuf_range(const struct mrt_event *ev, const struct gate_facts *g, int get,
				 struct verdict *v)
{
	const struct mrt_step *s = &ev->steps[get];
	unsigned long long off = s->a0, len = s->a1, end = off + len;
	unsigned long long size = g ? g->gpu.dmabuf_fd_size : 0;
	bool wraps = end < off;

	if (trail_find(ev, MRT_SITE_DMABUF_ATTACH) >= 0 || (size && !wraps && end <= size))
		return false;
	v->cause = CAUSE_DMABUF_RANGE;
	v->decisive_step = get;
	if (size)
		verdict_say(v->summary,
			    "the dma-buf MR asks bytes %llu..%llu of dma-buf fd %d, which holds %llu "
			    "bytes (exporter %s): past its end by %llu (EINVAL)",
			    off, end, ev->dmabuf_fd, size,
			    g->gpu.dmabuf_exporter[0] ? g->gpu.dmabuf_exporter : "?", end - size);
	else if (wraps)
		verdict_say(v->summary, "the dma-buf MR's offset %llu + length %llu overflows (EINVAL)",
			    off, len);
	else {
		v->certainty = CERT_INFERRED;
		verdict_say(v->summary,
			    "ib_umem_dmabuf_get refused offset %llu + length %llu of fd %d with EINVAL "
			    "before attaching: a range past the dma-buf's end, or an fd that is no "
			    "dma-buf (its size could not be read)", off, len, ev->dmabuf_fd);
	}
	verdict_say(v->explanation,
		    "ib_umem_dmabuf_get checks that offset + length lies inside the exported "
		    "dma-buf before it attaches to it. With CUDA virtual memory (PyTorch's "
		    "expandable segments, cuMemMap) one virtual range is backed by several "
		    "physical chunks, and the dma-buf exported for an address covers only its "
		    "chunk: a registration of the whole range runs past its end.");
	return true;
}

static bool explain_dmabuf(const struct mrt_event *ev, const struct gate_facts *g,
			   struct verdict *v, int err)
{
	int get = trail_find(ev, MRT_SITE_DMABUF_GET);
	int i;

	if (ev->opener != MRT_SITE_UVERBS_REG_DMABUF && get < 0)
		return false;
	if ((i = trail_first_failed(ev, MRT_SITE_DMABUF_ATTACH)) >= 0 ||
	    (i = trail_first_failed(ev, MRT_SITE_DMABUF_PIN)) >= 0 ||
	    (i = trail_first_failed(ev, MRT_SITE_DMABUF_MAP)) >= 0) {
		/* the exporter maps the buffer into BAR1: a full one refuses */
		int at = trail_find(ev, MRT_SITE_DMABUF_ATTACH);
		uint64_t need = ev->cmd_valid == 2 && ev->cmd_length ? ev->cmd_length :
				at >= 0 ? ev->steps[at].a0 : 0;
		if (explain_bar1(ev, g, i, need, v))
			return true;
		v->cause = CAUSE_DMABUF_ATTACH;
		v->decisive_step = i;
		verdict_say(v->summary, "the dma-buf exporter refused: %s returned %s",
		    site_name(ev->steps[i].site), errno_name(-ev->steps[i].ret));
		verdict_say(v->explanation,
		    "The RDMA driver got the dma-buf but attaching, pinning or mapping it for the "
		    "NIC failed in the exporter (the GPU driver): peer-to-peer DMA between this "
		    "GPU and NIC is not possible as configured.");
		return true;
	}
	if (get >= 0 && ev->steps[get].ret == -EINVAL && explain_dmabuf_range(ev, g, get, v))
		return true;
	if (err == EBADF || (get >= 0 && ev->steps[get].ret == -EBADF)) {
		v->cause = CAUSE_DMABUF_BAD_FD;
		v->decisive_step = get;
		verdict_say(v->summary, "dma-buf fd %d is not an open dma-buf (EBADF)", ev->dmabuf_fd);
		verdict_say(v->explanation, "ib_umem_dmabuf_get could not resolve the file descriptor.");
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

/* ---- a peer-memory client (MLNX_OFED) ------------------------------------ */

/* ib_peer_umem_get failed: the client did not take the range.  Only a full
 * BAR1 is a cause of its own; anything else stays with the pinning step
 * (pin_device_memory) or unknown. */
static bool explain_peer(const struct mrt_event *ev, const struct gate_facts *g, struct verdict *v)
{
	int i = trail_first_failed(ev, MRT_SITE_PEER_GET);

	if (i < 0)
		return false;
	return explain_bar1(ev, g, i, ev->ml.valid ? ev->ml.len : ev->cmd_length, v);
}

/* ---- the rest ------------------------------------------------------------- */

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
				 struct verdict *v, int err)
{
	int drv = trail_find(ev, MRT_SITE_DRIVER_REG);
	uint64_t start = ev->cmd_start, len = ev->cmd_length;

	if ((err != ENOMEM && err != EPERM) || ev->ml.valid || ev->opener != MRT_SITE_UVERBS_REG_MR ||
	    trail_find(ev, MRT_SITE_UMEM_GET) >= 0)
		return false;
	for (int i = 0; i < trail_nsteps(ev); i++)
		if (ev->steps[i].ret < 0 && ev->steps[i].site != MRT_SITE_UVERBS_REG_MR &&
		    ev->steps[i].site != MRT_SITE_DRIVER_REG)
			return false;
	if (ev->cmd_valid != 1 && drv >= 0) {
		/* the command unread (no BTF for its bundle): the driver's arguments */
		start = ev->steps[drv].a0;
		len = ev->steps[drv].a1;
	}
	if (!memlock_infer(ctx, err, start, len, PAGE_SZ, v))
		return false;
	v->decisive_step = trail_first_failed(ev, MRT_SITE_UVERBS_REG_MR);
	return true;
}

/* The cause, its numbers and texts; the fixes follow from them. */
static void judge_registration(const struct mrt_event *ev, const struct proc_context *ctx,
			       const struct gate_facts *g, struct verdict *v)
{
	int err = ev->err;

	if (nccl_dmabuf_probe_shape(ev, err))
		v->harmless = true;
	if (explain_validation(ev, v, err) || explain_rdma_cgroup(ev, v, err) ||
	    explain_dmabuf(ev, g, v, err) || explain_memlock(ev, v, trail_find(ev, MRT_SITE_UMEM_GET)) ||
	    explain_peer(ev, g, v) || explain_pin(ev, g, v) || explain_dma_map(ev, v) || explain_mlx5_cmd(ev, v) ||
	    explain_without_umem(ev, ctx, v, err))
		return;
	explain_unknown(ev, v, err);
}

enum cause explain_registration(const struct mrt_event *ev, const struct proc_context *ctx,
				const struct nccl_info *nccl, const struct gate_facts *gates,
				struct verdict *v)
{
	verdict_init(v, ev->err, CERT_PROVEN);
	judge_registration(ev, ctx, gates, v);
	gpu_verdict_facts(ev, gates, nccl, v);
	fixes_for_verdict(ev, ctx, nccl, gates, v);
	return v->cause;
}
