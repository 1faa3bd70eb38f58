// SPDX-License-Identifier: GPL-2.0-only
/* test_cma.c - the node's CMA facts behind cause pin_migrate: the shared
 * reader (proc/cma_facts.c) on the recorded check trees and on trees made
 * here, gates_collect() reading them only for a long-term pin refused with
 * ENOMEM, their JSON round trip (evidence.gates.cma), and the verdict and
 * fix for a kexec handover's CMA, ordinary CMA and facts not readable. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture_path.h"
#include "tree_make.h"
#include "proc/cma_facts.h"
#include "proc/gates.h"
#include "record/record.h"
#include "verdict/explain.h"

/* ---- the reader ---------------------------------------------------------------- */

/* 24576 CMA pageblocks of 512 4 KiB pages (48 GiB) in node 0 Normal,
 * CmaTotal 0 kB: what a kexec handover's scratch memory looks like */
static void test_read_kho_tree(void **state)
{
	(void)state;
	struct cma_facts c;

	cma_facts_read(fixture_path("check", "cma_kho"), &c);
	assert_true(c.read);
	assert_int_equal(c.pti_error, 0);
	assert_true(c.cma_column);
	assert_int_equal(c.order, 9);
	assert_int_equal(c.pages_per_block, 512);
	assert_int_equal(c.page_size, 4096); /* MemFree against nr_free_pages */
	assert_int_equal(c.cma_blocks, 24576);
	assert_int_equal(c.n_zones, 3);
	assert_int_equal(c.zones_dropped, 0);
	assert_int_equal(c.zones[2].node, 0);
	assert_string_equal(c.zones[2].zone, "Normal");
	assert_int_equal(c.zones[2].blocks, 24576);
	assert_true(c.have_cma_total);
	assert_int_equal(c.cma_total_kb, 0);
	assert_int_equal(cma_facts_bytes(&c, -1), 48ull << 30);
	assert_int_equal(cma_facts_bytes(&c, 2), 48ull << 30);
	assert_int_equal(cma_facts_bytes(&c, 0), 0);
	assert_int_equal(cma_facts_pageblock_bytes(&c), 2ull << 20);
	assert_true(cma_facts_hidden(&c));
	assert_int_equal(cma_facts_state(&c), CMA_STATE_HIDDEN);
}

static void test_read_normal_tree(void **state)
{
	(void)state;
	struct cma_facts c;

	/* a CMA column of zeros: nothing for a pin to migrate out of CMA */
	cma_facts_read(fixture_path("check", "h100"), &c);
	assert_int_equal(c.pti_error, 0);
	assert_true(c.cma_column);
	assert_int_equal(c.cma_blocks, 0);
	assert_int_equal(c.n_zones, 3);
	assert_false(cma_facts_hidden(&c));
	assert_int_equal(cma_facts_state(&c), CMA_STATE_ORDINARY);

	/* no /proc at all: the error is kept, the state unknown */
	char top[] = "/tmp/mrtrace-cma-XXXXXX";
	assert_non_null(mkdtemp(top));
	cma_facts_read(top, &c);
	rmdir(top);
	assert_true(c.read);
	assert_int_equal(c.pti_error, -ENOENT);
	assert_false(c.have_cma_total);
	assert_int_equal(cma_facts_state(&c), CMA_STATE_UNKNOWN);
	memset(&c, 0, sizeof(c));
	assert_int_equal(cma_facts_state(&c), CMA_STATE_UNKNOWN); /* never read */
}

/* A tree with n zones of `blocks` CMA pageblocks each, CmaTotal total_kb;
 * the page size from MemFree 4096 kB over 1024 free pages (4 KiB). */
static void make_tree(const char *top, int n, int blocks, unsigned long long total_kb)
{
	char *pti = calloc(1, 64 << 10), mi[256];
	assert_non_null(pti);
	strcat(pti, "Page block order: 9\nPages per block:  512\n\n"
		    "Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic          CMA      Isolate \n");
	for (int i = 0; i < n; i++)
		sprintf(pti + strlen(pti), "Node %d, zone   Normal   1   2   0   0   %d   0 \n", i, blocks);
	tree_make(top, "proc/pagetypeinfo", pti, false);
	snprintf(mi, sizeof(mi), "MemTotal: 1000000 kB\nMemFree: 4096 kB\nCmaTotal: %llu kB\nCmaFree: 1024 kB\n",
		 total_kb);
	tree_make(top, "proc/meminfo", mi, false);
	tree_make(top, "proc/vmstat", "nr_free_pages 1024\n", false);
	free(pti);
}

/* a table past CMA_FACTS_ZONES: the zones past it counted, their pageblocks
 * still in the total */
static void test_zone_table_bound(void **state)
{
	(void)state;
	char top[] = "/tmp/mrtrace-cma-XXXXXX";
	struct cma_facts c;

	assert_non_null(mkdtemp(top));
	make_tree(top, CMA_FACTS_ZONES + 8, 2, 0);
	cma_facts_read(top, &c);
	assert_int_equal(c.n_zones, CMA_FACTS_ZONES);
	assert_int_equal(c.zones_dropped, 8);
	assert_int_equal(c.cma_blocks, 2 * (CMA_FACTS_ZONES + 8));
	assert_int_equal(c.zones[CMA_FACTS_ZONES - 1].node, CMA_FACTS_ZONES - 1);
	assert_int_equal(c.cma_free_kb, 1024);
	tree_remove(top);
}

/* ---- what gates_collect reads -------------------------------------------------- */

/* The synthetic pin_migrate trail: two chunks pinned, the third -ENOMEM in
 * ordinary anonymous memory. */
static struct mrt_event pin_enomem(void)
{
	char err[256];
	struct mrt_event ev;
	struct json_object *o = json_object_from_file(
		fixture_path("trails", "pin_migrate.longterm-enomem.synthetic.json"));
	assert_non_null(o);
	assert_int_equal(record_raw_from_json(o, &ev, err, sizeof(err)), 0);
	json_object_put(o);
	assert_int_equal(ev.kind, MRT_EV_REG_FAILURE);
	assert_int_equal(ev.steps[1].site, MRT_SITE_PIN);
	assert_int_equal(ev.steps[1].ret, -ENOMEM);
	return ev;
}

static void test_gates_read_only_for_pin_enomem(void **state)
{
	(void)state;
	char root[PATH_MAX + 128];
	struct mrt_event ev = pin_enomem();
	static struct gate_facts g;

	snprintf(root, sizeof(root), "%s", fixture_path("check", "cma_kho")); /* a static buffer */

	assert_true(gates_record_wants_facts(&ev));
	gates_collect(root, ev.pid, &ev, &g);
	assert_true(g.cma.read);
	assert_int_equal(g.cma.cma_blocks, 24576);
	assert_int_equal(cma_facts_state(&g.cma), CMA_STATE_HIDDEN);

	/* hugetlb: pin_hugetlb is decided first; nothing read */
	ev.steps[1].a2 = 0x400073;
	assert_false(gates_record_wants_facts(&ev));
	gates_collect(root, ev.pid, &ev, &g);
	assert_false(g.cma.read);
	/* a pin that faulted (EFAULT, no migration in the trail): pin_fault */
	ev = pin_enomem();
	ev.steps[1].ret = -EFAULT;
	assert_false(gates_record_wants_facts(&ev));
	/* the migration for the long-term pin in the trail: read, whatever errno */
	ev.steps[ev.nsteps++] = (struct mrt_step){ .site = MRT_SITE_MIGRATE, .ret = -EBUSY };
	assert_true(gates_record_wants_facts(&ev));
	/* a registration that never reached the pin */
	ev = pin_enomem();
	ev.steps[1].site = MRT_SITE_UMEM_GET;
	assert_false(gates_record_wants_facts(&ev));
}

/* ---- the record --------------------------------------------------------------- */

/* record_explain -> JSON -> record_gates_from_json: the same facts */
static void round_trip(const struct cma_facts *c)
{
	struct mrt_event ev = pin_enomem();
	static struct gate_facts g, back;
	static struct report r;

	memset(&g, 0, sizeof(g));
	g.cma = *c;
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	struct json_object *o = record_report_json(&r), *e, *gates, *cma;
	assert_true(json_object_object_get_ex(o, "evidence", &e));
	assert_true(json_object_object_get_ex(e, "gates", &gates));
	assert_true(json_object_object_get_ex(gates, "cma", &cma));
	assert_true(record_gates_from_json(o, &back));
	assert_memory_equal(&back.cma, c, sizeof(*c));
	/* and the replay judges it the same way */
	static struct report r2;
	record_explain(&r2, &ev, NULL, NULL, NULL, &back);
	assert_string_equal(r2.v.summary, r.v.summary);
	assert_string_equal(r2.v.fixes.items[0].text, r.v.fixes.items[0].text);
	json_object_put(o);
}

static void test_record_round_trip(void **state)
{
	(void)state;
	char top[] = "/tmp/mrtrace-cma-XXXXXX";
	struct cma_facts c;

	cma_facts_read(fixture_path("check", "cma_kho"), &c);
	round_trip(&c);
	/* the JSON says what was read, in bytes */
	struct mrt_event ev = pin_enomem();
	static struct gate_facts g;
	static struct report r;
	memset(&g, 0, sizeof(g));
	g.cma = c;
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	struct json_object *o = record_report_json(&r), *x;
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(text, "\"state\":\"hidden\""));
	assert_non_null(strstr(text, "\"cma_pageblock_bytes\":51539607552"));
	assert_non_null(strstr(text, "\"cma_total_bytes\":0"));
	assert_true(json_object_object_get_ex(o, "evidence", &x));
	json_object_put(o);

	assert_non_null(mkdtemp(top));
	make_tree(top, CMA_FACTS_ZONES + 3, 1, 65536);
	cma_facts_read(top, &c);
	assert_int_equal(c.zones_dropped, 3);
	round_trip(&c);
	tree_remove(top);
	/* not readable: the errno comes back */
	memset(&c, 0, sizeof(c));
	c.read = true;
	c.pti_error = -EACCES;
	c.have_cma_total = true;
	c.cma_total_kb = 4;
	round_trip(&c);
}

/* ---- the verdict and its fix --------------------------------------------------- */

static void explain(const struct cma_facts *c, struct verdict *v)
{
	struct mrt_event ev = pin_enomem();
	static struct gate_facts g;

	memset(&g, 0, sizeof(g));
	if (c)
		g.cma = *c;
	assert_int_equal(explain_registration(&ev, NULL, NULL, c ? &g : NULL, v), CAUSE_PIN_MIGRATE);
	assert_true(v->fixes.n >= 2);
}

static void test_verdict_kho(void **state)
{
	(void)state;
	struct cma_facts c;
	static struct verdict v;

	cma_facts_read(fixture_path("check", "cma_kho"), &c);
	explain(&c, &v);
	assert_non_null(strstr(v.summary, "48 GiB of MIGRATE_CMA pageblocks on this node while "
					  "CmaTotal is 0 kB: memory a kexec handover left as CMA"));
	assert_non_null(strstr(v.explanation, "kexec handover (KHO)"));
	assert_non_null(strstr(v.fixes.items[0].text, "kho_scratch="));
	assert_non_null(strstr(v.fixes.items[0].text, "kho=on"));
	/* the page size unknown: a lower bound, said so */
	c.page_size = 0;
	explain(&c, &v);
	assert_non_null(strstr(v.summary, "at least 48 GiB of MIGRATE_CMA"));
}

static void test_verdict_ordinary(void **state)
{
	(void)state;
	char top[] = "/tmp/mrtrace-cma-XXXXXX";
	struct cma_facts c;
	static struct verdict v;

	/* 32 pageblocks of 2 MiB (64 MiB) behind CmaTotal 65536 kB */
	assert_non_null(mkdtemp(top));
	make_tree(top, 1, 32, 65536);
	cma_facts_read(top, &c);
	tree_remove(top);
	assert_int_equal(cma_facts_state(&c), CMA_STATE_ORDINARY);
	explain(&c, &v);
	assert_non_null(strstr(v.summary, "; CMA is not the cause"));
	assert_non_null(strstr(v.explanation, "(64 MiB) are what its CMA areas account for "
					      "(CmaTotal 65536 kB)"));
	assert_null(strstr(v.summary, "kexec"));
	assert_non_null(strstr(v.fixes.items[0].text, "CMA is not the cause"));
	assert_non_null(strstr(v.fixes.items[0].text, "movablecore="));
	assert_null(strstr(v.fixes.items[0].text, "kho"));
}

static void test_verdict_unknown(void **state)
{
	(void)state;
	struct cma_facts c;
	static struct verdict v, none;

	/* no facts at all (an older record): the generic advice */
	explain(NULL, &none);
	assert_non_null(strstr(none.explanation, "not readable (not read at the failure)"));
	assert_non_null(strstr(none.fixes.items[0].text, "movable_node / kernelcore= / movablecore="));
	assert_non_null(strstr(none.fixes.items[0].text, "were not readable"));
	/* /proc/pagetypeinfo refused (not root) */
	memset(&c, 0, sizeof(c));
	c.read = true;
	c.pti_error = -EACCES;
	explain(&c, &v);
	assert_non_null(strstr(v.explanation, "not readable (/proc/pagetypeinfo: EACCES, root only)"));
	assert_string_equal(v.summary, none.summary);
	assert_string_equal(v.fixes.items[0].text, none.fixes.items[0].text);
	assert_null(strstr(v.summary, "CMA"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_kho_tree),
		cmocka_unit_test(test_read_normal_tree),
		cmocka_unit_test(test_zone_table_bound),
		cmocka_unit_test(test_gates_read_only_for_pin_enomem),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_verdict_kho),
		cmocka_unit_test(test_verdict_ordinary),
		cmocka_unit_test(test_verdict_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
