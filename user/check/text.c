// SPDX-License-Identifier: GPL-2.0-only
/* text.c - the report for a human at 3 a.m.: the verdict and what to do
 * first, then each area with one aligned line per item (verdict first), and
 * the why/fix only under the lines that need them.  Values carry names and
 * settings of the node and the job: every string is printed through esc(),
 * so none can act on the terminal or start a line of its own. */
#include "check/check.h"
#include "check/areas.h"
#include "core/escape.h"

#include <ctype.h>
#include <string.h>

#define WIDTH 100
#define VCOL 6     /* "FAIL  " */
#define TCOL 22    /* title column */

static const char *V(enum chk_verdict v)
{
	static const char *const s[] = { "OK", "??", "WARN", "FAIL" };
	return s[v];
}

/* Prints text wrapped at WIDTH, every line after the first indented by ind. */
static void wrap(FILE *out, const char *text, int col, int ind)
{
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		int room = WIDTH - col;
		int len = (int)strlen(p);
		int cut = len;
		if (len > room) {
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)   /* one long word (a path): let it overflow */
				cut = (int)strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", cut, p);
		p += cut;
		if (*p) {
			fprintf(out, "%*s", ind, "");
			col = ind;
		}
	}
}

static void item(FILE *out, const struct chk_item *it)
{
	fprintf(out, "  %-*s%-*s ", VCOL, V(it->verdict), TCOL - 1, esc(it->title));
	wrap(out, esc(it->value), 2 + VCOL + TCOL, 2 + VCOL + TCOL);
	if (it->verdict == CHK_OK)
		return;
	int ind = 2 + VCOL + 5;
	if (it->note[0]) {
		fprintf(out, "%*swhy: ", 2 + VCOL, "");
		wrap(out, esc(it->note), ind, ind);
	}
	if (it->fix[0]) {
		fprintf(out, "%*sfix: ", 2 + VCOL, "");
		wrap(out, esc(it->fix), ind, ind);
	}
}

static const char *jstr(json_object *o, const char *k)
{
	json_object *v;
	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : NULL;
}

static void header(const struct chk_report *r, FILE *out)
{
	fprintf(out, "mrtrace check   host %s   kernel %s", esc(r->hostname),
		r->kernel[0] ? esc(r->kernel) : "?");
	if (r->opt.root && *r->opt.root && strcmp(r->opt.root, "/"))
		fprintf(out, "   sysroot %s", esc(r->opt.root));
	fprintf(out, "\n");
	json_object *t;
	if (r->opt.pid <= 0) {
		fprintf(out, "scope           this node; no -p, so memlock shows the defaults new jobs "
			     "get, not a job's limit\n");
		return;
	}
	if (!r->have_target || !json_object_object_get_ex(r->doc, "target", &t)) {
		const struct chk_item *why = chk_find(r, "target.process");
		fprintf(out, "target          %s\n", why ? esc(why->value) : "not readable");
		return;
	}
	const char *comm = jstr(t, "comm"), *setting = jstr(t, "setting");
	const char *rt = jstr(t, "runtime"), *cid = jstr(t, "container_id");
	const char *unit = jstr(t, "systemd_unit"), *chain = jstr(t, "launchers");
	fprintf(out, "target          pid %d (%s)", r->opt.pid, comm ? esc(comm) : "?");
	if (setting && strcmp(setting, "unknown"))
		fprintf(out, ", %s", esc(setting));
	if (rt) {
		char shortid[13];   /* the id docker ps shows */
		snprintf(shortid, sizeof(shortid), "%.12s", cid ? cid : "");
		fprintf(out, ", %s container %s", esc(rt), esc(shortid));
	}
	if (unit)
		fprintf(out, ", unit %s", esc(unit));
	if (r->target->slurm_job >= 0 && (r->target->have & CTX_HAVE_CGROUP))
		fprintf(out, ", slurm job %ld", r->target->slurm_job);
	fprintf(out, "\n");
	if (chain)
		fprintf(out, "launched by     %s\n", esc(chain));
}

static void summary(const struct chk_report *r, FILE *out)
{
	json_object *s, *a;
	if (!json_object_object_get_ex(r->doc, "summary", &s))
		return;
	enum chk_verdict ov = chk_overall(r);
	fprintf(out, "\nRESULT  %-6s", V(ov));
	wrap(out, esc(jstr(s, "headline")), 14, 14);
	for (int v = CHK_FAIL; v >= CHK_WARN; v--)
		for (int i = 0; i < r->n_items; i++)
			if ((int)r->items[i].verdict == v) {
				char t[80];
				snprintf(t, sizeof(t), "%s %s", r->items[i].area, r->items[i].title);
				fprintf(out, "  %-*s%-*s ", VCOL, V(v), TCOL + 7, esc(t));
				wrap(out, esc(r->items[i].value), 2 + VCOL + TCOL + 8, 2 + VCOL + TCOL + 8);
			}
	if (json_object_object_get_ex(s, "next", &a) && json_object_array_length(a)) {
		fprintf(out, "\nNEXT\n");
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			fprintf(out, "  %zu. ", i + 1);
			wrap(out, esc(json_object_get_string(json_object_array_get_idx(a, i))), 5, 5);
		}
	}
}

static const struct { const char *area, *title; } areas[] = {
	{ "target", "TARGET" },
	{ "memlock", "MEMLOCK" },
	{ "hugepages", "HUGEPAGES" },
	{ "cma", "LONG-TERM PINS (CMA)" },
	{ "rdma", "RDMA DEVICES" },
	{ "gpudirect", "GPUDIRECT" },
	{ "iommu", "IOMMU" },
	{ "topology", "TOPOLOGY (GPU to NIC)" },
	{ "nccl", "NCCL" },
	{ "fabric", "FABRIC ADDRESSING (what NCCL will use)" },
};

void chk_print_text(const struct chk_report *r, FILE *out)
{
	header(r, out);
	summary(r, out);
	for (size_t a = 0; a < sizeof(areas) / sizeof(areas[0]); a++) {
		bool printed = false;
		for (int i = 0; i < r->n_items; i++) {
			if (strcmp(r->items[i].area, areas[a].area))
				continue;
			if (!printed) {
				fprintf(out, "\n%s", areas[a].title);
				if (!strcmp(areas[a].area, "memlock") && r->opt.pid > 0)
					fprintf(out, "  (pid %d)", r->opt.pid);
				else if (!strcmp(areas[a].area, "memlock"))
					fprintf(out, "  (defaults new jobs get; each line says where it applies)");
				fprintf(out, "\n");
				printed = true;
			}
			item(out, &r->items[i]);
		}
		if (printed && !strcmp(areas[a].area, "topology"))
			check_topology_text(r, out);
	}
}
