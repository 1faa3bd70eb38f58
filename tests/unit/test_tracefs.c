// SPDX-License-Identifier: GPL-2.0-only
/* test_tracefs.c - the tracing directory is found where the system has it:
 * /sys/kernel/tracing, or only under debugfs (/sys/kernel/debug/tracing),
 * and mounted when neither is.  Each case runs in a child with its own mount
 * namespace, where the other places are hidden under an empty tmpfs.
 * Needs root and mount namespaces (skipped otherwise). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tracefs.h"

/* 0 ok, 1 wrong answer, 77 cannot set the case up. */
static int in_namespace(int hide_tracing, int hide_debug, int mount_debugfs, const char *want)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(77);
		if (hide_tracing && mount("none", "/sys/kernel/tracing", "tmpfs", 0, NULL))
			_exit(77);
		if (hide_debug && mount("none", "/sys/kernel/debug", "tmpfs", 0, NULL))
			_exit(77);
		if (mount_debugfs && mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
		    errno != EBUSY)
			_exit(77);
		char err[256] = "";
		const char *d = tracefs_dir(err, sizeof(err));
		if (!d || strcmp(d, want)) {
			fprintf(stderr, "tracefs_dir: %s (%s), wanted %s\n", d ? d : "NULL", err, want);
			_exit(1);
		}
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static void expect(int rc)
{
	if (rc == 77)
		skip();
	assert_int_equal(rc, 0);
}

static void test_tracing_mounted(void **state)
{
	(void)state;
	if (geteuid())
		skip();
	expect(in_namespace(0, 0, 0, "/sys/kernel/tracing"));
}

/* Only debugfs mounted: its automounted tracing directory. */
static void test_only_debugfs(void **state)
{
	(void)state;
	if (geteuid())
		skip();
	expect(in_namespace(1, 0, 1, "/sys/kernel/debug/tracing"));
}

/* Neither: tracefs is mounted on /sys/kernel/tracing. */
static void test_neither(void **state)
{
	(void)state;
	if (geteuid())
		skip();
	expect(in_namespace(1, 1, 0, "/sys/kernel/tracing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracing_mounted),
		cmocka_unit_test(test_only_debugfs),
		cmocka_unit_test(test_neither),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
