/* SPDX-License-Identifier: GPL-2.0-only */
/* hardware.h - inside verdict/: the registration causes past the kernel's
 * memory checks.  Each returns true when it decided v (cause, decisive
 * step, texts; not the fixes), false with v untouched. */
#ifndef MRTRACE_VERDICT_HARDWARE_H
#define MRTRACE_VERDICT_HARDWARE_H

#include <stdbool.h>

#include "verdict/verdict.h"

/* the IOMMU could not map the pinned pages (dma_map_iova) */
bool explain_dma_map(const struct mrt_event *ev, struct verdict *v);
/* the mlx5 firmware refused the memory-key command (mlx5_firmware) */
bool explain_mlx5_cmd(const struct mrt_event *ev, struct verdict *v);

#endif
