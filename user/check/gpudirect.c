// SPDX-License-Identifier: GPL-2.0-only
/* gpudirect.c - can a NIC register GPU memory on this node?
 *
 * NCCL has two ways (docs/design.md section 4): dma-buf (ibv_reg_dmabuf_mr;
 * needs the kernel's ib_umem_dmabuf support, 5.12+, a NIC driver with
 * reg_user_mr_dmabuf, the GPU driver R515+, CUDA 11.7+, NCCL 2.13+) or a
 * peer-memory client (nvidia-peermem), which needs the peer-memory API only
 * MLNX_OFED/DOCA-OFED kernels have.  With neither, NCCL turns GPUDirect RDMA
 * off and stages through pinned host memory, which counts against
 * RLIMIT_MEMLOCK; registering a GPU address anyway fails in pinning with
 * EFAULT.  The facts and their judgement are proc/gpu_facts.h's, the same
 * the verdicts of `watch` use; BAR1 and the GPU class decide whether large
 * or any GPUDirect RDMA can work at all. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "proc/gpu_facts.h"

#include <stdlib.h>
#include <string.h>

/* T4-class and GeForce GPUs expose 256 MiB; data-centre GPUs all their memory. */
#define SMALL_BAR1 (256ull << 20)

static json_object *tri_json(enum gpu_tri t)
{
	return t == GPU_UNKNOWN ? NULL : json_object_new_boolean(t == GPU_YES);
}

static const char *tri_word(enum gpu_tri t)
{
	return t == GPU_YES ? "yes" : t == GPU_NO ? "no" : "?";
}

/* The members earlier reports had (diff reads "path"), then the judged state. */
static void section(json_object *sec, const struct gpu_facts *f, enum gpu_peer peer,
		    const struct gpu_dmabuf_state *d, const char *path)
{
	json_object *o = json_object_new_object(), *a;

	chk_json_str(sec, "nvidia_driver", f->driver_version);
	json_object_object_add(sec, "nvidia_open_module", f->nvidia_driver ? tri_json(f->open_module) : NULL);
	json_object_object_add(sec, "kernel_dmabuf", tri_json(f->kernel_dmabuf));
	chk_json_str(sec, "kernel_dmabuf_evidence", f->kernel_dmabuf_how);
	a = json_object_new_object();
	for (int i = 0; i < f->n_nics; i++)
		json_object_object_add(a, f->nics[i].name, tri_json(f->nics[i].dmabuf));
	json_object_object_add(sec, "nic_dmabuf", a);
	json_object_object_add(sec, "path", json_object_new_string(path));

	json_object_object_add(sec, "peer_memory", o);
	json_object_object_add(o, "state", json_object_new_string(gpu_peer_name(peer)));
	json_object_object_add(o, "api", tri_json(f->peer_api));
	json_object_object_add(o, "nvidia_peermem", json_object_new_boolean(f->nvidia_peermem));
	chk_json_str(o, "nvidia_peermem_version", f->peermem_version);
	json_object_object_add(o, "nv_peer_mem", json_object_new_boolean(f->nv_peer_mem));
	a = json_object_new_array();
	for (int i = 0; i < f->n_peers; i++)
		json_object_array_add(a, json_object_new_string(f->peers[i]));
	json_object_object_add(o, "memory_peers", a);

	o = json_object_new_object();
	json_object_object_add(sec, "dmabuf", o);
	json_object_object_add(o, "state", json_object_new_string(gpu_dmabuf_name(d)));
	a = json_object_new_array();
	for (int i = 0; i < GPU_DMABUF_BLOCKS; i++)
		if (d->blocked & (1u << i))
			json_object_array_add(a, json_object_new_string(gpu_dmabuf_block_name(1u << i)));
	json_object_object_add(o, "blocked", a);
	chk_json_str(sec, "libcuda", f->libcuda);

	a = json_object_new_array();
	json_object_object_add(sec, "devices", a);
	for (int i = 0; i < f->n_gpus_kept; i++) {
		const struct gpu_dev *g = &f->gpus[i];
		json_object *x = json_object_new_object();
		json_object_object_add(x, "pci", json_object_new_string(g->bdf));
		chk_json_str(x, "model", g->model);
		json_object_object_add(x, "class", json_object_new_string(g->consumer ? "consumer" :
									     g->model[0] ? "datacenter" : "unknown"));
		json_object_object_add(x, "bar1_bytes", g->bar1_bytes ? json_object_new_uint64(g->bar1_bytes) : NULL);
		json_object *n = NULL;
		if (g->have_nvml) {
			n = json_object_new_object();
			json_object_object_add(n, "bar1_total_bytes", json_object_new_uint64(g->nvml_bar1_total));
			json_object_object_add(n, "bar1_used_bytes", json_object_new_uint64(g->nvml_bar1_used));
			json_object_object_add(n, "memory_bytes", json_object_new_uint64(g->nvml_memory_total));
		}
		json_object_object_add(x, "nvml", n);
		json_object_array_add(a, x);
	}
}

/* Each GPU's BAR1 against its memory (NVML) or the 256 MiB of T4/GeForce
 * class parts (sysfs alone). */
static void check_bar1(struct chk_report *r, const struct gpu_facts *f)
{
	char small[256] = "", all[256] = "", b[32], m[32];
	int n_small = 0, known = 0;

	for (int i = 0; i < f->n_gpus_kept; i++) {
		const struct gpu_dev *g = &f->gpus[i];
		uint64_t bar1 = g->have_nvml && g->nvml_bar1_total ? g->nvml_bar1_total : g->bar1_bytes;
		if (!bar1)
			continue;
		known++;
		fmt_bytes(bar1, b, sizeof(b));
		str_appendf(all, sizeof(all), "%s%s %s", all[0] ? ", " : "", g->bdf, b);
		bool below_mem = g->have_nvml && g->nvml_memory_total && bar1 < g->nvml_memory_total;
		if (bar1 <= SMALL_BAR1 || below_mem) {
			n_small++;
			if (below_mem) {
				fmt_bytes(g->nvml_memory_total, m, sizeof(m));
				str_appendf(small, sizeof(small), "%s%s %s of %s", small[0] ? ", " : "",
					    g->bdf, b, m);
			} else {
				str_appendf(small, sizeof(small), "%s%s %s", small[0] ? ", " : "", g->bdf, b);
			}
		}
	}
	if (!known) {
		chk_add(r, "gpudirect", "gpudirect.bar1", CHK_UNKNOWN, CHK_CLS_ENV, "BAR1",
			"not readable (no PCI resource file, no libnvidia-ml)");
		return;
	}
	if (!n_small) {
		chk_add(r, "gpudirect", "gpudirect.bar1", CHK_OK, CHK_CLS_ENV, "BAR1", "%s", all);
		return;
	}
	struct chk_item *it = chk_add(r, "gpudirect", "gpudirect.bar1", CHK_WARN, CHK_CLS_ENV, "BAR1",
				      "small BAR1: %s", small);
	chk_note(it, "The NIC reaches GPU memory through the GPU's BAR1 aperture: GPUDirect RDMA "
		 "of more GPU memory at once than BAR1 holds fails in the exporter or peer client "
		 "(ENOMEM/EFAULT; cause gpu_bar1_exhausted).");
	chk_fix(it, "Register less GPU memory at once (NCCL_MAX_NCHANNELS, NCCL_BUFFSIZE), enable "
		"a large BAR1 where the GPU offers it (resizable BAR / above-4G decoding in the "
		"firmware), or use GPUs whose BAR1 covers their memory.");
}

static void check_class(struct chk_report *r, const struct gpu_facts *f)
{
	char list[256] = "", models[256] = "";
	int named = 0;

	for (int i = 0; i < f->n_gpus_kept; i++) {
		named += f->gpus[i].model[0] != 0;
		if (f->gpus[i].model[0] && !strstr(models, f->gpus[i].model))
			str_appendf(models, sizeof(models), "%s%s", models[0] ? ", " : "", f->gpus[i].model);
		if (f->gpus[i].consumer)
			str_appendf(list, sizeof(list), "%s%s %s", list[0] ? ", " : "", f->gpus[i].bdf,
				    f->gpus[i].model);
	}
	if (!list[0]) {
		chk_add(r, "gpudirect", "gpudirect.class", named ? CHK_OK : CHK_UNKNOWN, CHK_CLS_ENV,
			"GPU class", "%s", named ? models : "model not readable (/proc/driver/nvidia/gpus)");
		return;
	}
	struct chk_item *it = chk_add(r, "gpudirect", "gpudirect.class", CHK_WARN, CHK_CLS_ENV,
				      "GPU class", "%s", list);
	chk_note(it, "GeForce and TITAN GPUs do not support GPUDirect RDMA: NCCL must stage "
		 "through host memory there (NCCL_NET_GDR_LEVEL=LOC), which counts against "
		 "RLIMIT_MEMLOCK.");
}

/* The peer-memory item: the client NCCL would use, judged against the
 * kernel's API; needed only where dma-buf is not available. */
static void check_peer(struct chk_report *r, const struct gpu_facts *f, enum gpu_peer peer,
		       const struct gpu_dmabuf_state *d, const char *missing)
{
	bool loaded = f->nvidia_peermem || f->nv_peer_mem;
	const char *mod = f->nvidia_peermem ? "nvidia_peermem" : "nv_peer_mem";
	struct chk_item *it;

	if (peer == GPU_PEER_REGISTERED && f->n_peers) {
		chk_add(r, "gpudirect", "gpudirect.peermem", CHK_OK, CHK_CLS_ENV, "peer memory",
			"memory_peers/%s registered%s%s", f->peers[0], loaded ? ", " : "", loaded ? mod : "");
		return;
	}
	if (peer == GPU_PEER_REGISTERED) {
		/* MLNX_OFED/DOCA 24.x: the module registered at load, no entry */
		chk_add(r, "gpudirect", "gpudirect.peermem", CHK_OK, CHK_CLS_ENV, "peer memory",
			"%s%s%s loaded: registered at load (this ib_core lists no memory_peers)", mod,
			f->nvidia_peermem && f->peermem_version[0] ? " " : "",
			f->nvidia_peermem ? f->peermem_version : "");
		return;
	}
	if (!d->blocked && !d->unknown) {
		it = chk_add(r, "gpudirect", "gpudirect.peermem", CHK_OK, CHK_CLS_ENV, "peer memory",
			     "%s (not needed: dma-buf path available)",
			     peer == GPU_PEER_UNSUPPORTED ? (loaded ? "no peer-memory API in this kernel, "
								      "the loaded module cannot register"
								    : "no peer-memory API in this kernel")
							  : "no client registered");
		return;
	}
	enum chk_verdict v = d->unknown && !d->blocked ? CHK_UNKNOWN : CHK_WARN;
	switch (peer) {
	case GPU_PEER_NO_CLIENT:
		it = chk_add(r, "gpudirect", "gpudirect.peermem", v, CHK_CLS_ENV, "peer memory",
			     "peer-memory API present, no client registered (nvidia_peermem not loaded)");
		chk_fix(it, "modprobe nvidia-peermem (this kernel has MLNX_OFED/DOCA's peer-memory API); "
			"if it does not load, gpudirect.peer_markers says why.");
		break;
	case GPU_PEER_UNSUPPORTED:
		it = chk_add(r, "gpudirect", "gpudirect.peermem", v, CHK_CLS_ENV, "peer memory",
			     "no peer-memory API in this kernel%s", loaded ? ": the loaded module cannot register" : "");
		chk_fix(it, "Make dma-buf work (missing: %s), or install MLNX_OFED/DOCA-OFED, whose kernel "
			"modules bring the peer-memory API, then modprobe nvidia-peermem.",
			missing[0] ? missing : "see gpudirect.dmabuf");
		break;
	default:
		it = chk_add(r, "gpudirect", "gpudirect.peermem", v, CHK_CLS_ENV, "peer memory",
			     "no client found; whether the kernel has the peer-memory API is unknown (ib_core "
			     "not loaded)");
		break;
	}
	if (v == CHK_WARN)
		chk_note(it, "Neither dma-buf nor a peer-memory client: NCCL disables GPUDirect RDMA, so "
			 "its network buffers move to pinned host memory and count against "
			 "RLIMIT_MEMLOCK; registering a GPU address fails with EFAULT.");
}

void check_gpudirect(struct chk_report *r)
{
	json_object *sec = chk_section(r, "gpudirect");
	struct gpu_facts *f = calloc(1, sizeof(*f));
	struct gpu_dmabuf_state d;
	char missing[512];

	if (!f)
		return;
	gpu_facts_read_node(r->opt.root, r->kernel, f);
	if (r->have_target)
		gpu_facts_read_process(r->opt.root, r->opt.pid, f);
	/* with -p, the job's own NCCL and libcuda count too */
	const struct nccl_info *nccl = r->have_target ? r->nccl : NULL;
	enum gpu_peer peer = gpu_peer_state(f);
	gpu_dmabuf_judge(f, nccl, &d);
	gpu_dmabuf_missing(f, nccl, &d, missing, sizeof(missing));
	const char *path = !d.blocked && !d.unknown ? "dmabuf" : peer == GPU_PEER_REGISTERED ? "peermem" :
			   d.unknown && !d.blocked ? "unknown" : "none";

	/* every GPU on PCI counts; the topology examines the first CHK_MAX_GPUS */
	json_object_object_add(sec, "gpus", json_object_new_int(r->inv.n_gpus + r->inv.gpus_dropped));
	json_object_object_add(sec, "gpus_not_examined", json_object_new_int(r->inv.gpus_dropped));
	if (r->inv.gpus_dropped)
		chk_add(r, "gpudirect", "gpudirect.not_examined", CHK_WARN, CHK_CLS_ENV, "GPUs",
			"%d more GPUs than the %d examined: not placed in the topology",
			r->inv.gpus_dropped, CHK_MAX_GPUS);
	section(sec, f, peer, &d, path);
	json_object *peer_json = NULL;
	json_object_object_get_ex(sec, "peer_memory", &peer_json);

	/* dma-buf's own facts, without the GPU driver (no GPU: information only) */
	char nics[160];
	snprintf(nics, sizeof(nics), "%s%s", d.blocked & GPU_DMABUF_NIC_DRIVER ? "no: " : d.unknown ? "?" : "yes",
		 d.nics);
	if (r->inv.n_gpus == 0 && !f->nvidia_driver) {
		chk_add(r, "gpudirect", "gpudirect.gpus", CHK_OK, CHK_CLS_ENV, "GPUs",
			"no NVIDIA GPU on PCI: GPUDirect RDMA does not apply");
		chk_add(r, "gpudirect", "gpudirect.dmabuf", CHK_OK, CHK_CLS_ENV, "dma-buf MRs",
			"kernel %s (%s), NIC drivers %s", tri_word(f->kernel_dmabuf), f->kernel_dmabuf_how, nics);
		check_peer_markers(r, f, &d, missing, peer_json, false);
		free(f);
		return;
	}
	struct chk_item *it;
	if (!f->nvidia_driver) {
		it = chk_add(r, "gpudirect", "gpudirect.driver", CHK_FAIL, CHK_CLS_ENV,
			     "NVIDIA driver", "%d GPU%s but no driver loaded (/proc/driver/nvidia)",
			     r->inv.n_gpus, r->inv.n_gpus == 1 ? "" : "s");
		chk_fix(it, "Load the NVIDIA kernel module (nvidia-smi); in a container, run it "
			"with the NVIDIA container runtime (--gpus all).");
	} else {
		chk_add(r, "gpudirect", "gpudirect.driver", CHK_OK, CHK_CLS_ENV, "NVIDIA driver",
			"%s (%s kernel module), %d GPU%s", f->driver_version,
			f->open_module == GPU_YES ? "open" : f->open_module == GPU_NO ? "proprietary" : "flavour unknown",
			r->inv.n_gpus, r->inv.n_gpus == 1 ? "" : "s");
	}

	it = chk_add(r, "gpudirect", "gpudirect.dmabuf", CHK_OK, CHK_CLS_ENV, "dma-buf MRs",
		     "%s: kernel %s (%s), NIC drivers %s", !d.blocked && !d.unknown ? "available" :
		     d.blocked ? "not available" : "unknown", tri_word(f->kernel_dmabuf),
		     f->kernel_dmabuf_how, nics);
	if (d.blocked) {
		chk_note(it, "Missing: %s. NCCL then needs a peer-memory client for GPU buffers "
			 "(NCCL_DMABUF_ENABLE has no effect here).", missing);
		/* the job itself turned dma-buf off or cannot use it: its setting */
		if (r->have_target && (d.blocked & (GPU_DMABUF_NCCL_DISABLED | GPU_DMABUF_NCCL_VERSION |
						     GPU_DMABUF_CUDA_DRIVER)))
			it->verdict = CHK_WARN;
	}
	check_peer(r, f, peer, &d, missing);
	check_peer_markers(r, f, &d, missing, peer_json, true);
	check_bar1(r, f);
	check_class(r, f);
	free(f);
}
