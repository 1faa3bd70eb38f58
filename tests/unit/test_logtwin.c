// SPDX-License-Identifier: GPL-2.0-only
/* test_logtwin.c - the log reader's second thread (user/logs/twin.c,
 * issue 46: the reader at disk speed) changes nothing but the time:
 *
 *  - every text fixture under tests/fixtures/, concatenated into one input
 *    of several batches (with a line over LOG_LINE_MAX and NUL bytes
 *    among them), read in two threads and in one gives the same events in
 *    the same order, byte for byte, and the same counts;
 *  - on a machine that lets this process run on two CPUs the two-thread
 *    read really ran in two threads (else the comparison proves nothing,
 *    and says so). */
#include <ftw.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "logs/logline.h"

static FILE *out;
static unsigned long files;

static int append_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || (n > 3 && !strcmp(path + n - 3, ".gz")))
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	char buf[65536];
	size_t k;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		assert_int_equal(fwrite(buf, 1, k, out), k);
	fputc('\n', out);
	fclose(f);
	files++;
	return 0;
}

static struct log_event one_ev, two_ev;

static void settle(struct log_event *ev)
{
	ev->input = NULL;
	ev->json = NULL;
}

static void two_threads_read_the_same(void **state)
{
	(void)state;
	char path[] = "/tmp/mrtrace-test-logtwin-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	out = fdopen(fd, "wb");
	assert_non_null(out);
	char root[PATH_MAX + 128];
	snprintf(root, sizeof(root), "%s", fixture_path("logs", ""));
	char *cut = strstr(root, "/logs/");
	assert_non_null(cut);
	cut[1] = 0; /* tests/fixtures/ */
	/* twice, and a line longer than the reader keeps, and NUL bytes */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(nftw(root, append_file, 16, FTW_PHYS), 0);
		for (int i = 0; i < 10000; i++)
			fputc('x', out);
		fputs(" ibv_reg_mr failed: Cannot allocate memory\n", out);
		fputs("ibv_reg_mr failed\0 hidden: Bad address\n", out);
		fwrite("ibv_reg_mr failed\0 hidden: Bad address\n", 1, 39, out);
	}
	assert_int_equal(fclose(out), 0);

	char err[256];
	log_reader_parallel(true);
	struct log_reader *two = log_reader_open(path, err, sizeof(err));
	assert_non_null(two);
	int r2 = log_reader_next(two, &two_ev);
	log_reader_parallel(false);
	struct log_reader *one = log_reader_open(path, err, sizeof(err));
	assert_non_null(one);
	int r1 = log_reader_next(one, &one_ev);
	log_reader_parallel(true);

	unsigned long lines = 0, differ = 0;
	while (r1 == 1 && r2 == 1) {
		lines++;
		settle(&one_ev);
		settle(&two_ev);
		if (memcmp(&one_ev, &two_ev, sizeof(one_ev)) && differ++ < 10)
			fprintf(stderr, "logtwin: line %ld read differently: %s\n", one_ev.lineno, one_ev.raw);
		r1 = log_reader_next(one, &one_ev);
		r2 = log_reader_next(two, &two_ev);
	}
	assert_int_equal(r1, 0);
	assert_int_equal(r2, 0);
	const struct log_counts *k1 = log_reader_counts(one), *k2 = log_reader_counts(two);
	assert_int_equal(k1->lines, k2->lines);
	assert_int_equal(k1->bytes, k2->bytes);
	assert_int_equal(k1->failures, k2->failures);
	assert_int_equal(k1->not_failures, k2->not_failures);
	assert_int_equal(k1->context, k2->context);
	assert_int_equal(k1->unrecognised, k2->unrecognised);
	assert_int_equal(k1->records, k2->records);
	assert_int_equal(k1->cut_lines, k2->cut_lines);
	assert_int_equal(k1->nul_lines, k2->nul_lines);
	assert_int_equal(k1->first_unrecognised_line, k2->first_unrecognised_line);
	assert_true(k1->cut_lines >= 2);
	assert_true(k1->nul_lines >= 2);

	cpu_set_t set;
	bool two_cpus = !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) >= 2;
	bool used = log_reader_two_threads(two);
	assert_false(log_reader_two_threads(one));
	fprintf(stderr, "logtwin: %lu files, %lu lines, %lu read differently; two threads %s\n", files,
		lines, differ, used ? "ran" : two_cpus ? "did NOT run" : "not run: one CPU allowed here");
	if (two_cpus)
		assert_true(used);
	/* several batches, so that halves and batch ends are crossed */
	assert_true(lines > 4 * 1024);
	assert_int_equal(differ, 0);
	log_reader_free(one);
	log_reader_free(two);
	unlink(path);
}

/* a reader freed in the middle of a batch drops what it had not handed out */
static void freed_mid_batch(void **state)
{
	(void)state;
	char path[] = "/tmp/mrtrace-test-logtwin-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < 3000; i++)
		fprintf(f, "{\"event\":\"reg_failure\",\"schema\":\"mrtrace.v1\",\"pid\":%d}\n", i + 1);
	assert_int_equal(fclose(f), 0);
	char err[256];
	struct log_reader *r = log_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	for (int i = 0; i < 10; i++)
		assert_int_equal(log_reader_next(r, &one_ev), 1);
	log_reader_free(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_threads_read_the_same),
		cmocka_unit_test(freed_mid_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
