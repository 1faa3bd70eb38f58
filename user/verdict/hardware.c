// SPDX-License-Identifier: GPL-2.0-only
/* hardware.c - the causes past the kernel's memory checks: the IOMMU could
 * not map the pinned pages (dma_map_iova), or the mlx5 firmware refused the
 * memory-key command (mlx5_firmware). */
#include "verdict/hardware.h"
#include "verdict/names.h"

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

bool explain_mlx5_cmd(const struct mrt_event *ev, struct verdict *v)
{
	for (int i = 0; i < trail_nsteps(ev); i++) {
		const struct mrt_step *s = &ev->steps[i];
		if (s->site != MRT_SITE_MLX5_CMD || (s->a1 == 0 && s->ret >= 0))
			continue;
		v->cause = CAUSE_MLX5_FIRMWARE;
		v->decisive_step = i;
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
