// SPDX-License-Identifier: GPL-2.0-only
/* test_config.c - reading the configuration (core/config.h) when the file
 * is not what it should be: a FIFO (as --config, or in FILE.d/), a device
 * that never ends, a file far too large; and values longer than any fixed
 * buffer, which are kept whole, never cut (issue 24, rows 6 and 11).  And
 * the reader underneath, core/regfile.h, on its own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/regfile.h"

static char dir[64];

static void write_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* cfg_load in a child, so that a load that blocks is a failure after 5 s
 * and not a test run that never ends.  The child's message comes back
 * through a pipe; returns cfg_load's result, or 124 when it hung. */
static int load_bounded(const char *path, bool named, char *err, size_t errlen)
{
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct mrt_config c = { 0 };
		char e[1024] = "";
		int rc = cfg_load(path, named, &c, e, sizeof(e));
		if (write(pfd[1], e, strlen(e) + 1) < 0)
			_exit(3);
		_exit(rc ? 1 : 0);
	}
	close(pfd[1]);
	int status = 0;
	for (int i = 0; i < 500; i++) {   /* 5 s */
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		if (i == 499) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(pfd[0]);
			return 124;
		}
	}
	ssize_t n = read(pfd[0], err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void test_fifo_as_config(void **state)
{
	(void)state;
	char p[128], err[1024];
	snprintf(p, sizeof(p), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(load_bounded(p, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fifo.conf: not a regular file"));
	assert_int_equal(unlink(p), 0);
}

static void test_fifo_in_dropin_dir(void **state)
{
	(void)state;
	char p[128], d[140], f[200], err[1024];
	snprintf(p, sizeof(p), "%s/main.conf", dir);
	write_file(p, "[watch]\nsyscalls = auto\n");
	snprintf(d, sizeof(d), "%s.d", p);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(f, sizeof(f), "%s/10-fifo.conf", d);
	assert_int_equal(mkfifo(f, 0644), 0);
	assert_int_equal(load_bounded(p, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "10-fifo.conf: not a regular file"));
	/* the default file's drop-ins are held to the same rule */
	assert_int_equal(load_bounded(p, false, err, sizeof(err)), -1);
	assert_int_equal(unlink(f), 0);
	assert_int_equal(rmdir(d), 0);
	assert_int_equal(unlink(p), 0);
}

static void test_endless_and_huge(void **state)
{
	(void)state;
	char p[128], err[1024];
	assert_int_equal(load_bounded("/dev/zero", true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/dev/zero: not a regular file"));
	/* a regular file larger than any configuration: refused, not read */
	snprintf(p, sizeof(p), "%s/huge.conf", dir);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 << 20), 0);
	close(fd);
	assert_int_equal(load_bounded(p, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "huge.conf: too large"));
	assert_int_equal(unlink(p), 0);
	/* a missing default file is nothing configured; a named one an error */
	snprintf(p, sizeof(p), "%s/none.conf", dir);
	assert_int_equal(load_bounded(p, false, err, sizeof(err)), 0);
	assert_int_equal(load_bounded(p, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "none.conf: No such file"));
}

/* A value is kept whole whatever its length (a 1,026-character path used to
 * become a 1,023-character one, and the file was written there). */
static void test_long_value_whole(void **state)
{
	(void)state;
	static const size_t lens[] = { 1023, 1024, 1026, 1199, 1200, 5000, 100000 };
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = lens[i];
		char *v = malloc(n + 1), *text = malloc(n + 64);
		assert_non_null(v);
		assert_non_null(text);
		memset(v, 'p', n);
		v[0] = '/';
		v[n] = '\0';
		snprintf(text, n + 64, "[check]\nprom = %s\nhealth = yes\n", v);
		struct mrt_config c = { 0 };
		char err[512] = "";
		assert_int_equal(cfg_parse_text(text, "t.conf", &c, err, sizeof(err)), 0);
		const char *got = cfg_get(&c, "check", "prom");
		assert_non_null(got);
		assert_int_equal(strlen(got), n);
		assert_string_equal(got, v);
		assert_string_equal(cfg_get(&c, "check", "health"), "yes");
		cfg_free(&c);
		free(v);
		free(text);
	}
}

/* Through cfg_apply_args the long value reaches the option whole. */
static void test_long_value_reaches_option(void **state)
{
	(void)state;
	static const struct argp_option opts[] = {
		{ "prom", 'P', "FILE", OPTION_ARG_OPTIONAL, "", 0 },
		{ 0 },
	};
	static const struct argp a = { opts, NULL, NULL, NULL, NULL, NULL, NULL };
	char p[128], cfgarg[160], err[512] = "";
	size_t n = 2000;
	char *v = malloc(n + 1), *text = malloc(n + 64);
	assert_non_null(v);
	assert_non_null(text);
	memset(v, 'q', n);
	v[0] = '/';
	v[n] = '\0';
	snprintf(text, n + 64, "[check]\nprom = %s\n", v);
	snprintf(p, sizeof(p), "%s/long.conf", dir);
	write_file(p, text);
	snprintf(cfgarg, sizeof(cfgarg), "--config=%s", p);
	char *argv0[] = { "check", cfgarg, NULL };
	char **argv = argv0;
	int argc = 2;
	static const char *const sections[] = { "check", NULL };
	assert_int_equal(cfg_apply_args(&a, sections, NULL, &argc, &argv, err, sizeof(err)), 0);
	assert_int_equal(argc, 2);
	assert_int_equal(strncmp(argv[1], "--prom=", 7), 0);
	assert_string_equal(argv[1] + 7, v);
	cfg_args_release();
	assert_int_equal(unlink(p), 0);
	free(v);
	free(text);
}

/* regfile: only regular files, never waiting, never more than asked. */
static void test_regfile(void **state)
{
	(void)state;
	char p[128], l[140], *buf;
	size_t len;
	snprintf(p, sizeof(p), "%s/r.fifo", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(regfile_open(p, 0), -EINVAL);   /* no writer: open did not wait */
	assert_int_equal(regfile_read(p, 0, 100, &buf, &len), -EINVAL);
	assert_null(buf);
	assert_string_equal(regfile_strerror(-EINVAL), "not a regular file");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(regfile_open("/dev/zero", 0), -EINVAL);
	assert_int_equal(regfile_open("/dev/null", 0), -EINVAL);
	snprintf(p, sizeof(p), "%s/r.txt", dir);
	write_file(p, "0123456789");
	assert_int_equal(regfile_read(p, 0, 9, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_string_equal(regfile_strerror(-EFBIG), "too large");
	assert_int_equal(regfile_read(p, 0, 10, &buf, &len), 0);
	assert_int_equal(len, 10);
	assert_string_equal(buf, "0123456789");
	free(buf);
	snprintf(l, sizeof(l), "%s/r.link", dir);
	assert_int_equal(symlink(p, l), 0);
	assert_int_equal(regfile_open(l, O_NOFOLLOW), -ELOOP);
	int fd = regfile_open(l, 0);
	assert_true(fd >= 0);
	close(fd);
	/* /proc says size 0: read, and held to the bound as it is read */
	assert_int_equal(regfile_read("/proc/self/status", 0, 1 << 16, &buf, &len), 0);
	assert_non_null(strstr(buf, "Uid:"));
	free(buf);
	assert_int_equal(regfile_read("/proc/self/status", 0, 16, &buf, &len), -EFBIG);
	assert_int_equal(regfile_open("/nonexistent-mrtrace", 0), -ENOENT);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-config-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
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
		cmocka_unit_test(test_fifo_as_config),
		cmocka_unit_test(test_fifo_in_dropin_dir),
		cmocka_unit_test(test_endless_and_huge),
		cmocka_unit_test(test_long_value_whole),
		cmocka_unit_test(test_long_value_reaches_option),
		cmocka_unit_test(test_regfile),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
