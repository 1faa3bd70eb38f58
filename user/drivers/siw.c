// SPDX-License-Identifier: GPL-2.0-only
/* siw.c - soft-iWARP (siw): iWARP over TCP sockets.  Debian's kernels do
 * not build it (CONFIG_RDMA_SIW), so its site is proven by nothing here but
 * the unit tests; no dma-buf MRs. */
#include "drivers/driver.h"

static const struct tracer_site_def sites[] = {
	DRIVER_REG_SITE("siw_reg", siw_reg_user_mr, "soft-iWARP driver result"),
};

const struct rdma_driver rdma_driver_siw = {
	.name = "siw",
	.device = "soft-iWARP over TCP (rdma link add NAME type siw netdev DEV)",
	.modules = { "siw" },
	.soft_prefix = "siw",
	.provider = "libsiw",
	.sites = sites,
	.nsites = sizeof(sites) / sizeof(sites[0]),
};
