// SPDX-License-Identifier: GPL-2.0-only
/* nccl.c - NCCL's debug lines: the prefix debug.cc writes
 * (`host:pid:tid [dev] file.cc:LINE [(func)] NCCL WARN msg`, `... [dev] NCCL
 * INFO msg`, with NCCL_DEBUG_TIMESTAMP's `[date time] ` stripped before),
 * the failure messages of the shapes table, the context INFO lines (version,
 * settings, the communicator's rank) and NCCLCHECK's `file.cc:LINE -> N`
 * trail; plugins that log through NCCL (aws-ofi-nccl's NET/OFI). */
#include "logs/fmtmatch.h"
#include "logs/parse.h"

#include <string.h>

static const char *skip_digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* host:pid:tid at s; end of it (after the space) or NULL */
static const char *who(const char *s, const char *end, struct log_event *ev)
{
	const char *sp = memchr(s, ' ', (size_t)(end - s));
	if (!sp || sp == s)
		return NULL;
	/* the last two ':' before the space: pid and tid (a host may hold none) */
	const char *c2 = NULL, *c1 = NULL;
	for (const char *p = sp - 1; p > s; p--)
		if (*p == ':') {
			if (!c2)
				c2 = p;
			else {
				c1 = p;
				break;
			}
		}
	if (!c1 || skip_digits(c1 + 1, c2) != c2 || c2 == c1 + 1 || skip_digits(c2 + 1, sp) != sp ||
	    sp == c2 + 1)
		return NULL;
	str_copy_n(ev->host, sizeof(ev->host), s, (size_t)(c1 - s));
	ev->pid = (int)log_num(c1 + 1, (size_t)(c2 - c1 - 1), 10);
	ev->tid = (int)log_num(c2 + 1, (size_t)(sp - c2 - 1), 10);
	return sp + 1;
}

static bool context(const char *s, const char *end, struct log_event *ev)
{
	struct fmt_cap c[FMT_CAPS_MAX];
	int nc;
	size_t n = (size_t)(end - s);
	const char *p;

	if (log_starts(s, end, "NCCL version ")) {
		p = s + 13;
		const char *e = p;
		while (e < end && *e != ' ')
			e++;
		str_copy_n(ev->nccl_version, sizeof(ev->nccl_version), p, (size_t)(e - p));
		ev->kind = LOG_CONTEXT, ev->ctx = LOG_CTX_NCCL_VERSION;
		return true;
	}
	if (log_starts(s, end, "NCCL_") && (p = log_find(s, end, " set by environment to "))) {
		str_copy_n(ev->setting_name, sizeof(ev->setting_name), s, (size_t)(p - s));
		p += 23;
		str_copy_n(ev->setting_value, sizeof(ev->setting_value), p, (size_t)(end - p));
		ev->kind = LOG_CONTEXT, ev->ctx = LOG_CTX_SETTING;
		return true;
	}
	if (log_starts(s, end, "comm 0x") && fmt_match("comm %p rank %d nranks %d %s", s, n, c, &nc)) {
		ev->comm.id = (uint64_t)log_num(c[0].p, c[0].n, 16);
		ev->comm.rank = (int)log_num(c[1].p, c[1].n, 10);
		ev->comm.nranks = (int)log_num(c[2].p, c[2].n, 10);
		if ((p = log_find(s, end, "commId 0x"))) {
			const char *e = p + 7;
			while (e < end && *e != ' ')
				e++;
			str_copy_n(ev->comm.comm_id, sizeof(ev->comm.comm_id), p + 7, (size_t)(e - p - 7));
		}
		ev->kind = LOG_CONTEXT, ev->ctx = LOG_CTX_RANK;
		return true;
	}
	/* NCCLCHECK's trail: "transport/net_ib.cc:1047 -> 2" (and " [Proxy ...]") */
	if ((p = log_find(s, end, " -> ")) && p > s && p[-1] >= '0' && p[-1] <= '9') {
		const char *q = p + 4, *e = skip_digits(q, end);
		if (e > q && memchr(s, ':', (size_t)(p - s))) {
			ev->result_code = (int)log_num(q, (size_t)(e - q), 10);
			ev->kind = LOG_CONTEXT, ev->ctx = LOG_CTX_RETURN;
			return true;
		}
	}
	return false;
}

/* aws-ofi-nccl logs through NCCL's logger */
static bool ofi(const char *s, const char *end, bool warn, struct log_event *ev)
{
	struct fmt_cap c[FMT_CAPS_MAX];
	int nc;

	if (!log_starts(s, end, "NET/OFI"))
		return false;
	ev->source = LOG_SRC_OFI_NCCL;
	if (fmt_match("NET/OFI Unable to register memory (type = %d) for device %d. RC: %d, Error: %s", s,
		      (size_t)(end - s), c, &nc)) {
		ev->kind = LOG_FAILURE_CALL;
		str_copy_n(ev->call, sizeof(ev->call), "fi_mr_reg", 9);
		ev->op = OP_REG_MR;
		ev->has_rc = true, ev->rc = (long)log_num(c[2].p, c[2].n, 10);
		str_copy_n(ev->err_text, sizeof(ev->err_text), c[3].p, c[3].n);
		ev->err = log_errno_from_text(c[3].p, c[3].n);
		if (!ev->err && ev->rc < 0 && ev->rc > -4096)
			ev->err = (int)-ev->rc;
		return true;
	}
	ev->kind = warn ? LOG_UNRECOGNISED : LOG_NOT_FAILURE;
	return true;
}

bool log_parse_nccl(const char *s, const char *end, struct log_event *ev)
{
	const char *p = s, *m;
	char level = 0;

	/* with debug.cc's prefix */
	/* one search for "NCCL ", then the word after it */
	for (m = log_find(s, end, "NCCL "); m; m = log_find(m + 5, end, "NCCL "))
		if (log_starts(m, end, "NCCL WARN ") || log_starts(m, end, "NCCL INFO ") ||
		    log_starts(m, end, "NCCL TRACE ") || log_starts(m, end, "NCCL CALL "))
			break;
	if (m) {
		level = m[5];
		const char *q = who(s, m, ev);
		if (q) {
			p = q;
			if (p < m && *p == '[') {
				const char *e = skip_digits(p + 1, m);
				if (e < m && *e == ']') {
					ev->cuda_dev = (int)log_num(p + 1, (size_t)(e - p - 1), 10);
					p = e + 1;
					while (p < m && *p == ' ')
						p++;
				}
			}
		}
		/* WARN: "file.cc:LINE [(func)] " */
		if (level == 'W' && p < m) {
			const char *sp = memchr(p, ' ', (size_t)(m - p));
			const char *col = sp ? memrchr(p, ':', (size_t)(sp - p)) : NULL;
			if (col) {
				str_copy_n(ev->src_file, sizeof(ev->src_file), p, (size_t)(col - p));
				ev->src_line = (int)log_num(col + 1, (size_t)(sp - col - 1), 10);
			}
		}
		ev->nccl_warn = level == 'W';
		ev->source = LOG_SRC_NCCL;
		m += level == 'T' ? 11 : 10;
		if (level == 'T' || level == 'C') {
			ev->kind = LOG_NOT_FAILURE;
			return true;
		}
		if (log_parse_nccl_message(m, end, level, ev) || ofi(m, end, level == 'W', ev))
			return true;
		if (level == 'I' && context(m, end, ev))
			return true;
		ev->kind = level == 'W' ? LOG_UNRECOGNISED : LOG_NOT_FAILURE;
		return true;
	}
	/* the version line has no prefix in newer releases */
	if (log_starts(s, end, "NCCL version ")) {
		ev->source = LOG_SRC_NCCL;
		return context(s, end, ev);
	}
	/* a bare message (torch's "Last error:" follow-up, a quoted line) */
	if (log_parse_nccl_message(s, end, 0, ev))
		return true;
	return false;
}
