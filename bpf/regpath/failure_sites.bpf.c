// SPDX-License-Identifier: GPL-2.0-only
/* failure_sites.bpf.c - the sites that join a trail only when they fail
 * (rdma cgroup, uobject allocation, scatterlist, DMA mapping, IOVA, dma-buf),
 * fexit and kretprobe flavours: nested sites, adding steps to the trail a
 * uverbs or umem site opened (trail.bpf.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* ---- rdma cgroup and uobject allocation -------------------------------------
 * The rdma controller's hca_object limit fails the uobject allocation with
 * EAGAIN before the driver is called. */
SEC("fexit/ib_rdmacg_try_charge")
int BPF_PROG(fexit_rdmacg, void *cg_obj, void *device, int index, int ret)
{
	struct mrt_ctx *c;

	if (ret >= 0)
		return 0;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_RDMACG_CHARGE, ret, index, 0, 0);
	return 0;
}

SEC("fexit/rdma_alloc_begin_uobject")
int BPF_PROG(fexit_uobj_alloc, void *obj, void *attrs, void *ret)
{
	struct mrt_ctx *c = ctx_get();
	long r = ptr_ret(ret);

	if (c && r)
		step_add(c, MRT_SITE_UOBJ_ALLOC, (int)r, 0, 0, 0);
	return 0;
}

/* ---- sg table, DMA mapping, IOVA ----------------------------------------------
 * Only failures are recorded: successful maps carry no explanation. */
SEC("fexit/sg_alloc_append_table_from_pages")
int BPF_PROG(fexit_sg_alloc, void *sgt, void *pages, unsigned int n_pages, unsigned int offset,
	     unsigned long size, unsigned int max_segment, unsigned int left_pages, gfp_t gfp,
	     int ret)
{
	struct mrt_ctx *c;

	if (ret >= 0)
		return 0;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_SG_ALLOC, ret, n_pages, size, 0);
	return 0;
}

SEC("fexit/dma_map_sgtable")
int BPF_PROG(fexit_dma_map, void *dev, struct sg_table *sgt, int dir, unsigned long attrs, int ret)
{
	struct mrt_ctx *c;

	if (ret >= 0)
		return 0;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_DMA_MAP, ret, BPF_CORE_READ(sgt, orig_nents), 0, 0);
	return 0;
}

/* 5.10's ib_umem_get maps with ib_dma_map_sg_attrs -> dma_map_sg_attrs,
 * which returns the entries mapped: 0 is the failure (ib_umem_get then
 * returns ENOMEM). */
static __always_inline void dma_map_sg_result(int nents, int ret)
{
	struct mrt_ctx *c;

	if (ret > 0)
		return;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_DMA_MAP, ret < 0 ? ret : -12 /* ENOMEM */, nents, 0, 0);
}

SEC("fexit/dma_map_sg_attrs")
int BPF_PROG(fexit_dma_map_sg, void *dev, void *sg, int nents, int dir, unsigned long attrs,
	     int ret)
{
	dma_map_sg_result(nents, ret);
	return 0;
}

/* alloc_iova_fast returns 0 when no IOVA range fits; with flush_rcache true
 * that is the last attempt (the caches were flushed): the space is full. */
static __always_inline void iova_result(__u64 size, __u64 limit_pfn, __u64 flush, __u64 ret)
{
	struct mrt_ctx *c;

	if (ret)
		return;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_IOVA_ALLOC, -12 /* ENOMEM */, size, limit_pfn, flush);
}

SEC("fexit/alloc_iova_fast")
int BPF_PROG(fexit_iova, void *iovad, unsigned long size, unsigned long limit_pfn,
	     bool flush_rcache, unsigned long ret)
{
	iova_result(size, limit_pfn, flush_rcache, ret);
	return 0;
}

/* Hot on machines with a translating IOMMU (every DMA mapping): the entry
 * keeps the arguments only inside a registration. */
SEC("kprobe/alloc_iova_fast")
int BPF_KPROBE(kprobe_iova, void *iovad, unsigned long size, unsigned long limit_pfn,
	       bool flush_rcache)
{
	struct mrt_ctx *c = ctx_get();

	if (c) {
		c->pend[MRT_PEND_IOVA_ALLOC][0] = size;
		c->pend[MRT_PEND_IOVA_ALLOC][1] = limit_pfn;
		c->pend[MRT_PEND_IOVA_ALLOC][2] = flush_rcache;
	}
	return 0;
}

SEC("kretprobe/alloc_iova_fast")
int BPF_KRETPROBE(kretprobe_iova, unsigned long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		iova_result(c->pend[MRT_PEND_IOVA_ALLOC][0], c->pend[MRT_PEND_IOVA_ALLOC][1],
			    c->pend[MRT_PEND_IOVA_ALLOC][2], ret);
	return 0;
}

/* ---- dma-buf ----------------------------------------------------------------- */
SEC("fexit/ib_umem_dmabuf_get")
int BPF_PROG(fexit_umem_dmabuf, void *device, unsigned long offset, size_t size, int fd,
	     int access, void *ops, void *ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c)
		return 0;
	c->ev.dmabuf_fd = fd;
	step_add(c, MRT_SITE_DMABUF_GET, (int)ptr_ret(ret), offset, size, access);
	return 0;
}

SEC("fexit/dma_buf_dynamic_attach")
int BPF_PROG(fexit_dmabuf_attach, struct dma_buf *dmabuf, void *dev, void *importer_ops,
	     void *importer_priv, void *ret)
{
	struct mrt_ctx *c;
	long r = ptr_ret(ret);

	if (!r)
		return 0;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_DMABUF_ATTACH, (int)r, BPF_CORE_READ(dmabuf, size), 0, 0);
	return 0;
}

SEC("fexit/dma_buf_pin")
int BPF_PROG(fexit_dmabuf_pin, void *attach, int ret)
{
	struct mrt_ctx *c;

	if (!ret)
		return 0;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_DMABUF_PIN, ret, 0, 0, 0);
	return 0;
}

SEC("fexit/dma_buf_map_attachment")
int BPF_PROG(fexit_dmabuf_map, void *attach, int dir, void *ret)
{
	struct mrt_ctx *c;
	long r = ptr_ret(ret);

	if (!r)
		return 0;
	c = ctx_get();
	if (c)
		step_add(c, MRT_SITE_DMABUF_MAP, (int)r, 0, 0, 0);
	return 0;
}

/* ---- kretprobe flavours of the failure-only sites ---------------------------
 * Where trampolines are refused for a function (too many arguments on older
 * kernels, ftrace conflicts), the return value alone still tells that the
 * site failed; site-specific arguments are then recorded as 0. */
static __always_inline void ret_int_step(__u16 site, long ret)
{
	struct mrt_ctx *c;

	if (ret >= 0)
		return;
	c = ctx_get();
	if (c)
		step_add(c, site, (int)ret, 0, 0, 0);
}

/* One kretprobe that turns a negative int, or an ERR_PTR, into a step. */
#define MRT_KRET_INT(prog, func, site)                 \
	SEC("kretprobe/" #func)                        \
	int BPF_KRETPROBE(prog, int ret)               \
	{                                              \
		ret_int_step(site, ret);               \
		return 0;                              \
	}
#define MRT_KRET_PTR(prog, func, site)                 \
	SEC("kretprobe/" #func)                        \
	int BPF_KRETPROBE(prog, void *ret)             \
	{                                              \
		ret_int_step(site, ptr_ret(ret));      \
		return 0;                              \
	}

MRT_KRET_INT(kretprobe_rdmacg, ib_rdmacg_try_charge, MRT_SITE_RDMACG_CHARGE)
MRT_KRET_PTR(kretprobe_uobj_alloc, rdma_alloc_begin_uobject, MRT_SITE_UOBJ_ALLOC)
MRT_KRET_INT(kretprobe_sg_alloc, sg_alloc_append_table_from_pages, MRT_SITE_SG_ALLOC)
/* 5.10: __sg_alloc_table_from_pages returns the last entry, or an ERR_PTR. */
MRT_KRET_PTR(kretprobe_sg_alloc_ptr, __sg_alloc_table_from_pages, MRT_SITE_SG_ALLOC)
MRT_KRET_INT(kretprobe_dma_map, dma_map_sgtable, MRT_SITE_DMA_MAP)
MRT_KRET_PTR(kretprobe_dmabuf_attach, dma_buf_dynamic_attach, MRT_SITE_DMABUF_ATTACH)
MRT_KRET_INT(kretprobe_dmabuf_pin, dma_buf_pin, MRT_SITE_DMABUF_PIN)
MRT_KRET_PTR(kretprobe_dmabuf_map, dma_buf_map_attachment, MRT_SITE_DMABUF_MAP)

/* dma_map_sg_attrs returns the entries mapped: 0 is the failure. */
SEC("kretprobe/dma_map_sg_attrs")
int BPF_KRETPROBE(kretprobe_dma_map_sg, int ret)
{
	if (ret <= 0)
		ret_int_step(MRT_SITE_DMA_MAP, ret < 0 ? ret : -12 /* ENOMEM */);
	return 0;
}

/* the dma-buf umem step is recorded on success too (it names the fd); the
 * kprobe keeps the arguments for the return, as the fexit flavour reads
 * them: offset, size, and fd << 32 | access (flag bit 31 of the access: set) */
SEC("kprobe/ib_umem_dmabuf_get")
int BPF_KPROBE(kprobe_umem_dmabuf, void *device, unsigned long offset, size_t size, int fd,
	       int access)
{
	struct mrt_ctx *c = ctx_get();

	if (c) {
		c->pend[MRT_PEND_DMABUF_GET][0] = offset;
		c->pend[MRT_PEND_DMABUF_GET][1] = size;
		c->pend[MRT_PEND_DMABUF_GET][2] = (__u64)(__u32)fd << 32 | (__u32)access | 1ULL << 31;
	}
	return 0;
}

SEC("kretprobe/ib_umem_dmabuf_get")
int BPF_KRETPROBE(kretprobe_umem_dmabuf, void *ret)
{
	struct mrt_ctx *c = ctx_get();
	__u64 fa;

	if (!c)
		return 0;
	fa = c->pend[MRT_PEND_DMABUF_GET][2];
	if (fa & 1ULL << 31)
		c->ev.dmabuf_fd = (int)(fa >> 32);
	step_add(c, MRT_SITE_DMABUF_GET, (int)ptr_ret(ret), c->pend[MRT_PEND_DMABUF_GET][0],
		 c->pend[MRT_PEND_DMABUF_GET][1], (__u32)fa & 0x7fffffff);
	return 0;
}

/* ---- RoCE address resolution ------------------------------------------------
 * modify_qp to RTR (and create_ah) on RoCE turns the remote GID into a route
 * and a neighbour's MAC (ib_resolve_eth_dmac -> rdma_addr_find_l2_eth_by_grh,
 * in the source GID netdev's network namespace).  Called only from those two
 * commands, once per connection: nothing runs off the verbs control path.  A
 * failed resolution records the remote GID and the source GID's netdev (name,
 * ifindex, namespace): the errno says what the kernel saw (ENETUNREACH or
 * EHOSTUNREACH: no route; ETIMEDOUT: a neighbour that never answered within
 * the 1 s the resolver waits; ENODEV: the netdev gone). */
static __always_inline void addr_resolve_result(const union ib_gid *dgid,
						const struct ib_gid_attr *attr, int ret)
{
	struct mrt_ctx *c;
	struct net_device *nd;
	__u64 g[2] = {}, ns = 0, ifx = 0;

	if (ret >= 0)
		return;
	c = ctx_get();
	if (!c)
		return; /* not inside a traced uverbs command */
	bpf_probe_read_kernel(g, sizeof(g), dgid);
	/* ndev is struct ib_gid_attr's first member in 4.19-7.2; a BTF
	 * without the struct (5.10's external file) reads it there */
	if (bpf_core_field_exists(attr->ndev))
		nd = BPF_CORE_READ(attr, ndev);
	else if (bpf_probe_read_kernel(&nd, sizeof(nd), attr))
		nd = NULL;
	/* a BTF without these fields: the GID and errno only (5.10's external
	 * file still fails to relocate net_device.ifindex: not armed there) */
	if (nd && bpf_core_field_exists(nd->ifindex)) {
		ifx = (__u32)BPF_CORE_READ(nd, ifindex);
		ns = BPF_CORE_READ(nd, nd_net.net, ns.inum);
		bpf_probe_read_kernel_str(&c->ev.op_limits[1], 16, &nd->name);
	}
	step_add(c, MRT_SITE_ADDR_RESOLVE, ret, g[0], g[1], ns << 32 | ifx);
}

SEC("fexit/rdma_addr_find_l2_eth_by_grh")
int BPF_PROG(fexit_addr_resolve, const union ib_gid *sgid, const union ib_gid *dgid, u8 *dmac,
	     const struct ib_gid_attr *sgid_attr, int *hoplimit, int ret)
{
	addr_resolve_result(dgid, sgid_attr, ret);
	return 0;
}

/* kretprobes have no arguments: the entry keeps them in the uverbs command's
 * own pend slot ([0] holds its bundle), as the function runs only inside one */
SEC("kprobe/rdma_addr_find_l2_eth_by_grh")
int BPF_KPROBE(kprobe_addr_resolve, const union ib_gid *sgid, const union ib_gid *dgid, u8 *dmac,
	       const struct ib_gid_attr *sgid_attr)
{
	struct mrt_ctx *c = ctx_get();

	if (c) {
		c->pend[MRT_PEND_UVERBS_CMD][1] = (unsigned long long)dgid;
		c->pend[MRT_PEND_UVERBS_CMD][2] = (unsigned long long)sgid_attr;
	}
	return 0;
}

SEC("kretprobe/rdma_addr_find_l2_eth_by_grh")
int BPF_KRETPROBE(kretprobe_addr_resolve, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		addr_resolve_result((const union ib_gid *)c->pend[MRT_PEND_UVERBS_CMD][1],
				    (const struct ib_gid_attr *)c->pend[MRT_PEND_UVERBS_CMD][2], ret);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_failure_sites)
