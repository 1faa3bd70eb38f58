// SPDX-License-Identifier: GPL-2.0-only
/* sites.c - the site table: every place mrtrace can watch, what it tells,
 * and which BPF programs arm it by which mechanism.  Order is the order of
 * the report (`watch --list-probes`).  Why each site: docs/design.md
 * section 2; other names on other kernels: section 8. */
#include "tracer/sites.h"

#include <stddef.h>

const struct tracer_site_def tracer_reg_sites[] = {
	{ "reg_mr", "ib_uverbs_reg_mr", "REG_MR command args (start, iova, access) and final errno",
	  true, "fentry_reg_mr", "fexit_reg_mr", "kprobe_reg_mr", "kretprobe_reg_mr" },
	{ "uverbs_ioctl", "ib_uverbs_cmd_verbs",
	  "dma-buf MR attributes (fd, offset, length) and errno, even where the driver lacks "
	  "dma-buf",
	  true, "fentry_cmd_verbs", "fexit_cmd_verbs", "kprobe_cmd_verbs", "kretprobe_cmd_verbs" },
	{ "reg_dmabuf_mr", "ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR",
	  "dma-buf MR method and final errno", true, "fentry_reg_dmabuf", "fexit_reg_dmabuf",
	  "kprobe_reg_dmabuf", "kretprobe_reg_dmabuf" },
	{ "umem_get", "ib_umem_get",
	  "memlock limit, pinned_vm before, pages requested, umem errno", true, "fentry_umem_get",
	  "fexit_umem_get", "kprobe_umem_get", "kretprobe_umem_get",
	  .alt = "ib_umem_get_va" /* a 2026 series moves and may rename it */ },
	{ "umem_release", "ib_umem_release", "live MR count per process", false,
	  "fentry_umem_release", NULL, "kprobe_umem_release", NULL },
	{ "cap_ipc_lock", "capable", "whether CAP_IPC_LOCK applied (initial user namespace)", false,
	  NULL, "fexit_capable", "kprobe_capable", "kretprobe_capable" },
	{ "rxe_reg", "rxe_reg_user_mr", "soft-RoCE driver result", false, NULL, "fexit_rxe_reg",
	  NULL, "kretprobe_rxe_reg" },
	{ "mlx5_reg", "mlx5_ib_reg_user_mr", "mlx5 driver result", false, NULL, "fexit_mlx5_reg",
	  NULL, "kretprobe_mlx5_reg" },
	{ "mlx5_dmabuf_reg", "mlx5_ib_reg_user_mr_dmabuf", "mlx5 dma-buf MR result", false, NULL,
	  "fexit_mlx5_reg_dmabuf", NULL, "kretprobe_mlx5_reg_dmabuf" },
	{ "mlx5_reg_create", "reg_create", "mlx5 mkey creation result", false, NULL, NULL, NULL,
	  "kretprobe_mlx5_reg_create" },
	{ "mlx5_create_mr", "create_real_mr", "mlx5 MR creation result", false, NULL, NULL, NULL,
	  "kretprobe_mlx5_create_real_mr" },
	{ "mlx5_cmd", "mlx5_cmd_exec", "mlx5 firmware command opcode, status, syndrome", false,
	  NULL, "fexit_mlx5_cmd", "kprobe_mlx5_cmd", "kretprobe_mlx5_cmd" },
	{ "peer_get", "ib_peer_umem_get", "MLNX_OFED peer-memory client result (nvidia-peermem)",
	  false, NULL, NULL, NULL, "kretprobe_peer_get" },
	{ "pin", "pin_user_pages_fast", "page pinning result and the VMA's flags", false, NULL,
	  "fexit_pin_fast", "kprobe_pin_fast", "kretprobe_pin_fast" },
	{ "pin_gup", "get_user_pages", "page pinning on 5.4 (get_user_pages FOLL_LONGTERM)", false,
	  NULL, NULL, "kprobe_gup", "kretprobe_gup", .only_without = "pin" },
	{ "migrate", "migrate/mm_migrate_pages", "failed page migration for a long-term pin",
	  false, "tp_migrate", NULL, NULL, NULL, .tp = "migrate/mm_migrate_pages" },
	{ "rdmacg", "ib_rdmacg_try_charge", "rdma cgroup charge result", false, NULL,
	  "fexit_rdmacg", NULL, "kretprobe_rdmacg" },
	{ "uobj_alloc", "rdma_alloc_begin_uobject", "uverbs object allocation result", false, NULL,
	  "fexit_uobj_alloc", NULL, "kretprobe_uobj_alloc" },
	{ "sg_alloc", "sg_alloc_append_table_from_pages", "scatterlist allocation failure", false,
	  NULL, "fexit_sg_alloc", NULL, "kretprobe_sg_alloc" },
	{ "dma_map", "dma_map_sgtable", "DMA mapping failure", false, NULL, "fexit_dma_map", NULL,
	  "kretprobe_dma_map" },
	{ "iova", "alloc_iova_fast", "IOVA space exhaustion", false, NULL, "fexit_iova", NULL,
	  NULL },
	{ "dmabuf_get", "ib_umem_dmabuf_get", "dma-buf fd, offset, size and result", false, NULL,
	  "fexit_umem_dmabuf", NULL, "kretprobe_umem_dmabuf" },
	{ "dmabuf_attach", "dma_buf_dynamic_attach", "dma-buf attach failure", false, NULL,
	  "fexit_dmabuf_attach", NULL, "kretprobe_dmabuf_attach" },
	{ "dmabuf_pin", "dma_buf_pin", "dma-buf pin failure", false, NULL, "fexit_dmabuf_pin",
	  NULL, "kretprobe_dmabuf_pin" },
	{ "dmabuf_map", "dma_buf_map_attachment", "dma-buf map failure", false, NULL,
	  "fexit_dmabuf_map", NULL, "kretprobe_dmabuf_map" },
};
const int tracer_n_reg_sites = sizeof(tracer_reg_sites) / sizeof(tracer_reg_sites[0]);

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
	"libibverbs", "ibv_reg_mr*, ibv_reg_dmabuf_mr",
	"the API the application called, its arguments and user stack; refusals inside "
	"libibverbs",
};
