// SPDX-License-Identifier: GPL-2.0-only
/* test_atomicfile.c - replacing a file whole (core/atomicfile.h): the
 * content and mode arrive, and a temporary file somebody else prepared in
 * the directory is never the one that takes the file's place (issue 24,
 * row 7: in a 1777 directory nobody pre-created x.prom.<pid>.tmp and, after
 * `check --prom=x.prom`, owned the metrics file and appended to it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"

static char dir[64];

static const char *slurp(const char *p)
{
	static char buf[4096];
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int entries(const char *d)
{
	DIR *dh = opendir(d);
	int n = 0;
	assert_non_null(dh);
	for (struct dirent *e; (e = readdir(dh));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dh);
	return n;
}

static void test_replaces_whole(void **state)
{
	(void)state;
	char p[128];
	snprintf(p, sizeof(p), "%s/m.prom", dir);
	assert_int_equal(atomic_write_file(p, "one\n", 4, 0644), 0);
	assert_string_equal(slurp(p), "one\n");
	mode_t old = umask(077);
	assert_int_equal(atomic_write_file(p, "two\n", 4, 0644), 0);
	umask(old);
	assert_string_equal(slurp(p), "two\n");
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);   /* the umask did not narrow it */
	assert_int_equal(entries(dir), 1);            /* no temporary file left */
	assert_int_equal(unlink(p), 0);
}

/* Whoever prepared the temporary name (an empty file they keep open, a
 * symlink, a FIFO) gets neither the file nor a say in what it holds. */
static void test_prepared_temp_not_used(void **state)
{
	(void)state;
	char sticky[96], p[160], tmp[200], link[200], target[160];
	snprintf(sticky, sizeof(sticky), "%s/shared", dir);
	assert_int_equal(mkdir(sticky, 01777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(p, sizeof(p), "%s/x.prom", sticky);
	/* the name this writer used to take: PATH.<pid>.tmp */
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", p, (int)getpid());
	int planted = open(tmp, O_CREAT | O_RDWR | O_APPEND, 0666);
	assert_true(planted >= 0);
	if (geteuid() == 0)
		assert_int_equal(fchown(planted, 65534, 65534), 0);
	struct stat pst;
	assert_int_equal(fstat(planted, &pst), 0);

	assert_int_equal(atomic_write_file(p, "mrtrace_up 1\n", 13, 0644), 0);
	/* the planter writes through the descriptor it kept */
	assert_int_equal(write(planted, "forged 1\n", 9), 9);
	close(planted);
	assert_string_equal(slurp(p), "mrtrace_up 1\n");
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_ino != pst.st_ino);
	assert_int_equal(st.st_uid, geteuid());

	/* a symlink at the old name leads nowhere either */
	assert_int_equal(unlink(tmp), 0);
	snprintf(target, sizeof(target), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s", tmp);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(atomic_write_file(p, "mrtrace_up 2\n", 13, 0644), 0);
	assert_int_equal(access(target, F_OK), -1);
	assert_string_equal(slurp(p), "mrtrace_up 2\n");
	assert_int_equal(unlink(link), 0);

	/* two writers in a row leave nothing behind and never share a name */
	assert_int_equal(atomic_write_file(p, "a\n", 2, 0644), 0);
	assert_int_equal(atomic_write_file(p, "b\n", 2, 0644), 0);
	assert_int_equal(entries(sticky), 1);
	assert_string_equal(slurp(p), "b\n");
}

/* A failed write removes its temporary file and keeps the old content. */
static void test_failure_keeps_old(void **state)
{
	(void)state;
	char p[128];
	snprintf(p, sizeof(p), "%s/nodir/m.prom", dir);
	assert_int_equal(atomic_write_file(p, "x\n", 2, 0644), -ENOENT);
	char longp[5000];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	assert_int_equal(atomic_write_file(longp, "x\n", 2, 0644), -ENAMETOOLONG);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrtrace-atomic-XXXXXX");
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
		cmocka_unit_test(test_replaces_whole),
		cmocka_unit_test(test_prepared_temp_not_used),
		cmocka_unit_test(test_failure_keeps_old),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
