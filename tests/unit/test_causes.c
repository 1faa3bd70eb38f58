// SPDX-License-Identifier: GPL-2.0-only
/* test_causes.c - the cause table (user/verdict/causes.c): every row is
 * whole, the lookups that used to hold tables of their own (names, class,
 * fixes) answer from it, and docs/causes.md's table says what the rows say.
 * A new cause's row passes these or says which part it lacks. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
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

#include "verdict/causes.h"
#include "verdict/fixes.h"
#include "verdict/names.h"

/* Every row has a lower_snake name of its own, read back to its cause. */
static void every_row_named_once(void **state)
{
	(void)state;
	for (int c = 0; c < CAUSE__COUNT; c++) {
		const struct cause_row *r = cause_row((enum cause)c);

		assert_non_null(r->name);
		assert_true(r->name[0]);
		for (const char *p = r->name; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
				fail_msg("cause %d: '%s' is not lower_snake", c, r->name);
		assert_int_equal(cause_from_name(r->name), c);
		assert_string_equal(cause_name((enum cause)c), r->name);
		assert_non_null(r->errnos);
	}
	assert_int_equal(cause_from_name("no_such_cause"), CAUSE__COUNT);
	assert_string_equal(cause_name(CAUSE__ALL), "unknown");
}

/* The outcomes no kernel call refused are rows of their own class, named
 * for the inferred side only: a record's name lookup does not know them,
 * and none has a fix or an explainer. */
static void no_refusal_rows(void **state)
{
	(void)state;
	assert_int_equal(CAUSE_FABRIC_RETRY, CAUSE__COUNT);
	for (int c = 0; c < CAUSE__ALL; c++) {
		const struct cause_row *r = cause_row((enum cause)c);

		assert_int_equal(cause_from_any_name(r->name), c);
		if (c < CAUSE__COUNT) {
			assert_int_not_equal(r->class, CLASS_NO_REFUSAL);
			continue;
		}
		assert_int_equal(r->class, CLASS_NO_REFUSAL);
		assert_null(r->fix);
		assert_int_equal(r->explainers, 0);
		assert_int_equal(cause_from_name(r->name), CAUSE__COUNT);
	}
	assert_int_equal(cause_from_any_name("no_such_cause"), CAUSE__ALL);
}

/* A cause a record can decide has a fix and an explainer; only unknown (not
 * guessed at) and no_device_access (check's) have neither fix, and only
 * no_device_access no explainer.  fixes_for() runs the row's generator. */
static void every_decided_cause_has_a_fix(void **state)
{
	(void)state;
	for (int c = 0; c < CAUSE__COUNT; c++) {
		const struct cause_row *r = cause_row((enum cause)c);
		struct fix_input in = { .cause = (enum cause)c };
		struct fix_list l;
		int n = fixes_for(&in, &l);

		if (c == CAUSE_UNKNOWN || c == CAUSE_NO_DEVICE_ACCESS) {
			assert_null(r->fix);
			assert_int_equal(n, -ENOENT);
		} else if (!r->fix) {
			fail_msg("%s: no fix generator in its row", r->name);
		} else {
			assert_int_not_equal(n, -ENOENT);
		}
		if (c != CAUSE_NO_DEVICE_ACCESS && !r->explainers)
			fail_msg("%s: no explainer decides it", r->name);
	}
}

/* The class is the row's; an unknown cause's follows the operation (a QP
 * that would not move is the fabric's). */
static void class_from_the_row(void **state)
{
	(void)state;
	assert_int_equal(cause_class(CAUSE_MEMLOCK_LIMIT, MRT_OP_NONE), CLASS_ENVIRONMENT);
	assert_int_equal(cause_class(CAUSE_GID_UNREACHABLE, MRT_OP_MODIFY_QP), CLASS_INFINIBAND);
	assert_int_equal(cause_class(CAUSE_DEVICE_FATAL, MRT_OP_NONE), CLASS_INFINIBAND);
	assert_int_equal(cause_class(CAUSE_UNKNOWN, MRT_OP_MODIFY_QP), CLASS_INFINIBAND);
	assert_int_equal(cause_class(CAUSE_UNKNOWN, MRT_OP_CREATE_CQ), CLASS_ENVIRONMENT);
	for (int c = 1; c < CAUSE__ALL; c++)
		assert_int_equal(cause_class((enum cause)c, MRT_OP_MODIFY_QP),
				 cause_row((enum cause)c)->class);
	assert_string_equal(cause_class_name(CLASS_NO_REFUSAL), "no_refusal");
}

/* docs/ beside tests/fixtures/, found as the fixtures are */
static const char *docs_path(void)
{
	return fixture_path("..", "../docs/causes.md");
}

/* docs/causes.md's table: one line per row, "| `name` | errnos |" with the
 * row's errnos, and no line of a name no row has. */
static void docs_table_matches_the_rows(void **state)
{
	(void)state;
	FILE *f = fopen(docs_path(), "r");
	char line[4096];
	int seen[CAUSE__COUNT] = { 0 };

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[64], err[256];
		const char *p = line, *q;
		size_t k;

		/* a table line whose first cell is one identifier in backticks */
		if (strncmp(p, "| `", 3))
			continue;
		p += 3;
		k = strcspn(p, "`");
		if (k >= sizeof(name) || strncmp(p + k, "` |", 3))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)k, p);
		p += k + 3;
		while (*p == ' ')
			p++;
		q = strstr(p, " |");
		assert_non_null(q);
		snprintf(err, sizeof(err), "%.*s", (int)(q - p), p);
		enum cause c = cause_from_name(name);
		if (c == CAUSE__COUNT)
			fail_msg("docs/causes.md names `%s`, which no row of causes.c has", name);
		seen[c]++;
		if (strcmp(err, cause_row(c)->errnos))
			fail_msg("docs/causes.md: `%s`'s errno is '%s', its row says '%s'", name, err,
				 cause_row(c)->errnos);
	}
	fclose(f);
	for (int c = 0; c < CAUSE__COUNT; c++)
		if (seen[c] != 1)
			fail_msg("docs/causes.md has %d lines for `%s` (want 1)", seen[c],
				 cause_name((enum cause)c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_named_once),
		cmocka_unit_test(no_refusal_rows),
		cmocka_unit_test(every_decided_cause_has_a_fix),
		cmocka_unit_test(class_from_the_row),
		cmocka_unit_test(docs_table_matches_the_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
