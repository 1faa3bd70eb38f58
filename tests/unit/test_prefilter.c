// SPDX-License-Identifier: GPL-2.0-only
/* test_prefilter.c - the log reader's prefilter (user/logs/prefilter.c,
 * issue 46) loses nothing:
 *
 *  - every line of every file under tests/fixtures/ (field corpus, logs,
 *    trails, ...) read by the whole reader with the prefilter and without
 *    it gives the same event, byte for byte, and the same counts: a shape
 *    added to a table without its words reaching the anchors shows here;
 *  - an anchor set answers for the words it holds, anywhere in a line,
 *    and not for a line without them, in either case when asked (explain's
 *    words on a buffer); an anchor of one byte passes all. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "logs/logline.h"
#include "logs/prefilter.h"

static struct log_event with_ev, without_ev;
static unsigned long files, lines, differ;

/* the event less what is the reader's own (its name, its JSON object) */
static void settle(struct log_event *ev)
{
	ev->input = NULL;
	ev->json = NULL;
}

static int compare_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type != FTW_F)
		return 0;
	char err[256];
	struct log_reader *a = log_reader_open(path, err, sizeof(err));
	struct log_reader *b = log_reader_open(path, err, sizeof(err));
	if (!a || !b) {
		log_reader_free(a);
		log_reader_free(b);
		return 0;
	}
	files++;
	for (;;) {
		log_prefilter_set(true);
		int ra = log_reader_next(a, &with_ev);
		log_prefilter_set(false);
		int rb = log_reader_next(b, &without_ev);
		assert_int_equal(ra, rb);
		if (ra != 1)
			break;
		lines++;
		settle(&with_ev);
		settle(&without_ev);
		if (memcmp(&with_ev, &without_ev, sizeof(with_ev))) {
			size_t at = 0;
			while (((const char *)&with_ev)[at] == ((const char *)&without_ev)[at])
				at++;
			if (differ++ < 10)
				fprintf(stderr, "prefilter: %s:%ld read differently at byte %zu: %s (kind %s with, %s without)\n",
					path, without_ev.lineno, at, without_ev.raw, log_kind_name(with_ev.kind),
					log_kind_name(without_ev.kind));
		}
	}
	const struct log_counts *ka = log_reader_counts(a), *kb = log_reader_counts(b);
	assert_int_equal(ka->failures, kb->failures);
	assert_int_equal(ka->not_failures, kb->not_failures);
	assert_int_equal(ka->context, kb->context);
	assert_int_equal(ka->unrecognised, kb->unrecognised);
	assert_int_equal(ka->records, kb->records);
	log_reader_free(a);
	log_reader_free(b);
	return 0;
}

static void fixtures_read_the_same(void **state)
{
	(void)state;
	char root[PATH_MAX + 128];
	snprintf(root, sizeof(root), "%s", fixture_path("logs", ""));
	char *cut = strstr(root, "/logs/");
	assert_non_null(cut);
	cut[1] = 0; /* tests/fixtures/ */
	assert_int_equal(nftw(root, compare_file, 16, FTW_PHYS), 0);
	log_prefilter_set(true);
	fprintf(stderr, "prefilter: %lu files, %lu lines, %lu read differently\n", files, lines, differ);
	assert_true(files > 100);
	assert_true(lines > 10000);
	assert_int_equal(differ, 0);
}

static void anchors_answer(void **state)
{
	(void)state;
	log_prefilter_set(true);
	static struct log_anchors t;
	static const char line[] = "[1,3]<stdout>: NET/IB : mlx5_0:1 Got async event : port error";
	static const char none[] = "[1,3]<stdout>: step 12 loss 2.31 lr 0.0003";

	log_anchors_add(&t, "Got async event", 15);
	log_anchors_add(&t, "failed with error\n", 18);
	log_anchors_build(&t);
	assert_true(log_anchors_any(&t, line, line + strlen(line)));
	assert_false(log_anchors_any(&t, none, none + strlen(none)));
	/* the format's line end is optional: the words without it suffice */
	static const char tail[] = "Call to ibv_alloc_pd failed with error";
	assert_true(log_anchors_any(&t, tail, tail + strlen(tail)));
	/* at the very end and cut one byte short */
	assert_false(log_anchors_any(&t, tail, tail + strlen(tail) - 1));
	/* off: every line passes */
	log_prefilter_set(false);
	assert_true(log_anchors_any(&t, none, none + strlen(none)));
	log_prefilter_set(true);
	/* a one-byte anchor filters nothing */
	static struct log_anchors one;
	log_anchors_add(&one, "x", 1);
	log_anchors_build(&one);
	assert_true(log_anchors_any(&one, none, none + strlen(none)));
}

/* explain's words on a buffer are found in either case (strcasestr's) */
static void anchors_in_either_case(void **state)
{
	(void)state;
	static struct log_anchors t = { .nocase = true };
	static const char gpu[] = "alloc failed on CUDA MEMORY for rank 3";
	static const char dev[] = "comm 0x1 rank 3 nranks 8 cudaDev 3";

	log_prefilter_set(true);
	log_anchors_add(&t, "cuda memory", 11);
	log_anchors_add(&t, "cudaMalloc", 10);
	log_anchors_build(&t);
	assert_true(log_anchors_any(&t, gpu, gpu + strlen(gpu)));
	assert_false(log_anchors_any(&t, dev, dev + strlen(dev)));
	static const char mixed[] = "x CudaMALLOC y";
	assert_true(log_anchors_any(&t, mixed, mixed + strlen(mixed)));
}

static void longest_literal(void **state)
{
	(void)state;
	const char *at;
	assert_int_equal(log_fmt_longest_literal("NET/IB : %s:%d Got async event : %s", &at), 19);
	assert_memory_equal(at, " Got async event : ", 19);
	assert_int_equal(log_fmt_longest_literal("%s%s", &at), 0);
	assert_int_equal(log_fmt_longest_literal("%d failed with error\n", &at), 18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixtures_read_the_same),
		cmocka_unit_test(anchors_answer),
		cmocka_unit_test(anchors_in_either_case),
		cmocka_unit_test(longest_literal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
