// SPDX-License-Identifier: GPL-2.0-only
/* cma_facts.c - CMA pageblocks per zone and CmaTotal (see cma_facts.h).
 *
 * /proc/pagetypeinfo counts the pageblocks of each migrate type per zone
 * ("Number of blocks type ... CMA"); it is root's (0400, 5.4+).  Its
 * columns are named in its header line and differ between kernels
 * (Isolate, HighAtomic, CMA come and go with the config), so the CMA column
 * is found by name. */
#include "proc/cma_facts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"

static bool meminfo_kb(const char *text, const char *key, unsigned long long *out)
{
	const char *p = strstr(text, key);
	if (!p || (p != text && p[-1] != '\n'))
		return false;
	*out = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/* The value in column col of a table row, after its "Node N, zone Z". */
static bool column(const char *p, int col, unsigned long long *out)
{
	char *end;
	for (int i = 0; i <= col; i++) {
		*out = strtoull(p, &end, 10);
		if (end == p)
			return false;
		p = end;
	}
	return true;
}

static void add_zone(struct cma_facts *c, int node, const char *zone, unsigned long long blocks)
{
	c->cma_blocks += blocks;
	if (c->n_zones >= CMA_FACTS_ZONES) {
		c->zones_dropped++;
		return;
	}
	struct cma_zone *z = &c->zones[c->n_zones++];
	z->node = node;
	snprintf(z->zone, sizeof(z->zone), "%s", zone);
	z->blocks = blocks;
}

void cma_facts_parse_pagetypeinfo(char *text, struct cma_facts *c)
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
		int node, used = 0;
		char zone[16];
		unsigned long long v;
		/* "Node 0, zone   Normal  164  15786  98  0  0  0"; any other line
		 * (the "mixed blocks" table of page_owner kernels) ends it */
		if (sscanf(l, "Node %d, zone %15s%n", &node, zone, &used) != 2) {
			in_table = false;
			continue;
		}
		if (col >= 0 && column(l + used, col, &v))
			add_zone(c, node, zone, v);
	}
}

/* The node's page size: ours on the node; in a recorded tree the ratio of
 * MemFree (kB) to vmstat's nr_free_pages, which count the same pages. */
static void page_size(const char *root, bool live, unsigned long long memfree_kb, char *text,
		      size_t len, struct cma_facts *c)
{
	size_t got;

	if (live) {
		c->page_size = (unsigned long long)sysconf(_SC_PAGESIZE);
		return;
	}
	if (!memfree_kb || sr_read_all(root, "/proc/vmstat", text, len, &got))
		return;
	const char *p = strstr(text, "nr_free_pages ");
	unsigned long long free_pages = p ? strtoull(p + 14, NULL, 10) : 0;
	if (!free_pages)
		return;
	unsigned long long ps = memfree_kb * 1024 / free_pages;
	for (unsigned long long s = CMA_FACTS_MIN_PAGE; s <= (256ull << 10); s <<= 1)
		if (ps == s)
			c->page_size = s;
}

void cma_facts_read(const char *root, struct cma_facts *c)
{
	size_t len = CMA_FACTS_READ_MAX, got;
	char *text = malloc(len);
	bool live = !root || !*root || !strcmp(root, "/");

	memset(c, 0, sizeof(*c));
	c->read = true;
	if (!text) {
		c->pti_error = -ENOMEM;
		return;
	}
	c->pti_error = sr_read_all(root, "/proc/pagetypeinfo", text, len, &got);
	if (!c->pti_error)
		cma_facts_parse_pagetypeinfo(text, c);
	unsigned long long memfree_kb = 0;
	if (!sr_read_all(root, "/proc/meminfo", text, len, &got)) {
		c->have_cma_total = meminfo_kb(text, "CmaTotal:", &c->cma_total_kb);
		meminfo_kb(text, "CmaFree:", &c->cma_free_kb);
		meminfo_kb(text, "MemFree:", &memfree_kb);
	}
	page_size(root, live, memfree_kb, text, len, c);
	free(text);
}

unsigned long long cma_facts_pageblock_bytes(const struct cma_facts *c)
{
	return c->pages_per_block * c->page_size;
}

unsigned long long cma_facts_bytes(const struct cma_facts *c, int zone)
{
	unsigned long long blocks = zone < 0 ? c->cma_blocks
				    : zone < c->n_zones ? c->zones[zone].blocks : 0;
	return blocks * c->pages_per_block * (c->page_size ? c->page_size : CMA_FACTS_MIN_PAGE);
}

bool cma_facts_hidden(const struct cma_facts *c)
{
	return c->have_cma_total && c->cma_total_kb * 1024 * 2 < cma_facts_bytes(c, -1);
}

enum cma_state cma_facts_state(const struct cma_facts *c)
{
	if (!c->read || c->pti_error)
		return CMA_STATE_UNKNOWN;
	if (cma_facts_hidden(c))
		return CMA_STATE_HIDDEN;
	/* CMA pageblocks with no CmaTotal to weigh them against: undecided */
	if (c->cma_blocks && !c->have_cma_total)
		return CMA_STATE_UNKNOWN;
	return CMA_STATE_ORDINARY;
}
