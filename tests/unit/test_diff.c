// SPDX-License-Identifier: GPL-2.0-only
/* test_diff.c - `mrtrace diff` on reports made by `check` from the fixture
 * trees, with one node changed the way real clusters go wrong. */
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
#include "diff/diff.h"

static char dir[64];

static const char *fixture(const char *name)
{
	return fixture_path("check", name);
}

/* Each fixture's report is made once and copied: the tests want about 40
 * nodes from 5 trees, and a check run is slow under arm64's emulation
 * (test_diff was a minute of the arm64 VM's silent unit run). */
static struct {
	const char *name;
	int pid;
	json_object *doc;
} made[8];

/* A fresh parsed `check --json` document for a fixture: a deep copy the
 * caller owns and may change. */
static json_object *report(const char *name, int pid)
{
	size_t i;
	for (i = 0; i < sizeof(made) / sizeof(made[0]) && made[i].doc; i++)
		if (made[i].pid == pid && !strcmp(made[i].name, name))
			break;
	assert_true(i < sizeof(made) / sizeof(made[0]));
	if (!made[i].doc) {
		struct chk_report r;
		struct chk_options o = { .root = fixture(name), .pid = pid };
		assert_int_equal(chk_run(&o, &r), 0);
		made[i].doc = json_tokener_parse(chk_json_string(&r));
		chk_report_free(&r);
		assert_non_null(made[i].doc);
		made[i].name = name;
		made[i].pid = pid;
	}
	json_object *d = NULL;
	assert_int_equal(json_object_deep_copy(made[i].doc, &d, NULL), 0);
	return d;
}

static json_object *at(json_object *o, const char *k)
{
	json_object *v;
	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static void set_host(json_object *d, const char *host)
{
	json_object_object_add(at(d, "host"), "hostname", json_object_new_string(host));
}

static const char *save(json_object *d, const char *file)
{
	static char paths[16][128];
	static int next;
	char *p = paths[next++ % 16];
	snprintf(p, 128, "%s/%s", dir, file);
	assert_int_equal(json_object_to_file_ext(p, d, JSON_C_TO_STRING_PLAIN), 0);
	json_object_put(d);
	return p;
}

static const char *save_text(const char *file, const char *text)
{
	static char paths[8][128];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, 128, "%s/%s", dir, file);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static int diff(int n, const char **files, struct diff_result *res, char **out, char *err)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	assert_non_null(f);
	int rc = diff_files(n, files, f, res, err, 512);
	fclose(f);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-diff-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		json_object_put(made[i].doc);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Five healthy nodes made from the h100 tree. */
static void five(const char **files, const char *prefix)
{
	for (int i = 0; i < 5; i++) {
		char host[32], file[64];
		snprintf(host, sizeof(host), "gpu-a%02d", i + 1);
		snprintf(file, sizeof(file), "%s-%d.json", prefix, i);
		json_object *d = report("h100", 0);
		set_host(d, host);
		files[i] = save(d, file);
	}
}

static void test_identical_nodes(void **state)
{
	(void)state;
	const char *files[5];
	struct diff_result res;
	char *out, err[512];
	five(files, "same");
	assert_int_equal(diff(5, files, &res, &out, err), 0);
	assert_int_equal(res.nodes, 5);
	assert_int_equal(res.breaking, 0);
	assert_int_equal(res.drift, 0);
	assert_non_null(strstr(out, "RESULT  OK    no difference that can break a job"));
	free(out);
}

/* One node of five: slurmd lost LimitMEMLOCK (jobs get 8 MiB) and one cable
 * is out.  diff must name that node, first, and exit 1. */
static void test_one_misconfigured_node(void **state)
{
	(void)state;
	const char *files[5];
	struct diff_result res;
	char *out, err[512];
	five(files, "odd");
	json_object *d = report("h100", 0);
	set_host(d, "gpu-a04");
	json_object *u = at(at(at(d, "memlock"), "units"), "slurmd.service");
	json_object_object_add(u, "effective_soft_bytes", json_object_new_int64(8 << 20));
	json_object *dev = json_object_array_get_idx(at(at(d, "rdma"), "devices"), 3);
	json_object *port = json_object_array_get_idx(at(dev, "ports"), 0);
	json_object_object_add(port, "state", json_object_new_string("DOWN"));
	json_object_object_add(port, "phys_state", json_object_new_string("Polling"));
	files[3] = save(d, "odd-3.json");

	int rc = diff(5, files, &res, &out, err);
	assert_int_equal(rc, 1);
	assert_int_equal(res.breaking, 3);   /* memlock, port state, physical state */
	/* the odd node is named in the result line, with its count */
	char *result = strstr(out, "RESULT  FAIL");
	assert_non_null(result);
	char *eol = strchr(result, '\n');
	*eol = '\0';
	assert_non_null(strstr(result, "odd ones out: gpu-a04 (3)"));
	assert_null(strstr(result, "gpu-a01"));
	*eol = '\n';
	/* in each row the odd value comes before the majority */
	char *row = strstr(out, "  memlock for jobs of slurmd.service\n");
	assert_non_null(row);
	char *odd = strstr(row, "8 MiB");
	char *maj = strstr(row, "unlimited");
	assert_non_null(odd);
	assert_non_null(maj);
	assert_true(odd < maj);
	assert_non_null(strstr(row, "gpu-a04"));
	assert_non_null(strstr(out, "  mlx5_3 port 1 state\n    DOWN "));
	assert_non_null(strstr(out, "4 others: gpu-a01 gpu-a02 gpu-a03 gpu-a05"));
	/* groups: four equal nodes and the odd one */
	assert_non_null(strstr(out, "A  4 nodes: gpu-a01 gpu-a02 gpu-a03 gpu-a05"));
	assert_non_null(strstr(out, "B  1 node : gpu-a04"));
	free(out);
}

/* Firmware differs on two nodes: reported as drift, exit 0. */
static void test_drift_only(void **state)
{
	(void)state;
	const char *files[5];
	struct diff_result res;
	char *out, err[512];
	five(files, "fw");
	for (int i = 3; i < 5; i++) {
		char host[16], file[32];
		json_object *d = report("h100", 0);
		snprintf(host, sizeof(host), "gpu-a%02d", i + 1);
		snprintf(file, sizeof(file), "fw-%d.json", i);
		set_host(d, host);
		json_object *dev = json_object_array_get_idx(at(at(d, "rdma"), "devices"), 0);
		json_object_object_add(dev, "fw_ver", json_object_new_string("28.36.1010"));
		files[i] = save(d, file);
	}
	assert_int_equal(diff(5, files, &res, &out, err), 0);
	assert_int_equal(res.breaking, 0);
	assert_int_equal(res.drift, 1);
	assert_non_null(strstr(out, "DRIFT"));
	assert_non_null(strstr(out, "  mlx5_0 firmware\n    28.36.1010"));
	free(out);
}

/* Reports taken with -p: an NCCL setting that differs between ranks. */
static void test_nccl_setting_differs(void **state)
{
	(void)state;
	const char *files[3];
	struct diff_result res;
	char *out, err[512];
	for (int i = 0; i < 3; i++) {
		char host[16], file[32];
		json_object *d = report("h100", 4242);
		snprintf(host, sizeof(host), "gpu-a%02d", i + 1);
		snprintf(file, sizeof(file), "nccl-%d.json", i);
		set_host(d, host);
		if (i == 1) {
			json_object *st = at(at(d, "nccl"), "settings");
			for (size_t k = 0; k < json_object_array_length(st); k++) {
				json_object *e = json_object_array_get_idx(st, k);
				if (!strcmp(json_object_get_string(at(e, "name")), "NCCL_IB_HCA"))
					json_object_object_add(e, "value", json_object_new_string("mlx5_0"));
			}
		}
		files[i] = save(d, file);
	}
	assert_int_equal(diff(3, files, &res, &out, err), 1);
	assert_non_null(strstr(out, "odd ones out: gpu-a02 (1)"));
	assert_non_null(strstr(out, "  NCCL_IB_HCA\n    mlx5_0 "));
	free(out);
}

/* RoCE nodes: one whose NCCL addresses from a RoCE v1 GID (cannot talk to
 * the v2 rest) and with a smaller MTU (NCCL takes the smaller: drift). */
static void test_roce_gid_type_differs(void **state)
{
	(void)state;
	const char *files[3];
	struct diff_result res;
	char *out, err[512];
	for (int i = 0; i < 3; i++) {
		char host[16], file[32];
		json_object *d = report("roce", 0);
		snprintf(host, sizeof(host), "roce-n%d", i + 1);
		snprintf(file, sizeof(file), "roce-%d.json", i);
		set_host(d, host);
		if (i == 2) {
			json_object *p = json_object_array_get_idx(at(at(d, "fabric"), "ports"), 0);
			json_object_object_add(at(p, "nccl"), "type", json_object_new_string("IB/RoCE v1"));
			json_object *dev = json_object_array_get_idx(at(at(d, "rdma"), "devices"), 0);
			json_object *rp = json_object_array_get_idx(at(dev, "ports"), 0);
			json_object_object_add(rp, "active_mtu", json_object_new_int(1024));
		}
		files[i] = save(d, file);
	}
	assert_int_equal(diff(3, files, &res, &out, err), 1);
	assert_non_null(strstr(out, "odd ones out: roce-n3"));
	assert_non_null(strstr(out, "  mlx5_0 port 1 GID NCCL uses (type, family)\n    IB/RoCE v1 IPv4"));
	assert_non_null(strstr(out, "mlx5_0 port 1 active MTU"));
	assert_true(res.drift >= 1);
	free(out);
}

/* The same failure everywhere is not a difference, but it is shown. */
static void test_shared_failure(void **state)
{
	(void)state;
	const char *files[2];
	struct diff_result res;
	char *out, err[512];
	for (int i = 0; i < 2; i++) {
		char host[16], file[32];
		json_object *d = report("container", 0);
		snprintf(host, sizeof(host), "ctr-%d", i);
		snprintf(file, sizeof(file), "ctr-%d.json", i);
		set_host(d, host);
		files[i] = save(d, file);
	}
	assert_int_equal(diff(2, files, &res, &out, err), 0);
	assert_true(res.shared_fail >= 2);
	assert_non_null(strstr(out, "FAILING ON EVERY NODE"));
	assert_non_null(strstr(out, "uverbs0 missing"));
	free(out);
}

static void test_same_hostname_twice(void **state)
{
	(void)state;
	const char *files[2];
	struct diff_result res;
	char *out, err[512];
	json_object *a = report("h100", 0), *b = report("portdown", 0);
	set_host(b, "gpu-a01");
	files[0] = save(a, "dup-a.json");
	files[1] = save(b, "dup-b.json");
	assert_int_equal(diff(2, files, &res, &out, err), 1);
	assert_non_null(strstr(out, "gpu-a01("));
	assert_non_null(strstr(out, "dup-b.json)"));
	free(out);
}

static void expect_bad(const char *file, const char *text, const char *msg)
{
	const char *files[2];
	char *out, err[512] = "";
	struct diff_result res;
	json_object *good = report("h100", 0);
	files[0] = save(good, "good.json");
	files[1] = text ? save_text(file, text) : file;
	assert_int_equal(diff(2, files, &res, &out, err), 2);
	if (!strstr(err, msg) || !strstr(err, files[1]))
		fail_msg("error \"%s\" lacks \"%s\" or the file name", err, msg);
	assert_string_equal(out, "");   /* nothing half-printed */
	free(out);
}

static void test_malformed_input(void **state)
{
	(void)state;
	expect_bad("trunc.json", "{\"schema\": \"mrtrace-check/1\", \"host\": {", "not valid JSON");
	expect_bad("garbage.json", "{not json", "not valid JSON");
	expect_bad("empty.json", "\n", "empty file");
	expect_bad("other.json", "{\"event\": \"reg_failure\"}", "not a `mrtrace check --json` report");
	expect_bad("future.json", "{\"schema\": \"mrtrace-check/9\"}", "this mrtrace reads");
	expect_bad("nohost.json", "{\"schema\": \"mrtrace-check/1\", \"items\": []}", "host.hostname");
	expect_bad("two.json", "{\"schema\": \"mrtrace-check/1\"}\n{\"schema\": \"mrtrace-check/1\"}\n",
		   "more than one JSON document");
	expect_bad("/nonexistent/node9.json", NULL, "No such file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_nodes),
		cmocka_unit_test(test_one_misconfigured_node),
		cmocka_unit_test(test_drift_only),
		cmocka_unit_test(test_nccl_setting_differs),
		cmocka_unit_test(test_roce_gid_type_differs),
		cmocka_unit_test(test_shared_failure),
		cmocka_unit_test(test_same_hostname_twice),
		cmocka_unit_test(test_malformed_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
