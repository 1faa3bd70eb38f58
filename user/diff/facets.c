// SPDX-License-Identifier: GPL-2.0-only
/* facets.c - one report's comparable values (see diff.h).
 *
 * Every member is read through an accessor that checks its JSON type first:
 * json-c aborts the process when an array function meets a string, and a
 * report from another machine may hold anything.  A member of the wrong type
 * ends the run with a message naming the file and the member; an absent or
 * null member is "unknown", as `check` writes it.
 *
 * Length: over the usual 500 lines: one table of every comparable member of
 * a check report, each with its type-checked accessor; a facet added to
 * check is a row here. */
#include "diff/model.h"

#include "core/units.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_OBJ = 1, T_ARR = 2, T_STR = 4, T_NUM = 8, T_BOOL = 16 };

struct rd {
	struct diff_node *n;
	char *err;
	size_t errlen;
	bool bad;
};

static const char *want_name(int want)
{
	switch (want) {
	case T_OBJ: return "an object";
	case T_ARR: return "an array";
	case T_STR: return "a string";
	case T_NUM: return "a number";
	case T_BOOL: return "a boolean";
	case T_NUM | T_STR: return "a number or \"unlimited\"";
	}
	return "another type";
}

static int type_bit(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_object: return T_OBJ;
	case json_type_array: return T_ARR;
	case json_type_string: return T_STR;
	case json_type_int:
	case json_type_double: return T_NUM;
	case json_type_boolean: return T_BOOL;
	case json_type_null: return 0;
	}
	return 0;
}

static const char *got_name(json_object *v)
{
	switch (type_bit(v)) {
	case T_OBJ: return "an object";
	case T_ARR: return "an array";
	case T_STR: return "a string";
	case T_NUM: return "a number";
	case T_BOOL: return "a boolean";
	}
	return "null";
}

/* The first wrong type wins: it is the one the operator fixes. */
static void wrong(struct rd *rd, const char *path, const char *key, json_object *v, int want)
{
	if (rd->bad)
		return;
	rd->bad = true;
	snprintf(rd->err, rd->errlen, "%s: %s%s%s is %s, expected %s: not a report as "
		 "`mrtrace check --json` writes it", rd->n->file, path, *path && key ? "." : "",
		 key ? key : "", got_name(v), want_name(want));
}

/* Member key of o, of one of the types in want; NULL when o is not an
 * object, the member is absent or null, or of another type (recorded). */
static json_object *mem(struct rd *rd, json_object *o, const char *path, const char *key, int want)
{
	json_object *v;
	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
	    !v)
		return NULL;
	if (!(type_bit(v) & want)) {
		wrong(rd, path, key, v, want);
		return NULL;
	}
	return v;
}

/* Element i of array a, checked like mem(); path names the element. */
static json_object *elem(struct rd *rd, json_object *a, size_t i, const char *path, int want)
{
	json_object *v = json_object_array_get_idx(a, i);
	if (!v)
		return NULL;
	if (!(type_bit(v) & want)) {
		wrong(rd, path, NULL, v, want);
		return NULL;
	}
	return v;
}

static size_t alen(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static const char *str(struct rd *rd, json_object *o, const char *path, const char *key)
{
	json_object *v = mem(rd, o, path, key, T_STR);
	return v ? json_object_get_string(v) : "-";
}

/* An absent number is 0, as the old reports without it compared. */
static long long num(struct rd *rd, json_object *o, const char *path, const char *key)
{
	json_object *v = mem(rd, o, path, key, T_NUM);
	return v ? (long long)json_object_get_int64(v) : 0;
}

static bool boolean(struct rd *rd, json_object *o, const char *path, const char *key)
{
	json_object *v = mem(rd, o, path, key, T_BOOL);
	return v && json_object_get_boolean(v);
}

/* Limits are a number of bytes or "unlimited"; null = unknown. */
static const char *limit(struct rd *rd, json_object *o, const char *path, const char *key,
			 char *buf, size_t len)
{
	json_object *v = mem(rd, o, path, key, T_NUM | T_STR);
	if (!v)
		snprintf(buf, len, "?");
	else if (json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
	else
		fmt_bytes((uint64_t)json_object_get_int64(v), buf, len);
	return buf;
}

/* ---- lists that are one value (device names, PKeys) ------------------------- */

/* Whole, never cut: two nodes that differ in the 30th device differ. */
struct list {
	char *buf;
	size_t len;
	FILE *f;
	bool oom;
};

static void list_add(struct list *l, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void list_add(struct list *l, const char *sep, const char *fmt, ...)
{
	if (!l->f && !l->oom && !(l->f = open_memstream(&l->buf, &l->len)))
		l->oom = true;
	if (!l->f)
		return;
	if (ftell(l->f) > 0)
		fputs(sep, l->f);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(l->f, fmt, ap);
	va_end(ap);
}

/* The list's text ("empty" when nothing was added); valid until list_free. */
static const char *list_get(struct list *l, struct rd *rd, const char *empty)
{
	if (l->f) {
		if (fclose(l->f))
			l->oom = true;
		l->f = NULL;
	}
	if (l->oom)
		rd->n->oom = true;
	return l->buf && l->buf[0] ? l->buf : empty;
}

static void list_free(struct list *l)
{
	if (l->f)
		fclose(l->f);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* ---- building the node ------------------------------------------------------ */

static void scope(struct rd *rd, const char *s)
{
	struct diff_node *n = rd->n;
	if (strmap_get(&n->scope_set, s) >= 0)
		return;
	if (n->ns == n->caps) {
		int c = n->caps ? n->caps * 2 : 16;
		const char **ns = realloc(n->scopes, (size_t)c * sizeof(*ns));
		if (!ns) {
			n->oom = true;
			return;
		}
		n->scopes = ns;
		n->caps = c;
	}
	const char *d = arena_strdup(&n->ar, s);
	if (!d || strmap_add(&n->scope_set, d, n->ns) < 0) {
		n->oom = true;
		return;
	}
	n->scopes[n->ns++] = d;
}

/* Adds a facet; a key seen before on this node keeps its first value (as
 * every report writer names each thing once).  NULL when dropped. */
static struct diff_facet *add(struct rd *rd, const char *sc, enum diff_sev sev, const char *key,
			      const char *label, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static struct diff_facet *add(struct rd *rd, const char *sc, enum diff_sev sev, const char *key,
			      const char *label, const char *fmt, ...)
{
	struct diff_node *n = rd->n;
	scope(rd, sc);
	if (strmap_get(&n->keys, key) >= 0)
		return NULL;
	if (n->nf == n->capf) {
		int c = n->capf ? n->capf * 2 : 64;
		struct diff_facet *nf = realloc(n->f, (size_t)c * sizeof(*nf));
		if (!nf) {
			n->oom = true;
			return NULL;
		}
		n->f = nf;
		n->capf = c;
	}
	struct diff_facet *f = &n->f[n->nf];
	memset(f, 0, sizeof(*f));
	va_list ap;
	va_start(ap, fmt);
	char *value = NULL;
	if (vasprintf(&value, fmt, ap) < 0)
		value = NULL;
	va_end(ap);
	f->key = arena_strdup(&n->ar, key);
	f->label = arena_strdup(&n->ar, label);
	f->value = value ? arena_strdup(&n->ar, value) : NULL;
	f->scope = arena_strdup(&n->ar, sc);
	f->absent = "-";
	f->sev = sev;
	free(value);
	if (!f->key || !f->label || !f->value || !f->scope || strmap_add(&n->keys, f->key, n->nf) < 0) {
		n->oom = true;
		return NULL;
	}
	n->nf++;
	return f;
}

static void ex_memlock(struct rd *rd, json_object *doc)
{
	json_object *m = mem(rd, doc, "", "memlock", T_OBJ);
	json_object *scv = mem(rd, m, "memlock", "scope", T_STR);
	char b[32], b2[32], s[48], key[192], label[192];
	if (!scv)
		return;
	snprintf(s, sizeof(s), "memlock:%.30s", json_object_get_string(scv));
	scope(rd, s);
	json_object *p = mem(rd, m, "memlock", "process", T_OBJ);
	if (p) {
		add(rd, s, DIFF_BREAK, "memlock.soft", "memlock soft limit of the job", "%s",
		    limit(rd, p, "memlock.process", "soft_bytes", b, sizeof(b)));
		add(rd, s, DIFF_DRIFT, "memlock.hard", "memlock hard limit of the job", "%s",
		    limit(rd, p, "memlock.process", "hard_bytes", b, sizeof(b)));
		json_object *c = mem(rd, p, "memlock.process", "cap_ipc_lock_effective", T_BOOL);
		add(rd, s, DIFF_BREAK, "memlock.cap", "CAP_IPC_LOCK (initial namespace)", "%s",
		    c ? (json_object_get_boolean(c) ? "held" : "not held") : "?");
	}
	json_object *d = mem(rd, m, "memlock", "systemd_default", T_OBJ);
	if (d && boolean(rd, d, "memlock.systemd_default", "found"))
		add(rd, s, DIFF_BREAK, "memlock.systemd", "systemd DefaultLimitMEMLOCK", "%s",
		    boolean(rd, d, "memlock.systemd_default", "set") ?
		    limit(rd, d, "memlock.systemd_default", "soft_bytes", b, sizeof(b)) :
		    "not set (8 MiB)");
	json_object *u = mem(rd, m, "memlock", "units", T_OBJ);
	if (u) {
		json_object_object_foreach(u, unit, uv) {
			char path[160];
			snprintf(path, sizeof(path), "memlock.units.%.100s", unit);
			if (!uv || !(type_bit(uv) & T_OBJ)) {
				if (uv)
					wrong(rd, path, NULL, uv, T_OBJ);
				continue;
			}
			snprintf(key, sizeof(key), "memlock.unit.%.160s", unit);
			snprintf(label, sizeof(label), "memlock for jobs of %.160s", unit);
			add(rd, s, DIFF_BREAK, key, label, "%s",
			    limit(rd, uv, path, "effective_soft_bytes", b, sizeof(b)));
		}
	}
	json_object *dk = mem(rd, m, "memlock", "docker_default_ulimit", T_OBJ);
	if (dk)
		add(rd, s, DIFF_BREAK, "memlock.docker", "Docker default-ulimits memlock", "%s",
		    limit(rd, dk, "memlock.docker_default_ulimit", "soft_bytes", b, sizeof(b)));
	json_object *sp = mem(rd, m, "memlock", "slurm_propagates_memlock", T_BOOL);
	if (sp)
		add(rd, s, DIFF_BREAK, "memlock.slurm", "Slurm propagates the submitter's memlock", "%s",
		    json_object_get_boolean(sp) ? "yes" : "no");
	json_object *lc = mem(rd, m, "memlock", "limits_conf", T_ARR);
	if (lc) {
		struct list all = { 0 };
		for (size_t i = 0; i < alen(lc); i++) {
			char path[64];
			snprintf(path, sizeof(path), "memlock.limits_conf[%zu]", i);
			json_object *e = elem(rd, lc, i, path, T_OBJ);
			if (!e)
				continue;
			list_add(&all, ", ", "%s %s %s", str(rd, e, path, "domain"),
				 str(rd, e, path, "type"), limit(rd, e, path, "bytes", b, sizeof(b)));
		}
		add(rd, s, DIFF_BREAK, "memlock.limits_conf", "limits.conf memlock (ssh sessions)", "%s",
		    list_get(&all, rd, "none"));
		list_free(&all);
	}
	json_object *sh = mem(rd, m, "memlock", "this_shell", T_OBJ);
	if (sh)
		add(rd, s, DIFF_DRIFT, "memlock.shell",
		    "memlock of the shell that ran check (not the job's)", "%s / %s",
		    limit(rd, sh, "memlock.this_shell", "soft_bytes", b, sizeof(b)),
		    limit(rd, sh, "memlock.this_shell", "hard_bytes", b2, sizeof(b2)));
}

static void ex_hugepages(struct rd *rd, json_object *doc)
{
	json_object *pools = mem(rd, mem(rd, doc, "", "hugepages", T_OBJ), "hugepages", "pools", T_ARR);
	if (!pools)
		return;
	scope(rd, "hugepages");
	for (size_t i = 0; i < alen(pools); i++) {
		char path[48], sz[32], key[64], label[96];
		snprintf(path, sizeof(path), "hugepages.pools[%zu]", i);
		json_object *p = elem(rd, pools, i, path, T_OBJ);
		if (!p)
			continue;
		fmt_bytes((uint64_t)num(rd, p, path, "size_bytes"), sz, sizeof(sz));
		snprintf(key, sizeof(key), "hugepages.%s", sz);
		snprintf(label, sizeof(label), "hugepages %s: total / overcommit", sz);
		add(rd, "hugepages", DIFF_DRIFT, key, label, "%lld / %lld", num(rd, p, path, "total"),
		    num(rd, p, path, "overcommit"));
	}
}

static void ex_port(struct rd *rd, const char *sc, const char *dev, json_object *p,
		    const char *path)
{
	int num_ = (int)num(rd, p, path, "port");
	char key[256], label[256], kp[160];
	struct list pkl = { 0 };
	json_object *k = mem(rd, p, path, "pkeys", T_ARR);
	for (size_t i = 0; i < alen(k); i++) {
		snprintf(kp, sizeof(kp), "%s.pkeys[%zu]", path, i);
		json_object *e = elem(rd, k, i, kp, T_STR);
		if (e)
			list_add(&pkl, ",", "%s", json_object_get_string(e));
	}
	const char *pk = list_get(&pkl, rd, "");
#define PORT(suffix, sev, what, ...) ( \
		snprintf(key, sizeof(key), "rdma.%.100s.port%d.%s", dev, num_, suffix), \
		snprintf(label, sizeof(label), "%.100s port %d %s", dev, num_, what), \
		add(rd, sc, sev, key, label, __VA_ARGS__))
	const char *ll = str(rd, p, path, "link_layer");
	PORT("state", DIFF_BREAK, "state", "%s", str(rd, p, path, "state"));
	PORT("phys_state", DIFF_BREAK, "physical state", "%s", str(rd, p, path, "phys_state"));
	PORT("link_layer", DIFF_BREAK, "link layer", "%s", ll);
	PORT("rate", DIFF_DRIFT, "rate", "%s", str(rd, p, path, "rate"));
	if (!strcmp(ll, "InfiniBand"))
		PORT("pkeys", DIFF_BREAK, "PKeys", "%s", pk[0] ? pk : "none");
	list_free(&pkl);
	/* Facts a down port simply lacks (its state already differs): compared
	 * only between the nodes that have them. */
	struct diff_facet *f = NULL;
	json_object *mtu = mem(rd, p, path, "active_mtu", T_NUM);
	if (mtu && (f = PORT("mtu", DIFF_DRIFT, "active MTU", "%lld",
			     (long long)json_object_get_int64(mtu))))
		f->absent = "";
	json_object *sm = mem(rd, p, path, "sm_lid", T_NUM);
	if (sm && json_object_get_int64(sm) &&
	    (f = PORT("sm_lid", DIFF_DRIFT, "SM LID (another SM = another subnet)", "0x%llx",
		      (unsigned long long)json_object_get_int64(sm))))
		f->absent = "";
#undef PORT
}

static void ex_rdma(struct rd *rd, json_object *doc)
{
	json_object *devs = mem(rd, mem(rd, doc, "", "rdma", T_OBJ), "rdma", "devices", T_ARR);
	if (!devs)
		return;
	char path[64], ppath[96];
	struct list names = { 0 };
	for (size_t i = 0; i < alen(devs); i++) {
		snprintf(path, sizeof(path), "rdma.devices[%zu]", i);
		json_object *d = elem(rd, devs, i, path, T_OBJ);
		if (d)
			list_add(&names, " ", "%s", str(rd, d, path, "name"));
	}
	add(rd, "rdma", DIFF_BREAK, "rdma.devices", "RDMA devices", "%s",
	    list_get(&names, rd, "none"));
	list_free(&names);
	for (size_t i = 0; i < alen(devs); i++) {
		snprintf(path, sizeof(path), "rdma.devices[%zu]", i);
		json_object *d = elem(rd, devs, i, path, T_OBJ);
		if (!d)
			continue;
		const char *dev = str(rd, d, path, "name");
		char sc[128], key[256], label[256];
		snprintf(sc, sizeof(sc), "rdma:%.100s", dev);
#define DEV(suffix, sev, what, ...) do { \
		snprintf(key, sizeof(key), "rdma.%.100s.%s", dev, suffix); \
		snprintf(label, sizeof(label), "%.100s %s", dev, what); \
		add(rd, sc, sev, key, label, __VA_ARGS__); } while (0)
		DEV("driver", DIFF_DRIFT, "driver", "%s", str(rd, d, path, "driver"));
		DEV("fw_ver", DIFF_DRIFT, "firmware", "%s", str(rd, d, path, "fw_ver"));
		DEV("board_id", DIFF_DRIFT, "board id", "%s", str(rd, d, path, "board_id"));
		snprintf(ppath, sizeof(ppath), "%s.dev_node", path);
		json_object *dn = mem(rd, d, path, "dev_node", T_OBJ);
		DEV("dev_node", DIFF_BREAK, "device node open(O_RDWR)", "%s",
		    dn ? str(rd, dn, ppath, "open") : "no uverbs");
#undef DEV
		json_object *ports = mem(rd, d, path, "ports", T_ARR);
		for (size_t j = 0; j < alen(ports); j++) {
			snprintf(ppath, sizeof(ppath), "%s.ports[%zu]", path, j);
			json_object *p = elem(rd, ports, j, ppath, T_OBJ);
			if (p)
				ex_port(rd, sc, dev, p, ppath);
		}
	}
}

/* The GID NCCL will use per port (check's fabric area): a node whose NCCL
 * addresses from another RoCE version or address family than the rest
 * cannot talk to them. */
static void ex_fabric(struct rd *rd, json_object *doc)
{
	json_object *ports = mem(rd, mem(rd, doc, "", "fabric", T_OBJ), "fabric", "ports", T_ARR);
	for (size_t i = 0; i < alen(ports); i++) {
		char path[48], npath[64], key[256], label[256], fam[16] = "";
		snprintf(path, sizeof(path), "fabric.ports[%zu]", i);
		json_object *p = elem(rd, ports, i, path, T_OBJ);
		if (!p)
			continue;
		snprintf(npath, sizeof(npath), "%s.nccl", path);
		json_object *nc = mem(rd, p, path, "nccl", T_OBJ);
		const char *dev = str(rd, p, path, "device"), *gid = str(rd, nc, npath, "gid");
		if (strcmp(gid, "-"))
			snprintf(fam, sizeof(fam), "%s", strchr(gid, '.') ? "IPv4" : "IPv6");
		snprintf(key, sizeof(key), "fabric.%.100s.port%lld.gid_type", dev,
			 num(rd, p, path, "port"));
		snprintf(label, sizeof(label), "%.100s port %lld GID NCCL uses (type, family)", dev,
			 num(rd, p, path, "port"));
		struct diff_facet *f = add(rd, "fabric", DIFF_BREAK, key, label, "%s %s",
					   str(rd, nc, npath, "type"), fam[0] ? fam : "-");
		if (f)   /* a port NCCL does not use here is the rdma rows' difference */
			f->absent = "";
	}
}

static void ex_misc(struct rd *rd, json_object *doc)
{
	json_object *h = mem(rd, doc, "", "host", T_OBJ);
	add(rd, "host", DIFF_DRIFT, "host.kernel", "kernel", "%s", str(rd, h, "host", "kernel"));

	json_object *g = mem(rd, doc, "", "gpudirect", T_OBJ);
	if (g) {
		add(rd, "gpudirect", DIFF_BREAK, "gpudirect.path",
		    "GPUDirect RDMA path (dmabuf/peermem/none)", "%s", str(rd, g, "gpudirect", "path"));
		add(rd, "gpudirect", DIFF_DRIFT, "gpudirect.driver", "NVIDIA driver", "%s",
		    str(rd, g, "gpudirect", "nvidia_driver"));
		add(rd, "gpudirect", DIFF_BREAK, "gpudirect.gpus", "GPUs on PCI", "%lld",
		    num(rd, g, "gpudirect", "gpus"));
	}
	json_object *io = mem(rd, doc, "", "iommu", T_OBJ);
	if (io)
		add(rd, "iommu", DIFF_BREAK, "iommu.mode", "IOMMU mode", "%s", str(rd, io, "iommu", "mode"));

	json_object *near = mem(rd, mem(rd, doc, "", "topology", T_OBJ), "topology", "nearest", T_ARR);
	for (size_t i = 0; i < alen(near); i++) {
		char path[48], key[64], label[64];
		snprintf(path, sizeof(path), "topology.nearest[%zu]", i);
		json_object *e = elem(rd, near, i, path, T_OBJ);
		if (!e)
			continue;
		long long gpu = num(rd, e, path, "gpu");
		snprintf(key, sizeof(key), "topology.gpu%lld", gpu);
		snprintf(label, sizeof(label), "GPU%lld nearest NIC", gpu);
		struct diff_facet *f = add(rd, "topology", DIFF_DRIFT, key, label, "%s %s",
					   str(rd, e, path, "class"), str(rd, e, path, "nic"));
		if (f)   /* a missing GPU is reported by "GPUs on PCI" */
			f->absent = "";
	}

	json_object *nc = mem(rd, doc, "", "nccl", T_OBJ);
	json_object *scv = mem(rd, nc, "nccl", "scope", T_STR);
	if (!scv)
		return;
	const char *sc = json_object_get_string(scv);
	char s[48];
	snprintf(s, sizeof(s), "nccl:%.30s", sc);
	scope(rd, s);
	json_object *lib = mem(rd, nc, "nccl", "library", T_OBJ);
	if (lib)
		add(rd, s, DIFF_BREAK, "nccl.version", "NCCL version", "%s",
		    str(rd, lib, "nccl.library", "version"));
	json_object *st = mem(rd, nc, "nccl", "settings", T_ARR);
	for (size_t i = 0; i < alen(st); i++) {
		char path[48], key[192], label[192];
		snprintf(path, sizeof(path), "nccl.settings[%zu]", i);
		json_object *e = elem(rd, st, i, path, T_OBJ);
		if (!e)
			continue;
		const char *name = str(rd, e, path, "name");
		snprintf(key, sizeof(key), "nccl.%.180s", name);
		snprintf(label, sizeof(label), "%.150s%s", name,
			 !strcmp(sc, "node") ? " in /etc/nccl.conf" : "");
		struct diff_facet *f = add(rd, s, DIFF_BREAK, key, label, "%s", str(rd, e, path, "value"));
		if (f)
			f->absent = "(unset)";
	}
}

static void fail_item(struct rd *rd, const char *id, const char *area, const char *title,
		      const char *value)
{
	struct diff_node *n = rd->n;
	if (n->nfails == n->capfails) {
		int c = n->capfails ? n->capfails * 2 : 16;
		struct diff_fail *nf = realloc(n->fails, (size_t)c * sizeof(*nf));
		if (!nf) {
			n->oom = true;
			return;
		}
		n->fails = nf;
		n->capfails = c;
	}
	struct diff_fail *f = &n->fails[n->nfails];
	f->id = arena_strdup(&n->ar, id);
	f->area = arena_strdup(&n->ar, area);
	f->title = arena_strdup(&n->ar, title);
	f->value = arena_strdup(&n->ar, value);
	if (!f->id || !f->area || !f->title || !f->value || strmap_add(&n->fail_ids, f->id, 0) < 0) {
		n->oom = true;
		return;
	}
	n->nfails++;
}

/* Verdicts of items whose raw facts are not compared above (a near-full
 * VmPin, ACS, peer memory, lint): a FAIL on some nodes only is breaking. */
static void ex_items(struct rd *rd, json_object *doc)
{
	static const char *const covered[] = { "rdma.", "memlock.limit", "memlock.systemd_default",
		"memlock.unit.", "memlock.limits_conf", "memlock.this_shell", "memlock.cap_ipc_lock",
		"memlock.slurm_propagate", "iommu.mode", "nccl.settings", "nccl.library",
		"nccl.conf", "target.", NULL };
	json_object *items = mem(rd, doc, "", "items", T_ARR);
	for (size_t i = 0; i < alen(items); i++) {
		char path[48];
		snprintf(path, sizeof(path), "items[%zu]", i);
		json_object *it = elem(rd, items, i, path, T_OBJ);
		if (!it)
			continue;
		const char *id = str(rd, it, path, "id"), *verdict = str(rd, it, path, "verdict");
		const char *area = str(rd, it, path, "area"), *title = str(rd, it, path, "title");
		if (!strcmp(verdict, "fail"))
			fail_item(rd, id, area, title, str(rd, it, path, "value"));
		bool skip = false;
		for (int c = 0; covered[c] && !skip; c++)
			skip = !strncmp(id, covered[c], strlen(covered[c]));
		if (skip)
			continue;
		char *key = NULL, *label = NULL, sc[48];
		if (asprintf(&key, "verdict.%s", id) < 0)
			key = NULL;
		if (asprintf(&label, "%s %s (verdict)", area, title) < 0)
			label = NULL;
		snprintf(sc, sizeof(sc), "verdicts:%.30s", area);
		struct diff_facet *f = key && label ? add(rd, sc, DIFF_DRIFT, key, label, "%s", verdict)
						    : NULL;
		if (!key || !label)
			rd->n->oom = true;
		free(key);
		free(label);
		if (f) {
			f->verdict = true;
			f->absent = "n/a";
		}
	}
}

int diff_extract(struct diff_node *n, json_object *doc, char *err, size_t errlen)
{
	struct rd rd = { .n = n, .err = err, .errlen = errlen };
	ex_misc(&rd, doc);
	ex_memlock(&rd, doc);
	ex_hugepages(&rd, doc);
	ex_rdma(&rd, doc);
	ex_fabric(&rd, doc);
	ex_items(&rd, doc);
	/* the per-node lookups are done; rows are matched by compare.c */
	strmap_free(&n->keys);
	strmap_free(&n->scope_set);
	if (rd.bad)
		return -1;
	if (n->oom) {
		snprintf(err, errlen, "%s: out of memory", n->file);
		return -1;
	}
	return 0;
}

void diff_node_free(struct diff_node *n)
{
	arena_free(&n->ar);
	free(n->f);
	free(n->scopes);
	free(n->fails);
	strmap_free(&n->keys);
	strmap_free(&n->scope_set);
	strmap_free(&n->fail_ids);
	memset(n, 0, sizeof(*n));
}
