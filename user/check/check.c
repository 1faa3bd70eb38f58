// SPDX-License-Identifier: GPL-2.0-only
/* check.c - the runner of `check` (check.h): the areas in report order into
 * one report (built through builder.h), the report as one JSON document,
 * and its release.  Text is text.c's; the command line is cmd.c's. */
#include "check/check.h"
#include "check/areas.h"
#include "check/expect.h"
#include "core/escape.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void items_to_json(struct chk_report *r)
{
	json_object *a = json_object_new_array();
	for (int i = 0; i < r->n_items; i++) {
		const struct chk_item *it = &r->items[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_string(it->id));
		json_object_object_add(o, "area", json_object_new_string(it->area));
		json_object_object_add(o, "verdict", json_object_new_string(chk_verdict_name(it->verdict)));
		json_object_object_add(o, "class", json_object_new_string(chk_class_name(it->cls)));
		json_object_object_add(o, "title", json_object_new_string(it->title));
		json_object_object_add(o, "value", json_object_new_string(it->value));
		chk_json_str(o, "note", it->note);
		chk_json_str(o, "fix", it->fix);
		json_object_array_add(a, o);
	}
	json_object_object_add(r->doc, "items", a);
}

int chk_run(const struct chk_options *opt, struct chk_report *r)
{
	memset(r, 0, sizeof(*r));
	r->opt = *opt;
	r->doc = json_object_new_object();
	/* the target's context is large: on the heap, there for every area */
	r->target = proc_context_alloc(opt->pid);
	if (!r->doc || !r->target) {
		chk_report_free(r);
		return -ENOMEM;
	}
	json_object_object_add(r->doc, "schema", json_object_new_string(SCHEMA_CHECK));
	chk_host(r);
	chk_inventory_scan(r);
	check_memlock(r);
	check_hugepages(r);
	check_cma(r);
	check_rdma(r);
	check_gpudirect(r);
	check_iommu(r);
	check_topology(r);
	check_nccl(r);
	check_fabric(r);
	chk_rdma_na_apply(r);
	check_summary(r);
	items_to_json(r);
	return 0;
}

const char *chk_json_string(struct chk_report *r)
{
	/* One line, like every other --json output of mrtrace: pipe it to jq
	 * to read it.  Names and settings come from the node and the job: a
	 * byte that is not UTF-8 is written as \\xNN (docs/json.md), or jq
	 * and Python would refuse the whole report. */
	const char *raw = json_object_to_json_string_ext(r->doc, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	free(r->json_text);
	r->json_text = json_utf8_fix(raw);
	return r->json_text ? r->json_text : raw;
}

void chk_report_free(struct chk_report *r)
{
	json_object_put(r->doc);
	free(r->json_text);
	free(r->items);
	free(r->target);
	free(r->nccl);
	memset(r, 0, sizeof(*r));
}
