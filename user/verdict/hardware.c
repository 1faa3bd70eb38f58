// SPDX-License-Identifier: GPL-2.0-only
/* hardware.c - the causes past the kernel's memory checks: the IOMMU could
 * not map the pinned pages (dma_map_iova), or the mlx5 memory-key command
 * failed: the device is in its fatal state (device_fatal), the firmware had
 * no free resource and said "try again" (reg_retry), or it refused
 * (mlx5_firmware). */
#include "verdict/hardware.h"
#include "verdict/names.h"

#include <errno.h>
#include <stdio.h>

bool explain_dma_map(const struct mrt_event *ev, struct verdict *v)
{
	int i = -1;

	/* alloc_iova_fast fails routinely on its first, 32-bit-limited try
	 * (flush_rcache false) before the full-range retry: only a failure after
	 * flushing the caches means the space is exhausted. */
	for (int k = 0; k < trail_nsteps(ev); k++)
		if (ev->steps[k].site == MRT_SITE_IOVA_ALLOC && ev->steps[k].ret < 0 &&
		    ev->steps[k].a2) {
			i = k;
			break;
		}
	if (i < 0)
		i = trail_first_failed(ev, MRT_SITE_DMA_MAP);
	if (i < 0)
		return false;
	const struct mrt_step *s = &ev->steps[i];
	v->cause = CAUSE_DMA_MAP_IOVA;
	v->decisive_step = i;
	if (s->site == MRT_SITE_IOVA_ALLOC)
		verdict_say(v->summary,
		    "IOMMU IOVA space exhausted: alloc_iova_fast(%llu pages, limit pfn 0x%llx) "
		    "failed even after flushing its caches",
		    (unsigned long long)s->a0, (unsigned long long)s->a1);
	else
		verdict_say(v->summary, "DMA mapping of the MR's %llu scatterlist entries failed: %s",
		    (unsigned long long)s->a0, errno_name(-s->ret));
	verdict_say(v->explanation,
	    "The pages were pinned, but the IOMMU could not map them for the NIC: the device's "
	    "IOVA aperture (often 32-bit limited or fragmented) has no room for this MR.");
	return true;
}

/* What mlx5_internal_err_ret_value() writes into a command's output when
 * the device is in MLX5_DEVICE_STATE_INTERNAL_ERROR (or its PCI channel is
 * offline): the command never reached the firmware. */
#define MLX5_DRIVER_STATUS_ABORTED 0xfe
#define MLX5_DRIVER_SYND 0xbadd00deULL
/* MLX5_CMD_STAT_NO_RES_ERR, which cmd_status_to_err() makes -EAGAIN */
#define MLX5_STAT_NO_RES 0xf

static bool mlx5_cmd_device_fatal(const struct mrt_step *s)
{
	return s->a1 == MLX5_DRIVER_STATUS_ABORTED && s->a2 == MLX5_DRIVER_SYND;
}

static bool explain_device_fatal(const struct mrt_step *s, struct verdict *v)
{
	v->cause = CAUSE_DEVICE_FATAL;
	verdict_say(v->summary,
	    "the RDMA device is in its fatal error state: mlx5 did not post command 0x%llx to "
	    "the firmware (driver status 0x%x ABORTED, syndrome 0x%llx) and returned %s",
	    (unsigned long long)s->a0, MLX5_DRIVER_STATUS_ABORTED, MLX5_DRIVER_SYND,
	    errno_name(-s->ret));
	verdict_say(v->explanation,
	    "After a catastrophic error (a firmware assert, a PCI error; the async event "
	    "IB_EVENT_DEVICE_FATAL, \"local catastrophic error\") mlx5 puts the device in its "
	    "internal-error state and answers every command itself: creating an object fails "
	    "with status 0x%x and syndrome 0x%llx, never seen from firmware. Every QP and MR "
	    "on the device is gone; nothing registers again until the device is reset.",
	    MLX5_DRIVER_STATUS_ABORTED, MLX5_DRIVER_SYND);
	return true;
}

static bool explain_reg_retry(const struct mrt_step *s, struct verdict *v)
{
	v->cause = CAUSE_REG_RETRY;
	verdict_say(v->summary,
	    "the HCA had no free resource for the registration's command 0x%llx: firmware "
	    "status 0x%llx (NO_RES_ERR), syndrome 0x%llx; the kernel returned EAGAIN (try again)",
	    (unsigned long long)s->a0, (unsigned long long)s->a1, (unsigned long long)s->a2);
	verdict_say(v->explanation,
	    "The memory was pinned and the memory key was asked of the firmware, which answered "
	    "NO_RES_ERR; mlx5 maps that status to EAGAIN. Neither the kernel nor libibverbs "
	    "retries: the MR cache and the pinning path retry their own EAGAINs internally "
	    "(the cache refill, page migration for a long-term pin), so an EAGAIN that reaches "
	    "ibv_reg_mr is this answer or the rdma cgroup's.");
	return true;
}

bool explain_mlx5_cmd(const struct mrt_event *ev, struct verdict *v)
{
	for (int i = 0; i < trail_nsteps(ev); i++) {
		const struct mrt_step *s = &ev->steps[i];
		if (s->site != MRT_SITE_MLX5_CMD || (s->a1 == 0 && s->ret >= 0))
			continue;
		v->decisive_step = i;
		if (mlx5_cmd_device_fatal(s))
			return explain_device_fatal(s, v);
		if (s->a1 == MLX5_STAT_NO_RES && s->ret == -EAGAIN)
			return explain_reg_retry(s, v);
		v->cause = CAUSE_MLX5_FIRMWARE;
		verdict_say(v->summary,
		    "mlx5 firmware refused command 0x%llx: status 0x%llx (%s), syndrome 0x%llx",
		    (unsigned long long)s->a0, (unsigned long long)s->a1, mlx5_status_name(s->a1),
		    (unsigned long long)s->a2);
		verdict_say(v->explanation,
		    "The kernel accepted the registration and pinned the memory, but the NIC's "
		    "firmware rejected the memory-key command; %s maps to errno %s.",
		    mlx5_status_name(s->a1), errno_name(-s->ret));
		return true;
	}
	return false;
}
