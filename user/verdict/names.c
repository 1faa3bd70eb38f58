// SPDX-License-Identifier: GPL-2.0-only
/* names.c - the stable names mrtrace prints and writes: causes (their rows
 * in causes.c, docs/causes.md),
 * sites, errnos, IB access bits, mlx5 command statuses, libibverbs calls,
 * mrtrace's syscall numbers.  A table read both ways is one table: the
 * *_from_name functions below read the same ones (record/ reads the JSON
 * back through them). */
#include "verdict/names.h"
#include "core/ops.h"
#include "verdict/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A refusal record's op is one of core/ops.h's (the same numbers); the
 * ones a record says by its kind are not a record's op. */
const char *op_name(unsigned int op)
{
	return op < MRT_OP_MAX ? rdma_op_name((enum rdma_op)op) : NULL;
}

const char *site_name(unsigned int site)
{
	static const char *const names[MRT_SITE_MAX] = {
		[MRT_SITE_NONE] = "none",
		[MRT_SITE_UVERBS_REG_MR] = "ib_uverbs_reg_mr",
		[MRT_SITE_UVERBS_REG_DMABUF] = "uverbs_reg_dmabuf_mr",
		[MRT_SITE_UVERBS_REREG_MR] = "ib_uverbs_rereg_mr",
		[MRT_SITE_DRIVER_REG] = "driver_reg_user_mr",
		[MRT_SITE_UMEM_GET] = "ib_umem_get",
		[MRT_SITE_CAP_IPC_LOCK] = "capable(CAP_IPC_LOCK)",
		[MRT_SITE_PIN] = "pin_user_pages",
		[MRT_SITE_SG_ALLOC] = "sg_alloc_append_table_from_pages",
		[MRT_SITE_DMA_MAP] = "dma_map_sgtable",
		[MRT_SITE_IOVA_ALLOC] = "alloc_iova_fast",
		[MRT_SITE_DMABUF_GET] = "ib_umem_dmabuf_get",
		[MRT_SITE_DMABUF_ATTACH] = "dma_buf_dynamic_attach",
		[MRT_SITE_DMABUF_PIN] = "dma_buf_pin",
		[MRT_SITE_DMABUF_MAP] = "dma_buf_map_attachment",
		[MRT_SITE_MLX5_REG] = "mlx5_reg_create",
		[MRT_SITE_MLX5_CMD] = "mlx5_cmd_exec",
		[MRT_SITE_PEER_GET] = "ib_peer_umem_get",
		[MRT_SITE_RDMACG_CHARGE] = "ib_rdmacg_try_charge",
		[MRT_SITE_MIGRATE] = "migrate_pages",
		[MRT_SITE_UOBJ_ALLOC] = "rdma_alloc_begin_uobject",
		[MRT_SITE_UVERBS_CMD] = "uverbs_command",
		[MRT_SITE_UVERBS_METHOD] = "uverbs_ioctl_method",
		[MRT_SITE_SHM_FALLOCATE] = "shmem_fallocate",
		[MRT_SITE_PIDFD_GETFD] = "pidfd_getfd",
		[MRT_SITE_OPEN_DEVICE] = "ibv_open_device",
		[MRT_SITE_ADDR_RESOLVE] = "rdma_addr_find_l2_eth_by_grh",
	};
	return site < MRT_SITE_MAX && names[site] ? names[site] : "?";
}

/* errno values and their names, both ways: the Linux errnos mrtrace meets
 * on the registration path and beyond, and the kernel-internal ENOTSUPP */
static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ 0, "OK" },
	{ EPERM, "EPERM" },
	{ ENOENT, "ENOENT" },
	{ EIO, "EIO" },
	{ EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" },
	{ ENODEV, "ENODEV" },
	{ EINVAL, "EINVAL" },
	{ ENOSPC, "ENOSPC" },
	{ ENODATA, "ENODATA" },
	{ ENETUNREACH, "ENETUNREACH" },
	{ EHOSTUNREACH, "EHOSTUNREACH" },
	{ ENETDOWN, "ENETDOWN" },
	{ EADDRNOTAVAIL, "EADDRNOTAVAIL" },
	{ ESRCH, "ESRCH" },
	{ ERANGE, "ERANGE" },
	{ ENOSYS, "ENOSYS" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
	{ EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ ETIMEDOUT, "ETIMEDOUT" },
	{ EREMOTEIO, "EREMOTEIO" },
	{ ECANCELED, "ECANCELED" }, /* a DEVX command the device did not finish (UCX's mlx5dv_devx_obj_create) */
	{ ENXIO, "ENXIO" },
	{ 524, "ENOTSUPP" }, /* kernel-internal, returned by some dma-buf exporters */
	{ EOVERFLOW, "EOVERFLOW" },
};
#define NERRNO (sizeof(errno_names) / sizeof(errno_names[0]))

const char *errno_name(int err)
{
	for (size_t i = 0; i < NERRNO; i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return "E?";
}

int errno_from_name(const char *name)
{
	for (size_t i = 0; name && i < NERRNO; i++)
		if (!strcmp(errno_names[i].name, name))
			return errno_names[i].err;
	return -1;
}

const char *access_names(uint32_t access, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ IB_LOCAL_WRITE, "LOCAL_WRITE" },	 { IB_REMOTE_WRITE, "REMOTE_WRITE" },
		{ IB_REMOTE_READ, "REMOTE_READ" },	 { IB_REMOTE_ATOMIC, "REMOTE_ATOMIC" },
		{ IB_MW_BIND, "MW_BIND" },		 { IB_ZERO_BASED, "ZERO_BASED" },
		{ IB_ON_DEMAND, "ON_DEMAND" },		 { IB_HUGETLB, "HUGETLB" },
		{ IB_RELAXED_ORDERING, "RELAXED_ORDERING" },
	};
	size_t off = 0;
	uint32_t rest = access;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (!(access & bits[i].bit))
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? "|" : "",
				bits[i].name);
		rest &= ~bits[i].bit;
	}
	if (rest || !access)
		snprintf(buf + off, off < len ? len - off : 0, "%s0x%x", off ? "|" : "", rest);
	return buf;
}

const char *mlx5_status_name(unsigned int status)
{
	/* MLX5_CMD_STAT_* (include/linux/mlx5/device.h) */
	switch (status) {
	case 0x0: return "OK";
	case 0x1: return "INT_ERR";
	case 0x2: return "BAD_OP_ERR";
	case 0x3: return "BAD_PARAM_ERR";
	case 0x4: return "BAD_SYS_STATE_ERR";
	case 0x5: return "BAD_RES_ERR";
	case 0x6: return "RES_BUSY";
	case 0x8: return "LIM_ERR";
	case 0x9: return "BAD_RES_STATE_ERR";
	case 0xa: return "IX_ERR";
	case 0xf: return "NO_RES_ERR";
	case 0x10: return "BAD_INP_LEN_ERR";
	case 0x11: return "BAD_OUTP_LEN_ERR";
	case 0x40: return "BAD_QP_STATE_ERR";
	case 0x41: return "BAD_PKT_ERR";
	case 0x42: return "BAD_SIZE_OUTS_CQES_ERR";
	default: return "?";
	}
}

static const char *const api_names[MRT_API_MAX] = {
	[MRT_API_REG_MR] = "ibv_reg_mr",
	[MRT_API_REG_MR_IOVA] = "ibv_reg_mr_iova",
	[MRT_API_REG_MR_IOVA2] = "ibv_reg_mr_iova2",
	[MRT_API_REG_DMABUF_MR] = "ibv_reg_dmabuf_mr",
};

const char *api_name(unsigned int api)
{
	return api < MRT_API_MAX && api_names[api] ? api_names[api] : "?";
}

int api_from_name(const char *name)
{
	for (int a = MRT_API_NONE + 1; name && a < MRT_API_MAX; a++)
		if (!strcmp(api_names[a], name))
			return a;
	return -1;
}

static const char *const syscall_names[] = {
	[MRT_SYS_MLOCK] = "mlock",
	[MRT_SYS_MLOCK2] = "mlock2",
	[MRT_SYS_MLOCKALL] = "mlockall",
	[MRT_SYS_SETRLIMIT] = "setrlimit",
	[MRT_SYS_PRLIMIT64] = "prlimit64",
};

const char *syscall_name(unsigned int sysno)
{
	return sysno < sizeof(syscall_names) / sizeof(syscall_names[0]) ? syscall_names[sysno] : NULL;
}
