// SPDX-License-Identifier: GPL-2.0-only
/* inventory.c - find the GPUs and RDMA devices once; the RDMA, GPUDirect,
 * IOMMU and topology areas all reason about the same list. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "drivers/driver.h"
#include "proc/gpu_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "0000:18:00.0" */
bool chk_is_bdf(const char *s)
{
	unsigned d, b, dev, f;
	char tail;
	return s && strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &dev, &f, &tail) == 4;
}

static void scan_gpus(struct chk_report *r)
{
	const char *root = r->opt.root;
	char **names;
	int n = gpu_pci_list(root, &names); /* the GPUs watch's facts count too */

	for (int i = 0; i < n; i++) {
		char p[512];
		uint64_t dev = 0;
		if (r->inv.n_gpus == CHK_MAX_GPUS) {
			r->inv.gpus_dropped++;
			continue;
		}
		struct chk_gpu *g = &r->inv.gpus[r->inv.n_gpus];
		memset(g, 0, sizeof(*g));
		g->index = r->inv.n_gpus++;
		snprintf(g->bdf, sizeof(g->bdf), "%s", names[i]);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s", names[i]);
		if (sr_realpath(root, p, g->path, sizeof(g->path)))
			g->path[0] = '\0';
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/numa_node", names[i]);
		if (sr_read_int(root, p, &g->numa))
			g->numa = -1;
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", names[i]);
		if (!sr_read_u64(root, p, &dev))
			snprintf(g->device_id, sizeof(g->device_id), "%04llx", (unsigned long long)dev);
	}
	sr_free_names(names, n);
}

/* Software devices have no PCI parent; name the driver from what they show. */
static void soft_driver(const char *root, struct chk_rdma_dev *d)
{
	char p[512], desc[64] = "";
	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/node_desc", d->name);
	sr_read_line(root, p, desc, sizeof(desc));
	const struct rdma_driver *soft = rdma_driver_soft(d->name, desc);
	if (soft)
		snprintf(d->driver, sizeof(d->driver), "%s", soft->modules[0]);
}

static void scan_rdma(struct chk_report *r)
{
	const char *root = r->opt.root;
	char **names;
	int n = sr_list(root, "/sys/class/infiniband", &names);
	r->inv.sysfs_infiniband = n >= 0;
	if (n > CHK_MAX_RDMA)
		r->inv.rdma_dropped = n - CHK_MAX_RDMA;
	for (int i = 0; i < n && r->inv.n_rdma < CHK_MAX_RDMA; i++) {
		struct chk_rdma_dev *d = &r->inv.rdma[r->inv.n_rdma++];
		char p[512], real[512];
		memset(d, 0, sizeof(*d));
		d->numa = -1;
		snprintf(d->name, sizeof(d->name), "%s", names[i]);

		snprintf(p, sizeof(p), "/sys/class/infiniband/%s/device", d->name);
		if (!sr_realpath(root, p, real, sizeof(real))) {
			const char *b = strrchr(real, '/');
			if (b && chk_is_bdf(b + 1)) {
				snprintf(d->bdf, sizeof(d->bdf), "%s", b + 1);
				snprintf(d->path, sizeof(d->path), "%s", real);
			}
			snprintf(p, sizeof(p), "/sys/class/infiniband/%s/device/numa_node", d->name);
			if (sr_read_int(root, p, &d->numa))
				d->numa = -1;
			snprintf(p, sizeof(p), "/sys/class/infiniband/%s/device/driver", d->name);
			sr_link_base(root, p, d->driver, sizeof(d->driver));
		} else {
			soft_driver(root, d);
		}
		/* RoCE: the netdev behind GID 0 of port 1; rxe also names it
		 * in "parent". */
		snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", d->name);
		if (sr_read_line(root, p, d->netdev, sizeof(d->netdev))) {
			snprintf(p, sizeof(p), "/sys/class/infiniband/%s/parent", d->name);
			if (sr_read_line(root, p, d->netdev, sizeof(d->netdev)))
				d->netdev[0] = '\0';
		}
	}
	sr_free_names(names, n);
}

void chk_inventory_scan(struct chk_report *r)
{
	scan_gpus(r);
	scan_rdma(r);
}
