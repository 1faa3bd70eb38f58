// SPDX-License-Identifier: GPL-2.0-only
/* efa.c - AWS Elastic Fabric Adapter (SRD, not RoCE).  Its reg_user_mr is
 * efa_reg_mr, its dma-buf MRs' efa_reg_user_mr_dmabuf.  Debian's
 * kernels do not build it (CONFIG_INFINIBAND_EFA): proven here by the unit
 * tests only. */
#include "drivers/driver.h"

static const struct tracer_site_def sites[] = {
	DRIVER_REG_SITE("efa_reg", efa_reg_mr, "efa driver result"),
	DRIVER_REG_SITE("efa_dmabuf_reg", efa_reg_user_mr_dmabuf, "efa dma-buf MR result"),
};

const struct rdma_driver rdma_driver_efa = {
	.name = "efa",
	.device = "AWS Elastic Fabric Adapter",
	.modules = { "efa" },
	.bound = { "efa" },
	.provider = "libefa",
	.dmabuf = true,
	.sites = sites,
	.nsites = sizeof(sites) / sizeof(sites[0]),
};
