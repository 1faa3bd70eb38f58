// SPDX-License-Identifier: GPL-2.0-only
/* fixes.c - which generator writes a cause's fixes (see fixes.h), and the
 * input a verdict gives them.  The generators live in fixes_memlock.c,
 * fixes_registration.c, fixes_gpu.c and fixes_failure.c. */
#include "verdict/fixes.h"
#include "verdict/fix_generators.h"

#include <errno.h>
#include <string.h>

/* One row per cause; NULL: the cause comes with no fix (unknown is not
 * guessed at; no_device_access is check's, never a verdict's). */
static const fix_generator generators[CAUSE__COUNT] = {
	[CAUSE_UNKNOWN] = NULL,
	[CAUSE_MEMLOCK_LIMIT] = fixes_memlock,
	[CAUSE_MEMLOCK_ZERO] = fixes_memlock,
	[CAUSE_PIN_DEVICE_MEMORY] = fixes_pin_device_memory,
	[CAUSE_PIN_HUGETLB] = fixes_pin_hugetlb,
	[CAUSE_PIN_MIGRATE] = fixes_pin_migrate,
	[CAUSE_PIN_FAULT] = fixes_pin_fault,
	[CAUSE_DMA_MAP_IOVA] = fixes_dma_map_iova,
	[CAUSE_DMABUF_UNSUPPORTED] = fixes_dmabuf_unsupported,
	[CAUSE_DMABUF_BAD_FD] = fixes_dmabuf_bad_fd,
	[CAUSE_DMABUF_ATTACH] = fixes_dmabuf_attach,
	[CAUSE_MLX5_FIRMWARE] = fixes_mlx5_firmware,
	[CAUSE_BAD_ACCESS_FLAGS] = fixes_bad_access_flags,
	[CAUSE_IOVA_MISALIGNED] = fixes_iova_misaligned,
	[CAUSE_RDMA_CGROUP_LIMIT] = fixes_rdma_cgroup_limit,
	[CAUSE_NO_DEVICE_ACCESS] = NULL,
	[CAUSE_DEVICE_MISSING] = fixes_device_missing,
	[CAUSE_DEVICE_PERMISSION] = fixes_device_permission,
	[CAUSE_DEVICE_CGROUP] = fixes_device_cgroup,
	[CAUSE_HCA_RESOURCE_LIMIT] = fixes_hca_resource_limit,
	[CAUSE_PORT_NOT_ACTIVE] = fixes_port_not_active,
	[CAUSE_BAD_GID_INDEX] = fixes_bad_gid_index,
	[CAUSE_BAD_PKEY_INDEX] = fixes_bad_pkey_index,
	[CAUSE_QP_ATTR_INVALID] = fixes_qp_attr_invalid,
	[CAUSE_SHM_EXHAUSTED] = fixes_shm_exhausted,
	[CAUSE_FD_IMPORT_DENIED] = fixes_fd_import_denied,
	[CAUSE_GPU_BAR1_EXHAUSTED] = fixes_gpu_bar1_exhausted,
	[CAUSE_GID_UNREACHABLE] = fixes_gid_unreachable,
	[CAUSE_DMABUF_RANGE] = fixes_dmabuf_range,
	[CAUSE_REG_RETRY] = fixes_reg_retry,
	[CAUSE_DEVICE_FATAL] = fixes_device_fatal,
	[CAUSE_PIN_FSDAX] = fixes_pin_fsdax,
};

int fixes_for(const struct fix_input *in, struct fix_list *out)
{
	memset(out, 0, sizeof(*out));
	if (!in || in->cause < 0 || in->cause >= CAUSE__COUNT)
		return -EINVAL;
	if (!generators[in->cause])
		return -ENOENT;
	generators[in->cause](in, out);
	return out->n;
}

void fixes_for_verdict(const struct mrt_event *ev, const struct proc_context *ctx,
		       const struct nccl_info *nccl, const struct gate_facts *gates,
		       struct verdict *v)
{
	struct fix_input in = {
		.cause = v->cause,
		.ctx = ctx,
		.nccl = nccl,
		.ev = ev,
		.gates = gates,
		.v = v,
	};

	if (v->has_memlock) {
		in.have_limit = true;
		in.limit_bytes = v->limit_bytes;
		/* A registration's "already pinned" is the pinned_vm every MR adds
		 * to (the kernel's number, or VmPin for a library call); mlock's is
		 * VmLck, and a CQ/QP buffer (MRT_EV_FAILURE) is advised on its
		 * request alone. */
		in.have_pinned = ev && (ev->kind == MRT_EV_REG_FAILURE || ev->kind == MRT_EV_USER_CALL);
		in.pinned_before = v->pinned_before_bytes;
		in.have_request = v->request_bytes > 0;
		in.request_bytes = v->request_bytes;
	}
	/* a cause without a generator leaves the list empty */
	fixes_for(&in, &v->fixes);
}

const char *fix_kind_name(enum fix_kind k)
{
	switch (k) {
	case FIX_PRIMARY: return "primary";
	case FIX_ALTERNATIVE: return "alternative";
	case FIX_STOPGAP: return "stopgap";
	case FIX_NOTE: return "note";
	}
	return "note";
}
