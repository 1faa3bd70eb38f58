// SPDX-License-Identifier: GPL-2.0-only
/* compare.c - facets compared across nodes, and the report (see diff.h).
 *
 * Linear in the facets: every key is found through a hash table, each row
 * (one key) walks only the nodes of its scope, and nodes are grouped by a
 * hash of what they hold in the differing rows.
 *
 * Every string printed comes from a report, so from another machine: it is
 * escaped (no control sequence reaches the terminal) and cut to a screen's
 * width (a 10 MB value is a report's problem, not the operator's).
 *
 * Length: over the usual 500 lines: the rows, their comparison and the
 * text and JSON output of the same rows; the output is most of it. */
#include "diff/diff.h"
#include "diff/model.h"

#include "core/escape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	int node;
	const struct diff_facet *f;
};

struct group {
	const char *value;
	int n, cap;
	int *members;      /* node indexes, ascending */
};

struct row {
	const struct diff_facet *tmpl;   /* the first node's facet for this key */
	struct entry *e;                 /* nodes that have the key, ascending */
	int ne, cape;
	enum diff_sev sev;
	int ngroups;
	struct group *g;                 /* minority first, majority last */
	bool majority;                   /* the last group is larger than any other */
};

struct scope_nodes {
	int *node;                       /* ascending */
	int n, cap;
};

struct run {
	struct diff_node *nodes;
	int nn;
	struct row *rows;
	int nr, capr;
	struct strmap row_of;            /* key -> row */
	struct scope_nodes *scopes;
	int nsc, capsc;
	struct strmap scope_of;          /* scope -> index */
	int *diffrows;                   /* rows with a difference, in key order */
	int nd;
	bool oom;
};

static bool push_int(int **a, int *n, int *cap, int v)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 8;
		int *na = realloc(*a, (size_t)c * sizeof(int));
		if (!na)
			return false;
		*a = na;
		*cap = c;
	}
	(*a)[(*n)++] = v;
	return true;
}

/* ---- rows: every key, in first-seen order ------------------------------------ */

static void index_node(struct run *r, int i)
{
	struct diff_node *n = &r->nodes[i];
	for (int s = 0; s < n->ns && !r->oom; s++) {
		int k = strmap_get(&r->scope_of, n->scopes[s]);
		if (k < 0) {
			if (r->nsc == r->capsc) {
				int c = r->capsc ? r->capsc * 2 : 32;
				struct scope_nodes *ns = realloc(r->scopes, (size_t)c * sizeof(*ns));
				if (!ns) {
					r->oom = true;
					break;
				}
				r->scopes = ns;
				r->capsc = c;
			}
			k = r->nsc;
			memset(&r->scopes[k], 0, sizeof(r->scopes[k]));
			if (strmap_add(&r->scope_of, n->scopes[s], k) < 0) {
				r->oom = true;
				break;
			}
			r->nsc++;
		}
		struct scope_nodes *sn = &r->scopes[k];
		if (!push_int(&sn->node, &sn->n, &sn->cap, i))
			r->oom = true;
	}
	for (int k = 0; k < n->nf && !r->oom; k++) {
		const struct diff_facet *f = &n->f[k];
		int ri = strmap_get(&r->row_of, f->key);
		if (ri < 0) {
			if (r->nr == r->capr) {
				int c = r->capr ? r->capr * 2 : 64;
				struct row *nrw = realloc(r->rows, (size_t)c * sizeof(*nrw));
				if (!nrw) {
					r->oom = true;
					break;
				}
				r->rows = nrw;
				r->capr = c;
			}
			ri = r->nr;
			memset(&r->rows[ri], 0, sizeof(r->rows[ri]));
			r->rows[ri].tmpl = f;
			if (strmap_add(&r->row_of, f->key, ri) < 0) {
				r->oom = true;
				break;
			}
			r->nr++;
		}
		struct row *row = &r->rows[ri];
		if (row->ne == row->cape) {
			int c = row->cape ? row->cape * 2 : 4;
			struct entry *ne = realloc(row->e, (size_t)c * sizeof(*ne));
			if (!ne) {
				r->oom = true;
				break;
			}
			row->e = ne;
			row->cape = c;
		}
		row->e[row->ne++] = (struct entry){ i, f };
	}
}

/* ---- one row ------------------------------------------------------------------ */

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->n != y->n)
		return x->n - y->n;          /* smallest first: the odd ones out */
	return x->members[0] - y->members[0];
}

static bool add_member(struct row *row, struct strmap *vals, const char *v, int node)
{
	int k = strmap_get(vals, v);
	if (k < 0) {
		k = row->ngroups;
		if (strmap_add(vals, v, k) < 0)
			return false;
		struct group *ng = realloc(row->g, (size_t)(k + 1) * sizeof(*ng));
		if (!ng)
			return false;
		row->g = ng;
		memset(&ng[k], 0, sizeof(ng[k]));
		ng[k].value = v;
		row->ngroups++;
	}
	struct group *g = &row->g[k];
	return push_int(&g->members, &g->n, &g->cap, node);
}

static void free_groups(struct row *row)
{
	for (int k = 0; k < row->ngroups; k++)
		free(row->g[k].members);
	free(row->g);
	row->g = NULL;
	row->ngroups = 0;
}

/* Groups the nodes of the template's scope by value (absent ones by the
 * template's absent value); true when there is more than one group. */
static bool compare(struct run *r, struct row *row)
{
	const struct diff_facet *t = row->tmpl;
	int sk = strmap_get(&r->scope_of, t->scope);
	if (sk < 0)
		return false;
	const struct scope_nodes *sn = &r->scopes[sk];
	struct strmap vals = { 0 };
	int e = 0;
	bool ok = true;
	/* both lists ascend by node: one merge pass */
	for (int s = 0; s < sn->n && ok; s++) {
		int node = sn->node[s];
		while (e < row->ne && row->e[e].node < node)
			e++;
		const struct diff_facet *f = e < row->ne && row->e[e].node == node ? row->e[e].f : NULL;
		if (!f && !t->absent[0])
			continue;
		ok = add_member(row, &vals, f ? f->value : t->absent, node);
	}
	strmap_free(&vals);
	if (!ok)
		r->oom = true;
	if (!ok || row->ngroups < 2) {
		free_groups(row);
		return false;
	}
	qsort(row->g, (size_t)row->ngroups, sizeof(*row->g), cmp_group);
	int ng = row->ngroups;
	row->majority = row->g[ng - 1].n > row->g[ng - 2].n;
	row->sev = t->sev;
	if (t->verdict)
		for (int k = 0; k < ng; k++)
			if (!strcmp(row->g[k].value, "fail"))
				row->sev = DIFF_BREAK;
	return true;
}

/* ---- output ------------------------------------------------------------------- */

/* Escaped and cut: at most len-1 bytes. */
static const char *shown(const char *s, char *buf, size_t len)
{
	return esc_text(s, buf, len);
}

static void print_names(FILE *out, const struct diff_node *nodes, const struct group *g, int max)
{
	char b[128];
	for (int i = 0; i < g->n && i < max; i++)
		fprintf(out, "%s%s", i ? " " : "", shown(nodes[g->members[i]].name, b, sizeof(b)));
	if (g->n > max)
		fprintf(out, " ... (%d more)", g->n - max);
}

static void print_row(FILE *out, const struct diff_node *nodes, const struct row *r)
{
	char b[512];
	fprintf(out, "  %s\n", shown(r->tmpl->label, b, sizeof(b)));
	for (int k = 0; k < r->ngroups; k++) {
		const struct group *g = &r->g[k];
		bool maj = r->majority && k == r->ngroups - 1;
		const char *v = shown(g->value, b, sizeof(b));
		/* long values (device lists) get their own line */
		if (strlen(v) > 26)
			fprintf(out, "    %s\n    %-26s ", v, "");
		else
			fprintf(out, "    %-26s ", v);
		if (maj && g->n > 3) {
			fprintf(out, "%d others: ", g->n);
			print_names(out, nodes, g, 6);
		} else {
			print_names(out, nodes, g, 12);
		}
		fprintf(out, "\n");
	}
}

/* Breaking differences per node: every node outside a row's majority (every
 * node of the row when there is none). */
static int *odd_counts(const struct run *r, int *breaking, int *drift)
{
	int *count = calloc((size_t)r->nn, sizeof(int));
	for (int d = 0; d < r->nd; d++) {
		const struct row *row = &r->rows[r->diffrows[d]];
		if (row->sev == DIFF_BREAK)
			(*breaking)++;
		else
			(*drift)++;
		if (row->sev != DIFF_BREAK || !count)
			continue;
		int last = row->majority ? row->ngroups - 1 : row->ngroups;
		for (int k = 0; k < last; k++)
			for (int i = 0; i < row->g[k].n; i++)
				count[row->g[k].members[i]]++;
	}
	return count;
}

/* The same FAIL everywhere is no difference, but the operator came here
 * because the job fails: say it. */
static void print_shared_failures(FILE *out, const struct run *r, struct diff_result *res)
{
	bool hdr = false;
	const struct diff_node *first = &r->nodes[0];
	for (int i = 0; i < first->nfails; i++) {
		const struct diff_fail *f = &first->fails[i];
		bool all = true;
		for (int j = 1; j < r->nn && all; j++)
			all = strmap_get(&r->nodes[j].fail_ids, f->id) >= 0;
		if (!all)
			continue;
		if (!hdr) {
			fprintf(out, "\nFAILING ON EVERY NODE (no difference; see mrtrace check)\n");
			hdr = true;
		}
		res->shared_fail++;
		char a[64], t[128], v[512];
		fprintf(out, "  %-9s %-20s %s\n", shown(f->area, a, sizeof(a)), shown(f->title, t, sizeof(t)),
			shown(f->value, v, sizeof(v)));
	}
}

/* Groups: nodes equal in every facet that differs anywhere.  A node's
 * signature is, per differing row, which value it holds (or none); equal
 * signatures are found by hash and confirmed by comparison. */
static void print_node_groups(FILE *out, struct run *r)
{
	if (!r->nd)
		return;
	int nn = r->nn, nd = r->nd;
	int *sig = malloc((size_t)nn * (size_t)nd * sizeof(int));
	int *grp = malloc((size_t)nn * sizeof(int));
	uint64_t *h = calloc((size_t)nn, sizeof(uint64_t));
	int *rep = malloc((size_t)nn * sizeof(int));   /* a member of each group */
	size_t tcap = 16;
	while (tcap < (size_t)nn * 2)
		tcap *= 2;
	int *table = malloc(tcap * sizeof(int));        /* open addressing: group ids */
	if (!sig || !grp || !h || !rep || !table) {
		fprintf(out, "\nGROUPS not computed: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < (size_t)nn * (size_t)nd; i++)
		sig[i] = -1;
	for (int d = 0; d < nd; d++) {
		struct row *row = &r->rows[r->diffrows[d]];
		/* by facet value, whatever the node's scope: as the rows read */
		struct strmap vals = { 0 };
		for (int k = 0; k < row->ne; k++) {
			/* out of memory: the node keeps "no value" here */
			int id = strmap_add(&vals, row->e[k].f->value, (int)vals.n);
			if (id < 0)
				break;
			sig[(size_t)row->e[k].node * (size_t)nd + (size_t)d] = id;
		}
		strmap_free(&vals);
	}
	for (size_t i = 0; i < tcap; i++)
		table[i] = -1;
	int ng = 0;
	for (int i = 0; i < nn; i++) {
		const int *s = &sig[(size_t)i * (size_t)nd];
		h[i] = strmap_hash(s, (size_t)nd * sizeof(int));
		size_t slot = h[i] & (tcap - 1);
		grp[i] = -1;
		for (; table[slot] >= 0; slot = (slot + 1) & (tcap - 1)) {
			int g = table[slot], j = rep[g];
			if (h[j] == h[i] && !memcmp(&sig[(size_t)j * (size_t)nd], s,
						   (size_t)nd * sizeof(int))) {
				grp[i] = g;
				break;
			}
		}
		if (grp[i] < 0) {
			grp[i] = ng;
			rep[ng] = i;
			table[slot] = ng++;
		}
	}
	int *size = calloc((size_t)ng, sizeof(int));
	if (!size) {
		fprintf(out, "\nGROUPS not computed: out of memory\n");
		goto out;
	}
	for (int i = 0; i < nn; i++)
		size[grp[i]]++;
	fprintf(out, "\nGROUPS (nodes equal in everything compared)\n");
	for (int gi = 0; gi < ng; gi++) {
		fprintf(out, "  %c  %d node%s:", 'A' + gi % 26, size[gi], size[gi] == 1 ? " " : "s");
		char b[128];
		for (int i = rep[gi]; i < nn; i++)
			if (grp[i] == gi)
				fprintf(out, " %s", shown(r->nodes[i].name, b, sizeof(b)));
		fprintf(out, "\n");
	}
	free(size);
out:
	free(sig);
	free(grp);
	free(h);
	free(rep);
	free(table);
}

static void report(FILE *out, struct run *r, struct diff_result *res, const char *dups)
{
	int *count = odd_counts(r, &res->breaking, &res->drift);
	char b[128];
	fprintf(out, "mrtrace diff   %d reports:", r->nn);
	for (int i = 0; i < r->nn; i++)
		fprintf(out, " %s", shown(r->nodes[i].name, b, sizeof(b)));
	fprintf(out, "\n%s\n", dups);
	if (res->breaking) {
		fprintf(out, "RESULT  FAIL  %d difference%s that can break a job; odd ones out:",
			res->breaking, res->breaking == 1 ? "" : "s");
		for (int j = 0; count && j < r->nn; j++)
			if (count[j])
				fprintf(out, " %s (%d)", shown(r->nodes[j].name, b, sizeof(b)), count[j]);
		fprintf(out, "\n");
	} else {
		fprintf(out, "RESULT  OK    no difference that can break a job%s\n",
			res->drift ? " (drift below)" : "");
	}
	free(count);

	for (int pass = DIFF_BREAK; pass >= DIFF_DRIFT; pass--) {
		bool hdr = false;
		for (int d = 0; d < r->nd; d++) {
			const struct row *row = &r->rows[r->diffrows[d]];
			if ((int)row->sev != pass)
				continue;
			if (!hdr) {
				fprintf(out, "\n%s\n", pass == DIFF_BREAK ?
					"DIFFERENCES THAT CAN BREAK A JOB (odd ones first)" :
					"DRIFT (differs; does not break a job by itself)");
				hdr = true;
			}
			print_row(out, r->nodes, row);
		}
	}
	print_shared_failures(out, r, res);
	print_node_groups(out, r);
}

/* ---- the whole run ------------------------------------------------------------- */

/* Two reports of one host (re-runs, copied files) keep apart by file name. */
static int name_nodes(struct run *r)
{
	struct strmap seen = { 0 };
	bool *dup = calloc((size_t)r->nn, sizeof(bool));
	int rc = dup ? 0 : -1;
	for (int i = 0; !rc && i < r->nn; i++) {
		int k = strmap_add(&seen, r->nodes[i].name, i);
		if (k < 0)
			rc = -1;
		else if (k != i)
			dup[i] = dup[k] = true;
	}
	for (int i = 0; !rc && i < r->nn; i++) {
		if (!dup[i])
			continue;
		const char *base = strrchr(r->nodes[i].file, '/');
		const char *nm = arena_printf(&r->nodes[i].ar, "%.60s(%.90s)", r->nodes[i].name,
					      base ? base + 1 : r->nodes[i].file);
		if (!nm)
			rc = -1;
		else
			r->nodes[i].name = nm;
	}
	strmap_free(&seen);
	free(dup);
	return rc;
}

int diff_files(int n, const char *const *files, FILE *out, struct diff_result *res, char *err,
	       size_t errlen)
{
	struct diff_result dummy;
	struct run r = { 0 };
	struct diff_source *src = calloc((size_t)(n > 0 ? n : 1), sizeof(*src));
	char dups[512] = "";
	int rc = 2, nsrc = 0;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (!src) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	/* The same file under two names (or twice) is one report. */
	for (int i = 0; i < n; i++) {
		struct diff_source s;
		if (diff_source_stat(files[i], &s, err, errlen))
			goto done;
		int j = 0;
		while (j < nsrc && (src[j].dev != s.dev || src[j].ino != s.ino))
			j++;
		if (j < nsrc) {
			size_t l = strlen(dups);
			snprintf(dups + l, sizeof(dups) - l, "(%s%s%s: the same report, read once)\n",
				 esc(src[j].shown), strcmp(src[j].arg, s.arg) ? " = " : " given twice",
				 strcmp(src[j].arg, s.arg) ? esc(s.shown) : "");
			continue;
		}
		src[nsrc++] = s;
	}
	if (nsrc < 2 && n >= 2) {
		/* one report named several times: it does not differ from itself
		 * (it is still loaded, so a malformed one is refused as ever) */
		json_object *doc;
		if (diff_load(&src[0], &doc, err, errlen))
			goto done;
		json_object_put(doc);
		fprintf(out, "%sone report, nothing to compare: no difference\n", dups);
		rc = 0;
		goto done;
	}
	if (nsrc < 2) {
		snprintf(err, errlen, "give at least two reports (got %d)", n);
		goto done;
	}
	r.nodes = calloc((size_t)nsrc, sizeof(*r.nodes));
	if (!r.nodes) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	/* One parsed document at a time: only the compact facets stay. */
	for (int i = 0; i < nsrc; i++) {
		json_object *doc;
		struct diff_node *nd = &r.nodes[i];
		r.nn = i + 1;
		nd->file = src[i].shown;
		if (diff_load(&src[i], &doc, err, errlen))
			goto done;
		json_object *h = json_object_object_get(doc, "host");
		const char *host = json_object_get_string(json_object_object_get(h, "hostname"));
		const char *base = strrchr(nd->file, '/');
		nd->name = arena_strdup(&nd->ar, host && *host ? host : base ? base + 1 : nd->file);
		int bad = !nd->name ? (snprintf(err, errlen, "out of memory"), -1)
				    : diff_extract(nd, doc, err, errlen);
		json_object_put(doc);
		if (bad)
			goto done;
		index_node(&r, i);
		if (r.oom) {
			snprintf(err, errlen, "out of memory comparing the reports");
			goto done;
		}
	}
	if (name_nodes(&r)) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	res->nodes = r.nn;
	r.diffrows = malloc((size_t)(r.nr ? r.nr : 1) * sizeof(int));
	for (int i = 0; r.diffrows && i < r.nr && !r.oom; i++)
		if (compare(&r, &r.rows[i]))
			r.diffrows[r.nd++] = i;
	if (!r.diffrows || r.oom) {
		snprintf(err, errlen, "out of memory comparing the reports");
		goto done;
	}
	report(out, &r, res, dups);
	rc = res->breaking ? 1 : 0;
done:
	for (int i = 0; i < r.nr; i++) {
		free_groups(&r.rows[i]);
		free(r.rows[i].e);
	}
	free(r.rows);
	for (int i = 0; i < r.nsc; i++)
		free(r.scopes[i].node);
	free(r.scopes);
	strmap_free(&r.row_of);
	strmap_free(&r.scope_of);
	free(r.diffrows);
	for (int i = 0; i < r.nn; i++)
		diff_node_free(&r.nodes[i]);
	free(r.nodes);
	free(src);
	return rc;
}
