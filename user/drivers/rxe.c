// SPDX-License-Identifier: GPL-2.0-only
/* rxe.c - soft-RoCE (rdma_rxe): RoCE v2 over any Ethernet netdev, the VM
 * test bed's device.  No dma-buf MRs: GPU memory cannot be registered. */
#include "drivers/driver.h"

static const struct tracer_site_def sites[] = {
	DRIVER_REG_SITE("rxe_reg", rxe_reg_user_mr, "soft-RoCE driver result"),
};

const struct rdma_driver rdma_driver_rxe = {
	.name = "rxe",
	.device = "soft-RoCE over an Ethernet netdev (rdma link add NAME type rxe netdev DEV)",
	.modules = { "rdma_rxe" },
	.soft_prefix = "rxe",
	.provider = "librxe",
	.sites = sites,
	.nsites = sizeof(sites) / sizeof(sites[0]),
};
