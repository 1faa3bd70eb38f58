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

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* the byte an anchor is filed under: its own, or its lower case */
static bool folding;

static unsigned key(unsigned char c)
{
	return folding ? (unsigned)tolower(c) : c;
}

static int by_first_byte(const void *a, const void *b)
{
	const struct log_anchor *x = a, *y = b;
	return (int)key((unsigned char)x->p[0]) - (int)key((unsigned char)y->p[0]);
}

static void set_pair(struct log_anchors *t, unsigned char a, unsigned char b)
{
	unsigned k = (unsigned)a << 8 | b;
	t->pair[k / 64] |= 1ull << (k % 64);
}

void log_anchors_build(struct log_anchors *t)
{
	folding = t->nocase;
	qsort(t->a, t->n, sizeof(t->a[0]), by_first_byte);
	memset(t->pair, 0, sizeof(t->pair));
	size_t i = 0;
	for (unsigned c = 0; c < 256; c++) {
		t->from[c] = (uint16_t)i;
		while (i < t->n && key((unsigned char)t->a[i].p[0]) == c) {
			unsigned char a = (unsigned char)t->a[i].p[0], b = (unsigned char)t->a[i].p[1];
			set_pair(t, a, b);
			if (t->nocase) {
				set_pair(t, (unsigned char)tolower(a), (unsigned char)tolower(b));
				set_pair(t, (unsigned char)tolower(a), (unsigned char)toupper(b));
				set_pair(t, (unsigned char)toupper(a), (unsigned char)tolower(b));
				set_pair(t, (unsigned char)toupper(a), (unsigned char)toupper(b));
			}
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
		unsigned c = t->nocase ? (unsigned)tolower(u[i]) : u[i];
		for (unsigned j = t->from[c]; j < t->from[c + 1]; j++)
			if (t->a[j].n <= n - i && !(t->nocase ? strncasecmp(s + i, t->a[j].p, t->a[j].n)
							       : memcmp(s + i, t->a[j].p, t->a[j].n)))
				return true;
	}
	return false;
}
