// SPDX-License-Identifier: GPL-2.0-only
/* topology.c - PCIe distance between every GPU and every RDMA NIC, named
 * like `nvidia-smi topo -m`:
 *   PIX  through one PCIe switch          PXB  through several switches
 *   PHB  through the host bridge (CPU)    NODE between host bridges of one NUMA node
 *   SYS  across NUMA nodes
 *
 * Why it matters for registration: NCCL uses GPUDirect RDMA only when the NIC
 * is at PXB or closer (NCCL_NET_GDR_LEVEL's default); a GPU whose nearest NIC
 * is farther sends through pinned host buffers, which count against
 * RLIMIT_MEMLOCK.
 *
 * The switch model follows NCCL's reading of sysfs: a switch shows up as an
 * upstream port followed by a downstream port, so a device's parent switch is
 * two path components up, and the root port folds into the CPU. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/escape.h"

#include <string.h>

static const char *const topo_names[] = { "PIX", "PXB", "PHB", "NODE", "SYS", "?" };

const char *chk_topo_name(enum chk_topo t)
{
	return (unsigned)t <= CHK_TOPO_UNKNOWN ? topo_names[t] : "?";
}

struct pcipath {
	char host[24];          /* "pci0000:15" */
	int n;
	char bdf[16][16];       /* components below the host bridge, device last */
};

static bool split(const char *path, struct pcipath *p)
{
	memset(p, 0, sizeof(*p));
	const char *s = strstr(path ? path : "", "/devices/");
	if (!s)
		return false;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", s + 9);
	char *save, *tok = strtok_r(buf, "/", &save);
	if (!tok || strncmp(tok, "pci", 3))
		return false;
	snprintf(p->host, sizeof(p->host), "%s", tok);
	while ((tok = strtok_r(NULL, "/", &save)) && p->n < 16) {
		if (!chk_is_bdf(tok))
			break;   /* e.g. ".../infiniband/mlx5_0" after the device */
		snprintf(p->bdf[p->n++], sizeof(p->bdf[0]), "%s", tok);
	}
	return p->n > 0;
}

/* Switches above the device, nearest first (indexes into p->bdf). */
static int switches(const struct pcipath *p, int *idx)
{
	int k = 0;
	for (int i = p->n - 1 - 2; i >= 0; i -= 2)
		idx[k++] = i;
	return k;
}

enum chk_topo chk_topo_classify(const char *path_a, long numa_a, const char *path_b, long numa_b)
{
	struct pcipath a, b;
	if (!split(path_a, &a) || !split(path_b, &b))
		return CHK_TOPO_UNKNOWN;
	if (!strcmp(a.host, b.host)) {
		int ia[8], ib[8];
		int na = switches(&a, ia), nb = switches(&b, ib);
		for (int i = 0; i < na; i++)
			for (int j = 0; j < nb; j++)
				if (!strcmp(a.bdf[ia[i]], b.bdf[ib[j]]))
					/* switches on the path: i below the common
					 * one on a's side, j on b's, plus itself */
					return i + j + 1 == 1 ? CHK_TOPO_PIX : CHK_TOPO_PXB;
		return CHK_TOPO_PHB;
	}
	/* Different host bridges; -1 (no NUMA information, as on one-socket
	 * machines and most VMs) on both sides counts as the same node. */
	return numa_a == numa_b ? CHK_TOPO_NODE : CHK_TOPO_SYS;
}

void check_topology(struct chk_report *r)
{
	json_object *sec = chk_section(r, "topology");
	json_object *gpus = json_object_new_array(), *nics = json_object_new_array();
	json_object *matrix = json_object_new_object(), *nearest = json_object_new_array();
	json_object_object_add(sec, "gpus", gpus);
	json_object_object_add(sec, "nics", nics);
	json_object_object_add(sec, "matrix", matrix);
	json_object_object_add(sec, "nearest", nearest);

	int pci_nics = 0;
	for (int j = 0; j < r->inv.n_rdma; j++) {
		const struct chk_rdma_dev *d = &r->inv.rdma[j];
		if (!d->path[0])
			continue;
		pci_nics++;
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(d->name));
		json_object_object_add(o, "pci", json_object_new_string(d->bdf));
		json_object_object_add(o, "numa", json_object_new_int((int)d->numa));
		json_object_array_add(nics, o);
	}
	for (int i = 0; i < r->inv.n_gpus; i++) {
		const struct chk_gpu *g = &r->inv.gpus[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "index", json_object_new_int(g->index));
		json_object_object_add(o, "pci", json_object_new_string(g->bdf));
		json_object_object_add(o, "numa", json_object_new_int((int)g->numa));
		chk_json_str(o, "device_id", g->device_id);
		json_object_array_add(gpus, o);
	}

	if (r->inv.n_gpus == 0) {
		chk_add(r, "topology", "topology.gdr", CHK_OK, CHK_CLS_ENV, "GPU-NIC paths",
			"no NVIDIA GPU: nothing to pair");
		return;
	}
	if (pci_nics == 0) {
		chk_add(r, "topology", "topology.gdr", CHK_UNKNOWN, CHK_CLS_ENV, "GPU-NIC paths",
			"%d GPU%s, no PCI RDMA NIC", r->inv.n_gpus, r->inv.n_gpus == 1 ? "" : "s");
		return;
	}

	int far = 0;
	char far_list[256] = "";
	for (int i = 0; i < r->inv.n_gpus; i++) {
		const struct chk_gpu *g = &r->inv.gpus[i];
		json_object *row = json_object_new_object();
		char gname[16];
		snprintf(gname, sizeof(gname), "GPU%d", g->index);
		json_object_object_add(matrix, gname, row);
		enum chk_topo best = CHK_TOPO_UNKNOWN;
		const char *best_nic = "";
		for (int j = 0; j < r->inv.n_rdma; j++) {
			const struct chk_rdma_dev *d = &r->inv.rdma[j];
			if (!d->path[0])
				continue;
			enum chk_topo t = chk_topo_classify(g->path, g->numa, d->path, d->numa);
			json_object_object_add(row, d->name, json_object_new_string(chk_topo_name(t)));
			if (t < best) {
				best = t;
				best_nic = d->name;
			}
		}
		json_object *o = json_object_new_object();
		json_object_object_add(o, "gpu", json_object_new_int(g->index));
		json_object_object_add(o, "nic", json_object_new_string(best_nic));
		json_object_object_add(o, "class", json_object_new_string(chk_topo_name(best)));
		json_object_array_add(nearest, o);
		if (best > CHK_TOPO_PXB) {
			far++;
			str_appendf(far_list, sizeof(far_list), "%sGPU%d %s %s", far_list[0] ? ", " : "",
				    g->index, chk_topo_name(best), best_nic);
		}
	}
	struct chk_item *it;
	if (far) {
		it = chk_add(r, "topology", "topology.gdr", CHK_WARN, CHK_CLS_ENV, "GPU-NIC paths",
			     "%d of %d GPUs have no NIC at PIX/PXB: %s", far, r->inv.n_gpus, far_list);
		chk_note(it, "NCCL uses GPUDirect RDMA up to PXB by default (NCCL_NET_GDR_LEVEL); "
			 "these GPUs send through pinned host memory, which counts against "
			 "RLIMIT_MEMLOCK.");
		chk_fix(it, "Pair each GPU with a NIC under its switch, or accept the host path "
			"and size the memlock limit for it.");
	} else {
		chk_add(r, "topology", "topology.gdr", CHK_OK, CHK_CLS_ENV, "GPU-NIC paths",
			"every GPU has a NIC at PIX/PXB (%d GPUs, %d NICs)", r->inv.n_gpus, pci_nics);
	}
}

void check_topology_text(const struct chk_report *r, FILE *out)
{
	if (r->inv.n_gpus == 0)
		return;
	int w[CHK_MAX_RDMA], nn = 0;
	const struct chk_rdma_dev *cols[CHK_MAX_RDMA];
	for (int j = 0; j < r->inv.n_rdma; j++)
		if (r->inv.rdma[j].path[0]) {
			cols[nn] = &r->inv.rdma[j];
			int l = (int)strlen(esc(cols[nn]->name));
			w[nn++] = l < 5 ? 5 : l + 1;
		}
	if (!nn)
		return;
	fprintf(out, "  %-20s", "");
	for (int j = 0; j < nn; j++)
		fprintf(out, "%*s", w[j], esc(cols[j]->name));
	fprintf(out, "  NUMA\n");
	for (int i = 0; i < r->inv.n_gpus; i++) {
		const struct chk_gpu *g = &r->inv.gpus[i];
		char label[32];
		snprintf(label, sizeof(label), "GPU%d %s", g->index, g->bdf + 5);
		fprintf(out, "  %-20s", esc(label));  /* a BDF is a sysfs name */
		for (int j = 0; j < nn; j++)
			fprintf(out, "%*s", w[j], chk_topo_name(chk_topo_classify(
				g->path, g->numa, cols[j]->path, cols[j]->numa)));
		fprintf(out, "  %ld\n", g->numa);
	}
	fprintf(out, "  %-20s", "NIC NUMA");
	for (int j = 0; j < nn; j++)
		fprintf(out, "%*ld", w[j], cols[j]->numa);
	fprintf(out, "\n");
}
