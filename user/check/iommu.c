// SPDX-License-Identifier: GPL-2.0-only
/* iommu.c - is DMA from the NICs and GPUs translated by an IOMMU?
 *
 * Translation matters twice for registration: every MR is DMA-mapped
 * (dma_map_sgtable), which can run out of IOVA space (cause dma_map_iova),
 * and peer-to-peer traffic between a GPU and a NIC under one PCIe switch is
 * redirected up to the root complex when the switch ports have ACS
 * P2P Request/Completion Redirect enabled (GPUDirect slow or broken).
 * Passthrough (iommu=pt, group type "identity") or no IOMMU avoids both. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define ACS_CAP_ID 0x000d
#define ACS_RR (1u << 2)   /* P2P Request Redirect */
#define ACS_CR (1u << 3)   /* P2P Completion Redirect */

int chk_acs_from_config(const unsigned char *cfg, size_t len, unsigned *ctrl)
{
	/* Extended capabilities start at 0x100; unprivileged readers see
	 * only the first 64 bytes of config space. */
	if (len < 0x104)
		return -1;
	unsigned off = 0x100;
	for (int guard = 0; guard < 96 && off >= 0x100 && off + 8 <= len; guard++) {
		unsigned hdr = cfg[off] | cfg[off + 1] << 8 | cfg[off + 2] << 16 |
			       (unsigned)cfg[off + 3] << 24;
		if (hdr == 0 || hdr == 0xffffffffu)
			return 0;
		if ((hdr & 0xffff) == ACS_CAP_ID) {
			*ctrl = cfg[off + 6] | cfg[off + 7] << 8;
			return 1;
		}
		off = (hdr >> 20) & 0xffc;
	}
	return 0;
}

/* The cmdline words that decide the IOMMU mode. */
static void cmdline_words(const char *cmdline, json_object *o, char *summary, size_t len)
{
	static const char *const keys[] = { "iommu=", "intel_iommu=", "amd_iommu=",
					    "iommu.passthrough=", "iommu.strict=", NULL };
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", cmdline);
	summary[0] = '\0';
	char *save, *tok = strtok_r(buf, " \t\n", &save);
	for (; tok; tok = strtok_r(NULL, " \t\n", &save))
		for (int k = 0; keys[k]; k++)
			if (!strncmp(tok, keys[k], strlen(keys[k]))) {
				char key[32];
				snprintf(key, sizeof(key), "%.*s", (int)strlen(keys[k]) - 1, keys[k]);
				json_object_object_add(o, key, json_object_new_string(tok + strlen(keys[k])));
				str_appendf(summary, len, "%s%s", summary[0] ? " " : "", tok);
			}
}

static void group_type(const char *root, const char *bdf, char *group, size_t glen, char *type,
		       size_t tlen)
{
	char p[256];
	group[0] = type[0] = '\0';
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	if (sr_link_base(root, p, group, glen))
		return;
	snprintf(p, sizeof(p), "/sys/kernel/iommu_groups/%s/type", group);
	sr_read_line(root, p, type, tlen);
}

static bool translated(const char *type)
{
	return !strncmp(type, "DMA", 3);   /* "DMA", "DMA-FQ" */
}

/* ACS on the switch ports above a device (root port excluded: P2P that
 * crosses the root complex is not what GPUDirect under a switch uses). */
static void acs_above(struct chk_report *r, const char *path, json_object *acs, int *redirect,
		      int *unreadable, char *where, size_t wlen)
{
	char comp[512];
	snprintf(comp, sizeof(comp), "%s", path);
	/* path: /sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/<dev> */
	char *parts[16];
	int n = 0;
	char *save, *tok = strtok_r(comp, "/", &save);
	for (; tok && n < 16; tok = strtok_r(NULL, "/", &save))
		if (chk_is_bdf(tok))
			parts[n++] = tok;
	for (int i = 1; i < n - 1; i++) {
		char p[256];
		unsigned char cfg[4096];
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/config", parts[i]);
		if (json_object_object_get_ex(acs, parts[i], NULL))
			continue;
		int fd = sr_open(r->opt.root, p, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t got = read(fd, cfg, sizeof(cfg));
		close(fd);
		unsigned ctrl = 0;
		int k = chk_acs_from_config(cfg, got > 0 ? (size_t)got : 0, &ctrl);
		if (k < 0) {
			(*unreadable)++;
			json_object_object_add(acs, parts[i], NULL);
			continue;
		}
		json_object *o = json_object_new_object();
		json_object_object_add(o, "acs", json_object_new_boolean(k == 1));
		json_object_object_add(o, "p2p_redirect", json_object_new_boolean(k == 1 && (ctrl & (ACS_RR | ACS_CR))));
		json_object_object_add(o, "ctrl", k == 1 ? json_object_new_int((int)ctrl) : NULL);
		json_object_object_add(acs, parts[i], o);
		if (k == 1 && (ctrl & (ACS_RR | ACS_CR))) {
			if (!*redirect)
				snprintf(where, wlen, "%s", parts[i]);
			(*redirect)++;
		}
	}
}

void check_iommu(struct chk_report *r)
{
	const char *root = r->opt.root;
	json_object *sec = chk_section(r, "iommu");
	char cmdline[4096] = "", words[256];
	sr_read_line(root, "/proc/cmdline", cmdline, sizeof(cmdline));
	json_object *cl = json_object_new_object();
	cmdline_words(cmdline, cl, words, sizeof(words));
	json_object_object_add(sec, "cmdline", cl);

	char **hw;
	int nhw = sr_list(root, "/sys/class/iommu", &hw);
	json_object *hwa = json_object_new_array();
	for (int i = 0; i < nhw; i++)
		json_object_array_add(hwa, json_object_new_string(hw[i]));
	json_object_object_add(sec, "hardware", hwa);
	sr_free_names(hw, nhw);
	char **groups;
	int ngroups = sr_list(root, "/sys/kernel/iommu_groups", &groups);
	json_object_object_add(sec, "groups", json_object_new_int(ngroups > 0 ? ngroups : 0));

	/* Per device: the GPUs and RDMA NICs are what DMA matters for. */
	json_object *devs = json_object_new_array();
	json_object_object_add(sec, "devices", devs);
	int n_ident = 0, n_trans = 0, n_dev = 0;
	char example[96] = "";
	for (int i = 0; i < r->inv.n_gpus + r->inv.n_rdma; i++) {
		bool gpu = i < r->inv.n_gpus;
		const char *bdf = gpu ? r->inv.gpus[i].bdf : r->inv.rdma[i - r->inv.n_gpus].bdf;
		if (!bdf[0])
			continue;
		char name[64], group[16], type[24];
		if (gpu)
			snprintf(name, sizeof(name), "GPU%d", r->inv.gpus[i].index);
		else
			snprintf(name, sizeof(name), "%s", r->inv.rdma[i - r->inv.n_gpus].name);
		group_type(root, bdf, group, sizeof(group), type, sizeof(type));
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "pci", json_object_new_string(bdf));
		chk_json_str(o, "group", group);
		chk_json_str(o, "type", type);
		json_object_array_add(devs, o);
		n_dev++;
		if (translated(type)) {
			if (!n_trans)
				snprintf(example, sizeof(example), "%s (%s) group %s %s", name, bdf, group, type);
			n_trans++;
		} else if (!strcmp(type, "identity"))
			n_ident++;
	}
	/* No GPU/NIC to look at (a VM with rxe): judge by any group's type. */
	if (n_dev == 0)
		for (int i = 0; i < ngroups; i++) {
			char p[256], type[24] = "";
			snprintf(p, sizeof(p), "/sys/kernel/iommu_groups/%s/type", groups[i]);
			sr_read_line(root, p, type, sizeof(type));
			n_trans += translated(type);
			n_ident += !strcmp(type, "identity");
		}
	sr_free_names(groups, ngroups);

	const char *mode = (nhw <= 0 && ngroups <= 0) ? "off" :
			   n_trans && n_ident ? "mixed" : n_trans ? "translated" :
			   n_ident ? "passthrough" : ngroups > 0 ? "unknown" : "off";
	json_object_object_add(sec, "mode", json_object_new_string(mode));

	struct chk_item *it;
	if (!strcmp(mode, "translated") || !strcmp(mode, "mixed")) {
		it = chk_add(r, "iommu", "iommu.mode", CHK_WARN, CHK_CLS_ENV, "mode",
			     "%s: %s%s%s", mode, example, words[0] ? "; cmdline " : "", words);
		chk_note(it, "DMA from these devices is translated: every MR is mapped into IOVA "
			 "space (ENOMEM when it runs out: cause dma_map_iova) and GPU-NIC "
			 "peer-to-peer goes through the IOMMU.");
		chk_fix(it, "Boot with iommu=pt (plus intel_iommu=on or amd_iommu=on as the "
			"platform needs) for identity mapping of host devices.");
	} else {
		chk_add(r, "iommu", "iommu.mode", !strcmp(mode, "unknown") ? CHK_UNKNOWN : CHK_OK,
			CHK_CLS_ENV, "mode", "%s%s%s%s", mode,
			!strcmp(mode, "off") ? " (no IOMMU groups)" : "",
			words[0] ? "; cmdline " : "", words);
	}

	/* ACS only matters where a GPU and a NIC share a switch. */
	if (r->inv.n_gpus == 0)
		return;
	json_object *acs = json_object_new_object();
	json_object_object_add(sec, "acs", acs);
	int redirect = 0, unreadable = 0;
	char where[32] = "";
	for (int i = 0; i < r->inv.n_gpus; i++)
		acs_above(r, r->inv.gpus[i].path, acs, &redirect, &unreadable, where, sizeof(where));
	for (int i = 0; i < r->inv.n_rdma; i++)
		if (r->inv.rdma[i].path[0])
			acs_above(r, r->inv.rdma[i].path, acs, &redirect, &unreadable, where, sizeof(where));
	if (redirect) {
		it = chk_add(r, "iommu", "iommu.acs", CHK_WARN, CHK_CLS_ENV, "PCIe ACS",
			     "P2P redirect enabled on %d switch port%s (first: %s)", redirect,
			     redirect == 1 ? "" : "s", where);
		chk_note(it, "GPU-NIC traffic under the switch is sent up to the root complex: "
			 "GPUDirect RDMA becomes slow or hangs.");
		chk_fix(it, "Disable ACS redirect on the switch ports (BIOS option, or at boot "
			"setpci -s <port> ECAP_ACS+0x6.w=0000); lspci -vvv shows ACSCtl.");
	} else if (unreadable) {
		chk_add(r, "iommu", "iommu.acs", CHK_UNKNOWN, CHK_CLS_ENV, "PCIe ACS",
			"config space of %d switch port%s unreadable (run as root)", unreadable,
			unreadable == 1 ? "" : "s");
	} else {
		chk_add(r, "iommu", "iommu.acs", CHK_OK, CHK_CLS_ENV, "PCIe ACS",
			"no P2P redirect on the switch ports above GPUs and NICs");
	}
}
