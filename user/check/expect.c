// SPDX-License-Identifier: GPL-2.0-only
/* expect.c - whether RDMA is expected on this node (expect.h). */
#include "check/expect.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "core/sysroot.h"

struct chk_rdma_expect chk_rdma_expect_opts;

int chk_rdma_expect_parse(const char *spec, struct chk_rdma_expect *e, char *bad, size_t len)
{
	char list[sizeof(e->selectors)], *save, *w;

	e->rule = CHK_RDMA_AUTO;
	e->selectors[0] = 0;
	if (!strcmp(spec, "auto"))
		return 0;
	if (!strcmp(spec, "yes")) {
		e->rule = CHK_RDMA_YES;
		return 0;
	}
	if (!strcmp(spec, "no")) {
		e->rule = CHK_RDMA_NO;
		return 0;
	}
	if (strlen(spec) >= sizeof(list)) {
		snprintf(bad, len, "%.40s...", spec);
		return -1;
	}
	snprintf(list, sizeof(list), "%s", spec);
	for (w = strtok_r(list, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
		if ((strncmp(w, "partition:", 10) || !w[10]) && (strncmp(w, "feature:", 8) || !w[8])) {
			snprintf(bad, len, "%s", w);
			return -1;
		}
	snprintf(e->selectors, sizeof(e->selectors), "%s", spec);
	return 0;
}

/* A network function of these vendors is an RDMA NIC: every NIC they make
 * does RDMA (InfiniBand or RoCE, iWARP), so its presence is an expectation
 * even before the driver loads.  Vendors that also sell plain Ethernet NICs
 * (Broadcom, Intel) are left to /sys/class/infiniband and require-rdma. */
static bool rdma_vendor(uint64_t vendor, uint64_t device)
{
	switch (vendor) {
	case 0x15b3: return true;                                   /* Mellanox / NVIDIA ConnectX, BlueField */
	case 0x1425: return true;                                   /* Chelsio T4+ (iWARP) */
	case 0x434e: return true;                                   /* Cornelis Omni-Path */
	case 0x1d0f: return (device & 0xfff0) == 0xefa0;            /* Amazon EFA (not ENA) */
	default: return false;
	}
}

/* The first RDMA PCI function: "0000:18:00.0"; false when none. */
static bool rdma_pci(const char *root, char *bdf, size_t len)
{
	char **names;
	int n = sr_list(root, "/sys/bus/pci/devices", &names);
	bool found = false;

	for (int i = 0; i < n && !found; i++) {
		char p[320];
		uint64_t cls = 0, vendor = 0, device = 0;
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/class", names[i]);
		if (sr_read_u64(root, p, &cls))
			continue;
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", names[i]);
		sr_read_u64(root, p, &vendor);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", names[i]);
		sr_read_u64(root, p, &device);
		/* 0x0207 InfiniBand controller, 0x0208 fabric controller (Omni-Path);
		 * 0x02xx network controllers of an RDMA vendor */
		found = (cls >> 8) == 0x0207 || (cls >> 8) == 0x0208 ||
			((cls >> 16) == 0x02 && rdma_vendor(vendor, device));
		if (found)
			snprintf(bdf, len, "%s %04llx", names[i], (unsigned long long)vendor);
	}
	sr_free_names(names, n);
	return found;
}

/* Does a comma-separated list hold a word matching the pattern? */
static bool list_matches(const char *list, const char *pattern)
{
	char buf[256], *save, *w;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
		if (!fnmatch(pattern, w, 0))
			return true;
	return false;
}

/* The first selector the job or the node matches, as "partition gpu". */
static bool selected(const struct chk_rdma_expect *e, char *what, size_t len)
{
	char list[sizeof(e->selectors)], *save, *w;

	snprintf(list, sizeof(list), "%s", e->selectors);
	for (w = strtok_r(list, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		if (!strncmp(w, "partition:", 10) && e->partition[0] && !fnmatch(w + 10, e->partition, 0)) {
			snprintf(what, len, "partition %s", e->partition);
			return true;
		}
		if (!strncmp(w, "feature:", 8) && list_matches(e->features, w + 8)) {
			snprintf(what, len, "feature %s", w + 8);
			return true;
		}
	}
	return false;
}

bool chk_rdma_expected(const struct chk_report *r, const struct chk_rdma_expect *e, char *why,
		       size_t len)
{
	char what[128];

	switch (e->rule) {
	case CHK_RDMA_YES:
		snprintf(why, len, "require-rdma=yes");
		return true;
	case CHK_RDMA_NO:
		snprintf(why, len, "require-rdma=no");
		return false;
	case CHK_RDMA_AUTO:
		break;
	}
	if (r->inv.n_rdma > 0) {
		snprintf(why, len, "RDMA hardware: %s", r->inv.rdma[0].name);
		return true;
	}
	if (rdma_pci(r->opt.root, what, sizeof(what))) {
		snprintf(why, len, "RDMA hardware: PCI %s", what);
		return true;
	}
	if (e->selectors[0] && selected(e, what, sizeof(what))) {
		snprintf(why, len, "require-rdma: %s", what);
		return true;
	}
	snprintf(why, len, "no RDMA hardware");
	return false;
}

void chk_rdma_na_text(const char *why, char *out, size_t len)
{
	if (!strcmp(why, "no RDMA hardware"))
		snprintf(out, len, "no RDMA on this node");
	else
		snprintf(out, len, "RDMA not expected on this node (%s)", why);
}

void chk_rdma_na_apply(struct chk_report *r)
{
	char why[120];
	if (chk_rdma_expected(r, &chk_rdma_expect_opts, why, sizeof(why)))
		return;
	r->rdma_na = true;
	chk_rdma_na_text(why, r->rdma_na_text, sizeof(r->rdma_na_text));
	for (int i = 0; i < r->n_items; i++) {
		struct chk_item *it = &r->items[i];
		if (it->verdict != CHK_WARN && it->verdict != CHK_FAIL)
			continue;
		char v[sizeof(it->value)];
		snprintf(v, sizeof(v), "n/a, %.60s: %.180s", r->rdma_na_text, it->value);
		snprintf(it->value, sizeof(it->value), "%s", v);
		it->verdict = CHK_OK;
	}
}
