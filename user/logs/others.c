// SPDX-License-Identifier: GPL-2.0-only
/* others.c - the lines around NCCL's: the framework's summary of its
 * result (PyTorch's DistBackendError, `NCCL error in: ...`,
 * ncclSystemError), UCX's and libfabric's verbs errors, rdma-core's
 * (libibverbs' RLIMIT_MEMLOCK warning, the providers', perftest's), and
 * system tools' own one-line failures (util-linux fallocate(1)). */
#include "logs/fmtmatch.h"
#include "logs/parse.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

/* ncclResult_t names and the texts ncclGetErrorString gives them */
static const struct {
	const char *name, *text;
	int code;
} results[] = {
	{ "ncclUnhandledCudaError", "unhandled cuda error", 1 },
	{ "ncclSystemError", "unhandled system error", 2 },
	{ "ncclInternalError", "internal error", 3 },
	{ "ncclInvalidArgument", "invalid argument", 4 },
	{ "ncclInvalidUsage", "invalid usage", 5 },
	{ "ncclRemoteError", "remote process exited or there was a network error", 6 },
};

bool log_parse_framework(const char *s, const char *end, struct log_event *ev)
{
	const char *p;

	/* every summary says "...Error" or "error": most lines are gone here */
	if (!log_find(s, end, "rror"))
		return false;
	for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++) {
		size_t nl = strlen(results[i].name);
		bool by_name = (p = log_find(s, end, results[i].name)) && p + nl < end && p[nl] == ':';
		bool by_text = !by_name && log_find(s, end, "NCCL error") &&
			       log_find(s, end, results[i].text);
		if (!by_name && !by_text)
			continue;
		ev->kind = LOG_FAILURE_SUMMARY;
		ev->source = LOG_SRC_FRAMEWORK;
		str_copy_n(ev->result, sizeof(ev->result), results[i].name, nl);
		ev->result_code = results[i].code;
		/* torch adds ", NCCL version 2.14.3" */
		if ((p = log_find(s, end, "NCCL version "))) {
			const char *e = p += 13;
			while (e < end && *e != ' ' && *e != ',' && *e != '\'' && *e != '"')
				e++;
			str_copy_n(ev->nccl_version, sizeof(ev->nccl_version), p, (size_t)(e - p));
		}
		return true;
	}
	if (log_find(s, end, "DistBackendError") || log_starts(s, end, "NCCL error in:")) {
		ev->kind = LOG_FAILURE_SUMMARY;
		ev->source = LOG_SRC_FRAMEWORK;
		return true;
	}
	return false;
}

/* "<call>(<args>) failed: <strerror>[ : more]" */
static bool call_failed(const char *s, const char *end, struct log_event *ev)
{
	const char *f = log_find(s, end, ") failed: ");
	const char *o = f ? memchr(s, '(', (size_t)(f - s)) : NULL;
	if (!o)
		return false;
	const char *c = o;
	while (c > s && (c[-1] == '_' || (c[-1] >= 'a' && c[-1] <= 'z') || (c[-1] >= '0' && c[-1] <= '9')))
		c--;
	str_copy_n(ev->call, sizeof(ev->call), c, (size_t)(o - c));
	ev->op = log_op_of_call(ev->call);
	if (!ev->op) /* UCX's MLNX_OFED verbs: "ibv_exp_reg_mr(address=...) failed: ..." */
		ev->op = log_ucx_call_op(ev->call);
	const char *t = f + 10, *e = log_find(t, end, " : ");
	if (!e)
		e = end;
	str_copy_n(ev->err_text, sizeof(ev->err_text), t, (size_t)(e - t));
	ev->err = log_errno_at_start(t, (size_t)(e - t));
	/* UCX 1.13+ after a refused ibv_reg_mr: "... Please set max locked
	 * memory (ulimit -l) to 'unlimited' (current: 64 kbytes)" */
	const char *cur = log_find(t, end, "(current: ");
	if (cur) {
		const char *v = cur + 10;
		if (log_starts(v, end, "unlimited")) {
			ev->has_memlock = true, ev->memlock = UINT64_MAX;
		} else if (v < end && *v >= '0' && *v <= '9') {
			const char *q = v;
			while (q < end && *q >= '0' && *q <= '9')
				q++;
			if (log_starts(q, end, " kbytes)") && q - v <= 15) {
				ev->has_memlock = true;
				ev->memlock = (uint64_t)log_num(v, (size_t)(q - v), 10) << 10;
			}
		}
	}
	log_reg_range(c, end, ev);
	ev->kind = ev->op ? LOG_FAILURE_CALL : LOG_UNRECOGNISED;
	return true;
}

/* [1700000000.123456] [host:1234:0]   ib_md.c:309  UCX  ERROR msg */
bool log_parse_ucx(const char *s, const char *end, struct log_event *ev)
{
	const char *u = log_find(s, end, " UCX ");
	if (!u)
		return false;
	const char *lv = u + 5;
	while (lv < end && *lv == ' ')
		lv++;
	const char *m = memchr(lv, ' ', (size_t)(end - lv));
	if (!m)
		return false;
	ev->source = LOG_SRC_UCX;
	const char *h = log_find(s, u, "] [");
	if (h) {
		const char *hs = h + 3, *he = memchr(hs, ']', (size_t)(u - hs));
		const char *c = he ? memchr(hs, ':', (size_t)(he - hs)) : NULL;
		if (c) {
			str_copy_n(ev->host, sizeof(ev->host), hs, (size_t)(c - hs));
			ev->pid = (int)log_num(c + 1, (size_t)(he - c - 1), 10);
		}
	}
	bool error = log_starts(lv, end, "ERROR") || log_starts(lv, end, "WARN");
	while (m < end && *m == ' ')
		m++;
	bool named = error && call_failed(m, end, ev);
	if (named && ev->kind == LOG_FAILURE_CALL)
		return true;
	/* UCX's own formats (ucx_shapes.tsv: DEVX's "failed on DEV, syndrome
	 * 0x..: TEXT", "failed : TEXT"), a CUDA call's driver error (a context
	 * line, no errno), the mlx5 CQE's "TEXT on DEV:PORT/LL (synd 0x.." */
	if (error && (log_parse_ucx_shape(m, end, ev) || log_parse_cuda_call(m, end, ev) ||
		      log_parse_ucx_cqe(m, end, ev)))
		return true;
	if (named)
		return true;
	/* rc_verbs/dc_verbs: "Send completion with error on qp 0x226c3:
	 * transport retry counter exceeded syndrome 0x81" */
	if (error && log_parse_completion(m, end, ev))
		return true;
	ev->kind = error ? LOG_UNRECOGNISED : LOG_NOT_FAILURE;
	return true;
}

/* libfabric:PID:TIME:prov:subsys:func():LINE<level> msg */
bool log_parse_libfabric(const char *s, const char *end, struct log_event *ev)
{
	if (!log_starts(s, end, "libfabric:"))
		return false;
	ev->source = LOG_SRC_LIBFABRIC;
	const char *c = memchr(s + 10, ':', (size_t)(end - s - 10));
	if (c)
		ev->pid = (int)log_num(s + 10, (size_t)(c - s - 10), 10);
	const char *lt = memchr(s, '<', (size_t)(end - s));
	const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
	if (!gt) {
		ev->kind = LOG_UNRECOGNISED;
		return true;
	}
	bool warn = log_starts(lt, end, "<warn>") || log_starts(lt, end, "<error>") ||
		    log_starts(lt, end, "<fatal>");
	const char *m = gt + 1;
	while (m < end && *m == ' ')
		m++;
	if (!warn) {
		ev->kind = LOG_NOT_FAILURE;
		return true;
	}
	if (call_failed(m, end, ev) && ev->kind == LOG_FAILURE_CALL)
		return true;
	/* "ibv_reg_mr: Cannot allocate memory(12)", "Unable to register memory: ..." */
	const char *col = log_find(m, end, ": ");
	ev->kind = LOG_UNRECOGNISED;
	if (col) {
		const char *t = col + 2, *e = end;
		const char *par = memrchr(t, '(', (size_t)(end - t));
		if (par && end[-1] == ')') {
			ev->err = log_errno_num(log_num(par + 1, (size_t)(end - par - 2), 10));
			e = par;
		}
		str_copy_n(ev->err_text, sizeof(ev->err_text), t, (size_t)(e - t));
		if (!ev->err)
			ev->err = log_errno_from_text(t, (size_t)(e - t));
		char call[40];
		str_copy_n(call, sizeof(call), m, (size_t)(col - m));
		if (log_op_of_call(call)) {
			str_copy_n(ev->call, sizeof(ev->call), call, strlen(call)); /* not the bytes after it */
		} else if (log_find(m, col, "register") || log_find(m, col, "reg_mr") ||
			   log_find(m, col, "MR")) {
			str_copy_n(ev->call, sizeof(ev->call), "fi_mr_reg", 9);
		}
		ev->op = log_op_of_call(ev->call);
		if (!ev->op && ev->call[0])
			ev->op = OP_REG_MR;
		if (ev->op)
			ev->kind = LOG_FAILURE_CALL;
	}
	if (ev->kind == LOG_FAILURE_CALL && !ev->err)
		ev->no_errno = true;
	/* a provider's message of its own that names a verbs call ("ibv_open_device
	 * failed! errno: 2", EFA): the call, read as any program's line is */
	if (ev->kind == LOG_UNRECOGNISED) {
		int pid = ev->pid;
		if (log_parse_anycall(m, end, ev)) {
			ev->source = LOG_SRC_LIBFABRIC;
			ev->pid = pid;
		}
	}
	return true;
}

static const struct {
	const char *lit, *call;
} rdma_core_failures[] = {
	{ "Failed to get IB devices list", "ibv_get_device_list" },
	{ "No IB devices found", "ibv_get_device_list" },
	{ "Failed to open device", "ibv_open_device" },
	{ "Couldn't get context for", "ibv_open_device" },
	{ "Couldn't allocate PD", "ibv_alloc_pd" },
	{ "Failed to allocate PD", "ibv_alloc_pd" },
	{ "Couldn't register MR", "ibv_reg_mr" },
	{ "Couldn't allocate MR", "ibv_reg_mr" },
	{ "Failed to register MR", "ibv_reg_mr" },
	/* Mooncake's glog "Failed to register memory 0x..: Invalid argument [22]" */
	{ "Failed to register memory", "ibv_reg_mr" },
	{ "Couldn't create CQ", "ibv_create_cq" },
	{ "Failed to create CQ", "ibv_create_cq" },
	/* Open MPI's help text (oob/ud, btl/openib): "Failed to create a
	 * completion queue (CQ):", its "Error:" line follows on its own */
	{ "Failed to create a completion queue", "ibv_create_cq" },
	{ "Couldn't create QP", "ibv_create_qp" },
	{ "Failed to create QP", "ibv_create_qp" },
	{ "Failed to modify QP", "ibv_modify_qp" },
	{ "Couldn't modify QP", "ibv_modify_qp" },
	{ "Failed to create AH", "ibv_create_ah" },
};

/* "Couldn't register GPU MR", "Failed to register host MR": a program's
 * registration phrase with one word of its own (the buffer's kind) between
 * the verb and "MR".  The start of the word, or NULL. */
static const char *register_word_mr(const char *s, const char *end)
{
	static const char *const verbs[] = { "ouldn't register ", "ailed to register ", "ould not register " };

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		const char *w = log_find_nocase(s, end, verbs[i]);
		if (!w)
			continue;
		w += strlen(verbs[i]);
		const char *e = w;
		while (e < end && ((*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9')))
			e++;
		if (e == w || e + 3 > end || e[0] != ' ' || e[1] != 'M' || e[2] != 'R')
			continue;
		if (e + 3 < end && ((e[3] >= 'A' && e[3] <= 'Z') || (e[3] >= 'a' && e[3] <= 'z')))
			continue;
		return w;
	}
	return NULL;
}

/* a tool's phrase for call's failure at p: the errno after its ": " when
 * the tool printed one ("...: Cannot allocate memory"; "Invalid argument
 * [22]": the text, then more of the line) */
static bool rdma_core_failure(const char *call, const char *p, const char *end, struct log_event *ev)
{
	ev->source = LOG_SRC_RDMA_CORE;
	ev->kind = LOG_FAILURE_CALL;
	str_copy_n(ev->call, sizeof(ev->call), call, strlen(call));
	ev->op = log_op_of_call(ev->call);
	const char *col = log_find(p, end, ": ");
	if (col) {
		str_copy_n(ev->err_text, sizeof(ev->err_text), col + 2, (size_t)(end - col - 2));
		ev->err = log_errno_from_text(col + 2, (size_t)(end - col - 2));
		if (!ev->err)
			ev->err = log_errno_at_start(col + 2, (size_t)(end - col - 2));
	}
	ev->no_errno = !ev->err;
	return true;
}

bool log_parse_rdma_core(const char *s, const char *end, struct log_event *ev)
{
	struct fmt_cap c[FMT_CAPS_MAX];
	int nc;

	if (log_starts(s, end, "libibverbs: Warning: RLIMIT_MEMLOCK is ") &&
	    fmt_match("libibverbs: Warning: RLIMIT_MEMLOCK is %lu bytes.%s", s, (size_t)(end - s), c, &nc)) {
		ev->source = LOG_SRC_RDMA_CORE;
		ev->kind = LOG_CONTEXT, ev->ctx = LOG_CTX_SETTING;
		str_copy_n(ev->setting_name, sizeof(ev->setting_name), "RLIMIT_MEMLOCK", 14);
		str_copy_n(ev->setting_value, sizeof(ev->setting_value), c[0].p, c[0].n);
		if (c[0].n <= 18) {
			ev->has_memlock = true;
			ev->memlock = (uint64_t)log_num(c[0].p, c[0].n, 10);
		}
		return true;
	}
	if (log_starts(s, end, "libibverbs: ")) {
		ev->source = LOG_SRC_RDMA_CORE;
		ev->kind = LOG_NOT_FAILURE;
		return true;
	}
	if (!log_find(s, end, "ouldn't") && !log_find(s, end, "ailed") && !log_find(s, end, "No IB"))
		return false;
	for (size_t i = 0; i < sizeof(rdma_core_failures) / sizeof(rdma_core_failures[0]); i++) {
		/* either case: programs copy the phrases ("failed to modify QP
		 * to RTR", "Failed to create qp": the field corpus) */
		const char *p = log_find_nocase(s, end, rdma_core_failures[i].lit);
		if (!p)
			continue;
		return rdma_core_failure(rdma_core_failures[i].call, p, end, ev);
	}
	const char *w = register_word_mr(s, end);
	if (w)
		return rdma_core_failure("ibv_reg_mr", w, end, ev);
	return false;
}

/* system tools' failure messages as their sources print them: the whole
 * line as a format, the call that failed, which conversion is the file and
 * which the strerror text (-1 none), and the errno a message stands for
 * when it prints none */
static const struct {
	const char *fmt, *call;
	int path, text, err;
} tool_failures[] = {
	/* util-linux fallocate(1) 2.25+ (sys-utils/fallocate.c): errx() when
	 * -n/-p met EOPNOTSUPP, else err(EXIT_FAILURE, _("fallocate failed"))
	 * (also for --posix's posix_fallocate), "fallocate: <msg>: <strerror>" */
	{ "fallocate: fallocate failed: keep size mode is unsupported", "fallocate", -1, -1, EOPNOTSUPP },
	{ "fallocate: fallocate failed: %s", "fallocate", -1, 0, 0 },
	/* 2.17 to 2.24: err(EXIT_FAILURE, _("%s: fallocate failed"), fname) */
	{ "fallocate: %s: fallocate failed: %s", "fallocate", 0, 1, 0 },
};

/* A strerror text at p in either case (Go prints them in lower case: "cannot
 * allocate memory"), ending where a word ends: its errno, 0 none. */
static int errno_text_nocase(const char *p, const char *end)
{
	int best = 0;
	size_t best_len = 0;

	for (int e = 1; e < 134; e++) {
		const char *d = strerrordesc_np(e);
		size_t l = d ? strlen(d) : 0;
		if (!l || l > (size_t)(end - p) || l <= best_len || strncasecmp(d, p, l))
			continue;
		if (p + l < end && ((p[l] >= 'A' && p[l] <= 'Z') || (p[l] >= 'a' && p[l] <= 'z')))
			continue;
		best = e, best_len = l;
	}
	return best;
}

/* A program's own words for a refused mlock()/mlockall(): a verb of
 * failure, "lock", and "memory" in the same clause (Vault's "Failed to lock
 * memory: cannot allocate memory", Cassandra's "Unable to lock JVM memory
 * (ENOMEM)", qdrant's "Failed to lock ... in memory: Cannot allocate memory
 * (os error 12)"), then an errno the line names: a marker's number or an
 * E-name (log_errno_scan), else a strerror text in either case.  No errno,
 * no failure of ours: "lock" means file locks and mutexes too. */
static bool lock_memory(const char *s, const char *end, struct log_event *ev)
{
	static const char *const verbs[] = { "ailed to lock ", "nable to lock ", "ould not lock ",
					     "ouldn't lock ", "annot lock " };
	const char *v = NULL, *m;
	int e;

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]) && !v; i++)
		if ((v = log_find_nocase(s, end, verbs[i])))
			v += strlen(verbs[i]);
	if (!v || !(m = log_find_nocase(v, end, "memory")) || m - v > 80)
		return false;
	for (const char *p = v; p < m; p++)
		if (*p == ':' || *p == ';' || *p == '(')
			return false; /* "memory" of another clause: the strerror's own */
	m += 6;
	e = log_errno_scan(m, (size_t)(end - m));
	for (const char *p = m; !e && p < end; p++)
		if (p == m || p[-1] == ' ')
			e = errno_text_nocase(p, end);
	if (!e)
		return false;
	ev->source = LOG_SRC_TOOL;
	ev->kind = LOG_FAILURE_CALL;
	str_copy_n(ev->call, sizeof(ev->call), "mlock", 5);
	ev->op = log_op_of_call(ev->call);
	ev->err = e;
	ev->no_errno = false;
	return true;
}

bool log_parse_tools(const char *s, const char *end, struct log_event *ev)
{
	if (lock_memory(s, end, ev))
		return true;
	for (size_t i = 0; i < sizeof(tool_failures) / sizeof(tool_failures[0]); i++) {
		const char *fmt = tool_failures[i].fmt;
		size_t lit = fmt_literal_prefix(fmt);
		struct fmt_cap c[FMT_CAPS_MAX];
		int nc;
		if ((size_t)(end - s) < lit || memcmp(s, fmt, lit) ||
		    !fmt_match(fmt, s, (size_t)(end - s), c, &nc))
			continue;
		ev->source = LOG_SRC_TOOL;
		ev->kind = LOG_FAILURE_CALL;
		str_copy_n(ev->call, sizeof(ev->call), tool_failures[i].call, strlen(tool_failures[i].call));
		ev->op = log_op_of_call(ev->call);
		int pi = tool_failures[i].path, ti = tool_failures[i].text;
		if (pi >= 0 && pi < nc)
			str_copy_n(ev->shm_path, sizeof(ev->shm_path), c[pi].p, c[pi].n);
		ev->err = tool_failures[i].err;
		if (ti >= 0 && ti < nc) {
			str_copy_n(ev->err_text, sizeof(ev->err_text), c[ti].p, c[ti].n);
			ev->err = log_errno_from_text(c[ti].p, c[ti].n);
		}
		ev->no_errno = !ev->err;
		return true;
	}
	return false;
}
