// SPDX-License-Identifier: GPL-2.0-only
/* test_sysroot.c - `check --sysroot DIR` stays inside DIR: a recorded tree
 * (made by someone else, copied from another machine) with symlinks that
 * lead out of it, "..", FIFOs and devices.  Nothing outside the tree is
 * read, nothing blocks, nothing but regular files is read; both the openat2
 * resolution and the checked walk that replaces it on older kernels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check/check.h"
#include "core/beneath.h"
#include "core/sysroot.h"
#include "proc/context.h"
#include "tree_make.h"

static char dir[64];      /* holds the tree and a file outside it */
static char tree[128];
static char outside[160];

/* rel in the tree: a file holding text, or (NULL) only its directories */
static void mk(const char *rel, const char *text)
{
	tree_make(tree, rel, text, false);
}

static void ln(const char *target, const char *rel)
{
	char p[PATH_MAX];
	mk(rel, NULL);
	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "test_sysroot: a read blocked (a FIFO in the tree)\n";
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(3);
	_exit(2);
}

/* The whole check of the tree, as JSON text. */
static char *check_json(void)
{
	struct chk_report r;
	struct chk_options o = { .root = tree };
	alarm(20);
	assert_int_equal(chk_run(&o, &r), 0);
	char *s = strdup(chk_json_string(&r));
	alarm(0);
	chk_report_free(&r);
	return s;
}

static void test_symlinks_out_of_tree(void **state)
{
	(void)state;
	mk("proc/sys/kernel/hostname", "rec-node\n");
	/* absolute: means the tree's /tmp/..., which does not exist */
	ln(outside, "etc/nccl.conf");
	/* relative, climbing out with .. */
	char climb[PATH_MAX];
	snprintf(climb, sizeof(climb), "../../../../../../../../../../..%s", outside);
	ln(climb, "etc/security/limits.d/90-leak.conf");
	char *js = check_json();
	if (strstr(js, "NCCL_LEAK") || strstr(js, "leakuser"))
		fail_msg("a file outside the tree was read: %.200s", strstr(js, "NCCL_LEAK") ?
			 strstr(js, "NCCL_LEAK") : strstr(js, "leakuser"));
	assert_non_null(strstr(js, "rec-node"));
	free(js);
}

/* A symlinked directory that points at the host's own. */
static void test_symlinked_dir_out_of_tree(void **state)
{
	(void)state;
	ln("/sys/class/net", "sys/class/infiniband");
	char **names;
	int n = sr_list(tree, "/sys/class/infiniband", &names);
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], "lo"))
			fail_msg("sr_list listed the host's /sys/class/net through the tree");
	sr_free_names(names, n);
	/* the same link inside the tree is followed inside it */
	mk("sys/class/net/ib0/address", "x\n");
	n = sr_list(tree, "/sys/class/infiniband", &names);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "ib0");
	sr_free_names(names, n);
}

static void test_proc_link_out_of_tree(void **state)
{
	(void)state;
	mk("proc/77/cmdline", "job\0");
	ln("/proc/self/status", "proc/77/status");
	struct proc_context c;
	assert_int_equal(proc_context_read(tree, 77, &c), 0);
	if (c.have & CTX_HAVE_COMM)
		fail_msg("proc/77/status -> /proc/self/status was read: comm \"%s\"", c.comm);
}

static void test_fifo_and_device(void **state)
{
	(void)state;
	char p[PATH_MAX], b[64];
	mk("proc/sys/kernel/osrelease", NULL);
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/osrelease", tree);
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	alarm(10);
	assert_int_equal(sr_read_line(tree, "/proc/sys/kernel/osrelease", b, sizeof(b)), -EINVAL);
	alarm(0);
	char *js = check_json();   /* a whole check does not block on it either */
	free(js);
	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/etc/docker/daemon.json", tree);
		mk("etc/docker/daemon.json", NULL);
		unlink(p);
		assert_int_equal(mknod(p, S_IFCHR | 0644, makedev(1, 5)), 0);   /* /dev/zero */
		char big[256];
		assert_int_equal(sr_read_all(tree, "/etc/docker/daemon.json", big, sizeof(big), NULL),
				 -EINVAL);
	}
}

/* The two resolvers agree: absolute symlinks restart at the top, ".."
 * stops there, loops end. */
static void test_resolvers(void **state)
{
	(void)state;
	mk("a/b/file", "in tree\n");
	ln("/a/b", "abs");
	ln("../../../../a/b/file", "a/climb");
	ln("loop2", "loop1");
	ln("loop1", "loop2");
	int top = open(tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(top >= 0);
	int (*const res[2])(int, const char *) = { beneath_path, beneath_path_walk };
	for (int k = 0; k < 2; k++) {
		int fd = res[k](top, "/abs/file");
		assert_true(fd >= 0);
		close(fd);
		fd = res[k](top, "a/climb");
		assert_true(fd >= 0);
		close(fd);
		assert_true(res[k](top, "/../../../a/b/file") >= 0);
		assert_int_equal(res[k](top, "loop1"), -ELOOP);
		assert_int_equal(res[k](top, "a/b/file/x"), -ENOTDIR);
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s", outside);   /* absolute host path: inside the tree */
		assert_int_equal(res[k](top, p), -ENOENT);
	}
	close(top);
}

static int setup(void **state)
{
	(void)state;
	signal(SIGALRM, on_alarm);
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-sysroot-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(outside, sizeof(outside), "%s/outside.conf", dir);
	FILE *f = fopen(outside, "w");
	if (!f)
		return -1;
	fputs("NCCL_LEAK=1\nleakuser soft memlock 1\n", f);
	fclose(f);
	return mkdir(tree, 0755);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symlinks_out_of_tree),
		cmocka_unit_test(test_symlinked_dir_out_of_tree),
		cmocka_unit_test(test_proc_link_out_of_tree),
		cmocka_unit_test(test_fifo_and_device),
		cmocka_unit_test(test_resolvers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
