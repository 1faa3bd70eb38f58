// SPDX-License-Identifier: GPL-2.0-only
/* fixes_gpu.c - the fixes of GPU memory's causes (fix_generators.h):
 * pin_device_memory, dmabuf_unsupported, dmabuf_attach, gpu_bar1_exhausted.
 *
 * They follow the node's facts read at the failure (in->gates->gpu), judged
 * by the same functions as `mrtrace check` (proc/gpu_state.c): never "load
 * nvidia-peermem" where the kernel has no peer-memory API (no inbox kernel
 * has one); dma-buf with exactly what it is missing here; MLNX_OFED /
 * DOCA-OFED only as the alternative it is.  Without facts (a replay of an
 * older record) the advice names both paths with what each needs. */
#include "verdict/fix_generators.h"
#include "verdict/gpu_memory.h"

#include <stdio.h>
#include <string.h>

#define OFED_ALTERNATIVE                                                                        \
	"Or install MLNX_OFED or DOCA-OFED, whose kernel modules bring the peer-memory API "   \
	"(ib_register_peer_memory_client), then `modprobe nvidia-peermem` and check "          \
	"/sys/kernel/mm/memory_peers/nv_mem."

static const char *nics_or(const struct gpu_dmabuf_state *d, const char *dflt)
{
	return d->nics[0] ? d->nics : dflt;
}

/* The dma-buf path as the primary fix: what to set where it is available,
 * else what it is missing here, one change per blocker. */
static void dmabuf_primary(const struct gpu_facts *f, const struct nccl_info *nccl,
			   const struct gpu_dmabuf_state *d, enum fix_kind kind, struct fix_list *out)
{
	char missing[512];

	if (!d->blocked) {
		fix_add(out, kind,
			"Register GPU memory through dma-buf, which this node supports%s: "
			"NCCL_DMABUF_ENABLE=1 (the default since NCCL 2.13; needs CUDA >= 11.7), and "
			"make sure nothing sets NCCL_DMABUF_ENABLE=0.",
			d->unknown ? " as far as could be read" : "");
		return;
	}
	gpu_dmabuf_missing(f, nccl, d, missing, sizeof(missing));
	fix_add(out, kind, "Register GPU memory through dma-buf, the path for GPU memory on %s; "
			   "here it is missing: %s.",
		gpu_peer_state(f) == GPU_PEER_UNSUPPORTED ? "this kernel" : "inbox kernels", missing);
	if (d->blocked & GPU_DMABUF_KERNEL)
		fix_add(out, FIX_ALTERNATIVE, "Boot a kernel >= 5.12 (dma-buf MRs: ib_umem_dmabuf_get).");
	if (d->blocked & GPU_DMABUF_NIC_DRIVER)
		fix_add(out, FIX_ALTERNATIVE, "Use a NIC whose driver takes dma-buf MRs (mlx5 / ConnectX "
					      "with rdma-core >= 34) instead of %s.",
			nics_or(d, "this one"));
	if (d->blocked & GPU_DMABUF_GPU_DRIVER)
		fix_add(out, FIX_ALTERNATIVE, "%s the NVIDIA driver R515 or later, preferably its open "
					      "kernel modules (nvidia-open), which export GPU memory as "
					      "dma-buf.",
			f->nvidia_driver ? "Upgrade" : "Load");
	if (d->blocked & GPU_DMABUF_CUDA_DRIVER)
		fix_add(out, FIX_ALTERNATIVE, "Give the job a libcuda of CUDA >= 11.7 (the container's "
					      "driver libraries must match the host's R515+ driver).");
	if (d->blocked & GPU_DMABUF_NCCL_VERSION)
		fix_add(out, FIX_ALTERNATIVE, "Use NCCL 2.13 or later (dma-buf support).");
	if (d->blocked & GPU_DMABUF_NCCL_DISABLED)
		fix_add(out, FIX_ALTERNATIVE, "Unset NCCL_DMABUF_ENABLE=0 (or set it to 1).");
}

static void consumer_note(const struct gpu_facts *f, struct fix_list *out)
{
	for (int i = 0; i < f->n_gpus_kept; i++)
		if (f->gpus[i].consumer) {
			fix_add(out, FIX_NOTE, "GPU %s is a %s: GeForce/TITAN GPUs cannot do GPUDirect "
					       "RDMA at all; only NCCL_NET_GDR_LEVEL=LOC (host "
					       "staging) or a data-centre/workstation GPU works.",
				f->gpus[i].bdf, f->gpus[i].model);
			return;
		}
}

/* NCCL_NET_GDR_LEVEL as the process has it (environment or nccl.conf), or NULL. */
static const char *gdr_level(const struct nccl_info *nccl)
{
	const struct nccl_setting *s = nccl ? nccl_setting_get(&nccl->settings, "NCCL_NET_GDR_LEVEL") : NULL;
	return s ? s->value : NULL;
}

/* GPUDirect RDMA off as the stopgap, unless the job has it off already:
 * then the GPU buffer is not NCCL's network buffer. */
static void gdr_off_stopgap(const struct fix_input *in, struct fix_list *out)
{
	const char *lvl = gdr_level(in->nccl);

	if (lvl && (!strcmp(lvl, "LOC") || !strcmp(lvl, "0"))) {
		fix_add(out, FIX_NOTE, "NCCL_NET_GDR_LEVEL=%s is set already, so NCCL itself does not "
				       "register GPU memory for the network: this buffer comes from "
				       "another library or plugin of the process.", lvl);
		return;
	}
	fix_add(out, FIX_STOPGAP,
		"Stopgap: NCCL_NET_GDR_LEVEL=LOC disables GPUDirect RDMA so NCCL registers "
		"host memory instead (slower; counts against the memlock limit).");
}

void fixes_pin_device_memory(const struct fix_input *in, struct fix_list *out)
{
	const struct gpu_facts *f = gpu_facts_of(in->gates);
	struct gpu_dmabuf_state d;

	if (!f) {
		fix_add(out, FIX_PRIMARY,
			"Register GPU memory through dma-buf (NCCL_DMABUF_ENABLE=1, the default since "
			"NCCL 2.13; needs kernel >= 5.12, CUDA >= 11.7 and a NIC driver with dma-buf "
			"support), or, on a kernel with MLNX_OFED/DOCA-OFED's peer-memory API, load "
			"the NVIDIA peer-memory module (`modprobe nvidia-peermem`; check "
			"/sys/kernel/mm/memory_peers/nv_mem). `mrtrace check` shows which this node has.");
		gdr_off_stopgap(in, out);
		return;
	}
	gpu_dmabuf_judge(f, in->nccl, &d);
	switch (gpu_peer_state(f)) {
	case GPU_PEER_REGISTERED:
		fix_add(out, FIX_PRIMARY,
			"The peer-memory client %s is registered but did not take this buffer: "
			"register memory it handles (cudaMalloc/cuMemAlloc; cuMemCreate/VMM memory needs "
			"dma-buf), and check that nvidia-peermem%s%s matches the NVIDIA driver%s%s.",
			gpu_peer_client(f), f->peermem_version[0] ? " " : "", f->peermem_version,
			f->driver_version[0] ? " " : "", f->driver_version);
		dmabuf_primary(f, in->nccl, &d, FIX_ALTERNATIVE, out);
		break;
	case GPU_PEER_NO_CLIENT:
		/* a loaded module has registered (gpu_peer_state): none is loaded */
		fix_add(out, FIX_PRIMARY,
			"Load the NVIDIA peer-memory client: `modprobe nvidia-peermem` (this "
			"kernel has MLNX_OFED/DOCA's peer-memory API); if it does not load, the "
			"kernel log says why (`mrtrace check`'s gpudirect.peer_markers).");
		dmabuf_primary(f, in->nccl, &d, FIX_ALTERNATIVE, out);
		break;
	case GPU_PEER_UNSUPPORTED:
		dmabuf_primary(f, in->nccl, &d, FIX_PRIMARY, out);
		if (f->nvidia_peermem || f->nv_peer_mem)
			fix_add(out, FIX_NOTE,
				"%s is loaded, but this kernel has no peer-memory API: it cannot register "
				"GPU memory here, and reloading it changes nothing.",
				f->nvidia_peermem ? "nvidia_peermem" : "nv_peer_mem");
		else
			fix_add(out, FIX_NOTE,
				"Do not `modprobe nvidia-peermem` on this kernel: without MLNX_OFED/DOCA's "
				"peer-memory API it does not load.");
		fix_add(out, FIX_ALTERNATIVE, OFED_ALTERNATIVE);
		break;
	default:
		dmabuf_primary(f, in->nccl, &d, FIX_PRIMARY, out);
		fix_add(out, FIX_ALTERNATIVE, "Or a peer-memory client (nvidia-peermem), which works only "
					      "on a kernel with MLNX_OFED/DOCA-OFED's peer-memory API.");
		break;
	}
	consumer_note(f, out);
	gdr_off_stopgap(in, out);
}

/* Who refused decides the advice: the kernel's REG_DMABUF_MR method, the
 * provider library before any command (a library call that never reached
 * the kernel), or a kernel answer seen only by the library's errno.  The
 * alternative to dma-buf is a peer-memory client only where the kernel has
 * the API. */
void fixes_dmabuf_unsupported(const struct fix_input *in, struct fix_list *out)
{
	const struct gpu_facts *f = gpu_facts_of(in->gates);
	bool lib = in->ev && in->ev->kind == MRT_EV_USER_CALL && !in->ev->cmd_reached;
	struct gpu_dmabuf_state d = { 0 };

	if (f)
		gpu_dmabuf_judge(f, in->nccl, &d);
	if (lib)
		fix_add(out, FIX_PRIMARY,
			"Use a NIC whose provider supports dma-buf (mlx5 with rdma-core >= 34 on "
			"kernel >= 5.12)%s%s.", d.nics[0] ? " instead of " : "", d.nics);
	else
		fix_add(out, FIX_PRIMARY,
			"Use a NIC/driver with dma-buf support (mlx5 on kernel >= 5.12 with rdma-core "
			">= 34)%s%s.", d.nics[0] ? " instead of " : "", d.nics);
	if (!f) {
		fix_add(out, FIX_ALTERNATIVE,
			"Or, on a kernel with MLNX_OFED/DOCA-OFED's peer-memory API, "
			"NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU memory.");
		return;
	}
	switch (gpu_peer_state(f)) {
	case GPU_PEER_REGISTERED:
	case GPU_PEER_NO_CLIENT:
		fix_add(out, FIX_ALTERNATIVE, "Or NCCL_DMABUF_ENABLE=0 with nvidia-peermem for GPU memory "
					      "(this kernel has the peer-memory API%s).",
			gpu_peer_state(f) == GPU_PEER_REGISTERED ? " and a registered client"
								 : "; load nvidia-peermem");
		break;
	default:
		fix_add(out, FIX_NOTE, "This kernel has no peer-memory API, so NCCL_DMABUF_ENABLE=0 "
				       "with nvidia-peermem is no way out here; without dma-buf NCCL "
				       "turns GPUDirect RDMA off and stages through host memory.");
		fix_add(out, FIX_ALTERNATIVE, OFED_ALTERNATIVE);
		break;
	}
}

void fixes_dmabuf_attach(const struct fix_input *in, struct fix_list *out)
{
	const struct gpu_facts *f = gpu_facts_of(in->gates);

	if (!f) {
		fix_add(out, FIX_PRIMARY,
			"Check the GPU driver's dma-buf/P2P support (open kernel modules, "
			"NVreg_EnableStreamMemOPs and PCIe topology: `mrtrace check`), or fall back "
			"with NCCL_DMABUF_ENABLE=0 and nvidia-peermem where the kernel has "
			"MLNX_OFED/DOCA's peer-memory API.");
		return;
	}
	consumer_note(f, out);
	if (f->open_module == GPU_NO)
		fix_add(out, FIX_PRIMARY,
			"The NVIDIA driver %s runs its proprietary kernel module, whose dma-buf export "
			"refuses peer-to-peer mappings for RDMA on many systems: install the open "
			"kernel modules (nvidia-open, R515+) and check the PCIe path between GPU and "
			"NIC (`mrtrace check`: topology, ACS).", f->driver_version);
	else
		fix_add(out, FIX_PRIMARY,
			"The GPU driver%s%s refused to map this buffer for the NIC: check the PCIe "
			"path between GPU and NIC (`mrtrace check`: topology, ACS, IOMMU) and the "
			"driver's P2P settings.", f->driver_version[0] ? " " : "", f->driver_version);
	if (gpu_peer_state(f) == GPU_PEER_REGISTERED || gpu_peer_state(f) == GPU_PEER_NO_CLIENT)
		fix_add(out, FIX_ALTERNATIVE, "Or NCCL_DMABUF_ENABLE=0 with nvidia-peermem (this kernel has "
					      "the peer-memory API).");
	else
		fix_add(out, FIX_ALTERNATIVE, OFED_ALTERNATIVE);
	gdr_off_stopgap(in, out);
}

void fixes_gpu_bar1_exhausted(const struct fix_input *in, struct fix_list *out)
{
	const struct gpu_facts *f = gpu_facts_of(in->gates);
	int i = gpu_fullest_bar1(f);

	fix_add(out, FIX_PRIMARY,
		"Map less GPU memory for the NIC at once: fewer or smaller NCCL buffers "
		"(NCCL_MAX_NCHANNELS, NCCL_BUFFSIZE), fewer GPU buffers registered by the "
		"application, or free registrations that are no longer used.%s%s%s",
		i >= 0 ? " GPU " : "", i >= 0 ? f->gpus[i].bdf : "",
		i >= 0 ? ": `nvidia-smi -q -d MEMORY` shows BAR1 Memory Usage." : "");
	fix_add(out, FIX_ALTERNATIVE,
		"Use a GPU whose BAR1 covers its memory (data-centre GPUs; T4- and GeForce-class "
		"GPUs expose 256 MiB), or enable a large BAR1 where the GPU offers it (resizable "
		"BAR / above-4G decoding in the server firmware).");
	gdr_off_stopgap(in, out);
}

/* The range of a dma-buf MR past the exported buffer. */
void fixes_dmabuf_range(const struct fix_input *in, struct fix_list *out)
{
	fix_add(out, FIX_PRIMARY,
		"Register within the exported buffer: with CUDA virtual memory (PyTorch "
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, cuMemMap) export and register "
		"each physical allocation separately, or turn expandable segments off.");
	fix_add(out, FIX_ALTERNATIVE,
		"NCCL: NCCL_DMABUF_ENABLE=0 registers GPU memory through the peer-memory client "
		"(nvidia_peermem) instead of dma-buf, where that is loaded.");
	(void)in;
}
