// SPDX-License-Identifier: GPL-2.0-only
/* shapes.c - NCCL's failure lines as data: the table tools/nccl-shapes.py
 * read from NCCL's sources per release (user/logs/nccl_shapes.tsv, turned
 * into C by tools/shapes-to-c.sh at build time), and a message matched
 * against it.  What a conversion names comes from the table's `fields`
 * column, so a new release's line is rows, not code. */
#include "logs/fmtmatch.h"
#include "logs/parse.h"
#include "logs/prefilter.h"

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

static void set_field(struct log_event *ev, const char *name, const struct fmt_cap *c, bool *enabled)
{
	const char *p = c->p;
	size_t n = c->n;
	long long v = log_num(p, n, c->conv == 'x' || c->conv == 'p' ? 16 : 10);

#define STR(dst) str_copy_n(dst, sizeof(dst), p, n)
	if (!strcmp(name, "err_text")) {
		STR(ev->err_text);
		if (!ev->err)
			ev->err = log_errno_from_text(p, n);
	} else if (!strcmp(name, "err")) {
		ev->err = log_errno_num(v);
	} else if (!strcmp(name, "device")) {
		STR(ev->device);
	} else if (!strcmp(name, "port")) {
		ev->port = (int)v;
	} else if (!strcmp(name, "cur_state")) {
		STR(ev->qp.cur_state);
	} else if (!strcmp(name, "next_state")) {
		STR(ev->qp.next_state);
	} else if (!strcmp(name, "gid_index")) {
		ev->qp.gid_index = (int)v;
	} else if (!strcmp(name, "local_gid")) {
		STR(ev->qp.local_gid);
	} else if (!strcmp(name, "remote_gid")) {
		STR(ev->qp.remote_gid);
	} else if (!strcmp(name, "wc_status")) {
		ev->wc.status = (int)v;
	} else if (!strcmp(name, "wc_status_name")) {
		STR(ev->wc.status_name);
	} else if (!strcmp(name, "wc_opcode")) {
		ev->wc.opcode = (int)v;
	} else if (!strcmp(name, "wc_opcode_name")) {
		STR(ev->wc.opcode_name);
	} else if (!strcmp(name, "wc_len")) {
		ev->wc.len = (long)v;
	} else if (!strcmp(name, "wc_vendor_err")) {
		ev->wc.vendor_err = (long)v;
	} else if (!strcmp(name, "wc_peer")) {
		STR(ev->wc.peer);
	} else if (!strcmp(name, "wc_hca")) {
		STR(ev->wc.hca);
	} else if (!strcmp(name, "wc_req_type")) {
		STR(ev->wc.req_type);
	} else if (!strcmp(name, "async_event")) {
		STR(ev->async_event);
	} else if (!strcmp(name, "async_code")) {
		ev->async_code = (int)v;
	} else if (!strcmp(name, "shm_path")) {
		STR(ev->shm_path);
	} else if (!strcmp(name, "shm_size")) {
		ev->shm_size = (uint64_t)v;
	} else if (!strcmp(name, "cuda_error")) {
		STR(ev->cuda_error);
	} else if (!strcmp(name, "result_code")) {
		ev->has_rc = true, ev->rc = (long)v;
	} else if (!strcmp(name, "gdr_state")) {
		/* "Enabled", and 2.19+'s "(DMABUF) enabled": the state is the
		 * last word ("Disabled" ends otherwise) */
		*enabled = n >= 7 && (!memcmp(p + n - 7, "Enabled", 7) || !memcmp(p + n - 7, "enabled", 7));
	} else if (!strcmp(name, "qp_detail")) {
		/* 2.24+: ibvModifyQpLog's text, itself a row of the table */
		for (size_t i = 0; i < log_nccl_shapes_n; i++) {
			const struct log_shape *d = &log_nccl_shapes[i];
			struct fmt_cap caps[FMT_CAPS_MAX];
			int nc;
			if (d->level != 'D' || !fmt_match(d->fmt, p, n, caps, &nc))
				continue;
			const char *f = d->fields;
			char sub[32];
			for (int k = 0; k < nc && *f; k++) {
				f = next_field(f, sub, sizeof(sub));
				set_field(ev, sub, &caps[k], enabled);
			}
			break;
		}
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

/* each row's literal prefix and longest literal run, found once; the
 * longest runs are the table's anchors (prefilter.c): a message holding
 * none of them matches no row, and the rows are not tried */
static struct {
	const char *p;
	size_t n, prefix;
} lit[sizeof(log_nccl_shapes) / sizeof(log_nccl_shapes[0])];
static struct log_anchors anchors;

static void index_table(void)
{
	if (anchors.built)
		return;
	for (size_t i = 0; i < log_nccl_shapes_n; i++) {
		const char *fmt = log_nccl_shapes[i].fmt;
		size_t n = log_fmt_longest_literal(fmt, &lit[i].p);
		lit[i].n = n;
		lit[i].prefix = fmt_literal_prefix(fmt);
		if (log_nccl_shapes[i].level != 'D')
			log_anchors_add(&anchors, lit[i].p, n);
	}
	log_anchors_build(&anchors);
}

static bool has_longest_literal(size_t i, const char *s, const char *end)
{
	return !lit[i].n || memmem(s, (size_t)(end - s), lit[i].p, lit[i].n);
}

bool log_parse_nccl_message(const char *s, const char *end, char level, struct log_event *ev)
{
	size_t n = (size_t)(end - s);
	const struct log_shape *best = NULL;
	struct fmt_cap best_caps[FMT_CAPS_MAX];
	int best_nc = 0;
	size_t best_len = 0;

	index_table();
	if (!log_anchors_any(&anchors, s, end))
		return false;
	for (size_t i = 0; i < log_nccl_shapes_n; i++) {
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
		size_t l = literal_len(sh->fmt);
		if (best && l <= best_len)
			continue;
		best = sh, best_len = l, best_nc = nc;
		memcpy(best_caps, caps, sizeof(caps));
	}
	if (!best)
		return false;
	const struct log_shape *sh = best;
	bool enabled = false;
	const char *f = sh->fields ? sh->fields : "";
	char name[32];
	for (int k = 0; k < best_nc && *f; k++) {
		f = next_field(f, name, sizeof(name));
		set_field(ev, name, &best_caps[k], &enabled);
	}
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
