// SPDX-License-Identifier: GPL-2.0-only
/* test_outfile.c - the records' stream (core/outfile.h): write errors are
 * kept and reported, the descriptor is close-on-exec, the file is appended
 * to, planted symlinks and other users' files in sticky directories are
 * refused, and the bytes that leave are valid UTF-8 (JSON) or free of
 * control characters (text), also when a sequence is cut between writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outfile.h"

static char dir[64];

static char *slurp(const char *p)
{
	static char buf[4096];
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char *in_dir(const char *name)
{
	static char p[8][128];
	static int next;
	char *s = p[next++ % 8];
	snprintf(s, 128, "%s/%s", dir, name);
	return s;
}

static void test_dev_full(void **state)
{
	(void)state;
	char err[256] = "";
	FILE *f = outfile_open("/dev/full", OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	fprintf(f, "{\"event\":\"start\"}\n");
	fflush(f);
	assert_true(outfile_failed(f));
	assert_int_equal(outfile_close(f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "writing /dev/full: No space left on device"));
}

/* The error shows at close even when nothing was flushed before. */
static void test_error_at_close(void **state)
{
	(void)state;
	char err[256] = "";
	FILE *f = outfile_open("/dev/full", OUTFILE_TEXT, err, sizeof(err));
	assert_non_null(f);
	fprintf(f, "x");
	assert_int_equal(outfile_close(f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No space left"));
}

static void test_json_utf8_across_writes(void **state)
{
	(void)state;
	char err[256];
	const char *p = in_dir("u.jsonl");
	FILE *f = outfile_open(p, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	/* unbuffered: every fputs reaches the filter as its own chunk */
	setvbuf(f, NULL, _IONBF, 0);
	fputs("{\"v\":\"caf\xc3", f);
	fputs("\xa9 \xe2\x82", f);
	fputs("\xac\xff\"}\n", f);
	fputs("{\"w\":\"end\xe2\x82", f);   /* cut at the very end: invalid */
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "{\"v\":\"caf\xc3\xa9 \xe2\x82\xac\\\\xff\"}\n"
				      "{\"w\":\"end\\\\xe2\\\\x82");
}

static void test_text_controls(void **state)
{
	(void)state;
	char err[256];
	const char *p = in_dir("t.txt");
	FILE *f = outfile_open(p, OUTFILE_TEXT, err, sizeof(err));
	assert_non_null(f);
	fprintf(f, "line\tone \x1b[2J\xc2\x9b caf\xc3\xa9 \xff\nline two\n");
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "line\tone \\e[2J\\x9b caf\xc3\xa9 \\xff\nline two\n");
}

static void test_append_cloexec(void **state)
{
	(void)state;
	char err[256];
	const char *p = in_dir("a.jsonl");
	FILE *w = fopen(p, "w");
	fputs("old\n", w);
	fclose(w);
	FILE *f = outfile_open(p, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	/* the descriptor under the stream: close-on-exec, append */
	bool found = false;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[300], target[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, p))
			continue;
		int fd = atoi(e->d_name);
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		assert_true(fcntl(fd, F_GETFL) & O_APPEND);
		found = true;
	}
	closedir(d);
	assert_true(found);
	fputs("new\n", f);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "old\nnew\n");
}

static void test_sticky_dir(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* needs files of another user */
	char err[512], sticky[160], target[160], link[200], theirs[200], mine[200];
	snprintf(sticky, sizeof(sticky), "%s/sticky", dir);
	assert_int_equal(mkdir(sticky, 01777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", sticky);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	assert_null(outfile_open(link, OUTFILE_JSON, err, sizeof(err)));
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(access(target, F_OK), -1);   /* nothing created through it */
	/* our own symlink there is refused as well: the name is not ours */
	snprintf(mine, sizeof(mine), "%s/mylink", sticky);
	assert_int_equal(symlink(target, mine), 0);
	assert_null(outfile_open(mine, OUTFILE_JSON, err, sizeof(err)));
	snprintf(theirs, sizeof(theirs), "%s/theirs", sticky);
	int fd = open(theirs, O_CREAT | O_WRONLY, 0666);
	assert_true(fd >= 0);
	assert_int_equal(fchown(fd, 65534, 65534), 0);
	close(fd);
	assert_null(outfile_open(theirs, OUTFILE_JSON, err, sizeof(err)));
	assert_non_null(strstr(err, "belongs to uid 65534"));
	/* a fresh name of our own there is fine */
	snprintf(mine, sizeof(mine), "%s/fresh.jsonl", sticky);
	FILE *f = outfile_open(mine, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	/* a symlink in a private directory is the operator's choice */
	snprintf(mine, sizeof(mine), "%s/private-link", dir);
	assert_int_equal(symlink(target, mine), 0);
	f = outfile_open(mine, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_int_equal(access(target, F_OK), 0);
}

static void test_unwritable(void **state)
{
	(void)state;
	char err[256];
	assert_null(outfile_open("/nonexistent/dir/x.jsonl", OUTFILE_JSON, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot write /nonexistent/dir/x.jsonl: No such file"));
	assert_null(outfile_open(dir, OUTFILE_JSON, err, sizeof(err)));
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-out-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return chmod(dir, 0755);
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
		cmocka_unit_test(test_dev_full),
		cmocka_unit_test(test_error_at_close),
		cmocka_unit_test(test_json_utf8_across_writes),
		cmocka_unit_test(test_text_controls),
		cmocka_unit_test(test_append_cloexec),
		cmocka_unit_test(test_sticky_dir),
		cmocka_unit_test(test_unwritable),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
