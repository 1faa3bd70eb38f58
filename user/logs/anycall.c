// SPDX-License-Identifier: GPL-2.0-only
/* anycall.c - a failure line of no source the other parts know: a Python
 * traceback's "RuntimeError: pidfd_getfd: Operation not permitted", a
 * provider's or an application's "ibv_reg_dmabuf_mr failed: Unknown error
 * 524", "ibv_create_cq(...) failed: Cannot allocate memory".  Read when it
 * names a call the kernel can refuse (log_op_of_call's) as a word and says
 * it failed; the errno is the strerror text after the call, else whatever
 * shape log_errno_scan reads in the line. */
#include "logs/parse.h"
#include "logs/prefilter.h"

#include <string.h>

static bool ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* the text after "CALL", "CALL(...)": ": TEXT", " failed: TEXT",
 * " failed with TEXT"; NULL when the line does not say it failed there */
static const char *after_call(const char *p, const char *end)
{
	if (p < end && *p == '(') {
		int depth = 0;
		for (; p < end; p++) {
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
			if (!depth)
				break;
		}
		if (p++ >= end)
			return NULL;
	}
	while (p < end && *p == ' ')
		p++;
	/* "ibv_modify_qp RTR -> RTS: Invalid argument.": a few words of its own,
	 * then a colon and a strerror text (nothing else: a call only named) */
	const char *col = memchr(p, ':', (size_t)(end - p));
	if (col && col - p <= 24 && col + 2 <= end && col[1] == ' ' &&
	    log_errno_at_start(col + 2, (size_t)(end - col - 2)))
		return col + 2;
	/* "err" holds "error" and "errno", and async-rdma's "ibv_reg_mr err,
	 * arguments:" (its errno on a line of its own further down) */
	if (log_starts(p, end, "failed") || log_starts(p, end, "returned") || log_starts(p, end, "err")) {
		/* "failed: TEXT"; with no colon the rest ("failed with error
		 * 12", "failed (ret=-12)") is for the scan */
		const char *c = memchr(p, ':', (size_t)(end - p));
		if (!c)
			return p;
		for (c++; c < end && *c == ' '; c++)
			;
		return c;
	}
	if (p + 1 < end && *p == ':' && p[1] == ' ')
		return p + 2;
	/* "RuntimeError: pidfd_open:Operation not permitted": no space */
	if (p + 1 < end && *p == ':' && log_errno_at_start(p + 1, (size_t)(end - p - 1)))
		return p + 1;
	return NULL;
}

/* the calls read from a line of no known source: the prefixes of the names
 * of user/logs/calls.tsv (rdma-core's verbs, mlx5dv, efadv and librdmacm,
 * libfabric's fi_*, the kernel's uverbs commands, pidfd_* and mlock*: the
 * RLIMIT_MEMLOCK a pin meets); a name only counts when log_op_of_call knows
 * it; not a tool's name ("fallocate failed: ..." is util-linux's only in
 * its own shape, tools in others.c) */
static const char *const prefixes[] = { "ibv_", "mlx5dv_", "efadv_", "rdma_", "fi_",
					"ib_uverbs_", "pidfd_", "mlock" };

static bool known_prefix(const char *p, const char *end)
{
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (log_starts(p, end, prefixes[i]))
			return true;
	return false;
}

/* the words the other readers of this part need: a CUDA memory call's
 * family (cudacall.c), UCX's CQE line's "(synd 0x" (ucxshapes.c) */
static const char *const others[] = { "cuMem", "cuPointer", "cuIpc", "cudaIpc", "cudaMalloc",
				      "cudaHost", "cudaPointer", "(synd 0x" };

/* whether any of the prefixes, or the others' words, stands in the line at
 * all: every line that no other part took comes here, so the walks below
 * are for the few that name a call; the words are the table's anchors
 * (prefilter.c), one scan of the line for all of them */
static struct log_anchors anchors;

void log_anycall_prepare(void)
{
	if (!anchors.built) {
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			log_anchors_add(&anchors, prefixes[i], strlen(prefixes[i]));
		for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
			log_anchors_add(&anchors, others[i], strlen(others[i]));
		log_anchors_build(&anchors);
	}
	/* and the CUDA reader's own (its UCX lines): built before the twin */
	log_cudacall_prepare();
}

static bool any_prefix(const char *s, const char *end)
{
	log_anycall_prepare();
	return log_anchors_any(&anchors, s, end);
}

/* what stands between "failed" and a strerror text when no colon does */
static const char *const lead_words[] = { "failed with error ", "failed with ", "failed, ",
					  "returned error ", "error " };

static bool rdma_call(const char *s, const char *end, struct log_event *ev)
{
	for (const char *p = s; p < end; p++) {
		if ((p > s && ident(p[-1])) || !known_prefix(p, end))
			continue;
		const char *q = p;
		while (q < end && ident(*q))
			q++;
		char call[40];
		if ((size_t)(q - p) >= sizeof(call))
			continue;
		str_copy_n(call, sizeof(call), p, (size_t)(q - p));
		enum rdma_op op = log_op_of_call(call);
		const char *t = op ? after_call(q, end) : NULL;
		if (!t)
			continue;
		ev->kind = LOG_FAILURE_CALL;
		str_copy_n(ev->call, sizeof(ev->call), call, strlen(call)); /* not the stack bytes after it */
		/* UCX's md registration outside UCX's own prefix */
		log_reg_range(p, end, ev);
		ev->op = op;
		str_copy_n(ev->err_text, sizeof(ev->err_text), t, (size_t)(end - t));
		ev->err = log_errno_at_start(t, (size_t)(end - t));
		/* "failed with error Bad address multiple times": the text
		 * after the words, whatever follows it */
		for (size_t i = 0; !ev->err && i < sizeof(lead_words) / sizeof(lead_words[0]); i++)
			if (log_starts(t, end, lead_words[i]))
				ev->err = log_errno_at_start(t + strlen(lead_words[i]),
							     (size_t)(end - t) - strlen(lead_words[i]));
		if (!ev->err)
			ev->err = log_errno_scan(t, (size_t)(end - t));
		ev->no_errno = !ev->err;
		return true;
	}
	return false;
}

/* an RDMA call's failure; else a CUDA memory call's driver error (a context
 * line: cudacall.c) or UCX's mlx5 CQE line printed outside UCX's own prefix
 * (its fatal handler's "[host:pid:tid] ib_mlx5_log.c:139  Transport retry
 * count exceeded on mlx5_0:1/IB (synd 0x15 ...)": ucxshapes.c) */
bool log_parse_anycall(const char *s, const char *end, struct log_event *ev)
{
	if (!any_prefix(s, end))
		return false;
	return rdma_call(s, end, ev) || log_parse_cuda_call(s, end, ev) || log_parse_ucx_cqe(s, end, ev);
}
