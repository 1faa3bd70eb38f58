// SPDX-License-Identifier: GPL-2.0-only
/* facts_json.c - GPU-memory, /dev/shm-owner and CMA facts as evidence, and
 * back (see facts_json.h, docs/json.md). */
#include "proc/facts_json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nccl/nccl.h"

static void put_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

static void put_u64(struct json_object *o, const char *k, unsigned long long v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void put_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void put_tri(struct json_object *o, const char *k, enum gpu_tri t)
{
	json_object_object_add(o, k, t == GPU_UNKNOWN ? NULL : json_object_new_boolean(t == GPU_YES));
}

static struct json_object *gpu_to_json(const struct gpu_facts *f)
{
	struct json_object *o = json_object_new_object(), *a;

	put_tri(o, "peer_memory_api", f->peer_api);
	if (f->memory_peers_dir) {
		a = json_object_new_array();
		for (int i = 0; i < f->n_peers; i++)
			json_object_array_add(a, json_object_new_string(f->peers[i]));
		json_object_object_add(o, "memory_peers", a);
	} else {
		json_object_object_add(o, "memory_peers", NULL); /* no such directory */
	}
	put_bool(o, "nvidia_peermem", f->nvidia_peermem);
	put_str(o, "nvidia_peermem_version", f->peermem_version);
	put_bool(o, "nv_peer_mem", f->nv_peer_mem);
	put_str(o, "kernel", f->kernel);
	put_tri(o, "kernel_dmabuf", f->kernel_dmabuf);
	put_str(o, "kernel_dmabuf_evidence", f->kernel_dmabuf_how);
	a = json_object_new_array();
	for (int i = 0; i < f->n_nics; i++) {
		struct json_object *n = json_object_new_object();
		put_str(n, "name", f->nics[i].name);
		put_str(n, "driver", f->nics[i].driver);
		put_tri(n, "dmabuf", f->nics[i].dmabuf);
		json_object_array_add(a, n);
	}
	json_object_object_add(o, "nics", a);
	put_bool(o, "nvidia_driver_loaded", f->nvidia_driver);
	put_str(o, "nvidia_driver", f->driver_version);
	put_tri(o, "nvidia_open_module", f->open_module);
	json_object_object_add(o, "gpus", json_object_new_int(f->n_gpus));
	a = json_object_new_array();
	for (int i = 0; i < f->n_gpus_kept; i++) {
		const struct gpu_dev *g = &f->gpus[i];
		struct json_object *d = json_object_new_object();
		put_str(d, "pci", g->bdf);
		put_str(d, "device_id", g->device_id);
		put_str(d, "model", g->model);
		put_bool(d, "consumer", g->consumer);
		if (g->bar1_bytes)
			put_u64(d, "bar1_bytes", g->bar1_bytes);
		if (g->have_nvml) {
			put_u64(d, "nvml_bar1_total_bytes", g->nvml_bar1_total);
			put_u64(d, "nvml_bar1_used_bytes", g->nvml_bar1_used);
			put_u64(d, "nvml_memory_bytes", g->nvml_memory_total);
		}
		json_object_array_add(a, d);
	}
	json_object_object_add(o, "devices", a);
	put_str(o, "libcuda", f->libcuda);
	put_str(o, "cuda_driver", f->cuda_driver);
	if (f->dmabuf_fd_size) {
		put_u64(o, "dmabuf_fd_size", f->dmabuf_fd_size);
		put_str(o, "dmabuf_exporter", f->dmabuf_exporter);
	}
	if (f->probe.seen) {
		struct json_object *p = json_object_new_object();
		json_object_object_add(p, "errno", json_object_new_int(f->probe.err));
		put_str(p, "errno_name", strerrorname_np(f->probe.err));
		put_u64(p, "ts_ns", f->probe.ts_ns);
		json_object_object_add(o, "dmabuf_probe", p);
	}
	return o;
}

/* evidence.gates, made when the record's own writer made none (a
 * registration has no gates of its own) */
static struct json_object *gates_of(struct json_object *evidence)
{
	struct json_object *gates;

	if (!json_object_object_get_ex(evidence, "gates", &gates) || !gates) {
		gates = json_object_new_object();
		json_object_object_add(evidence, "gates", gates);
	}
	return gates;
}

static void shm_to_json(struct json_object *evidence, const struct gate_facts *g)
{
	if (g->shm_owner == GATE_SHM_UNKNOWN && !g->shm_dev)
		return;
	struct json_object *gates = gates_of(evidence);
	put_str(gates, "shm_owner", gates_shm_owner_name(g->shm_owner));
	put_str(gates, "shm_source", g->shm_source);
	put_str(gates, "shm_options", g->shm_options);
	put_u64(gates, "shm_dev", g->shm_dev);
	if (g->host_shm_dev)
		put_u64(gates, "host_shm_dev", g->host_shm_dev);
	if (g->shm_mntns)
		put_u64(gates, "shm_mntns", g->shm_mntns);
	if (g->host_mntns)
		put_u64(gates, "host_mntns", g->host_mntns);
}

static const char *cma_state_name(enum cma_state s)
{
	return s == CMA_STATE_HIDDEN ? "hidden" : s == CMA_STATE_ORDINARY ? "ordinary" : "unknown";
}

/* evidence.gates.cma: the numbers as read (pageblocks, order, page size,
 * kB of meminfo as bytes), so a replay judges what the failure had; the
 * byte counts and "state" beside them are derived, for people and jq. */
static void cma_to_json(struct json_object *evidence, const struct cma_facts *c)
{
	if (!c->read)
		return;
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	json_object_object_add(gates_of(evidence), "cma", o);
	put_str(o, "state", cma_state_name(cma_facts_state(c)));
	json_object_object_add(o, "pagetypeinfo_errno", c->pti_error ? json_object_new_int(-c->pti_error) : NULL);
	put_str(o, "pagetypeinfo_error", c->pti_error ? strerrorname_np(-c->pti_error) : NULL);
	put_bool(o, "cma_column", c->cma_column);
	put_u64(o, "pageblock_order", c->order);
	put_u64(o, "pages_per_block", c->pages_per_block);
	put_u64(o, "page_size_bytes", c->page_size);
	put_u64(o, "pageblock_bytes", cma_facts_pageblock_bytes(c));
	put_u64(o, "cma_pageblocks", c->cma_blocks);
	put_u64(o, "cma_pageblock_bytes", cma_facts_bytes(c, -1));
	for (int i = 0; i < c->n_zones; i++) {
		struct json_object *z = json_object_new_object();
		json_object_object_add(z, "node", json_object_new_int(c->zones[i].node));
		put_str(z, "zone", c->zones[i].zone);
		put_u64(z, "cma_pageblocks", c->zones[i].blocks);
		put_u64(z, "cma_pageblock_bytes", cma_facts_bytes(c, i));
		json_object_array_add(a, z);
	}
	json_object_object_add(o, "zones", a);
	put_u64(o, "zones_dropped", c->zones_dropped);
	json_object_object_add(o, "cma_total_bytes", c->have_cma_total ?
			       json_object_new_uint64(c->cma_total_kb * 1024) : NULL);
	json_object_object_add(o, "cma_free_bytes", c->have_cma_total ?
			       json_object_new_uint64(c->cma_free_kb * 1024) : NULL);
}

/* evidence.gates.vma_file: the file mapped where an fs-dax pin was refused
 * (the kernel's device, inode and name; the maps' path while the process
 * lived) and its mount, as read at the failure. */
static void vma_file_to_json(struct json_object *evidence, const struct vma_file *f)
{
	if (!f->read && !f->maps_error)
		return; /* not asked for */
	struct json_object *o = json_object_new_object();
	json_object_object_add(gates_of(evidence), "vma_file", o);
	put_bool(o, "read", f->read);
	put_bool(o, "from_kernel", f->from_kernel);
	put_str(o, "name", f->name[0] ? f->name : NULL);
	put_str(o, "path", f->path[0] ? f->path : NULL);
	if (!f->path[0]) {
		json_object_object_add(o, "maps_errno", json_object_new_int(f->maps_error));
		put_str(o, "maps_error", strerrorname_np(f->maps_error));
	} else {
		put_u64(o, "start", f->start);
		put_u64(o, "end", f->end);
	}
	if (!f->read)
		return;
	put_u64(o, "major", f->major);
	put_u64(o, "minor", f->minor);
	put_u64(o, "ino", f->ino);
	if (!f->mount_found)
		return;
	struct json_object *m = json_object_new_object();
	json_object_object_add(o, "mount", m);
	put_str(m, "table", f->host_table ? "host" : "process");
	put_str(m, "point", f->mount_point);
	put_str(m, "fstype", f->fstype);
	put_str(m, "source", f->source);
	put_str(m, "options", f->options);
	put_bool(m, "dax", f->dax);
}

void facts_evidence_add(struct json_object *evidence, const struct gate_facts *g,
			const struct nccl_info *nccl)
{
	if (!evidence || !g)
		return;
	shm_to_json(evidence, g);
	cma_to_json(evidence, &g->cma);
	vma_file_to_json(evidence, &g->vma_file);
	if (!g->gpu.have)
		return;
	const struct gpu_facts *f = &g->gpu;
	struct gpu_dmabuf_state d;
	gpu_dmabuf_judge(f, nccl, &d);
	put_str(evidence, "peer_memory", gpu_peer_name(gpu_peer_state(f)));
	put_str(evidence, "dmabuf", gpu_dmabuf_name(&d));
	struct json_object *b = json_object_new_array();
	for (int i = 0; i < GPU_DMABUF_BLOCKS; i++)
		if (d.blocked & (1u << i))
			json_object_array_add(b, json_object_new_string(gpu_dmabuf_block_name(1u << i)));
	json_object_object_add(evidence, "dmabuf_blocked", b);
	int i = gpu_fullest_bar1(f);
	if (i >= 0) {
		put_str(evidence, "bar1_gpu", f->gpus[i].bdf);
		put_u64(evidence, "bar1_total_bytes", f->gpus[i].nvml_bar1_total);
		put_u64(evidence, "bar1_used_bytes", f->gpus[i].nvml_bar1_used);
	}
	json_object_object_add(evidence, "gpu", gpu_to_json(f));
}

/* ---- back ------------------------------------------------------------------------ */

static struct json_object *member(struct json_object *o, const char *k, json_type t)
{
	struct json_object *x;
	return o && json_object_object_get_ex(o, k, &x) && x && json_object_is_type(x, t) ? x : NULL;
}

static void get_str(struct json_object *o, const char *k, char *buf, size_t len)
{
	struct json_object *x = member(o, k, json_type_string);
	if (x)
		snprintf(buf, len, "%s", json_object_get_string(x));
}

static bool get_bool(struct json_object *o, const char *k)
{
	struct json_object *x = member(o, k, json_type_boolean);
	return x && json_object_get_boolean(x);
}

static enum gpu_tri get_tri(struct json_object *o, const char *k)
{
	struct json_object *x = member(o, k, json_type_boolean);
	return !x ? GPU_UNKNOWN : json_object_get_boolean(x) ? GPU_YES : GPU_NO;
}

static unsigned long long get_u64(struct json_object *o, const char *k)
{
	struct json_object *x = member(o, k, json_type_int);
	return x ? json_object_get_uint64(x) : 0;
}

static void gpu_from_json(struct json_object *o, struct gpu_facts *f)
{
	struct json_object *a, *p;

	memset(f, 0, sizeof(*f));
	f->have = true;
	f->peer_api = get_tri(o, "peer_memory_api");
	if ((a = member(o, "memory_peers", json_type_array))) {
		f->memory_peers_dir = true;
		for (size_t i = 0; i < json_object_array_length(a) && f->n_peers < GPU_FACTS_PEERS; i++) {
			struct json_object *x = json_object_array_get_idx(a, i);
			if (x && json_object_is_type(x, json_type_string))
				snprintf(f->peers[f->n_peers++], sizeof(f->peers[0]), "%s",
					 json_object_get_string(x));
		}
	}
	f->nvidia_peermem = get_bool(o, "nvidia_peermem");
	get_str(o, "nvidia_peermem_version", f->peermem_version, sizeof(f->peermem_version));
	f->nv_peer_mem = get_bool(o, "nv_peer_mem");
	get_str(o, "kernel", f->kernel, sizeof(f->kernel));
	f->kernel_dmabuf = get_tri(o, "kernel_dmabuf");
	get_str(o, "kernel_dmabuf_evidence", f->kernel_dmabuf_how, sizeof(f->kernel_dmabuf_how));
	if ((a = member(o, "nics", json_type_array)))
		for (size_t i = 0; i < json_object_array_length(a) && f->n_nics < GPU_FACTS_NICS; i++) {
			struct json_object *n = json_object_array_get_idx(a, i);
			struct gpu_nic *d = &f->nics[f->n_nics++];
			get_str(n, "name", d->name, sizeof(d->name));
			get_str(n, "driver", d->driver, sizeof(d->driver));
			d->dmabuf = get_tri(n, "dmabuf");
		}
	f->nvidia_driver = get_bool(o, "nvidia_driver_loaded");
	get_str(o, "nvidia_driver", f->driver_version, sizeof(f->driver_version));
	f->open_module = get_tri(o, "nvidia_open_module");
	f->n_gpus = (int)get_u64(o, "gpus");
	if ((a = member(o, "devices", json_type_array)))
		for (size_t i = 0; i < json_object_array_length(a) && f->n_gpus_kept < GPU_FACTS_GPUS; i++) {
			struct json_object *x = json_object_array_get_idx(a, i);
			struct gpu_dev *g = &f->gpus[f->n_gpus_kept++];
			get_str(x, "pci", g->bdf, sizeof(g->bdf));
			get_str(x, "device_id", g->device_id, sizeof(g->device_id));
			get_str(x, "model", g->model, sizeof(g->model));
			g->consumer = get_bool(x, "consumer");
			g->bar1_bytes = get_u64(x, "bar1_bytes");
			g->have_nvml = member(x, "nvml_bar1_total_bytes", json_type_int) != NULL;
			g->nvml_bar1_total = get_u64(x, "nvml_bar1_total_bytes");
			g->nvml_bar1_used = get_u64(x, "nvml_bar1_used_bytes");
			g->nvml_memory_total = get_u64(x, "nvml_memory_bytes");
		}
	if (f->n_gpus < f->n_gpus_kept)
		f->n_gpus = f->n_gpus_kept;
	get_str(o, "libcuda", f->libcuda, sizeof(f->libcuda));
	get_str(o, "cuda_driver", f->cuda_driver, sizeof(f->cuda_driver));
	f->dmabuf_fd_size = get_u64(o, "dmabuf_fd_size");
	get_str(o, "dmabuf_exporter", f->dmabuf_exporter, sizeof(f->dmabuf_exporter));
	if ((p = member(o, "dmabuf_probe", json_type_object))) {
		f->probe.seen = true;
		f->probe.err = (int)get_u64(p, "errno");
		f->probe.ts_ns = get_u64(p, "ts_ns");
	}
}

static bool shm_from_json(struct json_object *gates, struct gate_facts *g)
{
	char owner[16] = "";

	if (!member(gates, "shm_owner", json_type_string))
		return false;
	get_str(gates, "shm_owner", owner, sizeof(owner));
	g->shm_owner = !strcmp(owner, "host")      ? GATE_SHM_HOST
		       : !strcmp(owner, "private") ? GATE_SHM_PRIVATE
						   : GATE_SHM_UNKNOWN;
	get_str(gates, "shm_source", g->shm_source, sizeof(g->shm_source));
	get_str(gates, "shm_options", g->shm_options, sizeof(g->shm_options));
	g->shm_dev = (unsigned int)get_u64(gates, "shm_dev");
	g->host_shm_dev = (unsigned int)get_u64(gates, "host_shm_dev");
	g->shm_mntns = (unsigned long)get_u64(gates, "shm_mntns");
	g->host_mntns = (unsigned long)get_u64(gates, "host_mntns");
	return true;
}

/* Every member optional; a number out of its type's range is not the
 * node's and leaves the facts unread (the verdict's generic text). */
static bool cma_from_json(struct json_object *gates, struct cma_facts *c)
{
	struct json_object *o = member(gates, "cma", json_type_object), *a;

	memset(c, 0, sizeof(*c));
	if (!o)
		return false;
	unsigned long long err = get_u64(o, "pagetypeinfo_errno"), order = get_u64(o, "pageblock_order");
	if (err > 4095 || order > 64)
		return false;
	c->read = true;
	c->pti_error = -(int)err;
	c->cma_column = get_bool(o, "cma_column");
	c->order = (unsigned)order;
	c->pages_per_block = (unsigned long)get_u64(o, "pages_per_block");
	c->page_size = get_u64(o, "page_size_bytes");
	c->cma_blocks = get_u64(o, "cma_pageblocks");
	if ((a = member(o, "zones", json_type_array)))
		for (size_t i = 0; i < json_object_array_length(a) && c->n_zones < CMA_FACTS_ZONES; i++) {
			struct json_object *x = json_object_array_get_idx(a, i), *n;
			struct cma_zone *z = &c->zones[c->n_zones++];
			if ((n = member(x, "node", json_type_int)))
				z->node = (int)json_object_get_int64(n);
			get_str(x, "zone", z->zone, sizeof(z->zone));
			z->blocks = get_u64(x, "cma_pageblocks");
		}
	c->zones_dropped = (unsigned)get_u64(o, "zones_dropped");
	c->have_cma_total = member(o, "cma_total_bytes", json_type_int) != NULL;
	c->cma_total_kb = get_u64(o, "cma_total_bytes") / 1024;
	c->cma_free_kb = get_u64(o, "cma_free_bytes") / 1024;
	return true;
}

/* Back as written; a device number past 32 bits or an errno out of range
 * is not a record watch wrote and leaves the facts unread. */
static bool vma_file_from_json(struct json_object *gates, struct vma_file *f)
{
	struct json_object *o = member(gates, "vma_file", json_type_object), *m;

	memset(f, 0, sizeof(*f));
	if (!o)
		return false;
	unsigned long long ma = get_u64(o, "major"), mi = get_u64(o, "minor");
	unsigned long long e = get_u64(o, "maps_errno");
	if (ma > UINT32_MAX || mi > UINT32_MAX || e > 4095)
		return false;
	f->read = get_bool(o, "read");
	f->from_kernel = get_bool(o, "from_kernel");
	f->maps_error = (int)e;
	get_str(o, "name", f->name, sizeof(f->name));
	get_str(o, "path", f->path, sizeof(f->path));
	f->start = get_u64(o, "start");
	f->end = get_u64(o, "end");
	f->major = (unsigned)ma;
	f->minor = (unsigned)mi;
	f->ino = get_u64(o, "ino");
	if (f->read && (m = member(o, "mount", json_type_object))) {
		char table[16] = "";
		f->mount_found = true;
		get_str(m, "table", table, sizeof(table));
		f->host_table = !strcmp(table, "host");
		get_str(m, "point", f->mount_point, sizeof(f->mount_point));
		get_str(m, "fstype", f->fstype, sizeof(f->fstype));
		get_str(m, "source", f->source, sizeof(f->source));
		get_str(m, "options", f->options, sizeof(f->options));
		f->dax = get_bool(m, "dax");
	}
	return true;
}

bool facts_evidence_read(struct json_object *record, struct gate_facts *g)
{
	struct json_object *e = member(record, "evidence", json_type_object), *x;
	bool found = false;

	if (!e)
		return false;
	if ((x = member(e, "gates", json_type_object))) {
		found |= shm_from_json(x, g);
		found |= cma_from_json(x, &g->cma);
		found |= vma_file_from_json(x, &g->vma_file);
	}
	if ((x = member(e, "gpu", json_type_object))) {
		gpu_from_json(x, &g->gpu);
		found = true;
	}
	return found;
}
