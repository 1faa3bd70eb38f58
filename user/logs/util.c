// SPDX-License-Identifier: GPL-2.0-only
/* util.c - small helpers of the log reader: bounded searches
 * (a line is not NUL-terminated where the parts look at it), strerror text
 * back to its errno, the mrtrace op of a verbs call. */
#include "logs/fmtmatch.h"
#include "logs/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* memchr for the first byte, then a compare: the lines are short and the
 * words few, where memmem's setup per call cost more than the search
 * (issue 46: the reader at disk speed) */
const char *log_find_n(const char *s, const char *end, const char *lit, size_t n)
{
	if (!n)
		return s;
	while ((size_t)(end - s) >= n) {
		const char *p = memchr(s, lit[0], (size_t)(end - s) - n + 1);
		if (!p)
			return NULL;
		if (!memcmp(p + 1, lit + 1, n - 1))
			return p;
		s = p + 1;
	}
	return NULL;
}

/* the first two bytes in either case found by plain compares, the rest
 * by strncasecmp only there: a call per byte of the line was most of the
 * cost of a line no word is in */
const char *log_find_nocase_n(const char *s, const char *end, const char *lit, size_t n)
{
	if (!n)
		return s;
	if (n == 1)
		for (const char *p = s; p < end; p++)
			if (tolower((unsigned char)*p) == tolower((unsigned char)lit[0]))
				return p;
	if (n < 2)
		return NULL;
	unsigned char lo0 = (unsigned char)tolower((unsigned char)lit[0]);
	unsigned char up0 = (unsigned char)toupper((unsigned char)lit[0]);
	unsigned char lo1 = (unsigned char)tolower((unsigned char)lit[1]);
	unsigned char up1 = (unsigned char)toupper((unsigned char)lit[1]);
	for (const char *p = s; (size_t)(end - p) >= n; p++) {
		unsigned char c = (unsigned char)p[0], d = (unsigned char)p[1];
		if ((c == lo0 || c == up0) && (d == lo1 || d == up1) &&
		    !strncasecmp(p + 2, lit + 2, n - 2))
			return p;
	}
	return NULL;
}

long long log_num(const char *s, size_t n, int base)
{
	long long v = 0;
	bool neg = false;
	size_t i = 0;

	if (i < n && s[i] == '-')
		neg = true, i++;
	if (base == 16 && n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
		i += 2;
	for (; i < n; i++) {
		int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
			s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 :
			s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : 99;
		if (d >= base)
			break;
		if (v > (long long)(INT64_MAX / 16))
			break; /* enough digits: no overflow */
		v = v * base + d;
	}
	return neg ? -v : v;
}

int log_errno_num(long long v)
{
	if (v < 0)
		v = v < -4095 ? 0 : -v;
	return v > 0 && v < 4096 ? (int)v : 0;
}

/* markdown emphasis a poster typed around a pasted line ("**...**",
 * "_..._"): no strerror text ends with either mark, so a closing one is the
 * end of the text, not part of it */
static bool emphasis_mark(char c)
{
	return c == '*' || c == '_';
}

/* glibc's messages, as NCCL, UCX and libfabric print them (strerror) */
int log_errno_from_text(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '.' || emphasis_mark(s[n - 1])))
		n--;
	if (!n)
		return 0;
	for (int e = 1; e < 134; e++) {
		const char *d = strerrordesc_np(e);
		if (d && strlen(d) == n && !memcmp(d, s, n))
			return e;
	}
	return 0;
}

int log_errno_at_start(const char *s, size_t n)
{
	int best = 0;
	size_t best_len = 0;

	for (int e = 1; e < 134; e++) {
		const char *d = strerrordesc_np(e);
		size_t l = d ? strlen(d) : 0;
		if (!l || l > n || l <= best_len || memcmp(d, s, l))
			continue;
		/* the description must end there: "Cannot allocate memory.
		 * Please set ..." (UCX), not a longer word */
		if (l < n && !strchr(" .:,;(", s[l]) && !emphasis_mark(s[l]))
			continue;
		best = e, best_len = l;
	}
	return best;
}

bool log_reg_range(const char *c, const char *end, struct log_event *ev)
{
	struct fmt_cap cap[FMT_CAPS_MAX];
	int nc;

	if (!fmt_match("ibv_reg_mr(address=%p, length=%lu, access=0x%x%s", c, (size_t)(end - c), cap, &nc))
		return false;
	ev->addr = (uint64_t)log_num(cap[0].p, cap[0].n, 16);
	ev->length = (uint64_t)log_num(cap[1].p, cap[1].n, 10);
	ev->access = (unsigned)log_num(cap[2].p, cap[2].n, 16);
	ev->has_range = true;
	return true;
}

/* the calls of the RDMA sources that have an operation (user/logs/calls.tsv,
 * tools/call-names.py: every ibv_*, mlx5dv_*, efadv_*, rdma_* of rdma-core's
 * headers, libfabric's fi_*, the kernel's uverbs commands, pidfd_*, mlock*),
 * sorted by name */
static const struct source_call {
	const char *call;
	enum rdma_op op;
} source_calls[] = {
#define LOG_CALL(c, o) { c, o },
#define LOG_WC_STATUS(t, n, sym)
#include "log_calls.h"
#undef LOG_CALL
#undef LOG_WC_STATUS
};

static int call_cmp(const void *key, const void *row)
{
	return strcmp(key, *(const char *const *)row);
}

/* docs/json.md's ops: registrations are reg_mr, the refusal records' ops */
enum rdma_op log_op_of_call(const char *call)
{
	/* the C library's and tools' calls no RDMA header declares */
	static const struct { const char *call; enum rdma_op op; } libc_calls[] = {
		{ "posix_fallocate", OP_SHM_ALLOC }, { "fallocate", OP_SHM_ALLOC },
		{ "shm_open", OP_SHM_ALLOC },
	};
	if (!call)
		return OP_NONE;
	const void *row = bsearch(call, source_calls, sizeof(source_calls) / sizeof(source_calls[0]),
				  sizeof(source_calls[0]), call_cmp);
	if (row)
		return ((const struct source_call *)row)->op;
	for (size_t i = 0; i < sizeof(libc_calls) / sizeof(libc_calls[0]); i++)
		if (!strcmp(call, libc_calls[i].call))
			return libc_calls[i].op;
	return OP_NONE;
}
