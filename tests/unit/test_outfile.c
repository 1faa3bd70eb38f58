// SPDX-License-Identifier: GPL-2.0-only
/* test_outfile.c - the records' stream (core/outfile.h): write errors are
 * kept and reported, the descriptor is close-on-exec, the file is appended
 * to, planted symlinks and other users' files in sticky directories are
 * refused (also when SIGHUP reopens it), a record leaves in one write, a
 * reopen follows logrotate's rename and a truncation leaves no hole, and
 * the bytes that leave are valid UTF-8 (JSON) or free of
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
#include <sys/socket.h>
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

/* logrotate's create mode (rename, SIGHUP) and copytruncate; a reopen
 * that cannot open the name keeps the old file. */
static void test_reopen_follows_rotation(void **state)
{
	(void)state;
	char err[512], sub[128], gone[160], path[200], moved[200];
	snprintf(sub, sizeof(sub), "%s/logs", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/w.jsonl", sub);
	snprintf(moved, sizeof(moved), "%s/w.jsonl.1", sub);
	FILE *w = fopen(path, "w");
	fputs("before\n", w);
	fclose(w);

	FILE *f = outfile_open(path, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_record(f, "one\n", 4), 0);
	assert_string_equal(slurp(path), "before\none\n");   /* appended, at once */
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(outfile_record(f, "two\n", 4), 0);   /* still the renamed one */
	assert_int_equal(outfile_reopen(f, err, sizeof(err)), 0);
	assert_int_equal(outfile_record(f, "three\n", 6), 0);
	assert_string_equal(slurp(moved), "before\none\ntwo\n");
	assert_string_equal(slurp(path), "three\n");
	/* truncated behind its back (copytruncate): the next line at 0, no NULs */
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(outfile_record(f, "four\n", 5), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 5);
	/* the directory gone: the reopen fails and says so, the old file goes on */
	snprintf(gone, sizeof(gone), "%s/logs.gone", dir);
	assert_int_equal(rename(sub, gone), 0);
	assert_int_equal(outfile_reopen(f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "records keep going to the old file"));
	assert_int_equal(outfile_record(f, "five\n", 5), 0);
	assert_false(outfile_failed(f));
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/w.jsonl", gone);
	assert_string_equal(slurp(path), "four\nfive\n");
}

/* A reopen checks what it opens as the first open did: a symlink planted
 * in a sticky directory after a rotation is refused, the old file kept. */
static void test_reopen_refuses_planted_link(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* needs a link of another user */
	char err[512], sticky[160], path[200], moved[200], target[200];
	snprintf(sticky, sizeof(sticky), "%s/sticky2", dir);
	assert_int_equal(mkdir(sticky, 01777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(path, sizeof(path), "%s/w.log", sticky);
	snprintf(moved, sizeof(moved), "%s/w.log.1", sticky);
	snprintf(target, sizeof(target), "%s/victim", dir);
	FILE *f = outfile_open(path, OUTFILE_TEXT, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_record(f, "a\n", 2), 0);
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lchown(path, 65534, 65534), 0);
	assert_int_equal(outfile_reopen(f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(access(target, F_OK), -1);   /* nothing created through it */
	assert_int_equal(outfile_record(f, "b\n", 2), 0);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_string_equal(slurp(moved), "a\nb\n");
}

/* One record, one write(2), however long: standard output is a datagram
 * socket here, so every write is one message that the test can count. */
static void test_record_one_write(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	int big = 1 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	assert_true(dup2(sv[0], STDOUT_FILENO) >= 0);
	char err[256];
	FILE *f = outfile_open(NULL, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	static char rec[20001];   /* longer than stdio's buffer */
	memset(rec, 'x', sizeof(rec) - 1);
	rec[sizeof(rec) - 2] = '\n';
	fputs("held", f);   /* what the stream holds leaves first, on its own */
	assert_int_equal(outfile_record(f, rec, sizeof(rec) - 1), 0);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(sv[0]);
	static char got[40000];
	assert_int_equal(recv(sv[1], got, sizeof(got), 0), 4);
	assert_int_equal(recv(sv[1], got, sizeof(got), 0), (int)sizeof(rec) - 1);
	assert_int_equal(recv(sv[1], got, sizeof(got), 0), 0);   /* nothing else */
	close(sv[1]);
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
		cmocka_unit_test(test_reopen_follows_rotation),
		cmocka_unit_test(test_reopen_refuses_planted_link),
		cmocka_unit_test(test_record_one_write),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
