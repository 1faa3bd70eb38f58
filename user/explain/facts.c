// SPDX-License-Identifier: GPL-2.0-only
/* facts.c - check's facts for judging a log's failure (facts.h).  One
 * source of truth: a check document, whether check ran here or on the node
 * the log came from, so a verdict from --facts and one from here weigh the
 * same members. */
#include "explain/facts.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "check/check.h"
#include "diff/model.h"
#include "proc/rdmacg_scan.h"

static struct json_object *at(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
		return NULL;
	return v;
}

static void str_at(struct json_object *o, const char *k, char *buf, size_t len)
{
	struct json_object *v = at(o, k);

	if (v && json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
}

/* A limit as check writes it: bytes, or "unlimited".  False: null/absent. */
static bool limit_at(struct json_object *o, const char *k, uint64_t *v)
{
	struct json_object *x = at(o, k);

	if (x && json_object_is_type(x, json_type_string) &&
	    !strcmp(json_object_get_string(x), "unlimited")) {
		*v = UINT64_MAX;
		return true;
	}
	if (x && json_object_is_type(x, json_type_int)) {
		*v = (uint64_t)json_object_get_int64(x);
		return true;
	}
	return false;
}

static bool unit_limit(struct json_object *units, const char *unit, uint64_t *v)
{
	char name[128];

	if (!unit)
		return false;
	snprintf(name, sizeof(name), "%s%s", unit, strchr(unit, '.') ? "" : ".service");
	return limit_at(at(units, name), "effective_soft_bytes", v);
}

static void memlock(struct json_object *m, enum inferred_setting s, const char *unit,
		    struct inferred_facts *f)
{
	struct json_object *units = at(m, "units"), *p = at(m, "process"), *x;
	uint64_t v;
	const char *of = NULL;

	if (p && limit_at(p, "soft_bytes", &v)) {
		x = at(p, "pid");
		snprintf(f->memlock_of, sizeof(f->memlock_of), "process %lld",
			 x ? (long long)json_object_get_int64(x) : 0LL);
		f->memlock_known = true;
		f->memlock_soft = v;
		return;
	}
	switch (s) {
	case INF_SET_SLURM:
		if (unit_limit(units, "slurmd", &v))
			of = "slurmd's jobs";
		break;
	case INF_SET_DOCKER:
		if (limit_at(at(m, "docker_default_ulimit"), "soft_bytes", &v))
			of = "Docker's containers (daemon.json)";
		else if (unit_limit(units, "docker", &v) || unit_limit(units, "containerd", &v))
			of = "Docker's containers";
		break;
	case INF_SET_K8S:
		if (unit_limit(units, "containerd", &v) || unit_limit(units, "crio", &v))
			of = "the container runtime's pods";
		break;
	case INF_SET_SYSTEMD:
		if (unit_limit(units, unit, &v))
			of = unit;
		else if (limit_at(at(m, "systemd_default"), "soft_bytes", &v))
			of = "systemd services (DefaultLimitMEMLOCK)";
		else {
			v = 8ull << 20; /* systemd's built-in default (docs/check.md) */
			of = "systemd services (built-in default)";
		}
		break;
	default:
		if (limit_at(at(m, "this_shell"), "soft_bytes", &v))
			of = "commands of this shell";
	}
	if (!of)
		return;
	snprintf(f->memlock_of, sizeof(f->memlock_of), "%s", of);
	f->memlock_known = true;
	f->memlock_soft = v;
}

static void rdma(struct json_object *r, struct inferred_facts *f)
{
	struct json_object *devs = at(r, "devices");

	for (size_t i = 0; devs && json_object_is_type(devs, json_type_array) &&
			   i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i), *ports = at(d, "ports");
		char open[16] = "";
		str_at(at(d, "dev_node"), "open", open, sizeof(open));
		if (open[0] && strcmp(open, "ok")) {
			if (!f->uverbs_bad++)
				snprintf(f->uverbs_err, sizeof(f->uverbs_err), "%s", open);
		}
		for (size_t j = 0; ports && json_object_is_type(ports, json_type_array) &&
				   j < json_object_array_length(ports); j++) {
			struct json_object *p = json_object_array_get_idx(ports, j), *x;
			char state[32] = "", ll[24] = "";
			str_at(p, "state", state, sizeof(state));
			str_at(p, "link_layer", ll, sizeof(ll));
			f->ports++;
			if (!strstr(state, "ACTIVE"))
				f->ports_down++;
			if (!strcmp(ll, "Ethernet")) {
				f->roce_ports++;
				if ((x = at(p, "gid_count")))
					f->gids += json_object_get_int(x);
				if ((x = at(p, "roce_v2_gids")))
					f->roce_v2_gids += json_object_get_int(x);
			}
		}
	}
}

/* a port's link error counters as check read them: the nonzero ones */
static void counters(struct json_object *c, struct inferred_gid_port *gp)
{
	size_t len = 0;

	if (!c || !json_object_is_type(c, json_type_object))
		return;
	json_object_object_foreach(c, k, v) {
		if (!v || !json_object_is_type(v, json_type_int))
			continue;
		gp->counters_read = true;
		int64_t x = json_object_get_int64(v);
		if (x <= 0 || len >= sizeof(gp->counters) - 1)
			continue;
		int n = snprintf(gp->counters + len, sizeof(gp->counters) - len, "%s%.40s %lld",
				 len ? ", " : "", k, (long long)x);
		len = n < 0 ? len : len + (size_t)n;
	}
}

/* check's fabric.ports[]: each port's GID table (populated entries) and
 * NCCL's choice there */
static void fabric(struct json_object *fab, struct inferred_facts *f)
{
	struct json_object *ports = at(fab, "ports");

	for (size_t i = 0; ports && json_object_is_type(ports, json_type_array) &&
			   i < json_object_array_length(ports) && f->gid_ports < INFERRED_GID_PORTS; i++) {
		struct json_object *p = json_object_array_get_idx(ports, i), *gids = at(p, "gids"),
				   *n = at(p, "nccl"), *x;
		struct inferred_gid_port *gp = &f->gid_port[f->gid_ports];
		char ll[24] = "";

		if (!p || !json_object_is_type(p, json_type_object))
			continue;
		memset(gp, 0, sizeof(*gp));
		f->gid_ports++;
		str_at(p, "device", gp->device, sizeof(gp->device));
		gp->port = (x = at(p, "port")) ? json_object_get_int(x) : 0;
		str_at(p, "link_layer", ll, sizeof(ll));
		gp->roce = !strcmp(ll, "Ethernet");
		str_at(n, "how", gp->how, sizeof(gp->how));
		x = at(n, "index");
		gp->nccl_index = x && json_object_is_type(x, json_type_int) ? json_object_get_int(x) : -1;
		counters(at(p, "counters"), gp);
		for (size_t j = 0; gids && json_object_is_type(gids, json_type_array) &&
				   j < json_object_array_length(gids); j++) {
			struct json_object *g = json_object_array_get_idx(gids, j);
			if (!(x = at(g, "populated")) || !json_object_get_boolean(x))
				continue;
			if (gp->populated++ >= INFERRED_GID_ENTRIES)
				continue;
			struct inferred_gid *e = &gp->e[gp->nentries++];
			e->index = (x = at(g, "index")) ? json_object_get_int(x) : -1;
			e->routable = (x = at(g, "routable")) && json_object_get_boolean(x);
			str_at(g, "type", e->type, sizeof(e->type));
		}
	}
}

void explain_facts_from_check(struct json_object *doc, enum inferred_setting s, const char *unit,
			      struct inferred_facts *f)
{
	struct json_object *g = at(doc, "gpudirect"), *x;

	memset(f, 0, sizeof(*f));
	f->slurm_propagates = -1;
	if (!doc)
		return;
	f->have = true;
	str_at(at(doc, "host"), "hostname", f->host, sizeof(f->host));
	memlock(at(doc, "memlock"), s, unit, f);
	if ((x = at(at(doc, "memlock"), "slurm_propagates_memlock")) &&
	    json_object_is_type(x, json_type_boolean) && s == INF_SET_SLURM)
		f->slurm_propagates = json_object_get_boolean(x);
	str_at(at(g, "peer_memory"), "state", f->peermem, sizeof(f->peermem));
	str_at(at(g, "dmabuf"), "state", f->dmabuf, sizeof(f->dmabuf));
	/* "unknown" weighs nothing */
	if (!strcmp(f->peermem, "unknown"))
		f->peermem[0] = '\0';
	if (!strcmp(f->dmabuf, "unknown"))
		f->dmabuf[0] = '\0';
	str_at(at(doc, "iommu"), "mode", f->iommu, sizeof(f->iommu));
	if (!strcmp(f->iommu, "unknown"))
		f->iommu[0] = '\0';
	rdma(at(doc, "rdma"), f);
	fabric(at(doc, "fabric"), f);
}

int explain_facts_local(enum inferred_setting s, const char *unit, int pid,
			struct inferred_facts *f, char *err, size_t errlen)
{
	struct chk_options opt = { .root = "/", .pid = pid };
	struct chk_report r;
	struct statvfs sv;
	struct rdmacg_scan cg;

	memset(&r, 0, sizeof(r));
	if (chk_run(&opt, &r)) {
		snprintf(err, errlen, "out of memory reading this node's facts");
		chk_report_free(&r);
		return -1;
	}
	chk_json_string(&r);
	explain_facts_from_check(r.doc, s, unit, f);
	chk_report_free(&r);
	if (!statvfs("/dev/shm", &sv)) {
		f->shm_known = true;
		f->shm_free = (uint64_t)sv.f_bavail * sv.f_frsize;
	}
	/* the rdma cgroup: check reports it per process only, so it is read
	 * here, for this node (a --facts document of another node says none) */
	if (!rdmacg_scan("/", &cg)) {
		f->rdmacg = cg.controller == 1 ? INF_RDMACG_ON : INF_RDMACG_OFF;
		f->rdmacg_limited = cg.limited;
		f->rdmacg_cut = cg.cut;
		snprintf(f->rdmacg_first, sizeof(f->rdmacg_first), "%s", cg.first);
		snprintf(f->rdmacg_first_line, sizeof(f->rdmacg_first_line), "%s", cg.first_line);
	}
	return 0;
}

int explain_facts_file(const char *path, enum inferred_setting s, const char *unit,
		       struct inferred_facts *f, char *err, size_t errlen)
{
	struct diff_source src;
	struct json_object *doc = NULL;

	if (diff_source_stat(path, &src, err, errlen) || diff_load(&src, &doc, err, errlen))
		return -1;
	explain_facts_from_check(doc, s, unit, f);
	json_object_put(doc);
	return 0;
}
