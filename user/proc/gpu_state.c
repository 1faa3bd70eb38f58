// SPDX-License-Identifier: GPL-2.0-only
/* gpu_state.c - what the GPU-memory facts mean (see gpu_facts.h): pure
 * functions of struct gpu_facts and the process's NCCL, shared by `check`
 * and the verdicts so the two never judge the same node two ways. */
#include "proc/gpu_facts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "nccl/nccl.h"

enum gpu_peer gpu_peer_state(const struct gpu_facts *f)
{
	if (!f || !f->have)
		return GPU_PEER_UNKNOWN;
	if (f->n_peers > 0)
		return GPU_PEER_REGISTERED;
	/* nvidia_peermem's init registers its clients or fails the load
	 * (kernel-open/nvidia-peermem, nv_mem_client_init: -EINVAL without the
	 * peer-memory symbols or when ib_register_peer_memory_client refuses),
	 * and nv_peer_mem's the same: a loaded module has registered, even where
	 * MLNX_OFED/DOCA 24.x's ib_core lists no memory_peers entry for it.
	 * Unless kallsyms says the kernel has no such API: then what is loaded
	 * cannot have registered (a module on its way in or out), and the
	 * kernel's own symbol table is the stronger fact. */
	if ((f->nvidia_peermem || f->nv_peer_mem) && f->peer_api != GPU_NO)
		return GPU_PEER_REGISTERED;
	/* MLNX_OFED's ib_core makes /sys/kernel/mm/memory_peers whether or not
	 * a client registered; the exported symbol says the same */
	if (f->memory_peers_dir || f->peer_api == GPU_YES)
		return GPU_PEER_NO_CLIENT;
	if (f->peer_api == GPU_NO)
		return GPU_PEER_UNSUPPORTED;
	return GPU_PEER_UNKNOWN;
}

const char *gpu_peer_client(const struct gpu_facts *f)
{
	if (f->n_peers > 0)
		return f->peers[0];
	return f->nvidia_peermem ? "nvidia_peermem" : f->nv_peer_mem ? "nv_peer_mem" : "?";
}

const char *gpu_peer_name(enum gpu_peer p)
{
	switch (p) {
	case GPU_PEER_UNSUPPORTED: return "unsupported";
	case GPU_PEER_NO_CLIENT: return "no_client";
	case GPU_PEER_REGISTERED: return "registered";
	default: return "unknown";
	}
}

int gpu_driver_major(const char *version)
{
	return version && *version ? atoi(version) : 0;
}

bool gpu_model_consumer(const char *model)
{
	return model && (strcasestr(model, "GeForce") || strcasestr(model, "TITAN"));
}

/* NCCL_DMABUF_ENABLE as NCCL reads it (strtoll base 0): 0 disables. */
static bool nccl_dmabuf_disabled(const struct nccl_info *n)
{
	const struct nccl_setting *s = n ? nccl_setting_get(&n->settings, "NCCL_DMABUF_ENABLE") : NULL;
	long long v;
	int trailing;

	return s && nccl_parse_int(s->value, &v, &trailing) == 0 && v == 0;
}

static bool probe_refused(const struct gpu_facts *f)
{
	return f->probe.seen && (f->probe.err == EOPNOTSUPP || f->probe.err == EPROTONOSUPPORT);
}

void gpu_dmabuf_judge(const struct gpu_facts *f, const struct nccl_info *nccl,
		      struct gpu_dmabuf_state *out)
{
	memset(out, 0, sizeof(*out));
	if (!f || !f->have) {
		out->unknown = true;
		return;
	}
	if (f->kernel_dmabuf == GPU_NO)
		out->blocked |= GPU_DMABUF_KERNEL;
	else if (f->kernel_dmabuf == GPU_UNKNOWN)
		out->unknown = true;

	/* every NIC NCCL may use must take dma-buf; NCCL's probe in this
	 * process proves a refusal even for a driver mrtrace does not know */
	if (!f->n_nics && !probe_refused(f))
		out->unknown = true;
	for (int i = 0; i < f->n_nics; i++) {
		const struct gpu_nic *d = &f->nics[i];
		if (d->dmabuf == GPU_NO) {
			out->blocked |= GPU_DMABUF_NIC_DRIVER;
			str_appendf(out->nics, sizeof(out->nics), "%s%s (%s)", out->nics[0] ? ", " : "",
				    d->name, d->driver);
		} else if (d->dmabuf == GPU_UNKNOWN) {
			out->unknown = true;
		}
	}
	if (probe_refused(f))
		out->blocked |= GPU_DMABUF_NIC_DRIVER;

	/* dma-buf export came with R515 (CUDA 11.7) */
	int drv = gpu_driver_major(f->driver_version);
	if (!f->nvidia_driver || (drv && drv < 515))
		out->blocked |= GPU_DMABUF_GPU_DRIVER;
	else if (!drv)
		out->unknown = true;
	int cuda = gpu_driver_major(f->cuda_driver);
	if (cuda && cuda < 515)
		out->blocked |= GPU_DMABUF_CUDA_DRIVER;

	if (nccl && nccl->lib.found && nccl->lib.version_known &&
	    (nccl->lib.major < 2 || (nccl->lib.major == 2 && nccl->lib.minor < 13)))
		out->blocked |= GPU_DMABUF_NCCL_VERSION;
	if (nccl_dmabuf_disabled(nccl))
		out->blocked |= GPU_DMABUF_NCCL_DISABLED;
}

const char *gpu_dmabuf_block_name(unsigned flag)
{
	switch (flag) {
	case GPU_DMABUF_KERNEL: return "kernel";
	case GPU_DMABUF_NIC_DRIVER: return "nic_driver";
	case GPU_DMABUF_GPU_DRIVER: return "gpu_driver";
	case GPU_DMABUF_CUDA_DRIVER: return "cuda_driver";
	case GPU_DMABUF_NCCL_VERSION: return "nccl_version";
	case GPU_DMABUF_NCCL_DISABLED: return "nccl_disabled";
	default: return "unknown";
	}
}

const char *gpu_dmabuf_name(const struct gpu_dmabuf_state *s)
{
	for (int i = 0; i < GPU_DMABUF_BLOCKS; i++)
		if (s->blocked & (1u << i))
			return gpu_dmabuf_block_name(1u << i);
	return s->unknown ? "unknown" : "available";
}

const char *gpu_dmabuf_missing(const struct gpu_facts *f, const struct nccl_info *nccl,
			       const struct gpu_dmabuf_state *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->blocked & GPU_DMABUF_KERNEL)
		str_appendf(buf, len, "%sthe kernel %s has no dma-buf MRs (they came with 5.12)",
			    buf[0] ? "; " : "", f->kernel[0] ? f->kernel : "");
	if (s->blocked & GPU_DMABUF_NIC_DRIVER) {
		if (s->nics[0])
			str_appendf(buf, len, "%sthe NIC driver of %s has no dma-buf MR support "
				    "(mlx5 has it)", buf[0] ? "; " : "", s->nics);
		else
			str_appendf(buf, len, "%sthe NIC refused NCCL's dma-buf probe in this process "
				    "(its driver has no dma-buf MR support)", buf[0] ? "; " : "");
	}
	if (s->blocked & GPU_DMABUF_GPU_DRIVER) {
		if (!f->nvidia_driver)
			str_appendf(buf, len, "%sno NVIDIA driver is loaded to export GPU memory as a "
				    "dma-buf", buf[0] ? "; " : "");
		else
			str_appendf(buf, len, "%sthe NVIDIA driver %s exports no dma-buf (R515 or later "
				    "needed, the open kernel module recommended)", buf[0] ? "; " : "",
				    f->driver_version);
	}
	if (s->blocked & GPU_DMABUF_CUDA_DRIVER)
		str_appendf(buf, len, "%sthe process's libcuda (%s) is older than CUDA 11.7 (R515)",
			    buf[0] ? "; " : "", f->cuda_driver);
	if (s->blocked & GPU_DMABUF_NCCL_VERSION)
		str_appendf(buf, len, "%sNCCL %s predates dma-buf support (2.13)", buf[0] ? "; " : "",
			    nccl ? nccl->lib.version : "");
	if (s->blocked & GPU_DMABUF_NCCL_DISABLED)
		str_appendf(buf, len, "%sNCCL_DMABUF_ENABLE=0 turns it off", buf[0] ? "; " : "");
	return buf;
}

int gpu_fullest_bar1(const struct gpu_facts *f)
{
	int best = -1;
	uint64_t room = UINT64_MAX;

	for (int i = 0; f && i < f->n_gpus_kept; i++) {
		const struct gpu_dev *g = &f->gpus[i];
		if (!g->have_nvml || !g->nvml_bar1_total)
			continue;
		uint64_t left = g->nvml_bar1_used < g->nvml_bar1_total ? g->nvml_bar1_total - g->nvml_bar1_used : 0;
		if (left < room) {
			room = left;
			best = i;
		}
	}
	return best;
}
