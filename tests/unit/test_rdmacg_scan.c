// SPDX-License-Identifier: GPL-2.0-only
/* test_rdmacg_scan.c - the rdma cgroup of a node, read after the fact
 * (proc/rdmacg_scan.c): whether the controller is on, which cgroups limit,
 * and that a tree a user shapes (delegated subtrees: symlinks, FIFOs named
 * rdma.max, endless depth) can neither lead the walk out, block it, nor
 * make it unbounded.  Recorded trees under a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/rdmacg_scan.h"
#include "tree_make.h"

static char tree[64];

/* mk("a/b/rdma.max", "text") below the cgroup root (text NULL: a directory) */
static void mk(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "sys/fs/cgroup/%s", rel);
	tree_make(tree, p, text, true);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tree, sizeof(tree), "/tmp/mrt-rdmacg-XXXXXX");
	return mkdtemp(tree) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) ? -1 : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("the walk blocked");
}

static void line_limits(void **state)
{
	(void)state;
	assert_false(rdmacg_line_limits("rxe0 hca_handle=max hca_object=max", 34));
	assert_true(rdmacg_line_limits("rxe0 hca_handle=max hca_object=2", 32));
	assert_true(rdmacg_line_limits("mlx5_0 hca_handle=0 hca_object=max", 34));
	/* "maxi" is not "max" */
	assert_true(rdmacg_line_limits("rxe0 hca_handle=maxi", 20));
	/* only the first n bytes count */
	assert_false(rdmacg_line_limits("rxe0 hca_handle=max hca_object=2", 19));
	assert_false(rdmacg_line_limits("", 0));
}

/* the controller on, two limiting cgroups among unlimited ones; the first
 * in walk order is kept with its line */
static void controller_and_limits(void **state)
{
	struct rdmacg_scan s;
	(void)state;
	mk("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	mk("system.slice/rdma.max", "rxe0 hca_handle=max hca_object=max\n");
	mk("job.slice/rdma.max", "");
	mk("job.slice/step_0/rdma.max", "rxe0 hca_handle=max hca_object=max\nmlx5_0 hca_handle=max hca_object=2\n");
	/* as the kernel writes it: a space before the newline */
	mk("job.slice/step_1/rdma.max", "rxe0 hca_handle=1 hca_object=max \n");
	assert_int_equal(rdmacg_scan(tree, &s), 0);
	assert_int_equal(s.controller, 1);
	assert_int_equal(s.limited, 2);
	assert_false(s.cut);
	assert_int_equal(s.dirs, 5);
	assert_non_null(strstr(s.first, "/job.slice/step_"));
	if (!strcmp(s.first, "/job.slice/step_0"))
		assert_string_equal(s.first_line, "mlx5_0 hca_handle=max hca_object=2");
	else
		assert_string_equal(s.first_line, "rxe0 hca_handle=1 hca_object=max");
}

/* off: the root does not list rdma (no rdma.max exists then) */
static void controller_off(void **state)
{
	struct rdmacg_scan s;
	(void)state;
	mk("cgroup.controllers", "cpu io memory pids\n");
	mk("user.slice", NULL);
	assert_int_equal(rdmacg_scan(tree, &s), 0);
	assert_int_equal(s.controller, 0);
	assert_int_equal(s.limited, 0);
	assert_string_equal(s.first, "");
}

/* no cgroup v2 root: nothing said, never "off" */
static void no_cgroup2(void **state)
{
	struct rdmacg_scan s;
	(void)state;
	assert_true(rdmacg_scan(tree, &s) < 0);
	assert_int_equal(s.controller, -1);
	mk("unified", NULL); /* a v1 layout: a directory without cgroup.controllers */
	assert_true(rdmacg_scan(tree, &s) < 0);
	assert_int_equal(s.controller, -1);
}

/* what a delegated subtree's owner can put there: a symlink to a limiting
 * cgroup elsewhere (not followed, not counted twice), a FIFO named rdma.max
 * (not read: the walk must not block), a file of more than the read bound,
 * and a chain deeper than the bound (cut, said) */
static void hostile_tree(void **state)
{
	struct rdmacg_scan s;
	char p[PATH_MAX], deep[256] = "u";
	(void)state;
	mk("cgroup.controllers", "rdma\n");
	mk("a/rdma.max", "rxe0 hca_handle=max hca_object=1\n");
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/a", tree);
	mk("user/x", NULL);
	char l[PATH_MAX];
	snprintf(l, sizeof(l), "%s/sys/fs/cgroup/user/x/link", tree);
	assert_int_equal(symlink(p, l), 0);
	snprintf(l, sizeof(l), "%s/sys/fs/cgroup/user/x/rdma.max", tree);
	assert_int_equal(mkfifo(l, 0644), 0);
	/* a long rdma.max: its first KiB is "max" lines, the limit after it */
	char *big = malloc(8192);
	assert_non_null(big);
	big[0] = '\0';
	/* a first line of 45 bytes, then lines of 35: the bound (1023 bytes
	 * read) cuts the 29th at "rxe0 hca_handle=max hca_object=ma", which
	 * must not read as a limit */
	strcat(big, "rxe0 hca_handle=max hca_object=max          \n");
	for (int i = 0; i < 200; i++)
		strcat(big, "rxe0 hca_handle=max hca_object=max\n");
	strcat(big, "rxe0 hca_handle=0 hca_object=0\n");
	mk("user/big/rdma.max", big);
	free(big);
	for (int i = 0; i < RDMACG_MAX_DEPTH + 3; i++)
		strcat(deep, "/d");
	mk(deep, NULL);
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_int_equal(rdmacg_scan(tree, &s), 0);
	alarm(0);
	assert_int_equal(s.controller, 1);
	assert_int_equal(s.limited, 1);
	assert_string_equal(s.first, "/a");
	assert_string_equal(s.first_line, "rxe0 hca_handle=max hca_object=1");
	assert_true(s.cut);
	assert_true(s.dirs <= RDMACG_MAX_DIRS);
}

/* width: more cgroups than the bound stop the walk, said as cut */
static void wide_tree(void **state)
{
	struct rdmacg_scan s;
	char rel[64];
	(void)state;
	mk("cgroup.controllers", "rdma\n");
	for (int i = 0; i < RDMACG_MAX_DIRS + 10; i++) {
		snprintf(rel, sizeof(rel), "w%d", i);
		mk(rel, NULL);
	}
	assert_int_equal(rdmacg_scan(tree, &s), 0);
	assert_true(s.cut);
	assert_int_equal(s.dirs, RDMACG_MAX_DIRS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(line_limits),
		cmocka_unit_test_setup_teardown(controller_and_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(controller_off, setup, teardown),
		cmocka_unit_test_setup_teardown(no_cgroup2, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(wide_tree, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
