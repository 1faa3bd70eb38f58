// SPDX-License-Identifier: GPL-2.0-only
/* errnos.c - the errno a failure line carries, in the shapes the providers,
 * the launchers' wrappers and the tools print it beside the call
 * (docs/logs.md, "Errno shapes"): a number behind a marker ("errno: 12",
 * "[error code: 14]", "ret=-22", "(-95)", Rust's "Os { code: 12", "(os
 * error 13)"), a strerror text's own number after it ("Invalid argument
 * [22]"), glibc's text for a number with
 * no name ("Unknown error -95", "Unknown error 524": the kernel-internal
 * 512..530 leak so), or the E-name itself.  A provider may print the same
 * errno positive or negative: the magnitude is the errno. */
#include "logs/parse.h"

#include <string.h>

/* the markers a number follows, the longest first where one holds another
 * ("errno: " before "errno "); close: the character the number must be
 * followed by (0: any non-digit) */
static const struct {
	const char *lit;
	char close;
} markers[] = {
	{ "Unknown error ", 0 }, { "[error code: ", ']' }, { "error code: ", 0 },
	{ "errno: ", 0 },        { "errno=", 0 },          { "errno ", 0 },
	{ "error=", 0 },         { "err=", 0 },            { "ret=", 0 },
	{ "rc=", 0 },            { "failed with error ", 0 }, { "with error ", 0 },
	{ "[Errno ", ']' }, /* Python's OSError: "[Errno 1] Operation not permitted" */
	/* Rust's io::Error: Debug "Os { code: 12, kind: OutOfMemory, ...",
	 * Display "Cannot allocate memory (os error 12)" */
	{ "Os { code: ", ',' }, { "(os error ", ')' },
	{ "(", ')' },
};

/* a signed decimal at p (before end) that ends where close says: its
 * errno, 0 none */
static int number_at(const char *p, const char *end, char close, bool need_minus)
{
	const char *q = p;

	if (q < end && *q == '-')
		q++;
	else if (need_minus)
		return 0;
	const char *d = q;
	while (q < end && *q >= '0' && *q <= '9' && q - d < 6)
		q++;
	if (q == d || (q < end && *q >= '0' && *q <= '9'))
		return 0;
	if (close && (q >= end || *q != close))
		return 0;
	/* "error=12.5", "rc=0x1": not an errno */
	if (!close && q < end && (*q == '.' || *q == 'x') && q + 1 < end && q[1] != ' ')
		return 0;
	return log_errno_num(log_num(p, (size_t)(q - p), 10));
}

/* the E-names glibc's strerrorname_np does not give for that number */
static const struct {
	const char *name;
	int err;
} aliases[] = {
	{ "ENOTSUPP", 524 }, /* kernel-internal: dma-buf exporters, ODP paths */
	{ "ENOTSUP", 95 },   { "EWOULDBLOCK", 11 }, { "EDEADLOCK", 35 },
};

/* an E-name as a word at p: "ENOMEM", "(EOPNOTSUPP)", "errno=ETIMEDOUT" */
static int ename_at(const char *p, const char *end)
{
	size_t n = 1;

	while (p + n < end && ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9')))
		n++;
	if (n < 4 || (p + n < end && ((p[n] >= 'a' && p[n] <= 'z') || p[n] == '_')))
		return 0;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strlen(aliases[i].name) == n && !memcmp(aliases[i].name, p, n))
			return aliases[i].err;
	for (int e = 1; e < 134; e++) {
		const char *name = strerrorname_np(e);
		if (name && strlen(name) == n && !memcmp(name, p, n))
			return e;
	}
	return 0;
}

static bool word_start(const char *s, const char *p)
{
	return p == s || !((p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= 'a' && p[-1] <= 'z') ||
			   (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '_');
}

int log_errno_scan(const char *s, size_t n)
{
	const char *end = s + n;

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		size_t l = strlen(markers[i].lit);
		for (const char *p = s; (p = log_find(p, end, markers[i].lit)); p++) {
			int e;
			/* a bare "(" takes only "(-N)": "(12)" may be anything */
			e = number_at(p + l, end, markers[i].close, !strcmp(markers[i].lit, "("));
			if (e)
				return e;
		}
	}
	/* glog programs' "Invalid argument [22]": a number in brackets only
	 * after its own strerror text (a bare "[1]" may be anything) */
	for (const char *p = s; (p = memchr(p, '[', (size_t)(end - p))); p++) {
		int e = number_at(p + 1, end, ']', false);
		const char *t = e ? strerror(e) : NULL;
		size_t tl = t ? strlen(t) : 0;
		if (t && (size_t)(p - s) >= tl + 1 && p[-1] == ' ' && !memcmp(p - 1 - tl, t, tl))
			return e;
	}
	for (const char *p = s; p < end; p++) {
		if (*p != 'E' || !word_start(s, p))
			continue;
		int e = ename_at(p, end);
		if (e)
			return e;
	}
	return 0;
}
