// SPDX-License-Identifier: GPL-2.0-only
/* driver.bpf.c - the driver's part of a registration: the drivers'
 * reg_user_mr and reg_user_mr_dmabuf (one DRIVER_REG_PROGS line a site of
 * the drivers' tables, user/drivers/) and, for mlx5, the MR creation and
 * the firmware command below it, and MLNX_OFED's peer-memory lookup.  Nested
 * sites: they add steps to the trail a uverbs or umem site opened
 * (trail.bpf.h, the map shared between the units).
 *
 * mlx5_ib_reg_user_mr -> create_real_mr -> reg_create / the mkey cache ->
 * mlx5_core_create_mkey -> mlx5_cmd_exec.  The firmware's verdict is in the
 * command's output mailbox: status (out[0]) and syndrome (be32 at out[4]);
 * the opcode is be16 at in[0].  Only failed commands join the trail: a
 * registration issues several successful commands. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* ---- driver reg_user_mr(pd, start, length, iova, access, udata) ----------
 * Same signature for every driver (ib_device_ops.reg_user_mr); 6.17 put a
 * struct ib_dmah * before udata, so the return value is not in a fixed
 * slot (fexit_ret). */
static __always_inline void driver_exit(__u64 start, __u64 len, __u64 iova, const void *mr)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		step_add(c, MRT_SITE_DRIVER_REG, (int)ptr_ret(mr), start, len, iova);
}

/* The kretprobe flavour has no entry program: a driver's (start, length,
 * iova) are the command's, read where the trail opened (the REG_MR command
 * or the dma-buf MR's attributes), so a successful registration pays one
 * program run here, not two.  Where the command was not read (its bundle
 * untyped), ib_umem_get's entry, which runs inside the driver, gave the
 * range; the iova is then unknown (0). */
static __always_inline void driver_ret(const void *mr)
{
	struct mrt_ctx *c = ctx_get();
	const struct mrt_event *ev;

	if (!c)
		return;
	ev = &c->ev;
	if (ev->cmd_valid == MRT_CMD_REG_MR || ev->cmd_valid == MRT_CMD_DMABUF)
		step_add(c, MRT_SITE_DRIVER_REG, (int)ptr_ret(mr), ev->cmd_start, ev->cmd_length,
			 ev->cmd_iova);
	else
		step_add(c, MRT_SITE_DRIVER_REG, (int)ptr_ret(mr), ev->ml.valid ? ev->ml.addr : 0,
			 ev->ml.valid ? ev->ml.len : 0, 0);
}

/* The programs of a driver's site (its table, user/drivers/, names them
 * fexit_<site> and kretprobe_<site>): the fexit is aimed at the site's
 * function when the plan arms it (regload.c), so the SEC's function is
 * only the first guess.  nargs: the arguments before the one 6.17 added (a
 * struct ib_dmah *), so fexit_ret finds the return value on every kernel:
 * 6 for reg_user_mr, 7 for a dma-buf MR's (pd, offset, length, virt_addr,
 * fd, access_flags, attrs). */
#define DRIVER_FEXIT_KRET(site, fn, nargs)                                         \
	SEC("fexit/" #fn)                                                          \
	int BPF_PROG(fexit_##site, void *pd, u64 start, u64 len, u64 iova)         \
	{                                                                          \
		driver_exit(start, len, iova, (void *)fexit_ret(ctx, nargs));      \
		return 0;                                                          \
	}                                                                          \
	SEC("kretprobe/" #fn)                                                      \
	int BPF_KRETPROBE(kretprobe_##site, void *mr)                              \
	{                                                                          \
		driver_ret(mr);                                                    \
		return 0;                                                          \
	}
#define DRIVER_REG_PROGS(site, fn) DRIVER_FEXIT_KRET(site, fn, 6)
#define DRIVER_DMABUF_PROGS(site, fn) DRIVER_FEXIT_KRET(site, fn, 7)

/* one line a site of each driver's table (tests/unit/test_drivers.c checks
 * that every site of every table has its programs here) */
DRIVER_REG_PROGS(rxe_reg, rxe_reg_user_mr)
DRIVER_REG_PROGS(siw_reg, siw_reg_user_mr)
DRIVER_REG_PROGS(mlx5_reg, mlx5_ib_reg_user_mr)
DRIVER_DMABUF_PROGS(mlx5_dmabuf_reg, mlx5_ib_reg_user_mr_dmabuf)
DRIVER_REG_PROGS(irdma_reg, irdma_reg_user_mr)
DRIVER_DMABUF_PROGS(irdma_dmabuf_reg, irdma_reg_user_mr_dmabuf)
DRIVER_REG_PROGS(bnxt_re_reg, bnxt_re_reg_user_mr)
DRIVER_DMABUF_PROGS(bnxt_re_dmabuf_reg, bnxt_re_reg_user_mr_dmabuf)
DRIVER_REG_PROGS(efa_reg, efa_reg_mr)
DRIVER_DMABUF_PROGS(efa_dmabuf_reg, efa_reg_user_mr_dmabuf)

static __always_inline void mlx5_cmd_result(const void *in, const void *out, int ret)
{
	struct mrt_ctx *c;
	__u8 o[8] = {}, i[2] = {};

	if (!ret)
		return;
	c = ctx_get();
	if (!c)
		return;
	bpf_probe_read_kernel(i, sizeof(i), in);
	bpf_probe_read_kernel(o, sizeof(o), out);
	step_add(c, MRT_SITE_MLX5_CMD, ret, ((__u64)i[0] << 8) | i[1], o[0],
		 ((__u64)o[4] << 24) | ((__u64)o[5] << 16) | ((__u64)o[6] << 8) | o[7]);
}

SEC("fexit/mlx5_cmd_exec")
int BPF_PROG(fexit_mlx5_cmd, void *dev, void *in, int in_size, void *out, int out_size, int ret)
{
	mlx5_cmd_result(in, out, ret);
	return 0;
}

SEC("kprobe/mlx5_cmd_exec")
int BPF_KPROBE(kprobe_mlx5_cmd, void *dev, void *in, int in_size, void *out)
{
	struct mrt_ctx *c = ctx_get();

	if (c) {
		c->pend[MRT_PEND_MLX5_CMD][0] = (__u64)in;
		c->pend[MRT_PEND_MLX5_CMD][1] = (__u64)out;
	}
	return 0;
}

SEC("kretprobe/mlx5_cmd_exec")
int BPF_KRETPROBE(kretprobe_mlx5_cmd, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		mlx5_cmd_result((void *)c->pend[MRT_PEND_MLX5_CMD][0],
				(void *)c->pend[MRT_PEND_MLX5_CMD][1], ret);
	return 0;
}

/* reg_create(pd, umem, iova, access_flags, page_size, populate, access_mode)
 * in 6.1 and 6.12; only its result is used, so a kretprobe serves any
 * signature. */
static __always_inline void mlx5_reg_result(const void *mr)
{
	long r = ptr_ret(mr);
	struct mrt_ctx *c;

	if (!r)
		return;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_MLX5_REG, (int)r, 0, 0, 0);
}

SEC("kretprobe/reg_create")
int BPF_KRETPROBE(kretprobe_mlx5_reg_create, void *mr)
{
	mlx5_reg_result(mr);
	return 0;
}

SEC("kretprobe/create_real_mr")
int BPF_KRETPROBE(kretprobe_mlx5_create_real_mr, void *mr)
{
	mlx5_reg_result(mr);
	return 0;
}

/* MLNX_OFED's peer-memory path: mlx5 calls ib_umem_get_peer -> __ib_umem_get
 * and ib_peer_umem_get asks the peer clients (nvidia-peermem).  Out-of-tree
 * modules rarely carry BTF: kprobes only; armed when the symbols exist. */
SEC("kretprobe/ib_peer_umem_get")
int BPF_KRETPROBE(kretprobe_peer_get, void *umem)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		step_add(c, MRT_SITE_PEER_GET, (int)ptr_ret(umem), 0, 0, 0);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_driver)
