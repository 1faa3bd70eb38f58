// SPDX-License-Identifier: GPL-2.0-only
/* mlx5.c - NVIDIA ConnectX-4 and later, BlueField (mlx5_ib over mlx5_core).
 * Besides the driver's reg_user_mr, the MR creation below it and the
 * firmware command (bpf/regpath/driver.bpf.c): mlx5_ib_reg_user_mr ->
 * create_real_mr -> reg_create / the mkey cache -> mlx5_cmd_exec, whose
 * mailbox says the firmware's status and syndrome (mlx5_firmware,
 * device_fatal).  dma-buf MRs since 5.12 (Debian's
 * 5.10 has none). */
#include "drivers/driver.h"

static const struct tracer_site_def sites[] = {
	DRIVER_REG_SITE("mlx5_reg", mlx5_ib_reg_user_mr, "mlx5 driver result"),
	DRIVER_REG_SITE("mlx5_dmabuf_reg", mlx5_ib_reg_user_mr_dmabuf, "mlx5 dma-buf MR result"),
	{ "mlx5_reg_create", "reg_create", "mlx5 mkey creation result", false, NULL, NULL, NULL,
	  "kretprobe_mlx5_reg_create",
	  .kernels = "5.10-6.12; 7.2 has none, create_real_mr covers it" },
	{ "mlx5_create_mr", "create_real_mr", "mlx5 MR creation result", false, NULL, NULL, NULL,
	  "kretprobe_mlx5_create_real_mr", .kernels = "6.1-7.2; 5.10 has none, reg_create covers it" },
	{ "mlx5_cmd", "mlx5_cmd_exec", "mlx5 firmware command opcode, status, syndrome", false,
	  NULL, "fexit_mlx5_cmd", "kprobe_mlx5_cmd", "kretprobe_mlx5_cmd" },
};

const struct rdma_driver rdma_driver_mlx5 = {
	.name = "mlx5",
	.device = "NVIDIA ConnectX-4 and later, BlueField",
	.modules = { "mlx5_ib", "mlx5_core" },
	.bound = { "mlx5_core" },
	.provider = "libmlx5",
	.dmabuf = true,
	.sites = sites,
	.nsites = sizeof(sites) / sizeof(sites[0]),
};
