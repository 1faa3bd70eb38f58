// SPDX-License-Identifier: GPL-2.0-only
/* test_uprobe_libs.c - the uprobes' table of libibverbs files (32 inodes,
 * tracer/uprobes.h) cannot be filled for good (issue 34 item 4): any user
 * may map copies of libibverbs; one no process has mapped for
 * UPROBE_STALE_S gives its slot to a container started later, one still
 * mapped is kept and the refusal counted.  No BPF object is loaded: the
 * table is kept the same way, nothing attaches. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer/uprobes.h"
#include "host_libibverbs.h"

static char dir[] = "/tmp/uplibs-XXXXXX";

/* copy n of the host's library: another inode each */
static int copy(const char *lib, int n, char *path, size_t len)
{
	snprintf(path, len, "%s/libibverbs.so.%d", dir, n);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", lib, path);
	assert_int_equal(system(cmd), 0);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static int attach(struct tracer_uprobes *u, int fd, const char *path, double now)
{
	return tracer_uprobes_attach_fd(u, fd, path, now);
}

static bool in_table(const struct tracer_uprobes *u, const char *path)
{
	for (int i = 0; i < u->nlibs; i++)
		if (!strcmp(u->libs[i].path, path))
			return true;
	return false;
}

static void test_table_not_filled_for_good(void **state)
{
	(void)state;
	const char *lib = host_libibverbs();
	if (!lib)
		skip();
	assert_non_null(mkdtemp(dir));
	static struct tracer_uprobes u;
	char paths[UPROBE_LIBS_MAX + 1][128];
	int fds[UPROBE_LIBS_MAX + 1];
	for (int i = 0; i <= UPROBE_LIBS_MAX; i++)
		assert_true((fds[i] = copy(lib, i, paths[i], sizeof(paths[i]))) >= 0);
	/* a user maps 32 copies at t=0: the table is full */
	for (int i = 0; i < UPROBE_LIBS_MAX; i++)
		attach(&u, fds[i], paths[i], 0);
	assert_int_equal(u.nlibs, UPROBE_LIBS_MAX);
	u.libs[1].host = true; /* the distribution's own is never given up */
	/* a container at t=10 while they are all mapped: refused, counted */
	attach(&u, fds[UPROBE_LIBS_MAX], paths[UPROBE_LIBS_MAX], 10);
	assert_false(in_table(&u, paths[UPROBE_LIBS_MAX]));
	assert_int_equal(u.libs_full, 1);
	/* t=100: the scans still see copies 2.. mapped, not 0 and 1 */
	for (int i = 2; i < UPROBE_LIBS_MAX; i++)
		attach(&u, fds[i], paths[i], 100);
	/* the container started later is probed, in copy 0's slot */
	attach(&u, fds[UPROBE_LIBS_MAX], paths[UPROBE_LIBS_MAX], 100);
	assert_true(in_table(&u, paths[UPROBE_LIBS_MAX]));
	assert_false(in_table(&u, paths[0]));
	assert_true(in_table(&u, paths[1]));
	assert_int_equal(u.nlibs, UPROBE_LIBS_MAX);
	assert_int_equal(u.libs_full, 1);
	/* and copy 1, the host's, stays although unseen: the next refused */
	attach(&u, fds[0], paths[0], 100);
	assert_false(in_table(&u, paths[0]));
	assert_int_equal(u.libs_full, 2);
	for (int i = 0; i <= UPROBE_LIBS_MAX; i++) {
		close(fds[i]);
		unlink(paths[i]);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_not_filled_for_good),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
