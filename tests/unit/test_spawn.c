// SPDX-License-Identifier: GPL-2.0-only
/* test_spawn.c - `watch -- COMMAND`'s held command (user/watch/spawn.c):
 * found as execvp finds it before anything is armed, released, and a
 * failed exec told back instead of a 127 that looks like the command's. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "watch/spawn.h"

static void test_findable(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrt-spawn-XXXXXX", path[512];

	assert_int_equal(spawn_findable("sh"), 0);
	assert_int_equal(spawn_findable("/bin/sh"), 0);
	assert_int_equal(spawn_findable("/nonexistent/cmd"), ENOENT);
	assert_int_equal(spawn_findable("mrtrace-no-such-command"), ENOENT);
	assert_int_equal(spawn_findable(""), ENOENT);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(spawn_findable(dir), EACCES); /* a directory */
	snprintf(path, sizeof(path), "%s/plain", dir);
	FILE *f = fopen(path, "w");
	fclose(f);
	assert_int_equal(spawn_findable(path), EACCES); /* no x bit, root included */
	/* on PATH: the directory named cmd does not count, the file without x
	 * makes it EACCES as execvp says */
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", dir, 1);
	assert_int_equal(spawn_findable("plain"), EACCES);
	chmod(path, 0755);
	assert_int_equal(spawn_findable("plain"), 0);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	unlink(path);
	rmdir(dir);
}

static void test_release(void **state)
{
	(void)state;
	struct spawn s;
	int st;
	char *ok[] = { "true", NULL };
	char *missing[] = { "/nonexistent/cmd", NULL };

	assert_int_equal(spawn_held(&s, ok, NULL), 0);
	assert_true(s.pid > 0);
	assert_int_equal(spawn_release(&s), 0);
	assert_int_equal(waitpid(s.pid, &st, 0), s.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	assert_int_equal(spawn_held(&s, missing, NULL), 0);
	assert_int_equal(spawn_release(&s), ENOENT);
	assert_int_equal(waitpid(s.pid, &st, 0), s.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 127);

	/* never released: it exits 127 without running */
	assert_int_equal(spawn_held(&s, ok, NULL), 0);
	spawn_abandon(&s);
	assert_int_equal(s.release_fd, -1);
	assert_int_equal(waitpid(s.pid, &st, 0), -1); /* reaped already */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_findable),
		cmocka_unit_test(test_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
