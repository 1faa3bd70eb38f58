// SPDX-License-Identifier: GPL-2.0-only
/* test_check.c - `mrtrace check` on the recorded node trees in
 * tests/fixtures/check (written by make_fixtures.py): verdicts, classes,
 * topology and the JSON document. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "check/areas.h"

static const char *fixture(const char *name)
{
	return fixture_path("check", name);
}

/* One report at a time, freed by the next run and by the group teardown. */
static struct chk_report report;

static struct chk_report *run(const char *name, int pid)
{
	struct chk_options o = { .root = fixture(name), .pid = pid };
	chk_report_free(&report);
	assert_int_equal(chk_run(&o, &report), 0);
	return &report;
}

static enum chk_verdict verdict(const struct chk_report *r, const char *id)
{
	const struct chk_item *it = chk_find(r, id);
	if (!it)
		fail_msg("no item %s", id);
	return it->verdict;
}

static const struct chk_item *item(const struct chk_report *r, const char *id)
{
	const struct chk_item *it = chk_find(r, id);
	if (!it)
		fail_msg("no item %s", id);
	return it;
}

static json_object *jp(json_object *o, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;
	assert_true(json_object_object_get_ex(o, a, &x));
	if (!b)
		return x;
	assert_true(json_object_object_get_ex(x, b, &y));
	return y;
}

static const char *summary_class(const struct chk_report *r)
{
	return json_object_get_string(jp(r->doc, "summary", "class"));
}

static char *text_of(const struct chk_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	chk_print_text(r, f);
	fclose(f);
	return buf;
}

/* ---- the healthy 8-GPU / 8-NIC node ------------------------------------- */

static void test_h100_node_all_ok(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 0);
	for (int i = 0; i < r->n_items; i++)
		if (r->items[i].verdict != CHK_OK)
			fail_msg("%s is %s: %s", r->items[i].id, chk_verdict_name(r->items[i].verdict),
				 r->items[i].value);
	assert_int_equal(chk_overall(r), CHK_OK);
	assert_int_equal(chk_exit_status(r), 0);
	assert_int_equal(r->inv.n_gpus, 8);
	assert_int_equal(r->inv.n_rdma, 8);
	assert_string_equal(summary_class(r), "none");
	assert_string_equal(r->hostname, "gpu-a01");
	assert_string_equal(r->kernel, "6.8.0-45-generic");
	/* GPUs are numbered in PCI order, as nvidia-smi does */
	assert_string_equal(r->inv.gpus[0].bdf, "0000:19:00.0");
	assert_string_equal(r->inv.gpus[7].bdf, "0000:da:00.0");
	assert_string_equal(r->inv.rdma[0].driver, "mlx5_core");
	assert_string_equal(r->inv.rdma[0].bdf, "0000:18:00.0");
}

static void test_h100_topology_pix_node_sys(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 0);
	const struct chk_inventory *v = &r->inv;
	/* GPU i shares a switch with mlx5_i; same NUMA node otherwise NODE,
	 * the other socket SYS */
	for (int g = 0; g < 8; g++)
		for (int n = 0; n < 8; n++) {
			enum chk_topo want = g == n ? CHK_TOPO_PIX :
					     (g < 4) == (n < 4) ? CHK_TOPO_NODE : CHK_TOPO_SYS;
			enum chk_topo got = chk_topo_classify(v->gpus[g].path, v->gpus[g].numa,
							      v->rdma[n].path, v->rdma[n].numa);
			if (got != want)
				fail_msg("GPU%d-mlx5_%d: %s, want %s", g, n, chk_topo_name(got),
					 chk_topo_name(want));
		}
	json_object *near = jp(r->doc, "topology", "nearest");
	assert_int_equal(json_object_array_length(near), 8);
	json_object *n3 = json_object_array_get_idx(near, 3);
	assert_string_equal(json_object_get_string(jp(n3, "class", NULL)), "PIX");
	assert_string_equal(json_object_get_string(jp(n3, "nic", NULL)), "mlx5_3");
	json_object *row = jp(jp(r->doc, "topology", "matrix"), "GPU0", NULL);
	assert_string_equal(json_object_get_string(jp(row, "mlx5_4", NULL)), "SYS");
}

static void test_h100_sections(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 0);
	assert_string_equal(json_object_get_string(jp(r->doc, "iommu", "mode")), "passthrough");
	assert_string_equal(json_object_get_string(jp(r->doc, "gpudirect", "path")), "dmabuf");
	assert_string_equal(json_object_get_string(jp(r->doc, "gpudirect", "nvidia_driver")), "550.90.07");
	assert_true(json_object_get_boolean(jp(r->doc, "gpudirect", "nvidia_open_module")));
	json_object *dev = json_object_array_get_idx(jp(r->doc, "rdma", "devices"), 2);
	assert_string_equal(json_object_get_string(jp(dev, "fw_ver", NULL)), "28.39.1002");
	assert_string_equal(json_object_get_string(jp(jp(dev, "dev_node", NULL), "open", NULL)), "ok");
	json_object *port = json_object_array_get_idx(jp(dev, "ports", NULL), 0);
	assert_string_equal(json_object_get_string(jp(port, "state", NULL)), "ACTIVE");
	assert_int_equal(json_object_get_int(jp(port, "state_num", NULL)), 4);
	assert_int_equal(json_object_get_int(jp(port, "lid", NULL)), 0x23);
	assert_int_equal(json_object_get_int(jp(port, "gid_count", NULL)), 1);
	/* the slurmd unit sets infinity, so systemd's 8 MiB default is moot */
	assert_int_equal(verdict(r, "memlock.systemd_default"), CHK_OK);
	assert_int_equal(verdict(r, "memlock.unit.slurmd.service"), CHK_OK);
	assert_null(chk_find(r, "memlock.slurm_propagate"));   /* Except=MEMLOCK */
	assert_int_equal(verdict(r, "nccl.ib_hca"), CHK_OK);
}

static void test_h100_process(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 4242);
	assert_true(r->have_target);
	assert_int_equal(verdict(r, "memlock.limit"), CHK_OK);
	assert_string_equal(item(r, "memlock.limit")->value, "soft unlimited, hard unlimited");
	assert_int_equal(verdict(r, "memlock.pinned"), CHK_OK);
	assert_non_null(strstr(item(r, "memlock.pinned")->value, "VmPin 1.2 GiB"));
	assert_int_equal(verdict(r, "nccl.library"), CHK_OK);
	assert_non_null(strstr(item(r, "nccl.library")->value, "2.21.5"));
	assert_string_equal(json_object_get_string(jp(r->doc, "target", "setting")), "slurm");
	/* device nodes are looked up in the process's mount namespace */
	assert_string_equal(json_object_get_string(jp(r->doc, "rdma", "dev_dir")),
			    "/proc/4242/root/dev/infiniband");
	assert_int_equal(verdict(r, "rdma.mlx5_0.uverbs"), CHK_OK);
	/* no defaults section with -p: the job's own limit is what counts */
	assert_null(chk_find(r, "memlock.this_shell"));
	assert_int_equal(chk_exit_status(r), 0);
}

/* ---- inside a container without RDMA passthrough ------------------------- */

static void test_container_no_dev_infiniband(void **state)
{
	(void)state;
	struct chk_report *r = run("container", 0);
	const struct chk_item *it = item(r, "rdma.mlx5_0.uverbs");
	assert_int_equal(it->verdict, CHK_FAIL);
	assert_int_equal(it->cls, CHK_CLS_ENV);
	assert_non_null(strstr(it->value, "missing"));
	assert_non_null(strstr(it->note, "RDMA passthrough"));
	assert_non_null(strstr(it->fix, "--device=/dev/infiniband"));
	/* the ports themselves are fine: this is not an InfiniBand problem */
	assert_int_equal(verdict(r, "rdma.mlx5_0.port1"), CHK_OK);
	assert_string_equal(summary_class(r), "environment");
	assert_int_equal(chk_exit_status(r), 1);
	/* the operator's shell limit is shown, labelled, and only warns */
	it = item(r, "memlock.this_shell");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "not the job's"));
	/* no systemd in the container: no systemd line at all */
	assert_null(chk_find(r, "memlock.systemd_default"));
	json_object *dn = jp(json_object_array_get_idx(jp(r->doc, "rdma", "devices"), 1),
			     "dev_node", NULL);
	assert_false(json_object_get_boolean(jp(dn, "present", NULL)));
	assert_string_equal(json_object_get_string(jp(dn, "open", NULL)), "ENOENT");
}

static void test_container_process(void **state)
{
	(void)state;
	struct chk_report *r = run("container", 1);
	const struct chk_item *it = item(r, "memlock.limit");
	assert_int_equal(it->verdict, CHK_FAIL);
	assert_string_equal(it->value, "soft 8 MiB, hard 8 MiB");
	assert_non_null(strstr(it->note, "ENOMEM"));
	assert_true(it->fix[0] != '\0');
	assert_int_equal(verdict(r, "memlock.cap_ipc_lock"), CHK_OK);
	assert_non_null(strstr(item(r, "memlock.cap_ipc_lock")->value, "not held"));
	/* the popular variable that no NCCL reads */
	it = item(r, "nccl.lint.NCCL_IB_DISABLE_GDR");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->fix, "NCCL_NET_GDR_LEVEL"));
	assert_int_equal(verdict(r, "rdma.mlx5_1.uverbs"), CHK_FAIL);
	assert_string_equal(summary_class(r), "environment");
	json_object *p = jp(jp(r->doc, "memlock", "process"), "soft_bytes", NULL);
	assert_int_equal(json_object_get_int64(p), 8 << 20);
}

/* ---- ports down, no SM, limited PKey ------------------------------------ */

static void test_portdown_ib_verdicts(void **state)
{
	(void)state;
	struct chk_report *r = run("portdown", 0);
	assert_int_equal(verdict(r, "rdma.mlx5_0.port1"), CHK_OK);
	const struct chk_item *it = item(r, "rdma.mlx5_1.port1");
	assert_int_equal(it->verdict, CHK_FAIL);
	assert_int_equal(it->cls, CHK_CLS_IB);
	assert_non_null(strstr(it->value, "DOWN Polling"));
	assert_non_null(strstr(it->note, "cable"));
	it = item(r, "rdma.mlx5_2.port1");
	assert_int_equal(it->verdict, CHK_FAIL);
	assert_non_null(strstr(it->note, "subnet manager"));
	assert_non_null(strstr(it->fix, "sminfo"));
	it = item(r, "rdma.mlx5_3.port1");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "PKeys 0x7fff"));
	/* device access is fine: the problem is the fabric */
	assert_int_equal(verdict(r, "rdma.mlx5_1.uverbs"), CHK_OK);
	assert_string_equal(summary_class(r), "infiniband");
	assert_int_equal(chk_exit_status(r), 1);
}

static void test_portdown_environment_warnings(void **state)
{
	(void)state;
	struct chk_report *r = run("portdown", 0);
	assert_int_equal(verdict(r, "iommu.mode"), CHK_WARN);
	assert_string_equal(json_object_get_string(jp(r->doc, "iommu", "mode")), "translated");
	const struct chk_item *it = item(r, "iommu.acs");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "3 switch ports"));
	assert_int_equal(verdict(r, "hugepages.2048kB"), CHK_WARN);
	assert_int_equal(verdict(r, "hugepages.1048576kB"), CHK_OK);
	it = item(r, "topology.gdr");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "GPU1 NODE"));
	/* proprietary driver, no peermem, but dma-buf works: no warning */
	assert_int_equal(verdict(r, "gpudirect.peermem"), CHK_OK);
}

static void test_portdown_topology_classes(void **state)
{
	(void)state;
	struct chk_report *r = run("portdown", 0);
	const struct chk_inventory *v = &r->inv;
	static const enum chk_topo want[2][4] = {
		{ CHK_TOPO_PXB, CHK_TOPO_PHB, CHK_TOPO_SYS, CHK_TOPO_SYS },
		{ CHK_TOPO_NODE, CHK_TOPO_NODE, CHK_TOPO_SYS, CHK_TOPO_SYS },
	};
	assert_int_equal(v->n_gpus, 2);
	assert_int_equal(v->n_rdma, 4);
	for (int g = 0; g < 2; g++)
		for (int n = 0; n < 4; n++)
			assert_int_equal(chk_topo_classify(v->gpus[g].path, v->gpus[g].numa,
							   v->rdma[n].path, v->rdma[n].numa), want[g][n]);
}

/* ---- output -------------------------------------------------------------- */

static void test_text_verdict_first(void **state)
{
	(void)state;
	struct chk_report *r = run("portdown", 0);
	char *t = text_of(r);
	/* the verdict and the class come before any area */
	char *res = strstr(t, "RESULT  FAIL  InfiniBand resource problem");
	assert_non_null(res);
	assert_true(res < strstr(t, "\nMEMLOCK"));
	assert_non_null(strstr(t, "\nNEXT\n"));
	assert_non_null(strstr(t, "  FAIL  mlx5_1 port 1         DOWN Polling"));
	assert_non_null(strstr(t, "  GPU0 05:00.0            PXB    PHB    SYS    SYS  0"));
	/* human units, not raw numbers */
	assert_non_null(strstr(t, "1024 total (2 GiB)"));
	free(t);
}

static void test_json_document(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 4242);
	const char *s = chk_json_string(r);
	assert_null(strchr(s, '\n'));   /* one line */
	json_object *d = json_tokener_parse(s);
	assert_non_null(d);
	assert_string_equal(json_object_get_string(jp(d, "schema", NULL)), SCHEMA_CHECK);
	assert_string_equal(json_object_get_string(jp(d, "host", "hostname")), "gpu-a01");
	assert_string_equal(json_object_get_string(jp(d, "host", "kernel")), "6.8.0-45-generic");
	assert_int_equal(json_object_get_int(jp(d, "target", "pid")), 4242);
	assert_string_equal(json_object_get_string(jp(d, "summary", "verdict")), "ok");
	json_object *items = jp(d, "items", NULL);
	assert_true(json_object_array_length(items) > 20);
	json_object *first = json_object_array_get_idx(items, 0);
	const char *keys[] = { "id", "area", "verdict", "class", "title", "value", "note", "fix" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_true(json_object_object_get_ex(first, keys[i], NULL));
	assert_string_equal(json_object_get_string(jp(jp(d, "memlock", "process"), "soft_bytes", NULL)),
			    "unlimited");
	json_object_put(d);
}

static void test_missing_process(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 99999);
	assert_false(r->have_target);
	assert_int_equal(verdict(r, "target.process"), CHK_UNKNOWN);
	assert_non_null(strstr(item(r, "target.process")->value, "no such process"));
}

static void test_empty_root(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-check-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct chk_report r;
	struct chk_options o = { .root = dir };
	assert_int_equal(chk_run(&o, &r), 0);
	/* nothing readable: unknowns and no RDMA stack, no crash; with no RDMA
	 * hardware nothing expects RDMA: n/a, not a failure (issue 31) */
	assert_int_equal(verdict(&r, "rdma.devices"), CHK_OK);
	assert_true(r.rdma_na);
	assert_non_null(strstr(item(&r, "rdma.devices")->value, "n/a, no RDMA on this node"));
	assert_int_equal(chk_exit_status(&r), 0);
	assert_int_equal(verdict(&r, "hugepages"), CHK_UNKNOWN);
	assert_string_equal(r.hostname, "unknown");
	chk_report_free(&r);
	rmdir(dir);
}

static int teardown(void **state)
{
	(void)state;
	chk_report_free(&report);
	return 0;
}

/* ---- GPUDirect on the shared GPU facts: peer memory, BAR1, class ------------- */

static void test_gpudirect_bar1_class(void **state)
{
	(void)state;
	struct chk_report *r = run("h100", 0);
	/* 128 GiB BAR1 per H100; dma-buf works, so the peer module is not needed,
	 * and the inbox kernel's lack of a peer-memory API is said */
	assert_int_equal(verdict(r, "gpudirect.bar1"), CHK_OK);
	assert_int_equal(verdict(r, "gpudirect.class"), CHK_OK);
	assert_non_null(strstr(item(r, "gpudirect.peermem")->value, "no peer-memory API"));
	assert_string_equal(json_object_get_string(jp(jp(r->doc, "gpudirect", "peer_memory"), "state", NULL)),
			    "unsupported");
	assert_string_equal(json_object_get_string(jp(jp(r->doc, "gpudirect", "dmabuf"), "state", NULL)),
			    "available");
	json_object *dev = json_object_array_get_idx(jp(r->doc, "gpudirect", "devices"), 0);
	assert_int_equal(json_object_get_uint64(jp(dev, "bar1_bytes", NULL)), 128ULL << 30);
	assert_string_equal(json_object_get_string(jp(dev, "model", NULL)), "NVIDIA H100 80GB HBM3");

	r = run("workstation", 0);
	assert_int_equal(verdict(r, "gpudirect.bar1"), CHK_WARN);
	assert_non_null(strstr(item(r, "gpudirect.bar1")->value, "256 MiB"));
	assert_int_equal(verdict(r, "gpudirect.class"), CHK_WARN);
	assert_non_null(strstr(item(r, "gpudirect.class")->value, "GeForce RTX 4090"));
	assert_null(strstr(item(r, "gpudirect.class")->value, "T4"));
	assert_int_equal(verdict(r, "gpudirect.peermem"), CHK_OK);
	assert_non_null(strstr(item(r, "gpudirect.peermem")->value, "cannot register"));
	dev = json_object_array_get_idx(jp(r->doc, "gpudirect", "devices"), 0);
	assert_string_equal(json_object_get_string(jp(dev, "class", NULL)), "consumer");
}

/* ---- RoCE addressing NCCL will get wrong (fabric.c) ---------------------- */

static void test_roce_node(void **state)
{
	(void)state;
	struct chk_report *r = run("roce", 0);
	/* no settings: NCCL's own search takes the IPv4 RoCE v2 entry */
	assert_int_equal(verdict(r, "fabric.mlx5_0.port1.gid"), CHK_OK);
	assert_non_null(strstr(item(r, "fabric.mlx5_0.port1.gid")->value, "index 3 ::ffff:10.1.0.17"));
	/* a port whose interface has no IPv4 address: nothing routable */
	assert_int_equal(verdict(r, "fabric.mlx5_1.port1.gid"), CHK_WARN);
	assert_non_null(strstr(item(r, "fabric.mlx5_1.port1.gid")->fix, "Give eth1 an IPv4 address"));
	/* link error counters */
	assert_int_equal(verdict(r, "fabric.mlx5_0.port1.counters"), CHK_OK);
	assert_int_equal(verdict(r, "fabric.mlx5_1.port1.counters"), CHK_WARN);
	assert_non_null(strstr(item(r, "fabric.mlx5_1.port1.counters")->value, "link_downed 3"));
	json_object *p0 = json_object_array_get_idx(jp(r->doc, "fabric", "ports"), 0);
	assert_string_equal(json_object_get_string(jp(p0, "nccl", "how")), "selected");
	assert_int_equal(json_object_get_int(jp(p0, "nccl", "index")), 3);
	assert_int_equal(json_object_get_int(jp(p0, "active_mtu", NULL)), 4096);
	assert_null(chk_find(r, "fabric.mlx5_0.port1.gid_attrs")); /* the node's own view */
}

static void test_roce_jobs(void **state)
{
	(void)state;
	/* NCCL 2.21 pinned to index 0: link-local RoCE v1 while index 3 is routable */
	struct chk_report *r = run("roce", 5151);
	const struct chk_item *it = item(r, "fabric.mlx5_0.port1.gid");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "pinned by NCCL_IB_GID_INDEX"));
	assert_non_null(strstr(it->value, "link-local"));
	assert_non_null(strstr(it->fix, "NCCL_IB_GID_INDEX=3"));
	/* NCCL_IB_MTU=4096 over the 1500-byte interface's 1024 */
	assert_int_equal(verdict(r, "fabric.mlx5_0.port1.mtu"), CHK_OK);
	assert_int_equal(verdict(r, "fabric.mlx5_1.port1.mtu"), CHK_WARN);
	assert_int_equal(verdict(r, "fabric.mlx5_0.port1.gid_attrs"), CHK_OK);
	/* NCCL 2.23 in a container without gid_attrs: its search stops NCCL */
	r = run("roce", 5252);
	it = item(r, "fabric.mlx5_0.port1.gid");
	assert_int_equal(it->verdict, CHK_FAIL);
	assert_non_null(strstr(it->value, "cannot open gid_attrs/types/2"));
	assert_non_null(strstr(it->fix, "3 ::ffff:10.1.0.17"));
	assert_int_equal(verdict(r, "fabric.mlx5_0.port1.gid_attrs"), CHK_FAIL);
	assert_int_equal(verdict(r, "fabric.mlx5_1.port1.gid_attrs"), CHK_WARN);
	/* NCCL 2.18: index 0, its default, whatever the table holds */
	r = run("roce", 5353);
	it = item(r, "fabric.mlx5_0.port1.gid");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "NCCL 2.18 uses index 0"));
	assert_non_null(strstr(it->fix, "Set NCCL_IB_GID_INDEX=3"));
	/* InfiniBand ports: no GID item */
	r = run("h100", 4242);
	assert_null(chk_find(r, "fabric.mlx5_0.port1.gid"));
}

/* ---- peer-memory markers and the job's NCCL ------------------------------ */

/* the marker of gpudirect.peer_memory.markers with this name */
static json_object *marker(const struct chk_report *r, const char *name)
{
	json_object *a = jp(jp(r->doc, "gpudirect", "peer_memory"), "markers", NULL);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *m = json_object_array_get_idx(a, i);
		if (!strcmp(json_object_get_string(jp(m, "name", NULL)), name))
			return m;
	}
	fail_msg("no marker %s", name);
	return NULL;
}

static const char *nccl_gdr(const struct chk_report *r)
{
	return json_object_get_string(jp(jp(jp(r->doc, "gpudirect", "peer_memory"), "nccl", NULL), "gdr", NULL));
}

/* nvidia_peermem loaded, no memory_peers/nv_mem, no dma-buf (5.4): NCCL up
 * to and including 2.22.3 finds nothing, 2.23.4 finds the module's file */
static void test_peermem_only_old_nccl_off(void **state)
{
	(void)state;
	struct chk_report *r = run("ofed_peermem", 6161);
	const struct chk_item *it = item(r, "gpudirect.nccl_peermem");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "GPUDirect RDMA will be off for this NCCL (2.21.5 looks only for "
				"/sys/kernel/mm/memory_peers/nv_mem/version"));
	assert_null(strstr(it->value, "/sys/module/nvidia_peermem"));
	assert_non_null(strstr(it->fix, "NCCL 2.23.4 or newer"));
	assert_non_null(strstr(it->fix, "NCCL_DMABUF_ENABLE"));
	assert_non_null(strstr(it->fix, "5.12"));
	assert_string_equal(nccl_gdr(r), "off");
	assert_true(json_object_get_boolean(jp(marker(r, "nvidia_peermem_module"), "present", NULL)));
	assert_string_equal(json_object_get_string(jp(marker(r, "nvidia_peermem_module"), "version", NULL)),
			    "535.183.01");
	assert_false(json_object_get_boolean(jp(marker(r, "nv_mem"), "present", NULL)));
	/* the markers item carries no verdict of its own with a job judged */
	assert_int_equal(verdict(r, "gpudirect.peer_markers"), CHK_OK);
	/* the kernel side is fine: a loaded nvidia_peermem has registered
	 * (its load fails otherwise), whatever memory_peers lists */
	it = item(r, "gpudirect.peermem");
	assert_int_equal(it->verdict, CHK_OK);
	assert_string_equal(it->value, "nvidia_peermem 535.183.01 loaded: registered at load (this ib_core "
			    "lists no memory_peers)");
	assert_string_equal(json_object_get_string(jp(jp(r->doc, "gpudirect", "peer_memory"), "state", NULL)),
			    "registered");

	r = run("ofed_peermem", 6363);   /* 2.22.3: nv_mem or nv_mem_nc, still not the module */
	it = item(r, "gpudirect.nccl_peermem");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_non_null(strstr(it->value, "(2.22.3 looks only for /sys/kernel/mm/memory_peers/nv_mem/version, "
				"/sys/kernel/mm/memory_peers/nv_mem_nc/version)"));

	r = run("ofed_peermem", 6262);   /* 2.23.4 */
	it = item(r, "gpudirect.nccl_peermem");
	assert_int_equal(it->verdict, CHK_OK);
	assert_non_null(strstr(it->value, "NCCL 2.23.4 finds /sys/module/nvidia_peermem/version"));
	assert_string_equal(nccl_gdr(r), "peermem");

	/* without -p: the node's markers say what any NCCL up to 2.22.3 misses */
	r = run("ofed_peermem", 0);
	it = item(r, "gpudirect.peer_markers");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_string_equal(it->value, "nvidia_peermem module 535.183.01");
	assert_non_null(strstr(it->note, "NCCL up to 2.22.3"));
	assert_null(chk_find(r, "gpudirect.nccl_peermem"));

	/* dma-buf carries GPUDirect RDMA where the markers do not */
	r = run("h100", 4242);
	it = item(r, "gpudirect.nccl_peermem");
	assert_int_equal(it->verdict, CHK_OK);
	assert_non_null(strstr(it->value, "NCCL 2.21.5 finds no marker it looks for; GPUDirect RDMA goes through dma-buf"));
	assert_string_equal(nccl_gdr(r), "dmabuf");
}

static void test_nv_mem_present(void **state)
{
	(void)state;
	struct chk_report *r = run("ofed_nvmem", 7171);
	const struct chk_item *it = item(r, "gpudirect.nccl_peermem");
	assert_int_equal(it->verdict, CHK_OK);
	assert_string_equal(it->value, "NCCL 2.18.3 finds /sys/kernel/mm/memory_peers/nv_mem/version");
	assert_string_equal(nccl_gdr(r), "peermem");
	assert_string_equal(json_object_get_string(jp(marker(r, "nv_mem"), "version", NULL)), "535.183.01");
	assert_true(json_object_get_boolean(jp(marker(r, "nv_mem_nc"), "present", NULL)));
	it = item(r, "gpudirect.peer_markers");
	assert_int_equal(it->verdict, CHK_OK);
	assert_non_null(strstr(it->value, "nv_mem 535.183.01, nv_mem_nc 535.183.01, nvidia_peermem module"));
	json_object *a = jp(jp(jp(r->doc, "gpudirect", "peer_memory"), "nccl", NULL), "finds", NULL);
	assert_int_equal(json_object_array_length(a), 1);
}

/* nvidia_peermem did not load: the kernel log says why, next to the markers */
static void test_peermem_load_error(void **state)
{
	(void)state;
	struct chk_report *r = run("peermem_fail", 0);
	const struct chk_item *it = item(r, "gpudirect.peer_markers");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_string_equal(it->value, "none; nvidia_peermem did not load: nvidia_peermem: disagrees about "
			    "version of symbol ib_register_peer_memory_client");
	assert_non_null(strstr(it->note, "built against another ib_core"));
	assert_non_null(strstr(it->fix, "Rebuild the NVIDIA driver's kernel modules"));
	json_object *peer = jp(r->doc, "gpudirect", "peer_memory");
	json_object *errs = jp(peer, "load_errors", NULL);
	assert_int_equal(json_object_array_length(errs), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(errs, 1)),
			    "nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)");
	assert_null(jp(peer, "kernel_log_error", NULL));
	/* a tree without /dev/kmsg: the log was not read, and says so */
	r = run("portdown", 0);
	assert_string_equal(json_object_get_string(jp(jp(r->doc, "gpudirect", "peer_memory"),
						      "kernel_log_error", NULL)), "ENOENT");
}

/* MIGRATE_CMA pageblocks with CmaTotal 0 (kexec handover on arm64) */
static void test_cma_pageblocks(void **state)
{
	(void)state;
	struct chk_report *r = run("cma_kho", 0);
	const struct chk_item *it = item(r, "cma.pageblocks");
	assert_int_equal(it->verdict, CHK_WARN);
	assert_string_equal(it->value, "24576 (48 GiB: node 0 Normal 24576) beside CmaTotal 0 B");
	assert_non_null(strstr(it->note, "pin_migrate"));
	assert_non_null(strstr(it->note, "enables KHO"));
	assert_non_null(strstr(it->fix, "kho_scratch="));
	json_object *c = jp(r->doc, "cma", NULL);
	assert_int_equal(json_object_get_int64(jp(c, "cma_pageblocks", NULL)), 24576);
	assert_int_equal(json_object_get_int64(jp(c, "cma_total_bytes", NULL)), 0);
	assert_int_equal(json_object_get_int64(jp(c, "page_size_bytes", NULL)), 4096);
	assert_int_equal(json_object_get_int64(jp(c, "cma_pageblock_bytes", NULL)), 48ll << 30);
	assert_int_equal(json_object_array_length(jp(c, "zones", NULL)), 3);
	char *text = text_of(r);
	assert_non_null(strstr(text, "LONG-TERM PINS (CMA)\n  WARN  CMA pageblocks"));
	free(text);
	/* no CMA pageblocks: ok */
	r = run("h100", 0);
	it = item(r, "cma.pageblocks");
	assert_int_equal(it->verdict, CHK_OK);
	assert_string_equal(it->value, "0, CmaTotal 0 B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpudirect_bar1_class),
		cmocka_unit_test(test_h100_node_all_ok),
		cmocka_unit_test(test_h100_topology_pix_node_sys),
		cmocka_unit_test(test_h100_sections),
		cmocka_unit_test(test_h100_process),
		cmocka_unit_test(test_container_no_dev_infiniband),
		cmocka_unit_test(test_container_process),
		cmocka_unit_test(test_portdown_ib_verdicts),
		cmocka_unit_test(test_portdown_environment_warnings),
		cmocka_unit_test(test_portdown_topology_classes),
		cmocka_unit_test(test_text_verdict_first),
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_missing_process),
		cmocka_unit_test(test_empty_root),
		cmocka_unit_test(test_roce_node),
		cmocka_unit_test(test_roce_jobs),
		cmocka_unit_test(test_peermem_only_old_nccl_off),
		cmocka_unit_test(test_nv_mem_present),
		cmocka_unit_test(test_peermem_load_error),
		cmocka_unit_test(test_cma_pageblocks),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
