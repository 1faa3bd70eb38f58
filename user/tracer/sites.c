// SPDX-License-Identifier: GPL-2.0-only
/* sites.c - the site table: every place mrtrace can watch, what it tells,
 * and which BPF programs arm it by which mechanism.  Order is the order of
 * the report (`watch --list-probes`); a driver's sites are in its own
 * table (user/drivers/), after the pinning entry's.  Why each site: docs/design.md
 * section 2; other names on other kernels, with the kernels where each was
 * seen: section 8. */
#include "tracer/sites.h"

#include <stddef.h>

#include "drivers/driver.h"

/* Sayings shared by the entries below. */
/* what the hot functions run for (sites.h, `hot`) */
#define HOT_DMA "every scatterlist DMA mapping of every device (NVMe, NICs)"
#define HOT_DMABUF "every dma-buf import of GPU and display drivers"
#define UMEM_7X "7.2: static, in ib_core, behind ib_umem_get_attr*, ib_umem_get_desc, " \
		"ib_umem_get_cq_buf*"

static const struct tracer_site_def before_drivers[] = {
	/* three flavours of the exit: at a failure, the caller's user stack
	 * scanned in the kernel (5.17+), or its raw top copied for user space
	 * to scan (before: bpf/ustack_raw.bpf.h; needs nothing 5.10 lacks), or
	 * neither (the libibverbs uprobes give it, where the raw one is refused) */
	{ "reg_mr", "ib_uverbs_reg_mr",
	  "REG_MR command args (start, iova, access) and final errno; at a failure, the "
	  "caller's user stack (5.17+)",
	  true, "fentry_reg_mr", "fexit_reg_mr_ustack", "kprobe_reg_mr", "kretprobe_reg_mr_ustack",
	  .kernels = "5.17+: the caller's stack taken in the kernel", .needs = "kernel_ustack",
	  .more = { { "ib_uverbs_reg_mr",
		      "before 5.17: the caller's stack copied raw, scanned in user space",
		      "fentry_reg_mr", "fexit_reg_mr_raw", "kprobe_reg_mr", "kretprobe_reg_mr_raw" },
		    { "ib_uverbs_reg_mr", "the caller from the libibverbs uprobes",
		      "fentry_reg_mr", "fexit_reg_mr", "kprobe_reg_mr", "kretprobe_reg_mr" } },
	  .type = "uverbs_attr_bundle", .critical = "the REG_MR command",
	  .without = "EINVAL causes (access flags, iova) cannot be told apart" },
	{ "uverbs_ioctl", "ib_uverbs_cmd_verbs",
	  "dma-buf MR attributes (fd, offset, length) and errno, even where the driver lacks "
	  "dma-buf; the GET_CONTEXT, CQ_CREATE and QP_CREATE methods' attributes",
	  true, "fentry_cmd_verbs", "fexit_cmd_verbs", "kprobe_cmd_verbs", "kretprobe_cmd_verbs" },
	{ "reg_dmabuf_mr", "ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR",
	  "dma-buf MR method and final errno", true, "fentry_reg_dmabuf", "fexit_reg_dmabuf",
	  "kprobe_reg_dmabuf", "kretprobe_reg_dmabuf" },
	/* the pinning entry: the memlock check, capable() and the pinning run
	 * inside it, so its steps are recorded only while it is armed */
	/* two flavours of the exit, by how a failure's VMAs are found: by
	 * bpf_find_vma (5.17+), or in the mm's rb-tree (bpf/vma.bpf.h) */
	{ "umem_get", "ib_umem_get",
	  "memlock limit, pinned_vm before, pages requested, umem errno", true, "fentry_umem_get",
	  "fexit_umem_get_vma", "kprobe_umem_get", "kretprobe_umem_get_vma",
	  .kernels = "5.10-6.12, in ib_uverbs", .needs = "find_vma",
	  .more = { { "ib_umem_get", "5.10-5.16: a failure's VMAs from the mm's rb-tree",
		      "fentry_umem_get", "fexit_umem_get", "kprobe_umem_get",
		      "kretprobe_umem_get" },
		    { "__ib_umem_get_va", UMEM_7X },
		    { "ib_umem_get_va", "part of the 2026 series that moved umem into ib_core" } },
	  .critical = "memlock evidence",
	  .without = "verdicts for ENOMEM and EPERM will be inferred from /proc (RLIMIT_MEMLOCK, "
		     "VmPin) and marked inferred; pinning causes are not seen" },
	{ "umem_release", "ib_umem_release", "live MR count per process", false,
	  "fentry_umem_release", NULL, "kprobe_umem_release", NULL,
	  .type = "ib_umem", .type_required = true },
	{ "cap_ipc_lock", "capable", "whether CAP_IPC_LOCK applied (initial user namespace)", false,
	  NULL, "fexit_capable", "kprobe_capable", "kretprobe_capable",
	  .critical = "capable(CAP_IPC_LOCK)",
	  .without = "memlock verdicts assume the capability did not apply",
	  .hot = "every privilege check of every process", .from = "umem_get",
	  .instead = "CAP_IPC_LOCK from the task's credentials at its failed exit" },
};

/* ...the drivers' sites here, each driver's table in turn (user/drivers/),
 * then these */
static const struct tracer_site_def after_drivers[] = {
	{ "peer_get", "ib_peer_umem_get", "MLNX_OFED peer-memory client result (nvidia-peermem)",
	  false, NULL, NULL, NULL, "kretprobe_peer_get" },
	/* the same function twice: VMA flags by bpf_find_vma (5.17+), or by
	 * walking the mm's VMA rb-tree where there is no such helper */
	{ "pin", "pin_user_pages_fast", "page pinning result and the VMA's flags", false, NULL,
	  "fexit_pin_fast", "kprobe_pin_fast", "kretprobe_pin_fast",
	  .kernels = "5.17+: VMA flags by bpf_find_vma", .needs = "find_vma",
	  .more = { { "pin_user_pages_fast", "5.6-5.16: VMA flags from the mm's rb-tree", NULL,
		      "fexit_pin_fast_rb", "kprobe_pin_fast", "kretprobe_pin_fast_rb" } },
	  .critical = "page pinning evidence", .without = "pin_* causes fall back to 'unknown'",
	  .hot = "every O_DIRECT read, io_uring fixed buffer and GPUDirect Storage transfer",
	  .from = "umem_get", .instead = "a failure's cause from the VMAs of the range at its exit" },
	{ "pin_gup", "get_user_pages", "page pinning on 5.4 (get_user_pages FOLL_LONGTERM)", false,
	  NULL, NULL, "kprobe_gup", "kretprobe_gup", .only_without = "pin" },
	{ "migrate", "migrate/mm_migrate_pages", "failed page migration for a long-term pin",
	  false, "tp_migrate", NULL, NULL, NULL, .tp = "migrate/mm_migrate_pages",
	  .hot = "every page migration (compaction, NUMA balancing); a failed long-term pin is "
		 "told by ib_umem_get's ENOMEM with its VMAs pinnable" },
	{ "rdmacg", "ib_rdmacg_try_charge", "rdma cgroup charge result", false, NULL,
	  "fexit_rdmacg", NULL, "kretprobe_rdmacg" },
	{ "uobj_alloc", "rdma_alloc_begin_uobject", "uverbs object allocation result", false, NULL,
	  "fexit_uobj_alloc", NULL, "kretprobe_uobj_alloc" },
	{ "sg_alloc", "sg_alloc_append_table_from_pages", "scatterlist allocation failure", false,
	  NULL, "fexit_sg_alloc", NULL, "kretprobe_sg_alloc", .kernels = "5.15+",
	  .hot = "scatterlists of other drivers (DRM, crypto)",
	  .more = { { "__sg_alloc_table_from_pages",
		      "5.10: returns the last entry or an ERR_PTR", NULL, NULL, NULL,
		      "kretprobe_sg_alloc_ptr" } } },
	{ "dma_map", "dma_map_sgtable", "DMA mapping failure", false, NULL, "fexit_dma_map", NULL,
	  "kretprobe_dma_map", .kernels = "6.1+; an inline wrapper in 5.10",
	  .hot = HOT_DMA,
	  .more = { { "dma_map_sg_attrs",
		      "5.10: through ib_dma_map_sg_attrs, 0 entries mapped is the failure", NULL,
		      "fexit_dma_map_sg", NULL, "kretprobe_dma_map_sg" } } },
	{ "iova", "alloc_iova_fast", "IOVA space exhaustion", false, NULL, "fexit_iova",
	  "kprobe_iova", "kretprobe_iova",
	  .hot = "every DMA mapping of every device behind a translating IOMMU" },
	{ "dmabuf_get", "ib_umem_dmabuf_get", "dma-buf fd, offset, size and result", false, NULL,
	  "fexit_umem_dmabuf", "kprobe_umem_dmabuf", "kretprobe_umem_dmabuf" },
	{ "dmabuf_attach", "dma_buf_dynamic_attach", "dma-buf attach failure", false, NULL,
	  "fexit_dmabuf_attach", NULL, "kretprobe_dmabuf_attach", .hot = HOT_DMABUF },
	{ "dmabuf_pin", "dma_buf_pin", "dma-buf pin failure", false, NULL, "fexit_dmabuf_pin",
	  NULL, "kretprobe_dmabuf_pin", .hot = HOT_DMABUF },
	{ "dmabuf_map", "dma_buf_map_attachment", "dma-buf map failure", false, NULL,
	  "fexit_dmabuf_map", NULL, "kretprobe_dmabuf_map", .hot = HOT_DMABUF },
	{ "addr_resolve", "rdma_addr_find_l2_eth_by_grh",
	  "RoCE remote GID to route and neighbour: errno, remote GID, source netdev and netns",
	  false, NULL, "fexit_addr_resolve", "kprobe_addr_resolve", "kretprobe_addr_resolve" },
	/* the refusals beyond registration (bpf/verbs_ops.bpf.h): each records its
	 * own failure, so it stays armed without a registration entry site */
#define OP_SITE(id, fn, what)                                                             \
	{ id, #fn, what, false, "fentry_" #fn, "fexit_" #fn, "kprobe_" #fn, "kretprobe_" #fn, \
	  .standalone = true }
	OP_SITE("get_context", ib_uverbs_get_context,
		"a device context refused (rdma cgroup hca_handle) and errno"),
	OP_SITE("alloc_pd", ib_uverbs_alloc_pd, "PD creation refused: errno, device max_pd"),
	OP_SITE("create_ah", ib_uverbs_create_ah,
		"address handle refused: port, source GID index, errno"),
	OP_SITE("create_cq", ib_uverbs_create_cq, "CQ creation refused: cqe against max_cqe"),
	OP_SITE("ex_create_cq", ib_uverbs_ex_create_cq, "CQ creation (extended) refused"),
	OP_SITE("create_qp", ib_uverbs_create_qp,
		"QP creation refused: work requests and SGEs against the device's maxima"),
	OP_SITE("ex_create_qp", ib_uverbs_ex_create_qp, "QP creation (extended) refused"),
	OP_SITE("modify_qp", ib_uverbs_modify_qp,
		"QP state change refused: target state, attribute mask, port, GID and P_Key "
		"index, MTU"),
	OP_SITE("ex_modify_qp", ib_uverbs_ex_modify_qp, "QP state change (extended) refused"),
#undef OP_SITE
	{ "shm_fallocate", "shmem_fallocate",
	  "a /dev/shm segment the tmpfs cannot hold: request, size limit, pages in use", false, NULL,
	  "fexit_shm_fallocate", "kprobe_shm_fallocate", "kretprobe_shm_fallocate",
	  .standalone = true },
	/* not a refusal: the device's own events, as its clients get them
	 * (bpf/regpath/async_event.bpf.c); cold, runs only at an event */
	{ "async_event", "ib_dispatch_event_clients",
	  "device and port events as the jobs get them: device fatal, port error and active, "
	  "GID, LID, SM and P_Key changes, client reregister",
	  false, "fentry_async_event", NULL, "kprobe_async_event", NULL, .type = "ib_event",
	  .type_required = true, .standalone = true },
	{ "pidfd_getfd", "__x64_sys_pidfd_getfd",
	  "another process's fd refused (ptrace access check): pidfd, fd", false, NULL,
	  "fexit_pidfd_getfd", "kprobe_pidfd_getfd", "kretprobe_pidfd_getfd",
	  .alt = "__arm64_sys_pidfd_getfd" /* the syscall wrapper is per architecture */,
	  .standalone = true },
};

#define N_BEFORE ((int)(sizeof(before_drivers) / sizeof(before_drivers[0])))
#define N_AFTER ((int)(sizeof(after_drivers) / sizeof(after_drivers[0])))

const struct tracer_site_def *tracer_reg_site(int i)
{
	if (i < 0)
		return NULL;
	if (i < N_BEFORE)
		return &before_drivers[i];
	i -= N_BEFORE;
	for (int k = 0; k < rdma_n_drivers; k++) {
		if (i < rdma_drivers[k]->nsites)
			return &rdma_drivers[k]->sites[i];
		i -= rdma_drivers[k]->nsites;
	}
	return i < N_AFTER ? &after_drivers[i] : NULL;
}

int tracer_n_reg_sites(void)
{
	int n = N_BEFORE + N_AFTER;

	for (int k = 0; k < rdma_n_drivers; k++)
		n += rdma_drivers[k]->nsites;
	return n;
}

int tracer_site_cands(const struct tracer_site_def *d, struct tracer_cand out[TRACER_SITE_CANDS])
{
	const struct tracer_cand own = { d->func, d->kernels, d->fentry, d->fexit,
					 d->kprobe, d->kretprobe, d->needs };
	int n = 0;

	out[n++] = own;
	if (d->alt) {
		out[n] = own;
		out[n].func = d->alt;
		out[n++].kernels = NULL;
	}
	for (int i = 0; i < TRACER_CANDS_MAX && d->more[i].func; i++) {
		const struct tracer_cand *c = &d->more[i];
		out[n] = *c;
		/* a candidate that names no program has the site's arguments */
		if (!c->fentry && !c->fexit && !c->kprobe && !c->kretprobe) {
			out[n].fentry = d->fentry;
			out[n].fexit = d->fexit;
			out[n].kprobe = d->kprobe;
			out[n].kretprobe = d->kretprobe;
			if (!c->needs)
				out[n].needs = d->needs;
		}
		n++;
	}
	return n;
}

const struct tracer_sys_def tracer_sys_sites[] = {
	{ "sys_mlock", "mlock", "tp_enter_mlock", "tp_exit_mlock", "failed mlock(): limit, VmLck" },
	{ "sys_mlock2", "mlock2", "tp_enter_mlock2", "tp_exit_mlock2",
	  "failed mlock2(): limit, VmLck" },
	{ "sys_mlockall", "mlockall", "tp_enter_mlockall", "tp_exit_mlockall", "failed mlockall()" },
	{ "sys_setrlimit", "setrlimit", "tp_enter_setrlimit", "tp_exit_setrlimit",
	  "RLIMIT_MEMLOCK changes (setrlimit)" },
	{ "sys_prlimit64", "prlimit64", "tp_enter_prlimit64", "tp_exit_prlimit64",
	  "RLIMIT_MEMLOCK changes (prlimit64)" },
};
const int tracer_n_sys_sites = sizeof(tracer_sys_sites) / sizeof(tracer_sys_sites[0]);

const struct tracer_uprobe_def tracer_uprobe_site = {
	"libibverbs", "ibv_reg_mr*, ibv_reg_dmabuf_mr, ibv_get_device_list, ibv_open_device",
	"the API the application called, its arguments and user stack; refusals inside "
	"libibverbs; a device that could not be listed or opened (node, mode, device cgroup)",
};
