// SPDX-License-Identifier: GPL-2.0-only
/* drivers.c - the driver tables in report order, and the lookups the
 * readers share (driver.h). */
#include "drivers/driver.h"

#include <string.h>

extern const struct rdma_driver rdma_driver_rxe, rdma_driver_siw, rdma_driver_mlx5,
	rdma_driver_irdma, rdma_driver_bnxt_re, rdma_driver_efa;

const struct rdma_driver *const rdma_drivers[] = {
	&rdma_driver_rxe,   &rdma_driver_mlx5,	  &rdma_driver_irdma,
	&rdma_driver_bnxt_re, &rdma_driver_efa, &rdma_driver_siw,
};
const int rdma_n_drivers = sizeof(rdma_drivers) / sizeof(rdma_drivers[0]);

static bool in(const char *const *names, const char *name)
{
	for (int i = 0; i < RDMA_DRIVER_NAMES && names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

const struct rdma_driver *rdma_driver_named(const char *driver)
{
	for (int i = 0; driver && *driver && i < rdma_n_drivers; i++) {
		const struct rdma_driver *d = rdma_drivers[i];
		if (in(d->bound, driver) || (d->soft_prefix && !strcmp(d->modules[0], driver)))
			return d;
	}
	return NULL;
}

const struct rdma_driver *rdma_driver_soft(const char *ibdev, const char *node_desc)
{
	for (int i = 0; i < rdma_n_drivers; i++) {
		const char *p = rdma_drivers[i]->soft_prefix;
		if (p && ((ibdev && !strncmp(ibdev, p, strlen(p))) ||
			  (node_desc && !strncmp(node_desc, p, strlen(p)))))
			return rdma_drivers[i];
	}
	return NULL;
}

bool rdma_driver_module(const char *module)
{
	for (int i = 0; module && i < rdma_n_drivers; i++)
		if (in(rdma_drivers[i]->modules, module))
			return true;
	return false;
}

bool rdma_driver_provider(const char *basename)
{
	for (int i = 0; basename && i < rdma_n_drivers; i++) {
		const char *p = rdma_drivers[i]->provider;
		if (p && !strncmp(basename, p, strlen(p)))
			return true;
	}
	return false;
}
