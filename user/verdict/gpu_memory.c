// SPDX-License-Identifier: GPL-2.0-only
/* gpu_memory.c - GPU memory in a verdict (see gpu_memory.h).
 *
 * GPU memory reaches a NIC one of two ways (docs/causes.md,
 * pin_device_memory): a peer-memory client (nvidia-peermem), which needs the
 * peer-memory API only MLNX_OFED/DOCA-OFED kernels have, or dma-buf, which
 * needs the kernel (5.12+), the NIC driver, the GPU driver (R515+), CUDA
 * (11.7+) and NCCL (2.13+, NCCL_DMABUF_ENABLE).  The verdict says which of
 * the two the node leaves, with what exactly is missing; the fixes
 * (fixes_gpu.c) follow from the same judges (proc/gpu_state.c). */
#include "verdict/gpu_memory.h"
#include "verdict/names.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/units.h"

const struct gpu_facts *gpu_facts_of(const struct gate_facts *g)
{
	return g && g->gpu.have ? &g->gpu : NULL;
}

bool explain_bar1(const struct mrt_event *ev, const struct gate_facts *g, int step, uint64_t need,
		  struct verdict *v)
{
	const struct gpu_facts *f = gpu_facts_of(g);
	int i = gpu_fullest_bar1(f);
	char tot[32], used[32], left[32], req[32];

	if (i < 0 || step < 0)
		return false;
	const struct gpu_dev *d = &f->gpus[i];
	uint64_t room = d->nvml_bar1_used < d->nvml_bar1_total ? d->nvml_bar1_total - d->nvml_bar1_used : 0;
	/* a refusal of an unknown size counts only against a full aperture */
	if (need ? room >= need : room > 0)
		return false;
	v->cause = CAUSE_GPU_BAR1_EXHAUSTED;
	v->decisive_step = step;
	fmt_bytes(d->nvml_bar1_total, tot, sizeof(tot));
	fmt_bytes(d->nvml_bar1_used, used, sizeof(used));
	fmt_bytes(room, left, sizeof(left));
	fmt_bytes(need, req, sizeof(req));
	verdict_say(v->summary,
		    "GPU %s BAR1 is full: %s of %s used, %s left%s%s; %s returned %s", d->bdf, used, tot,
		    left, need ? ", this registration needs " : "", need ? req : "",
		    site_name(ev->steps[step].site), errno_name(-ev->steps[step].ret));
	verdict_say(v->explanation,
		    "A NIC reaches GPU memory through the GPU's BAR1 aperture: the exporter (or the "
		    "peer-memory client) maps the buffer into BAR1 before the NIC may DMA to it. %s "
		    "exposes %s of BAR1 and %s of it is mapped already, so this mapping was refused "
		    "(the errno is the exporter's). T4- and GeForce-class GPUs expose 256 MiB; "
		    "data-centre GPUs map all their memory.",
		    d->model[0] ? d->model : "This GPU", tot, used);
	return true;
}

/* ---- what the facts add to a decided verdict ------------------------------- */

static void peer_words(const struct gpu_facts *f, enum gpu_peer p, char *buf, size_t len)
{
	switch (p) {
	case GPU_PEER_UNSUPPORTED:
		snprintf(buf, len, "This kernel (%s) has no peer-memory API: "
			 "ib_register_peer_memory_client exists only in MLNX_OFED/DOCA-OFED's "
			 "kernel modules, so no peer-memory client can claim GPU memory here%s.",
			 f->kernel, f->nvidia_peermem || f->nv_peer_mem
					    ? " (the nvidia_peermem module is loaded, but it cannot register "
					      "with this kernel)"
					    : "");
		break;
	case GPU_PEER_NO_CLIENT:
		/* a loaded nvidia_peermem has registered (gpu_peer_state) */
		snprintf(buf, len, "The kernel has MLNX_OFED/DOCA's peer-memory API, but no client is "
			 "registered in /sys/kernel/mm/memory_peers (nvidia_peermem is not loaded).");
		break;
	case GPU_PEER_REGISTERED:
		snprintf(buf, len, "A peer-memory client (%s) is registered, yet it did not take this "
			 "range: it is not memory that client knows (cuMemCreate/VMM allocations, "
			 "another device's BAR).", gpu_peer_client(f));
		break;
	default:
		snprintf(buf, len, "Whether this kernel has a peer-memory API could not be read.");
		break;
	}
}

/* NCCL's dma-buf probe in this process, before this failure. */
static void probe_words(const struct mrt_event *ev, const struct gpu_facts *f, char *buf, size_t len)
{
	char when[48] = "";

	buf[0] = '\0';
	if (!f->probe.seen)
		return;
	if (f->probe.ts_ns && ev->ts_ns > f->probe.ts_ns) {
		uint64_t ms = (ev->ts_ns - f->probe.ts_ns) / 1000000;
		if (ms < 10000)
			snprintf(when, sizeof(when), " %llu ms earlier", (unsigned long long)ms);
		else
			snprintf(when, sizeof(when), " %llu s earlier", (unsigned long long)(ms / 1000));
	}
	if (f->probe.err == EOPNOTSUPP || f->probe.err == EPROTONOSUPPORT)
		snprintf(buf, len, "NCCL's dma-buf probe in this process failed with %s%s: the NIC "
			 "cannot register dma-buf, so NCCL fell back to registering the GPU buffer by "
			 "its address, and that plain registration is what failed here. ",
			 errno_name(f->probe.err), when);
	else if (f->probe.err == EBADF)
		snprintf(buf, len, "NCCL's dma-buf probe in this process got EBADF%s (the NIC takes "
			 "dma-buf), yet this buffer was registered by its address: NCCL did not use "
			 "dma-buf for it (NCCL_DMABUF_ENABLE=0, CUDA before 11.7, or a GPU driver "
			 "that exports none). ", when);
}

void gpu_verdict_facts(const struct mrt_event *ev, const struct gate_facts *g,
		       const struct nccl_info *nccl, struct verdict *v)
{
	const struct gpu_facts *f = gpu_facts_of(g);
	struct gpu_dmabuf_state d;
	char peer[400], probe[400], missing[512];

	if (!f)
		return;
	switch (v->cause) {
	case CAUSE_PIN_DEVICE_MEMORY:
	case CAUSE_PIN_FAULT:
	case CAUSE_DMABUF_UNSUPPORTED:
	case CAUSE_DMABUF_ATTACH:
		break;
	default:
		return;
	}
	enum gpu_peer p = gpu_peer_state(f);
	gpu_dmabuf_judge(f, nccl, &d);
	gpu_dmabuf_missing(f, nccl, &d, missing, sizeof(missing));
	peer_words(f, p, peer, sizeof(peer));
	probe_words(ev, f, probe, sizeof(probe));

	str_appendf(v->summary, VERDICT_TEXT_MAX, "; peer memory: %s, dma-buf: %s", gpu_peer_name(p),
		    gpu_dmabuf_name(&d));
	if (v->cause == CAUSE_PIN_FAULT && !probe[0])
		return; /* the summary names the paths; the fault is the buffer's */
	if (v->cause == CAUSE_DMABUF_UNSUPPORTED || v->cause == CAUSE_DMABUF_ATTACH) {
		str_appendf(v->explanation, VERDICT_TEXT_MAX, " %s%s", probe, peer);
		return;
	}
	str_appendf(v->explanation, VERDICT_TEXT_MAX, " %s%s %s", probe, peer,
		    d.blocked ? "The other path, dma-buf, is blocked too: " :
		    d.unknown ? "Whether dma-buf can work here could not be told fully." :
				"dma-buf, the other path, is available on this node.");
	if (d.blocked)
		str_appendf(v->explanation, VERDICT_TEXT_MAX, "%s.", missing);
	for (int i = 0; i < f->n_gpus_kept; i++)
		if (f->gpus[i].consumer) {
			str_appendf(v->explanation, VERDICT_TEXT_MAX,
				    " GPU %s is a %s: GeForce/TITAN GPUs do not support GPUDirect RDMA.",
				    f->gpus[i].bdf, f->gpus[i].model);
			break;
		}
}
