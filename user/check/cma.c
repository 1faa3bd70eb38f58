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
 * CMA.  The numbers are proc/cma_facts.c's, the reader a failed
 * registration's facts use too (cause pin_migrate judges them the same way). */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "core/units.h"
#include "proc/cma_facts.h"
#include "verdict/names.h"

#include <string.h>

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
			       json_object_new_uint64(cma_facts_bytes(c, -1)) : NULL);
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

	cma_facts_read(r->opt.root, &c);
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
	fmt_bytes(cma_facts_bytes(&c, -1), blocks, sizeof(blocks));
	/* "about zero": CmaTotal under half of what the pageblocks hold */
	bool hidden = cma_facts_hidden(&c);
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
