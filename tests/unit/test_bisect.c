// SPDX-License-Identifier: GPL-2.0-only
/* test_bisect.c - a site whose programs do not load is found by loading
 * halves, not by reading libbpf's messages (user/tracer/bisect.c, used by
 * regload.c): with a fake loader, the failing site is tried alone, moved to
 * its next flavour or disarmed, every other site is loaded exactly once,
 * and it takes a few loads, not one per site. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tracer/bisect.h"

#define SITES 30

/* A kernel where some sites' first flavour (fentry) is refused, and some
 * refuse every flavour. */
static struct fake {
	int flavour[SITES]; /* 0 fentry, 1 kprobe, 2 disarmed */
	bool bad_fentry[SITES], bad_always[SITES];
	int loaded[SITES]; /* times loaded in a set that loaded */
	int loads, alone_fails;
	int cancel_after; /* 0: never */
} fk;

static int fake_load(void *arg, const int *set, int n, bool alone)
{
	(void)arg;
	if (fk.cancel_after && fk.loads >= fk.cancel_after)
		return -ECANCELED;
	fk.loads++;
	assert_true(alone == (n == 1));
	for (int k = 0; k < n; k++) {
		int s = set[k];
		if (fk.flavour[s] == 2)
			continue;
		if (fk.bad_always[s] || (fk.bad_fentry[s] && fk.flavour[s] == 0)) {
			fk.alone_fails += alone;
			return -EINVAL;
		}
	}
	for (int k = 0; k < n; k++)
		if (fk.flavour[set[k]] != 2)
			fk.loaded[set[k]]++;
	return 0;
}

static bool fake_demote(void *arg, int site, int err)
{
	(void)arg;
	assert_int_equal(err, EINVAL);
	return ++fk.flavour[site] < 2;
}

static void all(int *set)
{
	for (int i = 0; i < SITES; i++)
		set[i] = i;
}

static void one_load_when_all_load(void **state)
{
	int set[SITES];

	(void)state;
	memset(&fk, 0, sizeof(fk));
	all(set);
	assert_int_equal(tracer_bisect(set, SITES, fake_load, fake_demote, NULL), 0);
	assert_int_equal(fk.loads, 1);
	for (int i = 0; i < SITES; i++)
		assert_int_equal(fk.loaded[i], 1);
}

static void failing_site_found_alone_and_demoted(void **state)
{
	int set[SITES];

	(void)state;
	memset(&fk, 0, sizeof(fk));
	fk.bad_fentry[13] = true; /* its kprobe flavour loads */
	fk.bad_always[27] = true; /* nothing of it loads */
	all(set);
	assert_int_equal(tracer_bisect(set, SITES, fake_load, fake_demote, NULL), 0);
	assert_int_equal(fk.flavour[13], 1);
	assert_int_equal(fk.flavour[27], 2);
	/* only the culprits fail alone: 13 once, 27 in both flavours */
	assert_int_equal(fk.alone_fails, 3);
	for (int i = 0; i < SITES; i++)
		assert_int_equal(fk.loaded[i], i == 27 ? 0 : 1);
	/* halving: far fewer loads than one per site */
	print_message("%d loads for %d sites, two failing\n", fk.loads, SITES);
	assert_true(fk.loads <= 24);
}

static void stop_request_ends_it(void **state)
{
	int set[SITES];

	(void)state;
	memset(&fk, 0, sizeof(fk));
	fk.bad_always[3] = true;
	fk.cancel_after = 2;
	all(set);
	assert_int_equal(tracer_bisect(set, SITES, fake_load, fake_demote, NULL), -ECANCELED);
	assert_int_equal(fk.loads, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_load_when_all_load),
		cmocka_unit_test(failing_site_found_alone_and_demoted),
		cmocka_unit_test(stop_request_ends_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
