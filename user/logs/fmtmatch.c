// SPDX-License-Identifier: GPL-2.0-only
/* fmtmatch.c - a printf format as a matcher (see fmtmatch.h).  Backtracking
 * only at %s, and only where the character after it in the format appears
 * in the line; adjacent %s%s give everything to the last one (NCCL's
 * completion line prints four optional strings in a row). */
#include "logs/fmtmatch.h"

#include <string.h>

#define STEP_BUDGET 4096

struct m {
	struct fmt_cap *caps;
	int ncaps;
	int steps;
};

/* skip flags, width, precision and length of a conversion; its letter */
static const char *conv_letter(const char *f)
{
	while (*f && strchr("-+ #0", *f))
		f++;
	while (*f >= '0' && *f <= '9')
		f++;
	if (*f == '.') {
		f++;
		while (*f >= '0' && *f <= '9')
			f++;
	}
	while (*f && strchr("hlLqjzt", *f))
		f++;
	return f;
}

static bool digit(char c, bool hex)
{
	return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
}

/* how many bytes of s a numeric conversion takes, 0 when none fit */
static size_t number_len(char conv, const char *s, size_t n)
{
	size_t i = 0;

	if (conv == 'p') {
		if (n >= 5 && !memcmp(s, "(nil)", 5))
			return 5;
		if (n < 3 || s[0] != '0' || s[1] != 'x')
			return 0;
		for (i = 2; i < n && digit(s[i], true); i++)
			;
		return i > 2 ? i : 0;
	}
	if (conv == 'f') {
		if (i < n && s[i] == '-')
			i++;
		size_t d = i;
		while (i < n && (digit(s[i], false) || s[i] == '.'))
			i++;
		return i > d ? i : 0;
	}
	bool hex = conv == 'x' || conv == 'X';
	if ((conv == 'd' || conv == 'i') && i < n && s[i] == '-')
		i++;
	size_t d = i;
	while (i < n && digit(s[i], hex))
		i++;
	return i > d ? i : 0;
}

static bool match(struct m *m, const char *f, const char *s, size_t n)
{
	if (++m->steps > STEP_BUDGET)
		return false;
	while (*f) {
		if (*f != '%' || f[1] == '%') {
			if (!n && *f == '\n') { /* a format's own line end */
				f++;
				continue;
			}
			if (!n || *s != *f)
				return false;
			f += *f == '%' ? 2 : 1;
			s++, n--;
			continue;
		}
		const char *l = conv_letter(f + 1);
		char conv = *l;
		if (!conv)
			return false;
		const char *rest = l + 1;
		int ci = m->ncaps;
		if (ci >= FMT_CAPS_MAX)
			return false;
		m->ncaps++;
		struct fmt_cap *c = &m->caps[ci];
		c->conv = conv == 'i' ? 'd' : conv == 'X' ? 'x' : (conv == 'l' ? 'd' : conv);
		c->p = s;
		if (conv == 's') {
			if (rest[0] == '%' && rest[1] == 's') {
				c->n = 0; /* all to the last of a run */
				f = rest;
				continue;
			}
			if (!*rest) { /* the rest of the line */
				c->n = n;
				return true;
			}
			char want = *rest == '%' && rest[1] == '%' ? '%' : *rest;
			for (size_t k = 0; k <= n; k++) {
				if (*rest != '%' && (k == n || s[k] != want))
					continue;
				c->n = k;
				if (match(m, rest, s + k, n - k))
					return true;
				m->ncaps = ci + 1;
				if (m->steps > STEP_BUDGET)
					return false;
			}
			m->ncaps = ci;
			return false;
		}
		size_t k;
		if (conv == 'c')
			k = n ? 1 : 0;
		else
			k = number_len(conv, s, n);
		if (!k)
			return false;
		c->n = k;
		s += k, n -= k;
		f = rest;
	}
	return n == 0;
}

bool fmt_match(const char *fmt, const char *s, size_t n, struct fmt_cap *caps, int *ncaps)
{
	struct m m = { .caps = caps };
	bool ok = match(&m, fmt, s, n);

	*ncaps = ok ? m.ncaps : 0;
	return ok;
}

size_t fmt_literal_prefix(const char *fmt)
{
	const char *p = strchr(fmt, '%');

	return p ? (size_t)(p - fmt) : strlen(fmt);
}
