// SPDX-License-Identifier: GPL-2.0-only
/* access.c - access flag names (see access.h). */
#include "access.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	unsigned bit;
} names[] = {
	{ "LOCAL_WRITE", IBV_ACCESS_LOCAL_WRITE },
	{ "REMOTE_WRITE", IBV_ACCESS_REMOTE_WRITE },
	{ "REMOTE_READ", IBV_ACCESS_REMOTE_READ },
	{ "REMOTE_ATOMIC", IBV_ACCESS_REMOTE_ATOMIC },
	{ "MW_BIND", IBV_ACCESS_MW_BIND },
	{ "ZERO_BASED", IBV_ACCESS_ZERO_BASED },
	{ "ON_DEMAND", IBV_ACCESS_ON_DEMAND },
	{ "HUGETLB", IBV_ACCESS_HUGETLB },
	{ "RELAXED_ORDERING", IBV_ACCESS_RELAXED_ORDERING },
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* Compares a token of length n against a table name, ignoring case and
 * treating '-' as '_' so both shell-friendly and enum-like spellings work. */
static int name_eq(const char *tok, size_t n, const char *name)
{
	if (strlen(name) != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = (char)toupper((unsigned char)tok[i]);
		if (c == '-')
			c = '_';
		if (c != name[i])
			return 0;
	}
	return 1;
}

int mp_access_parse(const char *s, unsigned *out, const char **bad)
{
	if (bad)
		*bad = s;
	if (!s || !*s)
		return -1;
	if (isdigit((unsigned char)*s)) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(s, &end, 0);
		if (errno || *end || v > 0xffffffffUL)
			return -1;
		*out = (unsigned)v;
		return 0;
	}
	if (!strcasecmp(s, "none")) {
		*out = 0;
		return 0;
	}
	unsigned flags = 0;
	const char *p = s;
	while (*p) {
		size_t n = strcspn(p, ",|+");
		size_t i;
		for (i = 0; i < NNAMES; i++)
			if (name_eq(p, n, names[i].name))
				break;
		if (i == NNAMES) {
			if (bad)
				*bad = p;
			return -1;
		}
		flags |= names[i].bit;
		p += n;
		if (*p)
			p++;
	}
	*out = flags;
	return 0;
}

const char *mp_access_format(unsigned flags, char *buf, size_t len)
{
	size_t used = 0;
	unsigned rest = flags;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NNAMES; i++) {
		if (!(flags & names[i].bit))
			continue;
		rest &= ~names[i].bit;
		int w = snprintf(buf + used, used < len ? len - used : 0, "%s%s",
				 used ? "|" : "", names[i].name);
		used += w > 0 ? (size_t)w : 0;
	}
	if (rest || !flags)
		snprintf(buf + used, used < len ? len - used : 0, "%s0x%x", used ? "|" : "", rest);
	return buf;
}

const char *mp_access_names_help(void)
{
	return "local-write, remote-write, remote-read, remote-atomic, mw-bind, zero-based, "
	       "on-demand, hugetlb, relaxed-ordering, none";
}
