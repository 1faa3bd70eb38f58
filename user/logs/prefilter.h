/* SPDX-License-Identifier: GPL-2.0-only */
/* prefilter.h - the words a table's shapes cannot match without (see
 * prefilter.c): built once from the table, asked of a line before the
 * table's shapes are tried one by one. */
#ifndef MRTRACE_LOGS_PREFILTER_H
#define MRTRACE_LOGS_PREFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOG_ANCHORS_MAX 256

struct log_anchor {
	const char *p;
	size_t n;
};

struct log_anchors {
	bool built;
	bool always; /* an anchor of under two bytes: every line may match */
	bool nocase; /* set before build: letters in either case (strcasestr's) */
	uint64_t pair[65536 / 64]; /* the first two bytes of some anchor */
	uint16_t from[257]; /* a[from[c]..from[c+1]): anchors starting with byte c */
	size_t n;
	struct log_anchor a[LOG_ANCHORS_MAX];
};

/* adds p[0..n) (a trailing '\n' of a format dropped: fmtmatch.c takes it
 * as optional); more than LOG_ANCHORS_MAX makes the set pass every line */
void log_anchors_add(struct log_anchors *t, const char *p, size_t n);
/* sorts and indexes what was added; built is then true */
void log_anchors_build(struct log_anchors *t);
/* whether s..end holds one of t's anchors (always true while the
 * prefilter is off: log_prefilter_set) */
bool log_anchors_any(const struct log_anchors *t, const char *s, const char *end);

/* the longest run of literal text of a printf format: a line the format
 * matches holds it (fmtmatch.c matches literal text byte for byte) */
size_t log_fmt_longest_literal(const char *fmt, const char **at);

/* on by default; tests turn it off to read the same lines without it and
 * compare (tests/unit/test_prefilter.c) */
void log_prefilter_set(bool on);
bool log_prefilter_enabled(void);

#endif
