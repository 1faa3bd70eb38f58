// SPDX-License-Identifier: GPL-2.0-only
/* test_redact_live.c - `watch --redact` on what the live readers take from
 * /proc (issue 34 item 12): process.exe is masked as argv[0] is, and so is
 * the path of a mapped file (user_call.caller is one). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/context.h"
#include "watch/correlate.h"

#define HEX "0123456789abcdef0123456789abcdef01234567"

extern char **environ;
static char dir[64];

static void test_exe_and_maps_masked(void **state)
{
	(void)state;
	char sub[128], exe[160], cmd[400];
	snprintf(dir, sizeof(dir), "/tmp/redact-live-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/" HEX, dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(exe, sizeof(exe), "%s/sleep", sub);
	snprintf(cmd, sizeof(cmd), "cp \"$(command -v sleep)\" '%s'", exe);
	assert_int_equal(system(cmd), 0);
	pid_t pid;
	char *argv[] = { exe, "30", NULL };
	if (posix_spawn(&pid, exe, NULL, NULL, argv, environ))
		skip(); /* a noexec /tmp */
	struct corr_live live = { .root = "/", .redact = true };
	struct corr_ops ops;
	corr_live_ops(&ops, &live);
	struct proc_context *ctx = calloc(1, sizeof(*ctx));
	int rc = -1;
	for (int i = 0; i < 100 && (rc || !strstr(ctx->exe, "sleep")); i++) {
		usleep(10000); /* until it has exec'd */
		rc = ops.read_context(ops.arg, pid, ctx);
	}
	char *maps = ops.read_maps(ops.arg, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(rc, 0);
	assert_null(strstr(ctx->exe, HEX));
	assert_non_null(strstr(ctx->exe, "/***/sleep"));
	assert_null(strstr(ctx->cmdline, HEX));
	assert_non_null(maps);
	assert_null(strstr(maps, HEX));
	assert_non_null(strstr(maps, "/***/sleep"));
	free(maps);
	free(ctx);
	unlink(exe);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exe_and_maps_masked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
