// SPDX-License-Identifier: GPL-2.0-only
/* bnxt_re.c - Broadcom NetXtreme-E/C (bnxt_re over bnxt_en): RoCE v2.
 * dma-buf MRs by bnxt_re_reg_user_mr_dmabuf (in Debian's 6.12 and 7.2
 * builds; its 5.10 and 6.1 do not build the module). */
#include "drivers/driver.h"

static const struct tracer_site_def sites[] = {
	DRIVER_REG_SITE("bnxt_re_reg", bnxt_re_reg_user_mr, "bnxt_re driver result"),
	DRIVER_REG_SITE("bnxt_re_dmabuf_reg", bnxt_re_reg_user_mr_dmabuf,
			"bnxt_re dma-buf MR result"),
};

const struct rdma_driver rdma_driver_bnxt_re = {
	.name = "bnxt_re",
	.device = "Broadcom NetXtreme-E/C (BCM575xx, BCM576xx)",
	.modules = { "bnxt_re" },
	.bound = { "bnxt_en", "bnxt_re" },
	.provider = "libbnxt_re",
	.dmabuf = true,
	.sites = sites,
	.nsites = sizeof(sites) / sizeof(sites[0]),
};
