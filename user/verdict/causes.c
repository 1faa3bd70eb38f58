// SPDX-License-Identifier: GPL-2.0-only
/* causes.c - one row per cause (causes.h), in enum order.  The fix
 * generators live in fixes_memlock.c, fixes_registration.c, fixes_gpu.c and
 * fixes_failure.c (fix_generators.h); the explainers that decide each cause
 * in registration.c, memlock.c, user_call.c and failure.c. */
#include "verdict/causes.h"
#include "verdict/fix_generators.h"

#include <string.h>

#define REG EXPLAINER_REGISTRATION
#define MLOCK EXPLAINER_MLOCK
#define UCALL EXPLAINER_USER_CALL
#define FAIL EXPLAINER_FAILURE
#define ENV CLASS_ENVIRONMENT
#define IB CLASS_INFINIBAND

#define NONE CLASS_NO_REFUSAL

static const struct cause_row rows[CAUSE__ALL] = {
	[CAUSE_UNKNOWN] = { "unknown", ENV, NULL, REG | MLOCK | UCALL | FAIL, "any" },
	[CAUSE_MEMLOCK_LIMIT] = { "memlock_limit", ENV, fixes_memlock, REG | MLOCK | UCALL, "ENOMEM" },
	[CAUSE_MEMLOCK_ZERO] = { "memlock_zero", ENV, fixes_memlock, REG | MLOCK | UCALL, "EPERM" },
	[CAUSE_PIN_DEVICE_MEMORY] = { "pin_device_memory", ENV, fixes_pin_device_memory, REG | UCALL, "EFAULT" },
	[CAUSE_PIN_HUGETLB] = { "pin_hugetlb", ENV, fixes_pin_hugetlb, REG, "EFAULT" },
	[CAUSE_PIN_MIGRATE] = { "pin_migrate", ENV, fixes_pin_migrate, REG, "ENOMEM" },
	[CAUSE_PIN_FAULT] = { "pin_fault", ENV, fixes_pin_fault, REG | UCALL, "EFAULT" },
	[CAUSE_DMA_MAP_IOVA] = { "dma_map_iova", ENV, fixes_dma_map_iova, REG, "ENOMEM" },
	[CAUSE_DMABUF_UNSUPPORTED] = { "dmabuf_unsupported", ENV, fixes_dmabuf_unsupported, REG | UCALL,
				       "EOPNOTSUPP, EPROTONOSUPPORT" },
	[CAUSE_DMABUF_BAD_FD] = { "dmabuf_bad_fd", ENV, fixes_dmabuf_bad_fd, REG | UCALL, "EBADF" },
	[CAUSE_DMABUF_ATTACH] = { "dmabuf_attach", ENV, fixes_dmabuf_attach, REG, "exporter's errno" },
	[CAUSE_MLX5_FIRMWARE] = { "mlx5_firmware", IB, fixes_mlx5_firmware, REG,
				  "ENOMEM, EINVAL, EIO, EBUSY" },
	[CAUSE_BAD_ACCESS_FLAGS] = { "bad_access_flags", ENV, fixes_bad_access_flags, REG, "EINVAL" },
	[CAUSE_IOVA_MISALIGNED] = { "iova_misaligned", ENV, fixes_iova_misaligned, REG, "EINVAL" },
	[CAUSE_RDMA_CGROUP_LIMIT] = { "rdma_cgroup_limit", ENV, fixes_rdma_cgroup_limit, REG | FAIL, "EAGAIN" },
	/* check's, never a verdict's: no record proves it, no fix is written */
	[CAUSE_NO_DEVICE_ACCESS] = { "no_device_access", ENV, NULL, 0, "–" },
	[CAUSE_DEVICE_MISSING] = { "device_missing", ENV, fixes_device_missing, FAIL, "ENOENT, ENODEV" },
	[CAUSE_DEVICE_PERMISSION] = { "device_permission", ENV, fixes_device_permission, FAIL, "EACCES" },
	[CAUSE_DEVICE_CGROUP] = { "device_cgroup", ENV, fixes_device_cgroup, FAIL, "EPERM" },
	[CAUSE_HCA_RESOURCE_LIMIT] = { "hca_resource_limit", IB, fixes_hca_resource_limit, FAIL,
				       "EINVAL, ENOSPC" },
	[CAUSE_PORT_NOT_ACTIVE] = { "port_not_active", IB, fixes_port_not_active, FAIL, "ENETUNREACH" },
	[CAUSE_BAD_GID_INDEX] = { "bad_gid_index", IB, fixes_bad_gid_index, FAIL, "ENODATA" },
	[CAUSE_BAD_PKEY_INDEX] = { "bad_pkey_index", IB, fixes_bad_pkey_index, FAIL, "EINVAL" },
	[CAUSE_QP_ATTR_INVALID] = { "qp_attr_invalid", IB, fixes_qp_attr_invalid, FAIL, "EINVAL" },
	[CAUSE_SHM_EXHAUSTED] = { "shm_exhausted", ENV, fixes_shm_exhausted, FAIL, "ENOSPC" },
	[CAUSE_FD_IMPORT_DENIED] = { "fd_import_denied", ENV, fixes_fd_import_denied, FAIL, "EPERM" },
	[CAUSE_GPU_BAR1_EXHAUSTED] = { "gpu_bar1_exhausted", ENV, fixes_gpu_bar1_exhausted, REG,
				       "the exporter's or peer client's (ENOMEM, EFAULT)" },
	[CAUSE_GID_UNREACHABLE] = { "gid_unreachable", IB, fixes_gid_unreachable, FAIL,
				    "ENETUNREACH, EHOSTUNREACH, ETIMEDOUT, ENODEV" },
	[CAUSE_DMABUF_RANGE] = { "dmabuf_range", ENV, fixes_dmabuf_range, REG, "EINVAL" },
	[CAUSE_REG_RETRY] = { "reg_retry", IB, fixes_reg_retry, REG, "EAGAIN" },
	[CAUSE_DEVICE_FATAL] = { "device_fatal", IB, fixes_device_fatal, REG, "EIO" },
	[CAUSE_PIN_FSDAX] = { "pin_fsdax", ENV, fixes_pin_fsdax, REG, "EOPNOTSUPP" },
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
