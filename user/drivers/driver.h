/* SPDX-License-Identifier: GPL-2.0-only */
/* driver.h - what mrtrace knows of one RDMA driver, as data: one table per
 * driver (rxe.c, mlx5.c, irdma.c, ...), listed in drivers.c.  Adding a
 * driver is its table, its two lines of programs in bpf/regpath/driver.bpf.c
 * (DRIVER_REG_PROGS) and its tests (tests/unit/test_drivers.c checks every
 * table against the BPF object and the others; tests/vm/cases/drivers.sh
 * attaches its sites on every kernel whose Debian build has the module).
 *
 * Who reads it: the site table (its sites, in the report after the pinning
 * entry's), the module watcher (its modules), check and the GPU facts (a
 * device's driver, whether it has dma-buf MRs), the user-stack attribution
 * (its rdma-core provider is plumbing, never "the caller"). */
#ifndef MRTRACE_DRIVERS_DRIVER_H
#define MRTRACE_DRIVERS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer/site_def.h"

#define RDMA_DRIVER_NAMES 4

struct rdma_driver {
	const char *name;   /* "mlx5": the family, as check and reports say it */
	const char *device; /* "NVIDIA ConnectX-4 and later, BlueField" */
	/* the modules its sites' functions live in (the re-plan watches them):
	 * the verbs driver first */
	const char *modules[RDMA_DRIVER_NAMES];
	/* what a device's sysfs `device/driver` link names: the PCI driver of
	 * the function the RDMA device sits on (irdma sits on ice or i40e) */
	const char *bound[RDMA_DRIVER_NAMES];
	/* a software device (no PCI parent) is told by this prefix of its name
	 * or its node_desc; NULL for hardware */
	const char *soft_prefix;
	/* rdma-core's provider library basename prefix ("libmlx5"): plumbing
	 * between the caller and the kernel in a user stack */
	const char *provider;
	/* GPU memory: whether the driver implements reg_user_mr_dmabuf in
	 * current kernels (an older kernel may lack it: its dma-buf site is
	 * then not in this kernel) */
	bool dmabuf;
	/* its sites (tracer/sites.h), in report order; programs by
	 * DRIVER_REG_SITE's naming: fexit_<site>, kretprobe_<site> */
	const struct tracer_site_def *sites;
	int nsites;
};

/* Every driver mrtrace knows, in report order. */
extern const struct rdma_driver *const rdma_drivers[];
extern const int rdma_n_drivers;

/* The driver of an RDMA device whose `device/driver` link names `driver`
 * ("mlx5_core"), or that a software device was given (its verbs module,
 * "rdma_rxe": rdma_driver_soft()), or NULL. */
const struct rdma_driver *rdma_driver_named(const char *driver);
/* The software driver of an RDMA device without a PCI parent, by its name
 * ("rxe0") or node_desc, or NULL. */
const struct rdma_driver *rdma_driver_soft(const char *ibdev, const char *node_desc);
/* Whether `module` holds a function some driver's site names. */
bool rdma_driver_module(const char *module);
/* Whether a library's basename is a driver's rdma-core provider. */
bool rdma_driver_provider(const char *basename);

/* A driver's reg_user_mr or reg_user_mr_dmabuf site: its result joins the
 * registration's trail (MRT_SITE_DRIVER_REG).  Module functions are armed
 * by kretprobe (a trampoline would hold the module); fexit where a kernel
 * has no kprobes. */
#define DRIVER_REG_SITE(id, fn, what)                                            \
	{ id, #fn, what, false, NULL, "fexit_" id, NULL, "kretprobe_" id }

#endif
