// SPDX-License-Identifier: GPL-2.0-only
/* irdma.c - Intel Ethernet 800 (E810, ice) and X722 (i40e): RoCE v2 and
 * iWARP.  irdma is an auxiliary driver of ice or i40e, so the RDMA device's
 * `device/driver` names those.  In the kernel since 5.14 (Debian's 5.10
 * has no irdma); dma-buf MRs (irdma_reg_user_mr_dmabuf) came later: Debian's
 * 6.1 build lacks them, its 6.12 has them. */
#include "drivers/driver.h"

static const struct tracer_site_def sites[] = {
	DRIVER_REG_SITE("irdma_reg", irdma_reg_user_mr, "irdma driver result"),
	DRIVER_REG_SITE("irdma_dmabuf_reg", irdma_reg_user_mr_dmabuf, "irdma dma-buf MR result"),
};

const struct rdma_driver rdma_driver_irdma = {
	.name = "irdma",
	.device = "Intel Ethernet 800 series (ice), X722 (i40e)",
	.modules = { "irdma" },
	.bound = { "ice", "i40e", "irdma" },
	.provider = "libirdma",
	.dmabuf = true,
	.sites = sites,
	.nsites = sizeof(sites) / sizeof(sites[0]),
};
