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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outfile.h"

/* outfile.c's hook between its checks by name and its opens */
extern void (*outfile_test_between)(void);

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

/* A full disk (here RLIMIT_FSIZE: the same short write, then an error)
 * never leaves half a record: what was written of it is taken back, so
 * the file ends after the last whole record (issue 24, row 5). */
static void test_short_write_undone(void **state)
{
	(void)state;
	char err[256];
	const char *p = in_dir("full.jsonl");
	FILE *w = fopen(p, "w");
	fputs("{\"event\":\"start\"}\n", w);
	fclose(w);
	FILE *f = outfile_open(p, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	struct rlimit saved, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = saved;
	lim.rlim_cur = 18 + 10;   /* room for 10 bytes of the next record */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	static const char rec[] = "{\"event\":\"reg_failure\",\"pid\":42,\"errno\":12}\n";
	int rc = outfile_record(f, rec, sizeof(rec) - 1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old);
	assert_int_equal(rc, -1);
	assert_true(outfile_failed(f));
	assert_int_equal(outfile_close(f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "File too large"));
	assert_string_equal(slurp(p), "{\"event\":\"start\"}\n");
}

/* A file that ends in a torn line (written by a run that was killed, or
 * whose undo failed): the next record starts on a line of its own, never
 * glued to the fragment - on open and on a reopen (issue 24, row 5). */
static void test_torn_tail_not_glued(void **state)
{
	(void)state;
	char err[256];
	const char *p = in_dir("torn.jsonl");
	FILE *w = fopen(p, "w");
	fputs("{\"event\":\"start\"}\n{\"event\":\"reg_fai", w);
	fclose(w);
	FILE *f = outfile_open(p, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_record(f, "{\"event\":\"start\"}\n", 18), 0);
	assert_int_equal(outfile_record(f, "{\"event\":\"stop\"}\n", 17), 0);
	assert_string_equal(slurp(p), "{\"event\":\"start\"}\n{\"event\":\"reg_fai\n"
				      "{\"event\":\"start\"}\n{\"event\":\"stop\"}\n");
	/* torn behind our back, then SIGHUP's reopen: the same */
	w = fopen(p, "a");
	fputs("{\"torn", w);
	fclose(w);
	assert_int_equal(outfile_reopen(f, err, sizeof(err)), 0);
	fprintf(f, "text\n");   /* through stdio as well */
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_non_null(strstr(slurp(p), "{\"event\":\"stop\"}\n{\"torn\ntext\n"));
	/* empty, or ending in a newline: nothing added */
	const char *q = in_dir("empty.jsonl");
	f = outfile_open(q, OUTFILE_TEXT, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_record(f, "a\n", 2), 0);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	f = outfile_open(q, OUTFILE_TEXT, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_record(f, "b\n", 2), 0);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	assert_string_equal(slurp(q), "a\nb\n");
}

/* Our descriptor opened for writing on path, or -1. */
static int fd_of(const char *path)
{
	int found = -1;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));) {
		char link[300], target[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		int fd = atoi(e->d_name);
		if (!strcmp(target, path) && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY)
			found = fd;
	}
	if (d)
		closedir(d);
	return found;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* open(2) of a FIFO for writing waits for a reader: an alarm interrupts
 * it here, so a blocking open fails the test instead of hanging it. */
static FILE *open_bounded(const char *p, char *err, size_t len)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;   /* no SA_RESTART */
	sigaction(SIGALRM, &sa, &old);
	alarm(3);
	FILE *f = outfile_open(p, OUTFILE_JSON, err, len);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	return f;
}

/* A FIFO as -o target is opened without waiting: with no reader it is
 * refused at once, with one it is written (issue 24, row 6). */
static void test_fifo_never_blocks(void **state)
{
	(void)state;
	char err[512] = "";
	const char *p = in_dir("out.fifo");
	assert_int_equal(mkfifo(p, 0666), 0);
	assert_null(open_bounded(p, err, sizeof(err)));
	assert_non_null(strstr(err, "a FIFO with no reader"));
	int rd = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	FILE *f = open_bounded(p, err, sizeof(err));
	assert_non_null(f);
	/* and written as before: the descriptor no longer non-blocking */
	int wfd = fd_of(p);
	assert_true(wfd >= 0);
	assert_false(fcntl(wfd, F_GETFL) & O_NONBLOCK);
	assert_int_equal(outfile_record(f, "x\n", 2), 0);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	char got[8] = "";
	assert_int_equal(read(rd, got, sizeof(got)), 2);
	close(rd);
	if (geteuid() != 0)
		return;
	/* planted by nobody in a sticky directory: refused, reader or not */
	char sticky[160], planted[200];
	snprintf(sticky, sizeof(sticky), "%s/sticky-fifo", dir);
	assert_int_equal(mkdir(sticky, 01777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(planted, sizeof(planted), "%s/w.jsonl", sticky);
	assert_int_equal(mkfifo(planted, 0666), 0);
	assert_int_equal(chown(planted, 65534, 65534), 0);
	assert_null(open_bounded(planted, err, sizeof(err)));
	assert_non_null(strstr(err, "belongs to uid 65534"));
	rd = open(planted, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_null(open_bounded(planted, err, sizeof(err)));
	assert_non_null(strstr(err, "belongs to uid 65534"));
	close(rd);
}

/* Root's -o through a symlink that another user made - in a directory
 * that user owns, not sticky - is opened with that user's rights: a link
 * into a root-only file is refused, one to the user's own file works
 * (issue 24, row 15). */
static void test_foreign_symlink_opened_as_owner(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* needs another user */
	char err[512] = "", theirs[160], secret[160], link[200], ok[200], mine[200], sub[200];
	snprintf(theirs, sizeof(theirs), "%s/home-nobody", dir);
	assert_int_equal(mkdir(theirs, 0755), 0);
	assert_int_equal(chown(theirs, 65534, 65534), 0);
	snprintf(secret, sizeof(secret), "%s/root-only", dir);
	int fd = open(secret, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "secret\n", 7), 7);
	close(fd);
	snprintf(link, sizeof(link), "%s/w.jsonl", theirs);
	assert_int_equal(symlink(secret, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	assert_null(outfile_open(link, OUTFILE_JSON, err, sizeof(err)));
	assert_non_null(strstr(err, "symbolic link"));
	assert_non_null(strstr(err, "uid 65534"));
	assert_string_equal(slurp(secret), "secret\n");
	/* the same through a symlinked directory on the way */
	snprintf(sub, sizeof(sub), "%s/logs", theirs);
	assert_int_equal(symlink(dir, sub), 0);
	assert_int_equal(lchown(sub, 65534, 65534), 0);
	snprintf(mine, sizeof(mine), "%s/logs/root-only", theirs);
	assert_null(outfile_open(mine, OUTFILE_JSON, err, sizeof(err)));
	assert_non_null(strstr(err, "uid 65534"));
	assert_string_equal(slurp(secret), "secret\n");
	/* a link of theirs to a file of theirs: written, as them */
	snprintf(ok, sizeof(ok), "%s/real.jsonl", theirs);
	snprintf(mine, sizeof(mine), "%s/ok.jsonl", theirs);
	assert_int_equal(symlink(ok, mine), 0);
	assert_int_equal(lchown(mine, 65534, 65534), 0);
	FILE *f = outfile_open(mine, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_record(f, "r\n", 2), 0);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
	struct stat st;
	assert_int_equal(stat(ok, &st), 0);
	assert_int_equal(st.st_uid, 65534);   /* created by its owner, not by root */
	assert_string_equal(slurp(ok), "r\n");
	/* a plain name in their directory: root's own file, as before */
	snprintf(mine, sizeof(mine), "%s/plain.jsonl", theirs);
	f = outfile_open(mine, OUTFILE_JSON, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(outfile_close(f, err, sizeof(err)), 0);
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

/* A directory on the way swapped for a symbolic link of another user in a
 * sticky directory between the checks and the open (a user racing root's
 * open): the link is not followed, nothing is written where it points. */
static char swap_dir[200], swap_aside[200], swap_target[200];

static void swap_for_link(void)
{
	outfile_test_between = NULL;
	assert_int_equal(rename(swap_dir, swap_aside), 0);
	assert_int_equal(symlink(swap_target, swap_dir), 0);
	assert_int_equal(lchown(swap_dir, 65534, 65534), 0);
}

static void test_dir_swapped_for_link(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* needs a link of another user */
	char err[512], sticky[160], path[260], victim[260];
	snprintf(sticky, sizeof(sticky), "%s/sticky-swap", dir);
	assert_int_equal(mkdir(sticky, 01777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(swap_dir, sizeof(swap_dir), "%s/logs", sticky);
	snprintf(swap_aside, sizeof(swap_aside), "%s/logs.aside", sticky);
	snprintf(swap_target, sizeof(swap_target), "%s/victim", dir);
	assert_int_equal(mkdir(swap_dir, 0755), 0);
	assert_int_equal(mkdir(swap_target, 0755), 0);
	snprintf(path, sizeof(path), "%s/w.jsonl", swap_dir);
	snprintf(victim, sizeof(victim), "%s/w.jsonl", swap_target);
	outfile_test_between = swap_for_link;
	FILE *f = outfile_open(path, OUTFILE_JSON, err, sizeof(err));
	outfile_test_between = NULL;
	if (f)
		outfile_close(f, err, sizeof(err));
	assert_int_equal(access(victim, F_OK), -1);   /* nothing created through it */
	assert_null(f);
	assert_non_null(strstr(err, "symbolic link"));
}

/* A second name of another file (fs.protected_hardlinks=0 lets anyone link
 * a root-owned file into a directory we write to): refused, not appended. */
static void test_hardlink_refused(void **state)
{
	(void)state;
	char err[512];
	const char *file = in_dir("precious"), *hard = in_dir("hard.jsonl");
	int fd = open(file, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep\n", 5), 5);
	close(fd);
	assert_int_equal(link(file, hard), 0);
	FILE *f = outfile_open(hard, OUTFILE_JSON, err, sizeof(err));
	if (f) {
		fprintf(f, "{}\n");
		outfile_close(f, err, sizeof(err));
	}
	assert_string_equal(slurp(file), "keep\n");
	assert_null(f);
	assert_non_null(strstr(err, "hard link"));
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
		cmocka_unit_test(test_short_write_undone),
		cmocka_unit_test(test_torn_tail_not_glued),
		cmocka_unit_test(test_fifo_never_blocks),
		cmocka_unit_test(test_foreign_symlink_opened_as_owner),
		cmocka_unit_test(test_dir_swapped_for_link),
		cmocka_unit_test(test_hardlink_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
