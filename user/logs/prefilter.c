// SPDX-License-Identifier: GPL-2.0-only
/* prefilter.c - lines skipped before a table's shapes are tried one by one
 * (issue 46: the reader at disk speed).  A shape matches only a line that
 * holds each literal run of its format, so a line that holds no table
 * row's longest run cannot match any row: one scan of the line, a bit per
 * byte pair, instead of a memcmp/memmem per row.  The anchors are taken
 * from the table itself when it is first asked (shapes.c), never a second
 * list; tests/unit/test_prefilter.c reads every fixture line with and
 * without the prefilter and fails on any difference. */
#include "logs/prefilter.h"

#include <stdlib.h>
#include <string.h>

static bool prefilter_on = true;

void log_prefilter_set(bool on)
{
	prefilter_on = on;
}

bool log_prefilter_enabled(void)
{
	return prefilter_on;
}

size_t log_fmt_longest_literal(const char *fmt, const char **at)
{
	const char *best = fmt, *p = fmt;
	size_t best_n = 0;

	while (*p) {
		size_t k = strcspn(p, "%");
		/* a format's own line end is optional to fmtmatch.c */
		size_t kk = k && p[k - 1] == '\n' && !p[k] ? k - 1 : k;
		if (kk > best_n)
			best = p, best_n = kk;
		p += k;
		if (*p == '%')
			p = p[1] ? p + 2 : p + 1;
	}
	*at = best;
	return best_n;
}

void log_anchors_add(struct log_anchors *t, const char *p, size_t n)
{
	if (n && p[n - 1] == '\n')
		n--;
	if (n < 2 || t->n >= LOG_ANCHORS_MAX) {
		t->always = true;
		return;
	}
	t->a[t->n++] = (struct log_anchor){ p, n };
}

static int by_first_byte(const void *a, const void *b)
{
	const struct log_anchor *x = a, *y = b;
	return (int)(unsigned char)x->p[0] - (int)(unsigned char)y->p[0];
}

void log_anchors_build(struct log_anchors *t)
{
	qsort(t->a, t->n, sizeof(t->a[0]), by_first_byte);
	memset(t->pair, 0, sizeof(t->pair));
	size_t i = 0;
	for (unsigned c = 0; c < 256; c++) {
		t->from[c] = (uint16_t)i;
		while (i < t->n && (unsigned char)t->a[i].p[0] == c) {
			unsigned k = c << 8 | (unsigned char)t->a[i].p[1];
			t->pair[k / 64] |= 1ull << (k % 64);
			i++;
		}
	}
	t->from[256] = (uint16_t)t->n;
	t->built = true;
}

bool log_anchors_any(const struct log_anchors *t, const char *s, const char *end)
{
	if (!prefilter_on || t->always)
		return true;
	const unsigned char *u = (const unsigned char *)s;
	size_t n = (size_t)(end - s);
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned k = (unsigned)u[i] << 8 | u[i + 1];
		if (!(t->pair[k / 64] >> (k % 64) & 1))
			continue;
		for (unsigned j = t->from[u[i]]; j < t->from[u[i] + 1]; j++)
			if (t->a[j].n <= n - i && !memcmp(s + i, t->a[j].p, t->a[j].n))
				return true;
	}
	return false;
}
