// SPDX-License-Identifier: GPL-2.0-only
/* cma.c - CMA pageblocks against CmaTotal: where a long-term pin can fail.
 *
 * A long-term pin (pin_user_pages with FOLL_LONGTERM: every RDMA
 * registration) may not leave a page in a MIGRATE_CMA pageblock or
 * ZONE_MOVABLE: the kernel migrates it out first, and when that migration
 * fails the registration fails with ENOMEM though memlock allows it (cause
 * pin_migrate).  Movable allocations are placed in CMA pageblocks freely, so
 * the more memory is CMA, the more a registration has to move.  Usually
 * CmaTotal in /proc/meminfo says how much; but pageblocks can be MIGRATE_CMA
 * without a CMA area behind them (the kexec-handover scratch memory of some
 * arm64 systems), and then CmaTotal reads about zero while much of memory is
 * CMA.  /proc/pagetypeinfo counts the pageblocks of each migrate type per
 * zone ("Number of blocks type ... CMA"); it is root's (0400, 5.4+). */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "core/units.h"
#include "verdict/names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMA_ZONES 32
#define MIN_PAGE 4096ull              /* no kernel has smaller pages */

struct cma_facts {
	int pti_error;                     /* reading /proc/pagetypeinfo: -errno */
	bool cma_column;                   /* the kernel has CONFIG_CMA */
	unsigned order;                    /* "Page block order: 9" */
	unsigned long pages_per_block;     /* "Pages per block:  512" */
	int n_zones;
	struct { int node; char zone[16]; unsigned long long blocks; } zones[CMA_ZONES];
	unsigned long long cma_blocks;     /* over all zones */
	bool have_cma_total;
	unsigned long long cma_total_kb, cma_free_kb;
	unsigned long long page_size;      /* 0 unknown */
};

static bool meminfo_kb(const char *text, const char *key, unsigned long long *out)
{
	const char *p = strstr(text, key);
	if (!p || (p != text && p[-1] != '\n'))
		return false;
	*out = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/* The "Number of blocks type" table's CMA column, per zone. */
static void parse_pagetypeinfo(char *text, struct cma_facts *c)
{
	char *save = NULL;
	int col = -1;
	bool in_table = false;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "Page block order: %u", &c->order) == 1 ||
		    sscanf(l, "Pages per block: %lu", &c->pages_per_block) == 1)
			continue;
		if (!strncmp(l, "Number of blocks type", 21)) {
			/* the column names that follow, in order */
			char *s2 = NULL;
			int i = 0;
			col = -1;
			for (char *w = strtok_r(l + 21, " \t", &s2); w; w = strtok_r(NULL, " \t", &s2), i++)
				if (!strcmp(w, "CMA"))
					col = i;
			in_table = true;
			c->cma_column = col >= 0;
			continue;
		}
		if (!in_table)
			continue;
		int node;
		char zone[16];
		int used = 0;
		/* "Node 0, zone   Normal  164  15786  98  0  0  0"; any other line
		 * (the "mixed blocks" table of page_owner kernels) ends it */
		if (sscanf(l, "Node %d, zone %15s%n", &node, zone, &used) != 2) {
			in_table = false;
			continue;
		}
		if (col < 0)
			continue;
		char *p = l + used, *end;
		unsigned long long v = 0;
		bool ok = true;
		for (int i = 0; i <= col && ok; i++) {
			v = strtoull(p, &end, 10);
			ok = end != p;
			p = end;
		}
		if (!ok)
			continue;
		c->cma_blocks += v;
		if (c->n_zones < CMA_ZONES) {
			c->zones[c->n_zones].node = node;
			snprintf(c->zones[c->n_zones].zone, sizeof(c->zones[0].zone), "%s", zone);
			c->zones[c->n_zones++].blocks = v;
		}
	}
}

static void read_facts(const char *root, struct cma_facts *c)
{
	size_t len = 256 << 10, got;   /* pagetypeinfo of a many-node machine */
	char *text = malloc(len);
	bool live = !root || !*root || !strcmp(root, "/");

	memset(c, 0, sizeof(*c));
	if (!text) {
		c->pti_error = -ENOMEM;
		return;
	}
	c->pti_error = sr_read_all(root, "/proc/pagetypeinfo", text, len, &got);
	if (!c->pti_error)
		parse_pagetypeinfo(text, c);
	unsigned long long memfree_kb = 0, free_pages = 0;
	if (!sr_read_all(root, "/proc/meminfo", text, len, &got)) {
		c->have_cma_total = meminfo_kb(text, "CmaTotal:", &c->cma_total_kb);
		meminfo_kb(text, "CmaFree:", &c->cma_free_kb);
		meminfo_kb(text, "MemFree:", &memfree_kb);
	}
	/* the node's page size: ours on the node; in a recorded tree the ratio
	 * of MemFree (kB) to vmstat's nr_free_pages, which count the same pages */
	if (live) {
		c->page_size = (unsigned long long)sysconf(_SC_PAGESIZE);
	} else if (!sr_read_all(root, "/proc/vmstat", text, len, &got)) {
		const char *p = strstr(text, "nr_free_pages ");
		free_pages = p ? strtoull(p + 14, NULL, 10) : 0;
		if (free_pages && memfree_kb) {
			unsigned long long ps = memfree_kb * 1024 / free_pages;
			for (unsigned long long s = MIN_PAGE; s <= (256ull << 10); s <<= 1)
				if (ps == s)
					c->page_size = s;
		}
	}
	free(text);
}

static void facts_json(json_object *sec, const struct cma_facts *c)
{
	json_object_object_add(sec, "pagetypeinfo_error", c->pti_error ?
			       json_object_new_string(errno_name(-c->pti_error)) : NULL);
	json_object_object_add(sec, "cma_total_bytes", c->have_cma_total ?
			       json_object_new_uint64(c->cma_total_kb * 1024) : NULL);
	json_object_object_add(sec, "cma_free_bytes", c->have_cma_total ?
			       json_object_new_uint64(c->cma_free_kb * 1024) : NULL);
	bool known = !c->pti_error && c->cma_column;
	json_object_object_add(sec, "pageblock_order", known ? json_object_new_int((int)c->order) : NULL);
	json_object_object_add(sec, "pages_per_block", known ? json_object_new_uint64(c->pages_per_block) : NULL);
	json_object_object_add(sec, "page_size_bytes", c->page_size ? json_object_new_uint64(c->page_size) : NULL);
	json_object_object_add(sec, "cma_pageblocks", known ? json_object_new_uint64(c->cma_blocks) : NULL);
	json_object_object_add(sec, "cma_pageblock_bytes", known && c->page_size ?
			       json_object_new_uint64(c->cma_blocks * c->pages_per_block * c->page_size) : NULL);
	json_object *a = json_object_new_array();
	for (int i = 0; i < c->n_zones; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "node", json_object_new_int(c->zones[i].node));
		json_object_object_add(o, "zone", json_object_new_string(c->zones[i].zone));
		json_object_object_add(o, "cma_pageblocks", json_object_new_uint64(c->zones[i].blocks));
		json_object_array_add(a, o);
	}
	json_object_object_add(sec, "zones", a);
}

void check_cma(struct chk_report *r)
{
	json_object *sec = chk_section(r, "cma");
	struct cma_facts c;
	char total[32] = "?", blocks[32], zones[160] = "";

	read_facts(r->opt.root, &c);
	facts_json(sec, &c);
	if (c.have_cma_total)
		fmt_bytes(c.cma_total_kb * 1024, total, sizeof(total));
	if (c.pti_error) {
		chk_add(r, "cma", "cma.pageblocks", CHK_UNKNOWN, CHK_CLS_ENV, "CMA pageblocks",
			"not readable (/proc/pagetypeinfo: %s; root only), CmaTotal %s",
			errno_name(-c.pti_error), total);
		return;
	}
	if (!c.cma_column) {
		chk_add(r, "cma", "cma.pageblocks", CHK_OK, CHK_CLS_ENV, "CMA pageblocks",
			"none: the kernel has no CMA");
		return;
	}
	if (!c.cma_blocks) {
		chk_add(r, "cma", "cma.pageblocks", CHK_OK, CHK_CLS_ENV, "CMA pageblocks",
			"0, CmaTotal %s", total);
		return;
	}
	for (int i = 0; i < c.n_zones; i++)
		if (c.zones[i].blocks)
			str_appendf(zones, sizeof(zones), "%snode %d %s %llu", zones[0] ? ", " : "",
				    c.zones[i].node, c.zones[i].zone, c.zones[i].blocks);
	unsigned long long bytes = c.cma_blocks * c.pages_per_block * (c.page_size ? c.page_size : MIN_PAGE);
	fmt_bytes(bytes, blocks, sizeof(blocks));
	/* "about zero": CmaTotal under half of what the pageblocks hold, even
	 * counted with the smallest page size */
	bool hidden = c.have_cma_total && c.cma_total_kb * 1024 * 2 < bytes;
	struct chk_item *it = chk_add(r, "cma", "cma.pageblocks", hidden ? CHK_WARN : CHK_OK, CHK_CLS_ENV,
				      "CMA pageblocks", "%llu (%s%s: %s) beside CmaTotal %s", c.cma_blocks,
				      c.page_size ? "" : "at least ", blocks, zones, total);
	if (!hidden)
		return;
	char cmdline[1024] = "";
	sr_read_line(r->opt.root, "/proc/cmdline", cmdline, sizeof(cmdline));
	bool kho = strstr(cmdline, "kho=on") || strstr(cmdline, "kho_scratch=");
	chk_note(it, "%s of memory is in MIGRATE_CMA pageblocks that no CMA area accounts for "
		 "(CmaTotal %s)%s. Kexec handover (KHO) marks its scratch regions so, on some arm64 "
		 "systems most of memory; processes get ordinary movable pages from there, and a "
		 "long-term pin of them (every RDMA registration) must migrate them out first: when "
		 "that fails the registration fails with ENOMEM although memlock allows it (cause "
		 "pin_migrate).", blocks, total, kho ? "; the kernel command line enables KHO" : "");
	chk_fix(it, "Boot without kho=on, or with a smaller kho_scratch=, so that pinned buffers "
		"come from ordinary pageblocks; `grep -i cma /proc/meminfo` and the CMA column of "
		"/proc/pagetypeinfo show the split.");
}
