// SPDX-License-Identifier: GPL-2.0-only
/* gpudirect.c - can a NIC register GPU memory on this node?
 *
 * NCCL has two ways (docs/design.md section 4): dma-buf (ibv_reg_dmabuf_mr; needs the
 * kernel's ib_umem_dmabuf support, 5.12+, and a NIC driver with
 * reg_user_mr_dmabuf: mlx5 yes, rxe no) or a peer-memory client
 * (nvidia_peermem / nv_peer_mem, or MLNX_OFED's memory_peers).  With neither,
 * NCCL turns GPUDirect RDMA off and stages through pinned host memory, which
 * counts against RLIMIT_MEMLOCK; registering a GPU address anyway fails in
 * pinning with EFAULT. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"

#include <stdlib.h>
#include <string.h>

enum tri { NO = 0, YES = 1, UNKNOWN = -1 };

static json_object *tri_json(enum tri t)
{
	return t == UNKNOWN ? NULL : json_object_new_boolean(t == YES);
}

/* NIC drivers that implement reg_user_mr_dmabuf upstream. */
static enum tri driver_dmabuf(const char *drv)
{
	if (!strcmp(drv, "mlx5_core") || !strcmp(drv, "efa"))
		return YES;
	if (!strcmp(drv, "rdma_rxe") || !strcmp(drv, "siw"))
		return NO;
	return UNKNOWN;
}

/* ib_umem_dmabuf_get in kallsyms proves it; without ib_uverbs loaded the
 * symbol is absent, so fall back to the kernel version (5.12+). */
static enum tri kernel_dmabuf(const char *root, const char *kernel, char *how, size_t len)
{
	FILE *f = sr_fopen(root, "/proc/kallsyms");
	if (f) {
		char line[512];
		/* ~100k lines: big reads, since every read() is slow in a VM */
		setvbuf(f, NULL, _IOFBF, 1 << 16);
		bool uverbs = false;
		while (fgets(line, sizeof(line), f)) {
			char *sym = strchr(line, ' ');
			sym = sym ? strchr(sym + 1, ' ') : NULL;
			if (!sym)
				continue;
			sym++;
			if (!strncmp(sym, "ib_umem_dmabuf_get", 18) &&
			    (sym[18] == '\t' || sym[18] == '\n' || sym[18] == ' ')) {
				fclose(f);
				snprintf(how, len, "ib_umem_dmabuf_get in /proc/kallsyms");
				return YES;
			}
			uverbs |= strstr(sym, "[ib_uverbs]") != NULL;
		}
		fclose(f);
		if (uverbs) {
			snprintf(how, len, "ib_uverbs loaded without ib_umem_dmabuf_get");
			return NO;
		}
	}
	int maj = 0, min = 0;
	if (sscanf(kernel, "%d.%d", &maj, &min) == 2) {
		snprintf(how, len, "kernel %d.%d %s 5.12", maj, min,
			 (maj > 5 || (maj == 5 && min >= 12)) ? ">=" : "<");
		return (maj > 5 || (maj == 5 && min >= 12)) ? YES : NO;
	}
	snprintf(how, len, "unknown");
	return UNKNOWN;
}

/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release ..." */
static bool nvidia_driver(const char *root, char *ver, size_t len, bool *open)
{
	char line[512];
	*open = false;
	if (sr_read_line(root, "/proc/driver/nvidia/version", line, sizeof(line))) {
		/* The module's own version file works where /proc/driver is
		 * hidden (some container runtimes). */
		return !sr_read_line(root, "/sys/module/nvidia/version", ver, len);
	}
	*open = strstr(line, "Open Kernel Module") != NULL;
	char *save, *tok = strtok_r(line, " \t", &save);
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		unsigned a, b;
		if (sscanf(tok, "%u.%u", &a, &b) == 2 && strchr(tok, '.') && a >= 100) {
			snprintf(ver, len, "%s", tok);
			return true;
		}
	}
	return false;
}

/* Peer-memory clients NCCL looks for, in its order. */
static bool peer_memory(const char *root, char *what, size_t len, json_object *sec)
{
	char v[64] = "";
	bool found = false;
	json_object *o = json_object_new_object();
	json_object_object_add(sec, "peer_memory", o);

	bool peermem = sr_exists(root, "/sys/module/nvidia_peermem");
	sr_read_line(root, "/sys/module/nvidia_peermem/version", v, sizeof(v));
	json_object_object_add(o, "nvidia_peermem", json_object_new_boolean(peermem));
	chk_json_str(o, "nvidia_peermem_version", v);
	if (peermem) {
		snprintf(what, len, "nvidia_peermem%s%s", v[0] ? " " : "", v);
		found = true;
	}
	bool nvpm = sr_exists(root, "/sys/module/nv_peer_mem");
	json_object_object_add(o, "nv_peer_mem", json_object_new_boolean(nvpm));
	if (nvpm && !found) {
		snprintf(what, len, "nv_peer_mem");
		found = true;
	}
	char **names;
	int n = sr_list(root, "/sys/kernel/mm/memory_peers", &names);
	json_object *mp = json_object_new_array();
	json_object_object_add(o, "memory_peers", mp);
	for (int i = 0; i < n; i++) {
		if (strncmp(names[i], "nv_mem", 6))
			continue;
		char p[256];
		snprintf(p, sizeof(p), "/sys/kernel/mm/memory_peers/%s/version", names[i]);
		v[0] = '\0';
		sr_read_line(root, p, v, sizeof(v));
		json_object_array_add(mp, json_object_new_string(names[i]));
		if (!found) {
			snprintf(what, len, "memory_peers/%s%s%s", names[i], v[0] ? " " : "", v);
			found = true;
		}
	}
	sr_free_names(names, n);
	return found;
}

void check_gpudirect(struct chk_report *r)
{
	const char *root = r->opt.root;
	json_object *sec = chk_section(r, "gpudirect");
	char ver[64] = "", how[128] = "", peer[128] = "";
	bool open_mod;
	bool have_drv = nvidia_driver(root, ver, sizeof(ver), &open_mod);
	enum tri kdma = kernel_dmabuf(root, r->kernel, how, sizeof(how));
	bool have_peer = peer_memory(root, peer, sizeof(peer), sec);

	/* every GPU on PCI counts; the topology examines the first CHK_MAX_GPUS */
	json_object_object_add(sec, "gpus", json_object_new_int(r->inv.n_gpus + r->inv.gpus_dropped));
	json_object_object_add(sec, "gpus_not_examined", json_object_new_int(r->inv.gpus_dropped));
	if (r->inv.gpus_dropped)
		chk_add(r, "gpudirect", "gpudirect.not_examined", CHK_WARN, CHK_CLS_ENV, "GPUs",
			"%d more GPUs than the %d examined: not placed in the topology",
			r->inv.gpus_dropped, CHK_MAX_GPUS);
	chk_json_str(sec, "nvidia_driver", ver);
	json_object_object_add(sec, "nvidia_open_module", have_drv ? json_object_new_boolean(open_mod) : NULL);
	json_object_object_add(sec, "kernel_dmabuf", tri_json(kdma));
	chk_json_str(sec, "kernel_dmabuf_evidence", how);

	/* dma-buf needs every NIC NCCL would use to support it. */
	enum tri nic = r->inv.n_rdma ? YES : UNKNOWN;
	char nics[256] = "";
	json_object *nd = json_object_new_object();
	json_object_object_add(sec, "nic_dmabuf", nd);
	for (int i = 0; i < r->inv.n_rdma; i++) {
		enum tri t = driver_dmabuf(r->inv.rdma[i].driver);
		json_object_object_add(nd, r->inv.rdma[i].name, tri_json(t));
		if (t == NO) {
			nic = NO;
			str_appendf(nics, sizeof(nics), "%s%s", nics[0] ? "," : "", r->inv.rdma[i].name);
		} else if (t == UNKNOWN && nic == YES)
			nic = UNKNOWN;
	}
	enum tri dmabuf = (kdma == NO || nic == NO) ? NO : (kdma == YES && nic == YES) ? YES : UNKNOWN;
	const char *path = dmabuf == YES ? "dmabuf" : have_peer ? "peermem" :
			   dmabuf == UNKNOWN ? "unknown" : "none";
	json_object_object_add(sec, "path", json_object_new_string(path));

	struct chk_item *it;
	if (r->inv.n_gpus == 0 && !have_drv) {
		chk_add(r, "gpudirect", "gpudirect.gpus", CHK_OK, CHK_CLS_ENV, "GPUs",
			"no NVIDIA GPU on PCI: GPUDirect RDMA does not apply");
		/* Without GPUs this is information only: nothing to register. */
		chk_add(r, "gpudirect", "gpudirect.dmabuf", CHK_OK, CHK_CLS_ENV, "dma-buf MRs",
			"kernel %s (%s), NIC drivers %s%s", kdma == YES ? "yes" : kdma == NO ? "no" : "?",
			how, nic == YES ? "yes" : nic == NO ? "no: " : "?", nic == NO ? nics : "");
		return;
	}
	if (!have_drv) {
		it = chk_add(r, "gpudirect", "gpudirect.driver", CHK_FAIL, CHK_CLS_ENV,
			     "NVIDIA driver", "%d GPU%s but no driver loaded (/proc/driver/nvidia)",
			     r->inv.n_gpus, r->inv.n_gpus == 1 ? "" : "s");
		chk_fix(it, "Load the NVIDIA kernel module (nvidia-smi); in a container, run it "
			"with the NVIDIA container runtime (--gpus all).");
	} else {
		chk_add(r, "gpudirect", "gpudirect.driver", CHK_OK, CHK_CLS_ENV, "NVIDIA driver",
			"%s (%s kernel module), %d GPU%s", ver, open_mod ? "open" : "proprietary",
			r->inv.n_gpus, r->inv.n_gpus == 1 ? "" : "s");
	}

	it = chk_add(r, "gpudirect", "gpudirect.dmabuf", CHK_OK, CHK_CLS_ENV, "dma-buf MRs",
		     "%s: kernel %s (%s), NIC drivers %s%s", dmabuf == YES ? "available" :
		     dmabuf == NO ? "not available" : "unknown",
		     kdma == YES ? "yes" : kdma == NO ? "no" : "?", how,
		     nic == YES ? "yes" : nic == NO ? "no: " : "?", nic == NO ? nics : "");
	if (dmabuf == NO)
		chk_note(it, "NCCL falls back to a peer-memory client for GPU buffers "
			 "(NCCL_DMABUF_ENABLE has no effect here).");

	enum chk_verdict pv = have_peer || dmabuf == YES ? CHK_OK :
			      dmabuf == UNKNOWN ? CHK_UNKNOWN : CHK_WARN;
	it = chk_add(r, "gpudirect", "gpudirect.peermem", pv, CHK_CLS_ENV, "peer memory",
		     "%s", have_peer ? peer : dmabuf == YES ?
		     "no nvidia_peermem (not needed: dma-buf path available)" :
		     "no nvidia_peermem, nv_peer_mem or memory_peers/nv_mem*");
	if (pv == CHK_WARN) {
		chk_note(it, "Neither dma-buf nor a peer-memory client: NCCL disables GPUDirect "
			 "RDMA, so its network buffers move to pinned host memory and count "
			 "against RLIMIT_MEMLOCK; registering a GPU address fails with EFAULT.");
		chk_fix(it, "modprobe nvidia_peermem (ships with the NVIDIA driver), or use a "
			"5.12+ kernel with an mlx5 NIC for dma-buf.");
	}
}
