// SPDX-License-Identifier: GPL-2.0-only
/* peermarkers.c - the peer-memory marker files NCCL tests, and whether the
 * NCCL a job maps finds one (gpudirect.peer_markers, gpudirect.nccl_peermem).
 *
 * NCCL offers GPUDirect RDMA through a peer-memory client only when a marker
 * file exists, and which files it tests depends on its release
 * (nccl/gdrmarkers.c): up to 2.22.3 not /sys/module/nvidia_peermem/version,
 * so where nvidia_peermem is loaded and its ib_core publishes no
 * memory_peers/nv_mem, such an NCCL turns GPUDirect RDMA off without an
 * error, unless dma-buf carries it.  Why nvidia_peermem is not loaded at all
 * is in the kernel log (klog.c): built against another ib_core ("disagrees
 * about version of symbol ib_register_peer_memory_client"), or no
 * peer-memory API ("Unknown symbol"). */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "nccl/nccl.h"
#include "proc/gpu_facts.h"
#include "verdict/names.h"

#include <string.h>

static const char *const marker_names[NCCL_PEER_MARKERS] = {
	"nv_mem", "nv_mem_nc", "nvidia-peermem", "nvidia_peermem_module",
};

struct markers {
	unsigned present;                       /* NCCL_PEER_* found on the node */
	char version[NCCL_PEER_MARKERS][32];
	struct chk_klog log;                    /* nvidia_peermem's load errors */
};

/* "/sys/kernel/mm/memory_peers/nv_mem/version, .../nvidia-peermem/version" */
static void paths(unsigned set, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < NCCL_PEER_MARKERS; i++)
		if (set & (1u << i))
			str_appendf(buf, len, "%s%s", buf[0] ? ", " : "", nccl_peer_marker_path(1u << i));
}

static void read_markers(const char *root, struct markers *m)
{
	static const char *const mods[] = { "nvidia_peermem", "nvidia-peermem", "nv_peer_mem", NULL };

	memset(m, 0, sizeof(*m));
	for (int i = 0; i < NCCL_PEER_MARKERS; i++) {
		const char *p = nccl_peer_marker_path(1u << i);
		if (!sr_exists(root, p))
			continue;
		m->present |= 1u << i;
		sr_read_line(root, p, m->version[i], sizeof(m->version[i]));
	}
	chk_klog_module_errors(root, mods, &m->log);
}

static void markers_json(json_object *peer, const struct markers *m)
{
	json_object *a = json_object_new_array();
	for (int i = 0; i < NCCL_PEER_MARKERS; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(marker_names[i]));
		json_object_object_add(o, "path", json_object_new_string(nccl_peer_marker_path(1u << i)));
		json_object_object_add(o, "present", json_object_new_boolean(m->present & (1u << i)));
		chk_json_str(o, "version", m->version[i]);
		json_object_array_add(a, o);
	}
	json_object_object_add(peer, "markers", a);
	a = json_object_new_array();
	for (int i = 0; i < m->log.n; i++)
		json_object_array_add(a, json_object_new_string(m->log.lines[i]));
	json_object_object_add(peer, "load_errors", a);
	json_object_object_add(peer, "kernel_log_error", m->log.error ?
			       json_object_new_string(errno_name(-m->log.error)) : NULL);
}

/* gpudirect.peer_markers: what is there, and why nvidia_peermem is not */
static void markers_item(struct chk_report *r, const struct gpu_facts *f, const struct markers *m,
			 const struct gpu_dmabuf_state *d, bool job_judged)
{
	char v[256] = "";
	for (int i = 0; i < NCCL_PEER_MARKERS; i++)
		if (m->present & (1u << i))
			str_appendf(v, sizeof(v), "%s%s%s%s", v[0] ? ", " : "",
				    (1u << i) == NCCL_PEER_MODULE ? "nvidia_peermem module" : marker_names[i],
				    m->version[i][0] ? " " : "", m->version[i]);
	if (!v[0])
		str_appendf(v, sizeof(v), "none");
	if (f->nvidia_peermem && !(m->present & NCCL_PEER_MODULE))
		str_appendf(v, sizeof(v), "; nvidia_peermem loaded (no version file)");
	bool dmabuf_ok = !d->blocked && !d->unknown;
	bool failed = !f->nvidia_peermem && m->log.n;
	/* the line that says why: a symbol version mismatch over the "Unknown
	 * symbol" the loader prints after it, else the newest */
	const char *why = m->log.n ? m->log.lines[m->log.n - 1] : "";
	for (int i = 0; i < m->log.n; i++)
		if (strstr(m->log.lines[i], "disagrees about version"))
			why = m->log.lines[i];
	bool symver = strstr(why, "disagrees about version") != NULL;
	if (failed)
		str_appendf(v, sizeof(v), "; nvidia_peermem did not load: %s", why);
	else if (!f->nvidia_peermem && m->log.error)
		str_appendf(v, sizeof(v), "; nvidia_peermem not loaded, kernel log not read (%s)",
			    errno_name(-m->log.error));
	/* only the module's marker: what NCCL up to 2.22.3 cannot see */
	bool module_only = (m->present & NCCL_PEER_MODULE) && !(m->present & ~NCCL_PEER_MODULE);

	enum chk_verdict verdict = CHK_OK;
	if (!dmabuf_ok && (failed || (module_only && !job_judged)))
		verdict = d->blocked ? CHK_WARN : CHK_UNKNOWN;
	struct chk_item *it = chk_add(r, "gpudirect", "gpudirect.peer_markers", verdict, CHK_CLS_ENV,
				      "peer-memory markers", "%s", v);
	if (failed) {
		chk_note(it, "%s", symver
			 ? "nvidia_peermem was built against another ib_core than the one loaded: its "
			   "ib_register_peer_memory_client has another symbol version (MLNX_OFED/DOCA-OFED "
			   "installed or updated after the NVIDIA driver)."
			 : "nvidia_peermem needs the peer-memory API of MLNX_OFED/DOCA-OFED's ib_core "
			   "(ib_register_peer_memory_client), which this kernel's ib_core does not have "
			   "or exports differently.");
		chk_fix(it, "%s", symver
			? "Rebuild the NVIDIA driver's kernel modules against the installed "
			  "MLNX_OFED/DOCA-OFED (reinstall the driver, or `dkms autoinstall`), then "
			  "`modprobe nvidia-peermem`; or use dma-buf, which needs no peer-memory module."
			: "Install MLNX_OFED/DOCA-OFED and rebuild the NVIDIA driver's modules against "
			  "it, or use dma-buf (inbox kernels 5.12+, the open NVIDIA kernel modules).");
	} else if (verdict != CHK_OK) {
		chk_note(it, "nvidia_peermem is loaded, but its ib_core publishes no "
			 "/sys/kernel/mm/memory_peers/nv_mem: NCCL up to 2.22.3 looks only there (and "
			 "for memory_peers/nvidia-peermem or nv_mem_nc), not for "
			 "/sys/module/nvidia_peermem/version, and without dma-buf runs without "
			 "GPUDirect RDMA. `mrtrace check -p PID` says it for a job's NCCL.");
		chk_fix(it, "NCCL 2.23.4 or newer, or dma-buf (NCCL_DMABUF_ENABLE not 0) where the "
			"kernel and driver allow it.");
	}
}

/* gpudirect.nccl_peermem: the job's NCCL against the markers */
static void nccl_item(struct chk_report *r, json_object *peer, const struct markers *m,
		      const struct gpu_dmabuf_state *d, const char *missing)
{
	const struct nccl_lib *lib = &r->nccl->lib;
	json_object *o = json_object_new_object();
	json_object_object_add(peer, "nccl", o);
	chk_json_str(o, "version", lib->version_known ? lib->version : "");
	chk_json_str(o, "net_plugin", lib->net_plugin);

	if (!lib->version_known) {
		json_object_object_add(o, "gdr", json_object_new_string("unknown"));
		chk_add(r, "gpudirect", "gpudirect.nccl_peermem", CHK_UNKNOWN, CHK_CLS_ENV, "NCCL peer memory",
			"version of %s not read: the markers it looks for are unknown", lib->path);
		return;
	}
	unsigned want = nccl_peer_markers(lib), found = want & m->present;
	json_object *a = json_object_new_array(), *b = json_object_new_array();
	for (int i = 0; i < NCCL_PEER_MARKERS; i++) {
		if (want & (1u << i))
			json_object_array_add(a, json_object_new_string(nccl_peer_marker_path(1u << i)));
		if (found & (1u << i))
			json_object_array_add(b, json_object_new_string(nccl_peer_marker_path(1u << i)));
	}
	json_object_object_add(o, "looks_for", a);
	json_object_object_add(o, "finds", b);

	bool dmabuf_ok = !d->blocked && !d->unknown;
	const char *gdr = found ? (dmabuf_ok ? "dmabuf" : "peermem") : dmabuf_ok ? "dmabuf" :
			  d->blocked ? "off" : "unknown";
	/* a net plugin (HPC-X's, aws-ofi-nccl) replaces the IB transport and
	 * its test: NCCL's own list says nothing then */
	if (lib->net_plugin[0])
		gdr = "unknown";
	json_object_object_add(o, "gdr", json_object_new_string(gdr));

	char looks[320], fnd[160];
	paths(want, looks, sizeof(looks));
	paths(found, fnd, sizeof(fnd));
	struct chk_item *it;
	if (lib->net_plugin[0]) {
		chk_add(r, "gpudirect", "gpudirect.nccl_peermem", CHK_UNKNOWN, CHK_CLS_ENV, "NCCL peer memory",
			"NCCL %s uses the net plugin %s, which decides GPUDirect RDMA itself (NCCL's own "
			"transport looks for %s)", lib->version, lib->net_plugin, looks);
		return;
	}
	if (found) {
		chk_add(r, "gpudirect", "gpudirect.nccl_peermem", CHK_OK, CHK_CLS_ENV, "NCCL peer memory",
			"NCCL %s finds %s%s", lib->version, fnd, dmabuf_ok ? " (and uses dma-buf first)" : "");
		return;
	}
	const char *module = m->present & NCCL_PEER_MODULE ? "nvidia_peermem is loaded, but " : "";
	if (dmabuf_ok) {
		chk_add(r, "gpudirect", "gpudirect.nccl_peermem", CHK_OK, CHK_CLS_ENV, "NCCL peer memory",
			"%sNCCL %s finds no marker it looks for; GPUDirect RDMA goes through dma-buf",
			module, lib->version);
		return;
	}
	it = chk_add(r, "gpudirect", "gpudirect.nccl_peermem", d->blocked ? CHK_WARN : CHK_UNKNOWN, CHK_CLS_ENV,
		     "NCCL peer memory", "GPUDirect RDMA %s for this NCCL (%s looks only for %s)",
		     d->blocked ? "will be off" : "may be off", lib->version, looks);
	chk_note(it, "%sNCCL %s tests only those files before it offers GPUDirect RDMA through a "
		 "peer-memory client, and finds none; dma-buf is %s. NCCL then stages network "
		 "traffic through pinned host memory without an error (NCCL_DEBUG=INFO prints "
		 "\"GPU Direct RDMA Disabled\"): an order of magnitude slower, and the buffers count "
		 "against RLIMIT_MEMLOCK.", module, lib->version,
		 d->blocked ? "not available either" : "unknown");
	if (m->present & NCCL_PEER_MODULE)
		chk_fix(it, "Use NCCL 2.23.4 or newer, which also looks for /sys/module/nvidia_peermem/"
			"version; or dma-buf where the kernel and driver allow it (missing: %s; "
			"NCCL_DMABUF_ENABLE not 0).", missing[0] ? missing : "unknown");
	else
		chk_fix(it, "Load the NVIDIA peer-memory client where the kernel has the API "
			"(`modprobe nvidia-peermem`, see gpudirect.peermem), or use dma-buf where the "
			"kernel and driver allow it (missing: %s; NCCL_DMABUF_ENABLE not 0).",
			missing[0] ? missing : "unknown");
}

void check_peer_markers(struct chk_report *r, const struct gpu_facts *f, const struct gpu_dmabuf_state *d,
			const char *missing, json_object *peer, bool items)
{
	struct markers m;
	read_markers(r->opt.root, &m);
	markers_json(peer, &m);
	if (!items)
		return;
	bool job = r->have_target && r->nccl && r->nccl->lib.found;
	markers_item(r, f, &m, d, job && r->nccl->lib.version_known);
	if (job)
		nccl_item(r, peer, &m, d, missing);
}
