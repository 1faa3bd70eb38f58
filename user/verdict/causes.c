// SPDX-License-Identifier: GPL-2.0-only
/* causes.c - one row per cause (causes.h), in enum order.  The fix
 * generators live in fixes_memlock.c, fixes_registration.c, fixes_gpu.c and
 * fixes_failure.c (fix_generators.h); the explainers that decide each cause
 * in registration.c, memlock.c, user_call.c and failure.c. */
#include "verdict/causes.h"
#include "verdict/fix_generators.h"

#include <errno.h>
#include <string.h>

#define REG EXPLAINER_REGISTRATION
#define MLOCK EXPLAINER_MLOCK
#define UCALL EXPLAINER_USER_CALL
#define FAIL EXPLAINER_FAILURE
#define ENV CLASS_ENVIRONMENT
#define IB CLASS_INFINIBAND

#define NONE CLASS_NO_REFUSAL

/* the priors' shorthands (causes.h, struct cause_prior) */
#define P(...) ((const struct cause_prior[]){ __VA_ARGS__, { 0 } })
#define NOERR PRIOR_NO_ERRNO
#define REGMR PRIOR_OP(OP_REG_MR)
#define MODQP PRIOR_OP(OP_MODIFY_QP)
/* an address vector's checks: modify_qp to RTR and create_ah resolve and
 * check the same GID (the records' explain_modify judges both so); UCX's
 * "ibv_create_ah(... sgid_index=1 ...) on rocep33s0f1 failed: Invalid
 * argument" */
#define ADDR (MODQP | PRIOR_OP(OP_CREATE_AH))
#define OPEN PRIOR_OP(OP_OPEN_DEVICE)
#define MLOCK_ PRIOR_OP(OP_MLOCK)
#define SHM PRIOR_OP(OP_SHM_ALLOC)
#define FDIMP PRIOR_OP(OP_FD_IMPORT)
#define MEMLOCK_ZERO_WHY "ib_umem_get refuses (EPERM) a zero RLIMIT_MEMLOCK"
#define QUEUE_PIN_WHY "the queue buffers are pinned like an MR (ENOMEM under RLIMIT_MEMLOCK)"
#define MLOCK_WHY "mlock refuses (ENOMEM) past RLIMIT_MEMLOCK without CAP_IPC_LOCK, as a registration's pin does"
#define MLOCK_ZERO_WHY "a zero RLIMIT_MEMLOCK refuses every mlock (EPERM)"
#define PIN_DEVICE_WHY "GPU memory registered through ib_umem_get with no peer-memory client (EFAULT)"
#define PIN_FAULT_WHY "pin_user_pages could not fault in the range (unmapped or protected; EFAULT)"
#define PIN_HUGETLB_WHY "untouched hugetlb pages with no free huge page (EFAULT)"
#define DMABUF_WHY "the kernel or the NIC driver cannot register a dma-buf (EOPNOTSUPP; ODP-only paths refuse so too)"
#define BAD_FD_WHY "the dma-buf fd is not one (EBADF)"
#define FSDAX_WHY "the buffer maps a file on a DAX file system (persistent memory mounted -o dax): the kernel refuses its long-term pin (EOPNOTSUPP)"
#define BAD_ACCESS_WHY "the access flags are refused (EINVAL: remote write without local write, relaxed ordering)"
#define IOVA_WHY "the iova's page offset differs from the address's (EINVAL)"
#define CGROUP_QUEUE_WHY "the rdma cgroup's hca_object count is used up (EAGAIN)"
#define CGROUP_OPEN_WHY "the rdma cgroup's hca_handle count is used up: opening the device charges one (EAGAIN)"
#define DEV_MISSING_WHY "no /dev/infiniband/uverbsN node here, or no RDMA device (ENOENT/ENODEV)"
#define DEV_PERM_WHY "the node's mode does not let this user open it (EACCES)"
#define DEV_CG_WHY "the devices cgroup denies the node (EPERM/EACCES)"
#define MEMLOCK_REG_WHY "ib_umem_get refuses (ENOMEM) when pinned_vm plus the request exceeds RLIMIT_MEMLOCK"
#define HCA_WHY "the HCA's QP/CQ/PD count or queue depth is used up (ENOMEM, EINVAL past max_qp_wr/max_cqe)"
#define QUEUE_ATTR_WHY "a queue size or SGE count beyond what the device allows (EINVAL)"

static const struct cause_row rows[CAUSE__ALL] = {
	[CAUSE_UNKNOWN] = { "unknown", ENV, NULL, REG | MLOCK | UCALL | FAIL, "any" },
	[CAUSE_MEMLOCK_LIMIT] = { "memlock_limit", ENV, fixes_memlock, REG | MLOCK | UCALL, "ENOMEM",
	  P({ REGMR, { ENOMEM }, 50, 0, MEMLOCK_REG_WHY },
	  /* no errno, and the line says the buffer is GPU memory: such a
	   * registration fails for want of a peer-memory client far more
	   * often than on the limit (the field corpus: every settled thread
	   * of a GPU MR with no errno), so the GPU word lowers this row */
	  { REGMR, { NOERR }, 50, PRIOR_NOT_GPU_BUFFER, MEMLOCK_REG_WHY },
	  /* a known ENOMEM: the queue's buffers pinned under RLIMIT_MEMLOCK
	   * first (every settled thread of the field corpus: a container's or
	   * a shell's limit), the HCA's counts when the limit is known to be
	   * high (weigh_queue_memlock) */
	  { PRIOR_QUEUES, { ENOMEM }, 45, 0, QUEUE_PIN_WHY },
	  { PRIOR_QUEUES, { NOERR }, 5, 0, QUEUE_PIN_WHY },
	  { MLOCK_, { ENOMEM, NOERR }, 60, 0, MLOCK_WHY },
	  { MLOCK_, { EPERM }, 10, 0, MLOCK_WHY }) },
	[CAUSE_MEMLOCK_ZERO] = { "memlock_zero", ENV, fixes_memlock, REG | MLOCK | UCALL, "EPERM",
	  P({ REGMR, { EPERM }, 60, 0, MEMLOCK_ZERO_WHY },
	  { REGMR, { NOERR }, 20, 0, MEMLOCK_ZERO_WHY },
	  { MLOCK_, { EPERM }, 60, 0, MLOCK_ZERO_WHY },
	  { MLOCK_, { ENOMEM, NOERR }, 5, 0, MLOCK_ZERO_WHY }) },
	[CAUSE_PIN_DEVICE_MEMORY] = { "pin_device_memory", ENV, fixes_pin_device_memory, REG | UCALL, "EFAULT",
	  P({ REGMR, { EFAULT }, 40, PRIOR_GPU_BUFFER, PIN_DEVICE_WHY },
	  { REGMR, { NOERR }, 15, PRIOR_GPU_BUFFER, PIN_DEVICE_WHY }) },
	[CAUSE_PIN_HUGETLB] = { "pin_hugetlb", ENV, fixes_pin_hugetlb, REG, "EFAULT",
	  P({ REGMR, { EFAULT }, 10, 0, PIN_HUGETLB_WHY }, { REGMR, { NOERR }, 4, 0, PIN_HUGETLB_WHY }) },
	[CAUSE_PIN_MIGRATE] = { "pin_migrate", ENV, fixes_pin_migrate, REG, "ENOMEM",
	  P({ REGMR, { ENOMEM, NOERR }, 12, 0, "pin_user_pages could not move the pages out of ZONE_MOVABLE/CMA (ENOMEM)" }) },
	[CAUSE_PIN_FAULT] = { "pin_fault", ENV, fixes_pin_fault, REG | UCALL, "EFAULT",
	  P({ REGMR, { EFAULT }, 30, PRIOR_HOST_BUFFER, PIN_FAULT_WHY },
	  { REGMR, { NOERR }, 6, PRIOR_HOST_BUFFER, PIN_FAULT_WHY }) },
	[CAUSE_DMA_MAP_IOVA] = { "dma_map_iova", ENV, fixes_dma_map_iova, REG, "ENOMEM",
	  P({ REGMR, { ENOMEM, NOERR }, 10, 0, "the IOMMU ran out of IOVA space mapping the MR (ENOMEM)" }) },
	[CAUSE_DMABUF_UNSUPPORTED] = { "dmabuf_unsupported", ENV, fixes_dmabuf_unsupported, REG | UCALL,
				       "EOPNOTSUPP, EPROTONOSUPPORT",
	  P(/* 524: the kernel-internal ENOTSUPP an exporter or an ODP path
	     * returns, printed "Unknown error 524" */
	  { REGMR, { EOPNOTSUPP, ENOTSUP, EPROTONOSUPPORT, 524 }, 15, PRIOR_DMABUF_CALL, DMABUF_WHY },
	  { REGMR, { NOERR }, 10, 0, DMABUF_WHY }) },
	[CAUSE_DMABUF_BAD_FD] = { "dmabuf_bad_fd", ENV, fixes_dmabuf_bad_fd, REG | UCALL, "EBADF",
	  P({ REGMR, { EBADF }, 50, 0, BAD_FD_WHY }, { REGMR, { NOERR }, 3, 0, BAD_FD_WHY }) },
	[CAUSE_DMABUF_ATTACH] = { "dmabuf_attach", ENV, fixes_dmabuf_attach, REG, "exporter's errno" },
	[CAUSE_MLX5_FIRMWARE] = { "mlx5_firmware", IB, fixes_mlx5_firmware, REG,
				  "ENOMEM, EINVAL, EIO, EBUSY",
	  P({ REGMR, { ENOMEM, NOERR }, 8, 0, "the HCA's firmware refused CREATE_MKEY (ENOMEM; dmesg names the status)" },
	  /* a DEVX command (UCX's mlx5dv_devx_obj_create(QP) "failed on
	   * mlx5_0, syndrome 0x2c4154: Remote I/O error"): the firmware's own
	   * status comes back as EREMOTEIO with its syndrome; a command it did
	   * not finish as ETIMEDOUT or ECANCELED (not modify_qp's ETIMEDOUT:
	   * that one is RoCE's address resolution) */
	  { REGMR | PRIOR_QUEUES | MODQP, { EREMOTEIO }, 60, 0, "the mlx5 firmware refused the DEVX command (EREMOTEIO: its status; the line's syndrome names why)" },
	  { REGMR | PRIOR_QUEUES, { ETIMEDOUT, ECANCELED }, 40, 0, "the mlx5 firmware did not complete the command (ETIMEDOUT, ECANCELED): a firmware or device fault" }) },
	[CAUSE_BAD_ACCESS_FLAGS] = { "bad_access_flags", ENV, fixes_bad_access_flags, REG, "EINVAL",
	  P({ REGMR, { EINVAL }, 40, 0, BAD_ACCESS_WHY }, { REGMR, { NOERR }, 5, 0, BAD_ACCESS_WHY }) },
	[CAUSE_IOVA_MISALIGNED] = { "iova_misaligned", ENV, fixes_iova_misaligned, REG, "EINVAL",
	  P({ REGMR, { EINVAL }, 30, 0, IOVA_WHY }, { REGMR, { NOERR }, 4, 0, IOVA_WHY }) },
	[CAUSE_RDMA_CGROUP_LIMIT] = { "rdma_cgroup_limit", ENV, fixes_rdma_cgroup_limit, REG | FAIL, "EAGAIN",
	  P({ REGMR, { EAGAIN }, 50, 0, "the rdma cgroup's mr count is used up (EAGAIN)" },
	  { PRIOR_QUEUES, { EAGAIN, EDQUOT }, 60, 0, CGROUP_QUEUE_WHY },
	  { PRIOR_QUEUES, { NOERR }, 15, 0, CGROUP_QUEUE_WHY },
	  { OPEN, { EAGAIN }, 60, 0, CGROUP_OPEN_WHY }, { OPEN, { NOERR }, 8, 0, CGROUP_OPEN_WHY }) },
	/* check's, never a verdict's: no record proves it, no fix is written */
	[CAUSE_NO_DEVICE_ACCESS] = { "no_device_access", ENV, NULL, 0, "–" },
	[CAUSE_DEVICE_MISSING] = { "device_missing", ENV, fixes_device_missing, FAIL, "ENOENT, ENODEV",
	  P({ OPEN, { ENOENT, ENODEV, ENXIO }, 50, 0, DEV_MISSING_WHY }, { OPEN, { NOERR }, 20, 0, DEV_MISSING_WHY }) },
	[CAUSE_DEVICE_PERMISSION] = { "device_permission", ENV, fixes_device_permission, FAIL, "EACCES",
	  P({ OPEN, { EACCES, EPERM }, 40, 0, DEV_PERM_WHY }, { OPEN, { NOERR }, 15, 0, DEV_PERM_WHY }) },
	[CAUSE_DEVICE_CGROUP] = { "device_cgroup", ENV, fixes_device_cgroup, FAIL, "EPERM",
	  P({ OPEN, { EACCES, EPERM }, 30, 0, DEV_CG_WHY }, { OPEN, { NOERR }, 12, 0, DEV_CG_WHY }) },
	[CAUSE_HCA_RESOURCE_LIMIT] = { "hca_resource_limit", IB, fixes_hca_resource_limit, FAIL,
				       "EINVAL, ENOSPC",
	  P({ PRIOR_QUEUES, { ENOMEM, NOERR }, 40, 0, HCA_WHY }, { PRIOR_QUEUES, { EINVAL }, 20, 0, HCA_WHY }) },
	[CAUSE_PORT_NOT_ACTIVE] = { "port_not_active", IB, fixes_port_not_active, FAIL, "ENETUNREACH",
	  P({ ADDR, { ETIMEDOUT }, 12, 0, "a port that went down under the job loses its neighbours" },
	  { ADDR, { ENETUNREACH }, 40, 0, "a port that is not ACTIVE has no routes (ENETUNREACH)" },
	  { ADDR, { EHOSTUNREACH }, 15, 0, "a port that is not ACTIVE has no routes" },
	  { ADDR, { ENODEV }, 10, 0, "the port's netdev went down or away" },
	  { ADDR, { EINVAL }, 30, 0, "a QP cannot move to RTR on a port that is not ACTIVE (EINVAL)" },
	  { ADDR, { NOERR }, 30, 0, "a QP cannot move to RTR on a port that is not ACTIVE" }) },
	[CAUSE_BAD_GID_INDEX] = { "bad_gid_index", IB, fixes_bad_gid_index, FAIL, "ENODATA",
	  P({ ADDR, { ENODEV }, 40, 0, "the GID index names an entry whose netdev went (an address, VF or macvlan removed): the index of another node's table (ENODEV)" },
	  { ADDR, { ENODATA }, 60, 0, "the source GID index is an empty entry of the port's table (ENODATA)" },
	  /* the index (and RoCE's GRH) before the port: what the threads that
	   * settled an RTR EINVAL found (tests/fixtures/field) and what the
	   * VM proves (failures.sh nogrh); a down port is the facts' to raise */
	  { ADDR, { EINVAL }, 32, 0, "the GID index is empty or of another type, or no GRH on RoCE (EINVAL)" },
	  { ADDR, { NOERR }, 32, 0, "the GID index is empty or of another type, or no GRH on RoCE" }) },
	[CAUSE_BAD_PKEY_INDEX] = { "bad_pkey_index", IB, fixes_bad_pkey_index, FAIL, "EINVAL",
	  P({ MODQP, { EINVAL }, 10, 0, "the PKey index has no valid PKey (EINVAL)" },
	  { MODQP, { NOERR }, 10, 0, "the PKey index has no valid PKey" }) },
	[CAUSE_QP_ATTR_INVALID] = { "qp_attr_invalid", IB, fixes_qp_attr_invalid, FAIL, "EINVAL",
	  P({ MODQP, { EINVAL }, 8, 0, "another QP attribute is out of range (EINVAL)" },
	  { MODQP, { NOERR }, 8, 0, "another QP attribute is out of range" },
	  { PRIOR_QUEUES, { EINVAL }, 40, 0, QUEUE_ATTR_WHY },
	  { PRIOR_QUEUES, { ENOMEM, NOERR }, 10, 0, QUEUE_ATTR_WHY }) },
	[CAUSE_SHM_EXHAUSTED] = { "shm_exhausted", ENV, fixes_shm_exhausted, FAIL, "ENOSPC",
	  P({ SHM, { ENOSPC, ENOMEM, NOERR }, 60, 0, "/dev/shm (a tmpfs) has no room for NCCL's segment (ENOSPC, or SIGBUS/ENOMEM at first touch)" }) },
	[CAUSE_FD_IMPORT_DENIED] = { "fd_import_denied", ENV, fixes_fd_import_denied, FAIL, "EPERM",
	  P({ FDIMP, { PRIOR_ANY_ERRNO }, 60, 0, "pidfd_getfd was refused: ptrace access to the peer process (EPERM)" }) },
	[CAUSE_GPU_BAR1_EXHAUSTED] = { "gpu_bar1_exhausted", ENV, fixes_gpu_bar1_exhausted, REG,
				       "the exporter's or peer client's (ENOMEM, EFAULT)",
	  P({ REGMR, { ENOMEM, NOERR }, 9, PRIOR_IF_GDR, "GPU memory registered while the GPU's BAR1 is full (ENOMEM)" }) },
	[CAUSE_GID_UNREACHABLE] = { "gid_unreachable", IB, fixes_gid_unreachable, FAIL,
				    "ENETUNREACH, EHOSTUNREACH, ETIMEDOUT, ENODEV",
	  P(/* on RoCE the address is resolved at RTR (ib_resolve_eth_dmac): no
	     * route is ENETUNREACH/EHOSTUNREACH, no neighbour within 1 s
	     * ETIMEDOUT ("Call to ibv_modify_qp failed with 110 Connection
	     * timed out"), the source GID's netdev gone or in another
	     * namespace ENODEV */
	  { ADDR, { ETIMEDOUT }, 60, 0, "no neighbour answered for the peer GID's address within 1 s (ETIMEDOUT): a peer down, an address nobody owns, a cross-rail address, the source GID's netdev in another namespace" },
	  { ADDR, { ENETUNREACH }, 50, 0, "no route from the source GID's netdev to the peer's address (ENETUNREACH)" },
	  { ADDR, { EHOSTUNREACH }, 55, 0, "the route to the peer's address is unreachable (EHOSTUNREACH)" },
	  { ADDR, { ENODEV }, 50, 0, "the source GID's netdev is gone, or lives in another network namespace (ENODEV)" },
	  { ADDR, { EINVAL }, 6, 0, "source and remote GID of different address families (EINVAL)" },
	  /* below the index and the port: resolution refuses with an errno of
	   * its own (above), which a line without one did not see */
	  { ADDR, { NOERR }, 15, 0, "RoCE: the peer's GID resolved to no route or no neighbour" }) },
	[CAUSE_DMABUF_RANGE] = { "dmabuf_range", ENV, fixes_dmabuf_range, REG, "EINVAL" },
	[CAUSE_REG_RETRY] = { "reg_retry", IB, fixes_reg_retry, REG, "EAGAIN" },
	[CAUSE_DEVICE_FATAL] = { "device_fatal", IB, fixes_device_fatal, REG, "EIO" },
	[CAUSE_PIN_FSDAX] = { "pin_fsdax", ENV, fixes_pin_fsdax, REG, "EOPNOTSUPP",
	  P(/* a plain MR's EOPNOTSUPP is the long-term pin of fs-dax memory
	     * (the kernel's only one); a dma-buf MR's is dma-buf's */
	  { REGMR, { EOPNOTSUPP, ENOTSUP }, 45, PRIOR_IF_NOT_DMABUF, FSDAX_WHY },
	  { REGMR, { NOERR }, 3, PRIOR_IF_NOT_DMABUF, FSDAX_WHY }) },
	/* no kernel refusal: a log's lead only (docs/json.md's inferred_failure) */
	[CAUSE_FABRIC_RETRY] = { "fabric_retry", NONE, NULL, 0, "none" },
	[CAUSE_FLUSHED_AFTER_ERROR] = { "flushed_after_error", NONE, NULL, 0, "none" },
	[CAUSE_PROTECTION_ERROR] = { "protection_error", NONE, NULL, 0, "none" },
	[CAUSE_COMPLETION_ERROR] = { "completion_error", NONE, NULL, 0, "none" },
	[CAUSE_PORT_EVENT] = { "port_event", NONE, NULL, 0, "none" },
	[CAUSE_GID_CHANGE] = { "gid_change", NONE, NULL, 0, "none" },
	[CAUSE_GDR_DISABLED] = { "gdr_disabled", NONE, NULL, 0, "none" },
	[CAUSE_GID_TYPE_UNREADABLE] = { "gid_type_unreadable", NONE, NULL, 0, "none" },
	[CAUSE_CUDA_ERROR] = { "cuda_error", NONE, NULL, 0, "none" },
};

const struct cause_row *cause_row(enum cause c)
{
	return (c >= 0 && c < CAUSE__ALL) ? &rows[c] : &rows[CAUSE_UNKNOWN];
}

/* A cause's name is its row's (causes.c; the no-refusal ones too);
 * "unknown" out of range. */
const char *cause_name(enum cause c)
{
	return cause_row(c)->name;
}

enum cause cause_from_name(const char *name)
{
	for (int i = 0; name && i < CAUSE__COUNT; i++)
		if (!strcmp(cause_row((enum cause)i)->name, name))
			return (enum cause)i;
	return CAUSE__COUNT;
}

enum cause cause_from_any_name(const char *name)
{
	for (int i = 0; name && i < CAUSE__ALL; i++)
		if (!strcmp(rows[i].name, name))
			return (enum cause)i;
	return CAUSE__ALL;
}
