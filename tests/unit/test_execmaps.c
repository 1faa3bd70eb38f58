// SPDX-License-Identifier: GPL-2.0-only
/* test_execmaps.c - a process's maps, read by watch as root at each of its
 * failures, are bounded (proc/execmaps.h, issue 34 item 5): a synthetic maps
 * file of tens of thousands of long lines, and this very process made to
 * map thousands of executable pages of a file with a 4,000-byte name, read
 * through the correlator's live reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/execmaps.h"
#include "watch/correlate.h"

static int lines_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* 40,000 lines of 1,000-byte paths, every other one executable, and one
 * line longer than any path */
static void test_synthetic_file(void **state)
{
	(void)state;
	char path[] = "/tmp/execmaps-XXXXXX", name[1001];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	fprintf(f, "00400000-00401000 r-xp 00000000 08:01 7 /");
	for (int i = 0; i < 20; i++)
		fputs(name, f);
	fputc('\n', f);
	for (int i = 0; i < 40000; i++)
		fprintf(f, "%08x-%08x %s 00000000 08:01 %d /%s\n", 0x10000000 + i * 0x2000,
			0x10001000 + i * 0x2000, i % 2 ? "r--p" : "r-xp", i, name);
	fclose(f);
	bool cut = false;
	char *maps = execmaps_read(path, &cut);
	unlink(path);
	assert_non_null(maps);
	assert_true(cut);
	assert_true(strlen(maps) <= EXECMAPS_MAX_BYTES);
	assert_true(lines_of(maps) <= EXECMAPS_MAX_KEPT);
	assert_true(lines_of(maps) > 100);
	assert_null(strstr(maps, "r--p"));     /* only code */
	assert_true(strncmp(maps, "10000000-10001000 r-xp", 22) == 0); /* the long line left out */
	free(maps);
	/* a small file: whole, nothing cut */
	assert_non_null(maps = execmaps_read("/proc/self/maps", &cut));
	assert_false(cut);
	assert_non_null(strstr(maps, "r-xp"));
	free(maps);
}

/* This process maps 3,000 executable pages of a file whose name is 4,000
 * bytes long (data pages between them, so none merge): the live reader
 * keeps at most its bound, and counts the cut. */
static void test_live_reader_bounded(void **state)
{
	(void)state;
	char dir[PATH_MAX] = "/tmp/execmaps-d-XXXXXX", comp[241], file[PATH_MAX];
	assert_non_null(mkdtemp(dir));
	memset(comp, 'd', sizeof(comp) - 1);
	comp[sizeof(comp) - 1] = '\0';
	snprintf(file, sizeof(file), "%s", dir);
	for (int i = 0; i < 16; i++) {
		size_t n = strlen(file);
		snprintf(file + n, sizeof(file) - n, "/%s", comp);
		assert_int_equal(mkdir(file, 0700), 0);
	}
	size_t n = strlen(file);
	snprintf(file + n, sizeof(file) - n, "/lib.so");
	long pg = sysconf(_SC_PAGESIZE);
	const int pages = 6000;
	int fd = open(file, O_CREAT | O_RDWR, 0700);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, pg), 0);
	char *base = mmap(NULL, (size_t)pg * pages, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(base != MAP_FAILED);
	for (int i = 0; i < pages; i++) {
		void *p = mmap(base + (size_t)i * pg, pg, i % 2 ? PROT_READ : PROT_READ | PROT_EXEC,
			       MAP_PRIVATE | MAP_FIXED, fd, 0);
		if (p == MAP_FAILED) {
			munmap(base, (size_t)pg * pages);
			skip(); /* a noexec /tmp */
		}
	}
	close(fd);
	struct corr_live live = { .root = "/" };
	struct corr_ops ops;
	corr_live_ops(&ops, &live);
	char *maps = ops.read_maps(ops.arg, getpid());
	munmap(base, (size_t)pg * pages);
	assert_non_null(maps);
	size_t len = strlen(maps);
	free(maps);
	assert_true(len <= EXECMAPS_MAX_BYTES);
	assert_int_equal(live.maps_cut, 1);
	unlink(file);
	for (int i = 0; i <= 16; i++) {
		char *slash = strrchr(file, '/');
		*slash = '\0';
		rmdir(file);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_file),
		cmocka_unit_test(test_live_reader_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
