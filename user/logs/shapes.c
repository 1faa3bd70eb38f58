// SPDX-License-Identifier: GPL-2.0-only
/* shapes.c - NCCL's failure lines as data: the table tools/nccl-shapes.py
 * read from NCCL's sources per release (user/logs/nccl_shapes.tsv, turned
 * into C by tools/shapes-to-c.sh at build time), and a message matched
 * against it.  What a conversion names comes from the table's `fields`
 * column, so a new release's line is rows, not code. */
#include "logs/fmtmatch.h"
#include "logs/parse.h"
#include "logs/prefilter.h"

#include <stdlib.h>
#include <string.h>

const struct log_shape log_nccl_shapes[] = {
#include "nccl_shapes.h"
};
const size_t log_nccl_shapes_n = sizeof(log_nccl_shapes) / sizeof(log_nccl_shapes[0]);

/* the next comma-separated name of fields into name */
static const char *next_field(const char *f, char *name, size_t cap)
{
	size_t n = 0;

	while (*f && *f != ',') {
		if (n + 1 < cap)
			name[n++] = *f;
		f++;
	}
	name[n] = 0;
	return *f == ',' ? f + 1 : f;
}

/* what a conversion names (the fields column's words), found once per
 * row (log_shapes_prepare): a line's fields are then a switch, not a walk of
 * string compares per conversion */
enum field {
	F_NONE = -1,
	F_ERR_TEXT,
	F_ERR,
	F_DEVICE,
	F_PORT,
	F_CUR_STATE,
	F_NEXT_STATE,
	F_GID_INDEX,
	F_LOCAL_GID,
	F_REMOTE_GID,
	F_WC_STATUS,
	F_WC_STATUS_NAME,
	F_WC_OPCODE,
	F_WC_OPCODE_NAME,
	F_WC_LEN,
	F_WC_VENDOR_ERR,
	F_WC_PEER,
	F_WC_HCA,
	F_WC_REQ_TYPE,
	F_ASYNC_EVENT,
	F_ASYNC_CODE,
	F_SHM_PATH,
	F_SHM_SIZE,
	F_CUDA_ERROR,
	F_RESULT_CODE,
	F_GDR_STATE,
	F_QP_DETAIL,
};
static const char *const field_names[] = {
	"err_text",
	"err",
	"device",
	"port",
	"cur_state",
	"next_state",
	"gid_index",
	"local_gid",
	"remote_gid",
	"wc_status",
	"wc_status_name",
	"wc_opcode",
	"wc_opcode_name",
	"wc_len",
	"wc_vendor_err",
	"wc_peer",
	"wc_hca",
	"wc_req_type",
	"async_event",
	"async_code",
	"shm_path",
	"shm_size",
	"cuda_error",
	"result_code",
	"gdr_state",
	"qp_detail",
};
_Static_assert(sizeof(field_names) / sizeof(field_names[0]) == F_QP_DETAIL + 1, "a name per field");
#define SHAPES_MAX 256
static signed char field_of[SHAPES_MAX][FMT_CAPS_MAX];

static void set_field(struct log_event *ev, int field, const struct fmt_cap *c, bool *enabled)
{
	const char *p = c->p;
	size_t n = c->n;
	long long v = log_num(p, n, c->conv == 'x' || c->conv == 'p' ? 16 : 10);

#define STR(dst) str_copy_n(dst, sizeof(dst), p, n)
	switch (field) {
	case F_ERR_TEXT:
		STR(ev->err_text);
		if (!ev->err)
			ev->err = log_errno_from_text(p, n);
		break;
	case F_ERR:
		ev->err = log_errno_num(v);
		break;
	case F_DEVICE:
		STR(ev->device);
		break;
	case F_PORT:
		ev->port = (int)v;
		break;
	case F_CUR_STATE:
		STR(ev->qp.cur_state);
		break;
	case F_NEXT_STATE:
		STR(ev->qp.next_state);
		break;
	case F_GID_INDEX:
		ev->qp.gid_index = (int)v;
		break;
	case F_LOCAL_GID:
		STR(ev->qp.local_gid);
		break;
	case F_REMOTE_GID:
		STR(ev->qp.remote_gid);
		break;
	case F_WC_STATUS:
		ev->wc.status = (int)v;
		break;
	case F_WC_STATUS_NAME:
		STR(ev->wc.status_name);
		break;
	case F_WC_OPCODE:
		ev->wc.opcode = (int)v;
		break;
	case F_WC_OPCODE_NAME:
		STR(ev->wc.opcode_name);
		break;
	case F_WC_LEN:
		ev->wc.len = (long)v;
		break;
	case F_WC_VENDOR_ERR:
		ev->wc.vendor_err = (long)v;
		break;
	case F_WC_PEER:
		STR(ev->wc.peer);
		break;
	case F_WC_HCA:
		STR(ev->wc.hca);
		break;
	case F_WC_REQ_TYPE:
		STR(ev->wc.req_type);
		break;
	case F_ASYNC_EVENT:
		STR(ev->async_event);
		break;
	case F_ASYNC_CODE:
		ev->async_code = (int)v;
		break;
	case F_SHM_PATH:
		STR(ev->shm_path);
		break;
	case F_SHM_SIZE:
		ev->shm_size = (uint64_t)v;
		break;
	case F_CUDA_ERROR:
		STR(ev->cuda_error);
		break;
	case F_RESULT_CODE:
		ev->has_rc = true, ev->rc = (long)v;
		break;
	case F_GDR_STATE:
		/* "Enabled", and 2.19+'s "(DMABUF) enabled": the state is the
		 * last word ("Disabled" ends otherwise) */
		*enabled = n >= 7 && (!memcmp(p + n - 7, "Enabled", 7) || !memcmp(p + n - 7, "enabled", 7));
		break;
	case F_QP_DETAIL:
		/* 2.24+: ibvModifyQpLog's text, itself a row of the table */
		for (size_t i = 0; i < log_nccl_shapes_n; i++) {
			const struct log_shape *d = &log_nccl_shapes[i];
			struct fmt_cap caps[FMT_CAPS_MAX];
			int nc;
			if (d->level != 'D' || !fmt_match(d->fmt, p, n, caps, &nc))
				continue;
			for (int k = 0; k < nc && k < FMT_CAPS_MAX; k++)
				set_field(ev, field_of[i][k], &caps[k], enabled);
			break;
		}
		break;
	default: /* "-": a conversion nobody reads */
		break;
	}
#undef STR
}

/* how much of fmt is literal text: of two shapes that both match a line
 * ("failed with error %s" and "failed with error %s errno %d"), the one
 * that says more is the one that printed it */
static size_t literal_len(const char *fmt)
{
	size_t n = 0;
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			n++;
			continue;
		}
		if (f[1] == '%') {
			n++, f++;
			continue;
		}
		while (f[1] && !strchr("diouxXspcf", f[1]))
			f++;
		if (f[1])
			f++;
	}
	return n;
}

/* Which rows a message can be, found without trying them: a row whose
 * format starts with at least four bytes of literal text matches only a
 * message that starts with those four bytes, so the rows are indexed by
 * them (one binary search per message instead of a compare per row); the
 * few that start with a conversion ("%s:%d Cuda failure '%s'") float and
 * are tried when their longest literal run is in the message.  Built once
 * from the table, never a second list; with the prefilter off
 * (log_prefilter_set) every row is tried and tests/unit/test_prefilter.c
 * compares the two. */
static struct {
	const char *p;
	size_t n, prefix, literal;
	size_t rare; /* where in p..n its least common byte stands */
} lit[sizeof(log_nccl_shapes) / sizeof(log_nccl_shapes[0])];
static struct {
	uint32_t key; /* the format's first four bytes */
	unsigned row;
} by_start[SHAPES_MAX];
static size_t n_by_start;
static uint64_t floating[SHAPES_MAX / 64]; /* rows tried by their longest run */
static bool indexed;

_Static_assert(sizeof(log_nccl_shapes) / sizeof(log_nccl_shapes[0]) <= SHAPES_MAX,
	       "the shape index holds SHAPES_MAX rows");

static uint32_t start_key(const char *p)
{
	uint32_t k;
	memcpy(&k, p, sizeof(k));
	return k;
}

static int by_key(const void *a, const void *b)
{
	const __typeof__(by_start[0]) *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* how common a byte is in a log line, roughly: lower-case letters,
 * digits and spaces everywhere, the rest seldom */
static int commonness(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ' ' ? 1 : 0;
}

void log_shapes_prepare(void)
{
	if (indexed)
		return;
	for (size_t i = 0; i < log_nccl_shapes_n; i++) {
		const char *fmt = log_nccl_shapes[i].fmt;
		lit[i].n = log_fmt_longest_literal(fmt, &lit[i].p);
		lit[i].prefix = fmt_literal_prefix(fmt);
		lit[i].literal = literal_len(fmt);
		lit[i].rare = 0;
		for (size_t k = 1; k < lit[i].n; k++)
			if (commonness((unsigned char)lit[i].p[k]) < commonness((unsigned char)lit[i].p[lit[i].rare]))
				lit[i].rare = k;
		const char *f = log_nccl_shapes[i].fields ? log_nccl_shapes[i].fields : "";
		for (int k = 0; k < FMT_CAPS_MAX; k++) {
			char name[32];
			field_of[i][k] = F_NONE;
			if (!*f)
				continue;
			f = next_field(f, name, sizeof(name));
			for (int x = 0; x <= F_QP_DETAIL; x++)
				if (!strcmp(name, field_names[x]))
					field_of[i][k] = (signed char)x;
		}
		if (log_nccl_shapes[i].level == 'D')
			continue;
		if (lit[i].prefix >= 4)
			by_start[n_by_start].key = start_key(fmt), by_start[n_by_start++].row = (unsigned)i;
		else
			floating[i / 64] |= 1ull << (i % 64);
	}
	qsort(by_start, n_by_start, sizeof(by_start[0]), by_key);
	indexed = true;
}

/* whether s..end holds row i's longest literal run: memchr for the run's
 * least common byte, then the run compared around it (memmem per row per
 * line was a sixth of the reader's time) */
static bool has_longest_literal(size_t i, const char *s, const char *end)
{
	size_t n = lit[i].n, r = lit[i].rare;

	if (!n)
		return true;
	const char *from = s + r, *last = end - (n - r); /* where the rare byte may stand */
	while (from < last + 1 && last >= from) {
		const char *q = memchr(from, lit[i].p[r], (size_t)(last - from) + 1);
		if (!q)
			return false;
		if (!memcmp(q - r, lit[i].p, n))
			return true;
		from = q + 1;
	}
	return false;
}

/* the rows s..end can be, as bits in table order; false when none */
static bool candidates(const char *s, const char *end, uint64_t rows[SHAPES_MAX / 64])
{
	bool any = false;

	if (!log_prefilter_enabled()) {
		memset(rows, 0xff, SHAPES_MAX / 8);
		return true;
	}
	memset(rows, 0, SHAPES_MAX / 8);
	if (end - s >= 4) {
		uint32_t k = start_key(s);
		size_t lo = 0, hi = n_by_start;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (by_start[mid].key < k)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n_by_start && by_start[lo].key == k; lo++) {
			rows[by_start[lo].row / 64] |= 1ull << (by_start[lo].row % 64);
			any = true;
		}
	}
	for (size_t w = 0; w < SHAPES_MAX / 64; w++)
		for (uint64_t f = floating[w]; f; f &= f - 1) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(f);
			if (has_longest_literal(i, s, end)) {
				rows[w] |= 1ull << (i % 64);
				any = true;
			}
		}
	return any;
}

bool log_parse_nccl_message(const char *s, const char *end, char level, struct log_event *ev)
{
	size_t n = (size_t)(end - s);
	const struct log_shape *best = NULL;
	struct fmt_cap best_caps[FMT_CAPS_MAX];
	int best_nc = 0;
	size_t best_len = 0;

	uint64_t rows[SHAPES_MAX / 64];

	log_shapes_prepare();
	if (!candidates(s, end, rows))
		return false;
	/* the candidates' bits, lowest first: the table's order */
	for (size_t w = 0, i; w < SHAPES_MAX / 64; w++)
	for (uint64_t bits = rows[w]; bits && (i = w * 64 + (size_t)__builtin_ctzll(bits)) < log_nccl_shapes_n;
	     bits &= bits - 1) {
		const struct log_shape *sh = &log_nccl_shapes[i];
		struct fmt_cap caps[FMT_CAPS_MAX];
		int nc;

		if (sh->level == 'D' || (level && sh->level != level))
			continue;
		size_t pre = lit[i].prefix;
		if (pre > n || memcmp(sh->fmt, s, pre))
			continue;
		/* a format that starts with a conversion: its longest literal
		 * text must be in the line before any backtracking */
		if (pre < 4 && !has_longest_literal(i, s, end))
			continue;
		if (!fmt_match(sh->fmt, s, n, caps, &nc))
			continue;
		size_t l = lit[i].literal;
		if (best && l <= best_len)
			continue;
		best = sh, best_len = l, best_nc = nc;
		memcpy(best_caps, caps, sizeof(caps));
	}
	if (!best)
		return false;
	const struct log_shape *sh = best;
	bool enabled = false;
	for (int k = 0; k < best_nc && k < FMT_CAPS_MAX; k++)
		set_field(ev, field_of[sh - log_nccl_shapes][k], &best_caps[k], &enabled);
	ev->source = LOG_SRC_NCCL;
	ev->shape = sh;
	ev->kind = sh->kind;
	ev->nocall = sh->nocall;
	if (sh->call && !strncmp(sh->call, "ibv_", 4))
		str_copy_n(ev->call, sizeof(ev->call), sh->call, strlen(sh->call));
	else if (sh->call && !strcmp(sh->call, "posix_fallocate"))
		str_copy_n(ev->call, sizeof(ev->call), "posix_fallocate", 15);
	ev->op = sh->op;
	if (ev->kind == LOG_FAILURE_CALL && sh->how == LOG_ERRNO_NONE && !ev->err)
		ev->no_errno = true;
	if (sh->nocall == LOG_NC_GDR_DISABLED && enabled) {
		ev->kind = LOG_NOT_FAILURE;
		ev->nocall = LOG_NC_NONE;
	}
	return true;
}
