// SPDX-License-Identifier: GPL-2.0-only
/* diff.c - `mrtrace diff`: facets out of check reports, compared across nodes
 * (see diff.h). */
#include "diff/diff.h"
#include "core/slurp.h"

#include "core/schema.h"
#include "core/strbuf.h"
#include "commands.h"
#include "core/units.h"

#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum sev { DRIFT = 0, BREAK = 1 };

struct facet {
	char key[160];     /* stable identity across nodes */
	char label[160];   /* what the operator reads */
	char value[256];
	char scope[96];    /* nodes without this scope do not take part */
	char absent[32];   /* value for a node that has the scope but not the facet,
			      "" = such a node does not take part */
	enum sev sev;
	bool verdict;      /* an item's verdict: breaking iff FAIL somewhere */
};

struct node {
	char name[160];
	const char *file;
	json_object *doc;
	struct facet *f;
	int nf, capf;
	char **scopes;
	int ns, caps;
};

/* ---- reading ------------------------------------------------------------- */

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
		return NULL;
	return v;
}

static const char *gets(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int load(const char *file, struct node *n, char *err, size_t len)
{
	size_t got = 0;
	char *buf = slurp_file(file, &got);
	if (!buf)
		return fail(err, len, "%s: %s", file, errno == EIO ? "read error" : strerror(errno));
	size_t start = strspn(buf, " \t\r\n");
	if (start >= got) {
		free(buf);
		return fail(err, len, "%s: empty file, expected the output of `mrtrace check --json`", file);
	}
	json_tokener *tok = json_tokener_new();
	json_object *doc = json_tokener_parse_ex(tok, buf, (int)got);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t off = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!doc || je != json_tokener_success) {
		free(buf);
		json_object_put(doc);
		return fail(err, len, "%s: not valid JSON (%s near byte %zu)", file,
			    je == json_tokener_continue ? "unexpected end of file" :
			    json_tokener_error_desc(je), off);
	}
	size_t rest = off + strspn(buf + off, " \t\r\n");
	free(buf);
	if (rest < got) {
		json_object_put(doc);
		return fail(err, len, "%s: more than one JSON document (extra data at byte %zu); "
			    "give one report per file", file, rest);
	}
	/* Messages first, then free: the strings belong to doc. */
	const char *schema = gets(doc, "schema");
	const char *host = gets(get(doc, "host"), "hostname");
	int bad = 0;
	if (!json_object_is_type(doc, json_type_object) || !schema)
		bad = fail(err, len, "%s: not a `mrtrace check --json` report (no \"schema\" field)",
			   file);
	else if (strcmp(schema, SCHEMA_CHECK))
		bad = fail(err, len, "%s: schema \"%s\", this mrtrace reads \"%s\"", file, schema,
			   SCHEMA_CHECK);
	else if (!host || !json_object_is_type(get(doc, "items"), json_type_array))
		bad = fail(err, len, "%s: incomplete report: %s missing", file,
			   host ? "\"items\"" : "\"host.hostname\"");
	if (bad) {
		json_object_put(doc);
		return bad;
	}
	n->doc = doc;
	n->file = file;
	snprintf(n->name, sizeof(n->name), "%s", host);
	return 0;
}

/* ---- facets -------------------------------------------------------------- */

static void scope(struct node *n, const char *s)
{
	for (int i = 0; i < n->ns; i++)
		if (!strcmp(n->scopes[i], s))
			return;
	if (n->ns == n->caps) {
		int c = n->caps ? n->caps * 2 : 16;
		char **ns = realloc(n->scopes, (size_t)c * sizeof(*ns));
		if (!ns)
			return;
		n->scopes = ns;
		n->caps = c;
	}
	char *d = strdup(s);
	if (d)
		n->scopes[n->ns++] = d;
}

static bool has_scope(const struct node *n, const char *s)
{
	for (int i = 0; i < n->ns; i++)
		if (!strcmp(n->scopes[i], s))
			return true;
	return false;
}

static struct facet *add(struct node *n, const char *sc, enum sev sev, const char *key,
			 const char *label, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static struct facet *add(struct node *n, const char *sc, enum sev sev, const char *key,
			 const char *label, const char *fmt, ...)
{
	if (n->nf == n->capf) {
		int c = n->capf ? n->capf * 2 : 64;
		struct facet *nf = realloc(n->f, (size_t)c * sizeof(*nf));
		if (!nf)
			return NULL;
		n->f = nf;
		n->capf = c;
	}
	struct facet *f = &n->f[n->nf++];
	memset(f, 0, sizeof(*f));
	scope(n, sc);
	snprintf(f->scope, sizeof(f->scope), "%s", sc);
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->label, sizeof(f->label), "%s", label);
	snprintf(f->absent, sizeof(f->absent), "-");
	f->sev = sev;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->value, sizeof(f->value), fmt, ap);
	va_end(ap);
	return f;
}

/* Limits are a number of bytes or "unlimited"; null = unknown. */
static const char *limit(json_object *v, char *buf, size_t len)
{
	if (!v)
		snprintf(buf, len, "?");
	else if (json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
	else
		fmt_bytes((uint64_t)json_object_get_int64(v), buf, len);
	return buf;
}

static const char *str(json_object *o, const char *k)
{
	const char *s = gets(o, k);
	return s ? s : "-";
}

static void ex_memlock(struct node *n)
{
	json_object *m = get(n->doc, "memlock");
	const char *sc = gets(m, "scope");
	char b[32], b2[32], s[48], key[192], label[192];
	if (!sc)
		return;
	snprintf(s, sizeof(s), "memlock:%s", sc);
	scope(n, s);
	json_object *p = get(m, "process");
	if (p) {
		add(n, s, BREAK, "memlock.soft", "memlock soft limit of the job", "%s",
		    limit(get(p, "soft_bytes"), b, sizeof(b)));
		add(n, s, DRIFT, "memlock.hard", "memlock hard limit of the job", "%s",
		    limit(get(p, "hard_bytes"), b, sizeof(b)));
		json_object *c = get(p, "cap_ipc_lock_effective");
		add(n, s, BREAK, "memlock.cap", "CAP_IPC_LOCK (initial namespace)", "%s",
		    c ? (json_object_get_boolean(c) ? "held" : "not held") : "?");
	}
	json_object *d = get(m, "systemd_default");
	if (d && json_object_get_boolean(get(d, "found")))
		add(n, s, BREAK, "memlock.systemd", "systemd DefaultLimitMEMLOCK", "%s",
		    json_object_get_boolean(get(d, "set")) ?
		    limit(get(d, "soft_bytes"), b, sizeof(b)) : "not set (8 MiB)");
	json_object *u = get(m, "units");
	if (u && json_object_is_type(u, json_type_object)) {
		json_object_object_foreach(u, unit, uv) {
			snprintf(key, sizeof(key), "memlock.unit.%s", unit);
			snprintf(label, sizeof(label), "memlock for jobs of %s", unit);
			add(n, s, BREAK, key, label, "%s",
			    limit(get(uv, "effective_soft_bytes"), b, sizeof(b)));
		}
	}
	json_object *dk = get(m, "docker_default_ulimit");
	if (dk)
		add(n, s, BREAK, "memlock.docker", "Docker default-ulimits memlock", "%s",
		    limit(get(dk, "soft_bytes"), b, sizeof(b)));
	json_object *sp = get(m, "slurm_propagates_memlock");
	if (sp)
		add(n, s, BREAK, "memlock.slurm", "Slurm propagates the submitter's memlock", "%s",
		    json_object_get_boolean(sp) ? "yes" : "no");
	json_object *lc = get(m, "limits_conf");
	if (lc && json_object_is_type(lc, json_type_array)) {
		char all[256] = "";
		for (size_t i = 0; i < json_object_array_length(lc); i++) {
			json_object *e = json_object_array_get_idx(lc, i);
			str_appendf(all, sizeof(all), "%s%s %s %s", all[0] ? ", " : "",
				    str(e, "domain"), str(e, "type"), limit(get(e, "bytes"), b, sizeof(b)));
		}
		add(n, s, BREAK, "memlock.limits_conf", "limits.conf memlock (ssh sessions)", "%s",
		    all[0] ? all : "none");
	}
	json_object *sh = get(m, "this_shell");
	if (sh)
		add(n, s, DRIFT, "memlock.shell", "memlock of the shell that ran check (not the job's)",
		    "%s / %s", limit(get(sh, "soft_bytes"), b, sizeof(b)),
		    limit(get(sh, "hard_bytes"), b2, sizeof(b2)));
}

static void ex_hugepages(struct node *n)
{
	json_object *pools = get(get(n->doc, "hugepages"), "pools");
	if (!pools || !json_object_is_type(pools, json_type_array))
		return;
	scope(n, "hugepages");
	for (size_t i = 0; i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		char sz[32], key[64], label[96];
		fmt_bytes((uint64_t)json_object_get_int64(get(p, "size_bytes")), sz, sizeof(sz));
		snprintf(key, sizeof(key), "hugepages.%s", sz);
		snprintf(label, sizeof(label), "hugepages %s: total / overcommit", sz);
		add(n, "hugepages", DRIFT, key, label, "%lld / %lld",
		    (long long)json_object_get_int64(get(p, "total")),
		    (long long)json_object_get_int64(get(p, "overcommit")));
	}
}

static void ex_port(struct node *n, const char *sc, const char *dev, json_object *p)
{
	int num = json_object_get_int(get(p, "port"));
	char key[192], label[192], pk[128] = "";
	json_object *k = get(p, "pkeys");
	for (size_t i = 0; k && i < json_object_array_length(k); i++)
		str_appendf(pk, sizeof(pk), "%s%s", pk[0] ? "," : "",
			    json_object_get_string(json_object_array_get_idx(k, i)));
#define PORT(suffix, sev, what, ...) ( \
		snprintf(key, sizeof(key), "rdma.%s.port%d.%s", dev, num, suffix), \
		snprintf(label, sizeof(label), "%s port %d %s", dev, num, what), \
		add(n, sc, sev, key, label, __VA_ARGS__))
	PORT("state", BREAK, "state", "%s", str(p, "state"));
	PORT("phys_state", BREAK, "physical state", "%s", str(p, "phys_state"));
	PORT("link_layer", BREAK, "link layer", "%s", str(p, "link_layer"));
	PORT("rate", DRIFT, "rate", "%s", str(p, "rate"));
	if (!strcmp(str(p, "link_layer"), "InfiniBand"))
		PORT("pkeys", BREAK, "PKeys", "%s", pk[0] ? pk : "none");
	/* Facts a down port simply lacks (its state already differs): compared
	 * only between the nodes that have them. */
	struct facet *f = NULL;
	json_object *mtu = get(p, "active_mtu");
	if (mtu && (f = PORT("mtu", DRIFT, "active MTU", "%d", json_object_get_int(mtu))))
		f->absent[0] = '\0';
	json_object *sm = get(p, "sm_lid");
	if (sm && json_object_get_int(sm) &&
	    (f = PORT("sm_lid", DRIFT, "SM LID (another SM = another subnet)", "0x%x",
		      json_object_get_int(sm))))
		f->absent[0] = '\0';
#undef PORT
}

static void ex_rdma(struct node *n)
{
	json_object *devs = get(get(n->doc, "rdma"), "devices");
	if (!devs || !json_object_is_type(devs, json_type_array))
		return;
	char names[512] = "";
	for (size_t i = 0; i < json_object_array_length(devs); i++)
		str_appendf(names, sizeof(names), "%s%s", names[0] ? " " : "",
			    str(json_object_array_get_idx(devs, i), "name"));
	add(n, "rdma", BREAK, "rdma.devices", "RDMA devices", "%s", names[0] ? names : "none");
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);
		const char *dev = str(d, "name");
		char sc[96], key[192], label[192];
		snprintf(sc, sizeof(sc), "rdma:%s", dev);
#define DEV(suffix, sev, what, ...) do { \
		snprintf(key, sizeof(key), "rdma.%s.%s", dev, suffix); \
		snprintf(label, sizeof(label), "%s %s", dev, what); \
		add(n, sc, sev, key, label, __VA_ARGS__); } while (0)
		DEV("driver", DRIFT, "driver", "%s", str(d, "driver"));
		DEV("fw_ver", DRIFT, "firmware", "%s", str(d, "fw_ver"));
		DEV("board_id", DRIFT, "board id", "%s", str(d, "board_id"));
		json_object *dn = get(d, "dev_node");
		DEV("dev_node", BREAK, "device node open(O_RDWR)", "%s", dn ? str(dn, "open") : "no uverbs");
#undef DEV
		json_object *ports = get(d, "ports");
		for (size_t j = 0; ports && j < json_object_array_length(ports); j++)
			ex_port(n, sc, dev, json_object_array_get_idx(ports, j));
	}
}

static void ex_misc(struct node *n)
{
	json_object *h = get(n->doc, "host");
	add(n, "host", DRIFT, "host.kernel", "kernel", "%s", str(h, "kernel"));

	json_object *g = get(n->doc, "gpudirect");
	if (g) {
		add(n, "gpudirect", BREAK, "gpudirect.path", "GPUDirect RDMA path (dmabuf/peermem/none)",
		    "%s", str(g, "path"));
		add(n, "gpudirect", DRIFT, "gpudirect.driver", "NVIDIA driver", "%s",
		    str(g, "nvidia_driver"));
		add(n, "gpudirect", BREAK, "gpudirect.gpus", "GPUs on PCI", "%d",
		    json_object_get_int(get(g, "gpus")));
	}
	json_object *io = get(n->doc, "iommu");
	if (io)
		add(n, "iommu", BREAK, "iommu.mode", "IOMMU mode", "%s", str(io, "mode"));

	json_object *near = get(get(n->doc, "topology"), "nearest");
	for (size_t i = 0; near && i < json_object_array_length(near); i++) {
		json_object *e = json_object_array_get_idx(near, i);
		char key[64], label[64];
		int gpu = json_object_get_int(get(e, "gpu"));
		snprintf(key, sizeof(key), "topology.gpu%d", gpu);
		snprintf(label, sizeof(label), "GPU%d nearest NIC", gpu);
		struct facet *f = add(n, "topology", DRIFT, key, label, "%s %s", str(e, "class"),
				      str(e, "nic"));
		if (f)   /* a missing GPU is reported by "GPUs on PCI" */
			f->absent[0] = '\0';
	}

	json_object *nc = get(n->doc, "nccl");
	const char *sc = gets(nc, "scope");
	if (sc) {
		char s[48];
		snprintf(s, sizeof(s), "nccl:%s", sc);
		scope(n, s);
		json_object *lib = get(nc, "library");
		if (lib)
			add(n, s, BREAK, "nccl.version", "NCCL version", "%s", str(lib, "version"));
		json_object *st = get(nc, "settings");
		for (size_t i = 0; st && i < json_object_array_length(st); i++) {
			json_object *e = json_object_array_get_idx(st, i);
			char key[128];
			snprintf(key, sizeof(key), "nccl.%s", str(e, "name"));
			char label[128];
			snprintf(label, sizeof(label), "%s%s", str(e, "name"),
				 !strcmp(sc, "node") ? " in /etc/nccl.conf" : "");
			struct facet *f = add(n, s, BREAK, key, label, "%s", str(e, "value"));
			if (f)
				snprintf(f->absent, sizeof(f->absent), "(unset)");
		}
	}
}

/* Verdicts of items whose raw facts are not compared above (a near-full
 * VmPin, ACS, peer memory, lint): a FAIL on some nodes only is breaking. */
static void ex_items(struct node *n)
{
	static const char *const covered[] = { "rdma.", "memlock.limit", "memlock.systemd_default",
		"memlock.unit.", "memlock.limits_conf", "memlock.this_shell", "memlock.cap_ipc_lock",
		"memlock.slurm_propagate", "iommu.mode", "nccl.settings", "nccl.library",
		"nccl.conf", "target.", NULL };
	json_object *items = get(n->doc, "items");
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);
		const char *id = str(it, "id");
		bool skip = false;
		for (int c = 0; covered[c] && !skip; c++)
			skip = !strncmp(id, covered[c], strlen(covered[c]));
		if (skip)
			continue;
		char key[192], label[192], sc[32];
		snprintf(key, sizeof(key), "verdict.%s", id);
		snprintf(label, sizeof(label), "%s %s (verdict)", str(it, "area"), str(it, "title"));
		snprintf(sc, sizeof(sc), "verdicts:%s", str(it, "area"));
		struct facet *f = add(n, sc, DRIFT, key, label, "%s", str(it, "verdict"));
		if (f) {
			f->verdict = true;
			snprintf(f->absent, sizeof(f->absent), "n/a");
		}
	}
}

static void extract(struct node *n)
{
	ex_misc(n);
	ex_memlock(n);
	ex_hugepages(n);
	ex_rdma(n);
	ex_items(n);
}

/* ---- comparison ---------------------------------------------------------- */

struct group {
	char value[256];
	int n;
	int *members;      /* node indexes */
};

struct diffrow {
	const struct facet *tmpl;
	enum sev sev;
	int ngroups;
	struct group *g;   /* minority first, majority last */
	bool majority;     /* the last group is strictly larger than any other */
};

static const struct facet *find(const struct node *n, const char *key)
{
	for (int i = 0; i < n->nf; i++)
		if (!strcmp(n->f[i].key, key))
			return &n->f[i];
	return NULL;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->n != y->n)
		return x->n - y->n;          /* smallest first: the odd ones out */
	return x->members[0] - y->members[0];
}

static bool compare(struct node *nodes, int nn, const struct facet *t, struct diffrow *row)
{
	struct group *g = calloc((size_t)nn, sizeof(*g));
	int ng = 0;
	if (!g)
		return false;
	for (int i = 0; i < nn; i++) {
		if (!has_scope(&nodes[i], t->scope))
			continue;
		const struct facet *f = find(&nodes[i], t->key);
		if (!f && !t->absent[0])
			continue;
		const char *v = f ? f->value : t->absent;
		int k = 0;
		while (k < ng && strcmp(g[k].value, v))
			k++;
		if (k == ng) {
			snprintf(g[k].value, sizeof(g[k].value), "%s", v);
			g[k].members = calloc((size_t)nn, sizeof(int));
			if (!g[k].members)
				break;
			ng++;
		}
		g[k].members[g[k].n++] = i;
	}
	if (ng < 2) {
		for (int k = 0; k < ng; k++)
			free(g[k].members);
		free(g);
		return false;
	}
	qsort(g, (size_t)ng, sizeof(*g), cmp_group);
	row->tmpl = t;
	row->g = g;
	row->ngroups = ng;
	row->majority = g[ng - 1].n > g[ng - 2].n;
	row->sev = t->sev;
	if (t->verdict)
		for (int k = 0; k < ng; k++)
			if (!strcmp(g[k].value, "fail"))
				row->sev = BREAK;
	return true;
}

static void print_names(FILE *out, const struct node *nodes, const struct group *g, int max)
{
	for (int i = 0; i < g->n && i < max; i++)
		fprintf(out, "%s%s", i ? " " : "", nodes[g->members[i]].name);
	if (g->n > max)
		fprintf(out, " ... (%d more)", g->n - max);
}

static void print_row(FILE *out, const struct node *nodes, const struct diffrow *r)
{
	fprintf(out, "  %s\n", r->tmpl->label);
	for (int k = 0; k < r->ngroups; k++) {
		const struct group *g = &r->g[k];
		bool maj = r->majority && k == r->ngroups - 1;
		/* long values (device lists) get their own line */
		if (strlen(g->value) > 26)
			fprintf(out, "    %s\n    %-26s ", g->value, "");
		else
			fprintf(out, "    %-26s ", g->value);
		if (maj && g->n > 3) {
			fprintf(out, "%d others: ", g->n);
			print_names(out, nodes, g, 6);
		} else {
			print_names(out, nodes, g, 12);
		}
		fprintf(out, "\n");
	}
}

/* Nodes outside the majority of a row (every node when there is none). */
static bool odd(const struct diffrow *r, int node)
{
	int last = r->majority ? r->ngroups - 1 : r->ngroups;
	for (int k = 0; k < last; k++)
		for (int i = 0; i < r->g[k].n; i++)
			if (r->g[k].members[i] == node)
				return true;
	return false;
}

static void report(FILE *out, struct node *nodes, int nn, struct diffrow *rows, int nr,
		   struct diff_result *res)
{
	int *count = calloc((size_t)nn, sizeof(int));
	for (int i = 0; i < nr; i++) {
		if (rows[i].sev == BREAK)
			res->breaking++;
		else
			res->drift++;
		for (int j = 0; count && j < nn; j++)
			count[j] += rows[i].sev == BREAK && odd(&rows[i], j);
	}

	fprintf(out, "mrtrace diff   %d reports:", nn);
	for (int i = 0; i < nn; i++)
		fprintf(out, " %s", nodes[i].name);
	fprintf(out, "\n\n");
	if (res->breaking) {
		fprintf(out, "RESULT  FAIL  %d difference%s that can break a job; odd ones out:",
			res->breaking, res->breaking == 1 ? "" : "s");
		for (int j = 0; count && j < nn; j++)
			if (count[j])
				fprintf(out, " %s (%d)", nodes[j].name, count[j]);
		fprintf(out, "\n");
	} else {
		fprintf(out, "RESULT  OK    no difference that can break a job%s\n",
			res->drift ? " (drift below)" : "");
	}
	free(count);

	for (int pass = BREAK; pass >= DRIFT; pass--) {
		bool hdr = false;
		for (int i = 0; i < nr; i++) {
			if ((int)rows[i].sev != pass)
				continue;
			if (!hdr) {
				fprintf(out, "\n%s\n", pass == BREAK ?
					"DIFFERENCES THAT CAN BREAK A JOB (odd ones first)" :
					"DRIFT (differs; does not break a job by itself)");
				hdr = true;
			}
			print_row(out, nodes, &rows[i]);
		}
	}

	/* The same FAIL everywhere is no difference, but the operator came here
	 * because the job fails: say it. */
	json_object *items = get(nodes[0].doc, "items");
	bool hdr = false;
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);
		if (strcmp(str(it, "verdict"), "fail"))
			continue;
		bool all = true;
		for (int j = 1; j < nn && all; j++) {
			json_object *o = get(nodes[j].doc, "items");
			bool found = false;
			for (size_t k = 0; k < json_object_array_length(o) && !found; k++) {
				json_object *x = json_object_array_get_idx(o, k);
				found = !strcmp(str(x, "id"), str(it, "id")) &&
					!strcmp(str(x, "verdict"), "fail");
			}
			all = found;
		}
		if (!all)
			continue;
		if (!hdr) {
			fprintf(out, "\nFAILING ON EVERY NODE (no difference; see mrtrace check)\n");
			hdr = true;
		}
		res->shared_fail++;
		fprintf(out, "  %-9s %-20s %s\n", str(it, "area"), str(it, "title"), str(it, "value"));
	}

	/* Groups: nodes equal in every facet that differs anywhere. */
	if (nr) {
		int *grp = malloc((size_t)nn * sizeof(int));
		int ng = 0;
		for (int i = 0; grp && i < nn; i++) {
			grp[i] = -1;
			for (int j = 0; j < i && grp[i] < 0; j++) {
				bool same = true;
				for (int k = 0; k < nr && same; k++) {
					const struct facet *a = find(&nodes[i], rows[k].tmpl->key);
					const struct facet *b = find(&nodes[j], rows[k].tmpl->key);
					same = (!a && !b) || (a && b && !strcmp(a->value, b->value));
				}
				if (same)
					grp[i] = grp[j];
			}
			if (grp[i] < 0)
				grp[i] = ng++;
		}
		fprintf(out, "\nGROUPS (nodes equal in everything compared)\n");
		for (int gi = 0; grp && gi < ng; gi++) {
			int size = 0;
			for (int i = 0; i < nn; i++)
				size += grp[i] == gi;
			fprintf(out, "  %c  %d node%s:", 'A' + gi % 26, size, size == 1 ? " " : "s");
			for (int i = 0; i < nn; i++)
				if (grp[i] == gi)
					fprintf(out, " %s", nodes[i].name);
			fprintf(out, "\n");
		}
		free(grp);
	}
}

int diff_files(int n, const char *const *files, FILE *out, struct diff_result *res, char *err,
	       size_t errlen)
{
	struct diff_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	struct node *nodes = calloc((size_t)n, sizeof(*nodes));
	int rc = 2;
	if (!nodes) {
		fail(err, errlen, "out of memory");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (load(files[i], &nodes[i], err, errlen))
			goto done;
	/* Two reports of one host (re-runs, copied files) keep apart by
	 * file name: mark every duplicate first, then rename them all. */
	bool *dup = calloc((size_t)n, sizeof(bool));
	for (int i = 0; dup && i < n; i++)
		for (int j = 0; j < n; j++)
			dup[i] |= i != j && !strcmp(nodes[i].name, nodes[j].name);
	for (int i = 0; dup && i < n; i++)
		if (dup[i]) {
			const char *base = strrchr(files[i], '/');
			char nm[160];
			snprintf(nm, sizeof(nm), "%.60s(%.90s)", nodes[i].name, base ? base + 1 : files[i]);
			snprintf(nodes[i].name, sizeof(nodes[i].name), "%s", nm);
		}
	free(dup);
	res->nodes = n;
	for (int i = 0; i < n; i++)
		extract(&nodes[i]);

	/* Every key, in first-seen order. */
	int nr = 0, cap = 0;
	struct diffrow *rows = NULL;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < nodes[i].nf; k++) {
			const struct facet *t = &nodes[i].f[k];
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				seen = find(&nodes[j], t->key) != NULL;
			for (int r = 0; r < nr && !seen; r++)
				seen = !strcmp(rows[r].tmpl->key, t->key);
			if (seen)
				continue;
			if (nr == cap) {
				cap = cap ? cap * 2 : 64;
				struct diffrow *nrw = realloc(rows, (size_t)cap * sizeof(*rows));
				if (!nrw)
					break;
				rows = nrw;
			}
			if (compare(nodes, n, t, &rows[nr]))
				nr++;
		}
	report(out, nodes, n, rows, nr, res);
	for (int r = 0; r < nr; r++) {
		for (int k = 0; k < rows[r].ngroups; k++)
			free(rows[r].g[k].members);
		free(rows[r].g);
	}
	free(rows);
	rc = res->breaking ? 1 : 0;
done:
	for (int i = 0; i < n; i++) {
		json_object_put(nodes[i].doc);
		free(nodes[i].f);
		for (int s = 0; s < nodes[i].ns; s++)
			free(nodes[i].scopes[s]);
		free(nodes[i].scopes);
	}
	free(nodes);
	return rc;
}

/* ---- command line -------------------------------------------------------- */

static const char diff_doc[] =
	"Compare `mrtrace check --json` reports from the nodes of a job and print what "
	"differs: nodes outside the majority first, then drift, then the groups of nodes that "
	"agree on everything compared.\n"
	"\n"
	"Breaking differences (exit 1): memlock limits and defaults, CAP_IPC_LOCK, RDMA devices, "
	"port state / physical state / link layer / PKeys, device-node access, GPUDirect path, "
	"GPU count, IOMMU mode, NCCL version and settings, and any verdict that is FAIL on some "
	"nodes only. Drift (reported, exit 0): firmware, driver and kernel versions, link rate, "
	"MTU, hugepage pools, nearest NIC per GPU.\n"
	"\n"
	"Exit status: 0 no breaking difference, 1 a breaking difference, 2 usage error or a "
	"report that cannot be read (the message names the file and what is wrong)."
	"\v"
	"Example:\n"
	"  for h in $(scontrol show hostnames $SLURM_NODELIST); do\n"
	"    ssh $h mrtrace check --json > $h.json; done\n"
	"  mrtrace diff *.json";

struct diff_args {
	int n;
	const char **files;
};

static error_t diff_parse(int key, char *arg, struct argp_state *st)
{
	struct diff_args *a = st->input;
	switch (key) {
	case ARGP_KEY_ARG:
		a->files[a->n++] = arg;
		break;
	case ARGP_KEY_END:
		if (a->n < 2)
			argp_error(st, "give at least two reports (got %d)", a->n);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct argp_option opts[] = { { 0 } };
	static const struct argp argp = { opts, diff_parse, "A.json B.json [C.json ...]", diff_doc,
					  NULL, NULL, NULL };
	struct diff_args a = { 0, calloc((size_t)argc + 1, sizeof(char *)) };
	if (!a.files)
		return 2;
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, &a)) {
		free(a.files);
		return 2;
	}
	char err[512];
	int rc = diff_files(a.n, a.files, stdout, NULL, err, sizeof(err));
	if (rc == 2)
		fprintf(stderr, "mrtrace diff: %s\n", err);
	free(a.files);
	return rc;
}
