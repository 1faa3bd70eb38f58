// SPDX-License-Identifier: GPL-2.0-only
/* gdrmarkers.c - which peer-memory marker files an NCCL release looks for
 * before it offers GPUDirect RDMA through a peer-memory client (nccl.h).
 *
 * NCCL's IB transport (ncclIbGdrSupport, src/transport/net_ib.cc, from
 * v2.29.2-1 src/transport/net_ib/gdr.cc) only tests whether files exist; it
 * never asks the kernel whether a client registered.  Read from the tags of
 * NVIDIA/nccl:
 *   up to v2.9.6-1   /sys/kernel/mm/memory_peers/nv_mem/version only
 *   v2.9.8-1 .. v2.21.5-1  also memory_peers/nvidia-peermem/version
 *   v2.22.3-1        nv_mem or memory_peers/nv_mem_nc/version (the
 *                    nvidia-peermem name dropped again)
 *   v2.23.4-1 ..     nv_mem, nv_mem_nc or /sys/module/nvidia_peermem/version
 * So up to and including 2.22.3 a node where nvidia_peermem is loaded but
 * its ib_core publishes no memory_peers/nv_mem (MLNX_OFED 24.x, issue
 * NVIDIA/nccl#1939) gets no GPUDirect RDMA from the peer-memory path, and
 * NCCL says so only at NCCL_DEBUG=INFO.  The dma-buf path is separate: NCCL
 * uses GPUDirect RDMA when a marker is found *or* dma-buf works
 * (src/graph/topo.cc, v2.21.5-1: gdrSupport = NCCL_PTR_CUDA || (dmaBufSupport
 * && NCCL_PTR_DMABUF)). */
#include "nccl/nccl.h"

static const struct {
	unsigned flag;
	const char *path;
} markers[] = {
	{ NCCL_PEER_NV_MEM, "/sys/kernel/mm/memory_peers/nv_mem/version" },
	{ NCCL_PEER_NV_MEM_NC, "/sys/kernel/mm/memory_peers/nv_mem_nc/version" },
	{ NCCL_PEER_NVIDIA_PEERMEM_DIR, "/sys/kernel/mm/memory_peers/nvidia-peermem/version" },
	{ NCCL_PEER_MODULE, "/sys/module/nvidia_peermem/version" },
};

static int vcmp(const struct nccl_lib *lib, int major, int minor, int patch)
{
	if (lib->major != major)
		return lib->major < major ? -1 : 1;
	if (lib->minor != minor)
		return lib->minor < minor ? -1 : 1;
	return lib->patch < patch ? -1 : lib->patch > patch;
}

unsigned nccl_peer_markers(const struct nccl_lib *lib)
{
	if (!lib || !lib->version_known)
		return 0;
	unsigned m = NCCL_PEER_NV_MEM;
	/* between tags, the first release with the change decides: 2.22.0 is
	 * read as 2.22.3, 2.23.0 as 2.23.4 */
	if (vcmp(lib, 2, 23, 0) >= 0)
		return m | NCCL_PEER_NV_MEM_NC | NCCL_PEER_MODULE;
	if (vcmp(lib, 2, 22, 0) >= 0)
		return m | NCCL_PEER_NV_MEM_NC;
	if (vcmp(lib, 2, 9, 7) >= 0)
		return m | NCCL_PEER_NVIDIA_PEERMEM_DIR;
	return m;
}

const char *nccl_peer_marker_path(unsigned flag)
{
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (markers[i].flag == flag)
			return markers[i].path;
	return "";
}
