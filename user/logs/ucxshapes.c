// SPDX-License-Identifier: GPL-2.0-only
/* ucxshapes.c - UCX's own failure lines, as data: user/logs/ucx_shapes.tsv,
 * which tools/ucx-shapes.py reads from UCX's sources at every release
 * (src/uct/ib/: each ucs_error/ucs_warn/ucs_diag/ucs_log that names a verbs,
 * mlx5dv or librdmacm call and says it failed, its %m as %s), compiled in
 * by tools/ucx-shapes-to-c.sh.
 *
 * - the formats the generic "CALL(...) failed: TEXT" (others.c) misses:
 *   "mlx5dv_devx_obj_create(QP) failed on mlx5_0, syndrome 0x2c4154: Remote
 *   I/O error", "ibv_modify_qp(DCI, RTR) failed : Invalid argument",
 *   "ibv_create_ah(...) for ... on ... failed: ...", "mlx5dv_devx_umem_reg
 *   (size=.. access=0x..) failed: ...": each matched as printf printed it
 *   (fmtmatch.c); the call and its op are the row's, a DEVX object's op its
 *   object's (QP, DCT: create_qp; CQ: create_cq; MKEY: reg_mr), the errno
 *   the strerror text of the last %s;
 * - the MLNX_OFED experimental verbs UCX 1.6..1.13 names ("ibv_exp_reg_mr(
 *   address=0xf154610, length=6544, access=0xf) failed: Resource temporarily
 *   unavailable"): the op of their rdma-core name (log_ucx_call_op);
 * - uct_ib_mlx5_completion_with_err()'s line "Transport retry count
 *   exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" (UCX 1.5's
 *   "Error on mlx5_3:1 QP 0x.. wqe[..]: TEXT (synd 0x15 vend 0x81)" too):
 *   the CQE syndrome's text, whose work completion status rdma-core's mlx5
 *   provider gives (providers/mlx5/cq.c): a completion error, no kernel
 *   refusal (LOG_NC_COMPLETION). */
#include "logs/fmtmatch.h"
#include "logs/parse.h"

#include <string.h>

static const struct ucx_fmt {
	const char *fmt, *call;
	enum rdma_op op;
	bool obj; /* the op is the DEVX object's (the text in the call's parentheses) */
} ucx_fmts[] = {
#define UCX_FMT(f, c, o, b) { f, c, o, b },
#include "ucx_shapes.h"
};

static const struct {
	const char *name;
	enum rdma_op op;
} ucx_objs[] = {
#define UCX_OBJ(n, o) { n, o },
#include "ucx_shapes.h"
};

static const struct {
	const char *text;
	int status;
	const char *name;
} ucx_cqes[] = {
#define UCX_CQE(t, s, n) { t, s, n },
#include "ucx_shapes.h"
};

static const struct {
	const char *name;
	enum rdma_op op;
} ucx_calls[] = {
#define UCX_CALL(n, o) { n, o },
#include "ucx_shapes.h"
};

enum rdma_op log_ucx_call_op(const char *call)
{
	for (size_t i = 0; call && i < sizeof(ucx_calls) / sizeof(ucx_calls[0]); i++)
		if (!strcmp(call, ucx_calls[i].name))
			return ucx_calls[i].op;
	return OP_NONE;
}

/* the DEVX object named right after "CALL(": "QP", "DCT", "CQ", "MKEY_ALIAS" */
static enum rdma_op object_op(const char *s, const char *end, const char *call)
{
	const char *p = log_find(s, end, call);
	if (!p)
		return OP_NONE;
	p += strlen(call);
	if (p >= end || *p != '(')
		return OP_NONE;
	p++;
	const char *e = p;
	while (e < end && *e != ')' && *e != ',' && *e != ' ')
		e++;
	for (size_t i = 0; i < sizeof(ucx_objs) / sizeof(ucx_objs[0]); i++)
		if (strlen(ucx_objs[i].name) == (size_t)(e - p) && !memcmp(ucx_objs[i].name, p, (size_t)(e - p)))
			return ucx_objs[i].op;
	return OP_NONE;
}

bool log_parse_ucx_shape(const char *s, const char *end, struct log_event *ev)
{
	struct fmt_cap cap[FMT_CAPS_MAX];
	int nc;

	while (end > s && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	for (size_t i = 0; i < sizeof(ucx_fmts) / sizeof(ucx_fmts[0]); i++) {
		const struct ucx_fmt *f = &ucx_fmts[i];
		/* cheap first: the call's name is in the line */
		if (!log_find(s, end, f->call) || !fmt_match(f->fmt, s, (size_t)(end - s), cap, &nc))
			continue;
		enum rdma_op op = f->obj ? object_op(s, end, f->call) : f->op;
		if (!op)
			continue;
		ev->kind = LOG_FAILURE_CALL;
		str_copy_n(ev->call, sizeof(ev->call), f->call, strlen(f->call));
		ev->op = op;
		/* the strerror text is the last %s (UCX's %m) */
		int last = -1;
		for (int k = 0; k < nc; k++)
			if (cap[k].conv == 's')
				last = k;
		ev->err = 0;
		ev->err_text[0] = '\0';
		if (last >= 0) {
			str_copy_n(ev->err_text, sizeof(ev->err_text), cap[last].p, cap[last].n);
			ev->err = log_errno_at_start(cap[last].p, cap[last].n);
		}
		ev->no_errno = !ev->err;
		return true;
	}
	return false;
}

bool log_parse_ucx_cqe(const char *s, const char *end, struct log_event *ev)
{
	const char *synd = log_find(s, end, " (synd 0x");
	if (!synd)
		return false;
	/* the longest text before it: "Local protection error" over "Local
	 * protection" */
	size_t best = 0;
	int k = -1;
	const char *at = NULL;
	for (size_t i = 0; i < sizeof(ucx_cqes) / sizeof(ucx_cqes[0]); i++) {
		size_t n = strlen(ucx_cqes[i].text);
		const char *p = n > best ? log_find(s, synd, ucx_cqes[i].text) : NULL;
		if (p)
			best = n, k = (int)i, at = p;
	}
	if (k < 0)
		return false;
	ev->kind = LOG_FAILURE_NOCALL;
	ev->nocall = LOG_NC_COMPLETION;
	ev->wc.status = ucx_cqes[k].status;
	str_copy_n(ev->wc.status_name, sizeof(ev->wc.status_name), ucx_cqes[k].name, strlen(ucx_cqes[k].name));
	/* "vend 0x81": the vendor syndrome */
	const char *v = log_find(synd, end, "vend 0x");
	if (v) {
		const char *d = v + 7, *e = d;
		while (e < end && ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f')))
			e++;
		if (e > d && e - d <= 8)
			ev->wc.vendor_err = (long)log_num(d, (size_t)(e - d), 16);
	}
	/* "on mlx5_0:1/IB": the device and port */
	const char *on = log_find(at, synd, " on ");
	if (on) {
		const char *d = on + 4, *c = d;
		while (c < synd && *c != ':' && *c != ' ')
			c++;
		if (c < synd && *c == ':' && c > d) {
			str_copy_n(ev->device, sizeof(ev->device), d, (size_t)(c - d));
			str_copy_n(ev->wc.hca, sizeof(ev->wc.hca), d, (size_t)(c - d));
			ev->port = (int)log_num(c + 1, 1, 10);
		}
	}
	return true;
}
