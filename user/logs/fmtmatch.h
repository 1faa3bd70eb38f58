/* SPDX-License-Identifier: GPL-2.0-only */
/* fmtmatch.h - match a line against a printf format (NCCL's WARN/INFO
 * strings, kept as data in nccl_shapes.tsv): every conversion becomes a
 * capture.  %s takes the shortest text that lets the rest match; numbers
 * take what printf would have printed.  Bounded work per call, whatever the
 * input (a step budget), so a hostile line costs no more than a long one. */
#ifndef MRTRACE_LOGS_FMTMATCH_H
#define MRTRACE_LOGS_FMTMATCH_H

#include <stdbool.h>
#include <stddef.h>

#define FMT_CAPS_MAX 16

struct fmt_cap {
	const char *p;
	size_t n;
	char conv; /* 's', 'd', 'u', 'x', 'p', 'c', 'f' */
};

/* true when all of s[0..n) is printed by fmt; caps[i] for each conversion
 * (at most FMT_CAPS_MAX; %% is none).  *ncaps is how many. */
bool fmt_match(const char *fmt, const char *s, size_t n, struct fmt_cap *caps, int *ncaps);

/* the literal text fmt starts with (up to the first conversion): a cheap
 * test before fmt_match */
size_t fmt_literal_prefix(const char *fmt);

#endif
