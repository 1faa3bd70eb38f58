// SPDX-License-Identifier: GPL-2.0-only
/* test_gidselect.c - NCCL's GID index choice (nccl/gidselect.h) against
 * the GID tables recorded in tests/fixtures/check/roce (mlx5 on RoCE:
 * v1/v2 pairs of the link-local, an IPv4 and a VLAN address; a
 * container's sysfs without gid_attrs) and the IB table of h100, for each
 * NCCL version whose rules differ. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "nccl/gidselect.h"
#include "proc/gidtable.h"

static struct gid_table table;
static struct nccl_settings settings;
static struct nccl_lib lib;

static void load(const char *tree, const char *dev)
{
	assert_int_equal(gid_table_read(fixture_path("check", tree), dev, 1, &table), 0);
}

static void version(int major, int minor)
{
	memset(&lib, 0, sizeof(lib));
	lib.found = lib.version_known = true;
	lib.major = major;
	lib.minor = minor;
}

static void set(const char *name, const char *value)
{
	struct nccl_setting *v = &settings.v[settings.n++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->value, sizeof(v->value), "%s", value);
	v->source = NCCL_SRC_ENV;
}

static struct nccl_gid_choice choose(void)
{
	struct nccl_gid_params p;
	struct nccl_gid_choice c;
	nccl_gid_params(&settings, &lib, &p);
	nccl_gid_select(&table, &p, &c);
	return c;
}

static int setup(void **state)
{
	(void)state;
	memset(&settings, 0, sizeof(settings));
	version(2, 21);
	return 0;
}

static void test_recorded_table(void **state)
{
	(void)state;
	load("roce", "mlx5_0");
	assert_string_equal(table.link_layer, "Ethernet");
	assert_int_equal(table.len, 16);
	assert_int_equal(table.populated, 6);
	assert_int_equal(table.n, 6);
	assert_string_equal(table.e[3].text, "::ffff:10.1.0.17");
	assert_string_equal(table.e[3].type, "RoCE v2");
	assert_int_equal(table.e[3].roce_version, 2);
	assert_int_equal(table.e[2].roce_version, 1);
	assert_string_equal(table.e[5].netdev, "eth0.100");
	assert_null(gid_table_entry(&table, 6));
	assert_int_equal(nccl_gid_family(table.e[3].raw), AF_INET);
	assert_int_equal(nccl_gid_family(table.e[0].raw), AF_INET6);
	assert_false(nccl_gid_valid(table.e[1].raw)); /* link-local */
	assert_true(nccl_gid_valid(table.e[3].raw));
}

/* 2.21+ with nothing set: the first IPv4 RoCE v2 entry */
static void test_selection_defaults(void **state)
{
	(void)state;
	load("roce", "mlx5_0");
	struct nccl_gid_choice c = choose();
	assert_int_equal(c.how, NCCL_GID_SELECTED);
	assert_int_equal(c.index, 3);
	/* newest rules for an unknown version */
	lib.version_known = false;
	assert_int_equal(choose().index, 3);
	/* a port with only link-local GIDs: NCCL stays at 0 */
	load("roce", "mlx5_1");
	assert_int_equal(choose().index, 0);
}

static void test_selection_settings(void **state)
{
	(void)state;
	load("roce", "mlx5_0");
	set("NCCL_IB_ADDR_RANGE", "192.168.100.0/24");
	assert_int_equal(choose().index, 5);
	settings.n = 0;
	set("NCCL_IB_ROCE_VERSION_NUM", "1");
	assert_int_equal(choose().index, 2);
	settings.n = 0;
	/* IPv6: only link-local entries, never valid: index 0 */
	set("NCCL_IB_ADDR_FAMILY", "AF_INET6");
	assert_int_equal(choose().index, 0);
	settings.n = 0;
	/* a range of another family than asked for is ignored, and said */
	set("NCCL_IB_ADDR_RANGE", "fd00::/8");
	struct nccl_gid_params p;
	nccl_gid_params(&settings, &lib, &p);
	assert_false(p.range_set);
	assert_non_null(strstr(p.note, "not an IPv4 address"));
	assert_int_equal(choose().index, 3);
	settings.n = 0;
	/* a range nothing matches: the search keeps index 0 */
	set("NCCL_IB_ADDR_RANGE", "172.16.0.0/12");
	assert_int_equal(choose().index, 0);
	settings.n = 0;
	/* pinned: whatever is there */
	set("NCCL_IB_GID_INDEX", "4");
	struct nccl_gid_choice c = choose();
	assert_int_equal(c.how, NCCL_GID_PINNED);
	assert_int_equal(c.index, 4);
	settings.n = 0;
	set("NCCL_IB_GID_INDEX", "0x7");
	assert_int_equal(choose().index, 7); /* strtoll(v, NULL, 0) */
}

static void test_versions(void **state)
{
	(void)state;
	load("roce", "mlx5_0");
	/* before 2.21: index 0 unless pinned, nothing else read */
	version(2, 18);
	set("NCCL_IB_ADDR_RANGE", "192.168.100.0/24");
	struct nccl_gid_choice c = choose();
	assert_int_equal(c.how, NCCL_GID_PINNED);
	assert_int_equal(c.index, 0);
	set("NCCL_IB_GID_INDEX", "3");
	assert_int_equal(choose().index, 3);
	/* a range without '/': 2.21 and 2.22 crash, 2.23 ignores it */
	settings.n = 0;
	set("NCCL_IB_ADDR_RANGE", "10.1.0.0");
	version(2, 22);
	assert_int_equal(choose().how, NCCL_GID_CRASHES);
	version(2, 23);
	c = choose();
	assert_int_equal(c.how, NCCL_GID_SELECTED);
	assert_int_equal(c.index, 3);
}

/* a container's sysfs with the GIDs but no gid_attrs: NCCL's search opens
 * the types of index 2 and 3 and stops; with types that read EINVAL (the
 * kernel's answer for an entry it does not map) 2.25 stops, 2.26 skips
 * and keeps the first IPv4 entry, RoCE v1 */
static void test_unreadable_gid_attrs(void **state)
{
	(void)state;
	char tree[4352];
	snprintf(tree, sizeof(tree), "%s/var/lib/ctr/5252", fixture_path("check", "roce"));
	assert_int_equal(gid_table_read(tree, "mlx5_0", 1, &table), 0);
	assert_int_equal(table.e[2].type_errno, ENOENT);
	assert_true(table.e[2].type_open_failed);
	version(2, 26);
	struct nccl_gid_choice c = choose();
	assert_int_equal(c.how, NCCL_GID_FAILS);
	assert_int_equal(c.fail_index, 2);
	assert_true(c.fail_open);
	for (int i = 0; i < table.n; i++) {
		table.e[i].type_open_failed = false;
		table.e[i].type_errno = EINVAL;
	}
	version(2, 25);
	c = choose();
	assert_int_equal(c.how, NCCL_GID_FAILS);
	assert_int_equal(c.fail_errno, EINVAL);
	assert_false(c.fail_open);
	version(2, 26);
	c = choose();
	assert_int_equal(c.how, NCCL_GID_SELECTED);
	assert_int_equal(c.index, 2);
	/* pinned, NCCL reads no type at all */
	version(2, 25);
	set("NCCL_IB_GID_INDEX", "3");
	assert_int_equal(choose().how, NCCL_GID_PINNED);
}

/* InfiniBand from 2.22: NCCL_IB_ROUTABLE_FLID_GID_INDEX when that GID has
 * a FLID, else 0; NCCL_IB_GID_INDEX is not read */
static void test_infiniband(void **state)
{
	(void)state;
	load("h100", "mlx5_0");
	assert_string_equal(table.link_layer, "InfiniBand");
	version(2, 22);
	set("NCCL_IB_GID_INDEX", "3");
	struct nccl_gid_choice c = choose();
	assert_int_equal(c.how, NCCL_GID_IB_FLID);
	assert_int_equal(c.index, 0);
	/* a routable GID with FLID 0x0012 at index 1 */
	struct gid_entry *e = &table.e[table.n++];
	memset(e, 0, sizeof(*e));
	e->index = 1;
	assert_int_equal(gid_parse("fec0:0000:0012:0001:946d:ae03:00f2:1a30", e->raw, e->text,
				   sizeof(e->text)), 0);
	e->populated = true;
	assert_int_equal(choose().index, 1);
	/* 2.21 pins on every link layer */
	version(2, 21);
	assert_int_equal(choose().index, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_recorded_table, setup),
		cmocka_unit_test_setup(test_selection_defaults, setup),
		cmocka_unit_test_setup(test_selection_settings, setup),
		cmocka_unit_test_setup(test_versions, setup),
		cmocka_unit_test_setup(test_unreadable_gid_attrs, setup),
		cmocka_unit_test_setup(test_infiniband, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
