// SPDX-License-Identifier: GPL-2.0-only
/* units.c - human-readable sizes (see units.h). */
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const unit_names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

const char *fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	if (bytes == UINT64_MAX) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	int u = 0;
	uint64_t whole = bytes;
	while (whole >= 1024 && u < 6) {
		whole >>= 10;
		u++;
	}
	if (u == 0) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	} else if ((bytes & ((1ULL << (10 * u)) - 1)) == 0) {
		snprintf(buf, len, "%llu %s", (unsigned long long)whole, unit_names[u]);
	} else {
		double v = (double)bytes / (double)(1ULL << (10 * u));
		snprintf(buf, len, "%.1f %s", v, unit_names[u]);
	}
	return buf;
}

const char *fmt_pages(uint64_t pages, uint64_t page_size, char *buf, size_t len)
{
	char b[32];
	snprintf(buf, len, "%llu page%s (%s)", (unsigned long long)pages, pages == 1 ? "" : "s",
		 fmt_bytes(pages * page_size, b, sizeof(b)));
	return buf;
}

int parse_bytes(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return -1;
	if (!strcasecmp(s, "unlimited") || !strcasecmp(s, "infinity") || !strcmp(s, "-1")) {
		*out = UINT64_MAX;
		return 0;
	}
	/* decimal only: strtod would also take "inf", "nan", leading blanks,
	 * a sign and hexadecimal ("0x1p70") */
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	int shift = 0;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': shift = 10; break;
		case 'M': shift = 20; break;
		case 'G': shift = 30; break;
		case 'T': shift = 40; break;
		case 'B': shift = 0; end--; break;
		default: return -1;
		}
		end++;
		/* optional "i", "iB", "B" suffix */
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
		if (*end)
			return -1;
	}
	/* 2^64 and beyond do not fit: converting them is undefined, not a
	 * wrap (the double 18446744073709551615.0 is 2^64 itself) */
	double r = ldexp(v, shift);
	if (!(r < 18446744073709551616.0))
		return -1;
	*out = (uint64_t)(r + 0.5);
	return 0;
}
