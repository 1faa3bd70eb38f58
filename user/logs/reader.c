// SPDX-License-Identifier: GPL-2.0-only
/* reader.c - one input, a line at a time (see logline.h): a line is kept
 * up to LOG_LINE_MAX bytes, the rest of it read and dropped, so memory is
 * the same for a 2 GB merged job log as for ten lines.  Each line is
 * classified by content (log_classify) and counted in one bucket; the
 * input's memory is only the NCCL version and the job it last named. */
#include "logs/parse.h"
#include "logs/twin.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* A batch: lines read ahead and classified together (in two threads where
 * twin.c starts one), handed out one by one.  Bounded: BATCH_LINES events
 * (~1.7 MB) and BATCH_BYTES of text plus one line. */
#define BATCH_LINES 1024
#define BATCH_BYTES (1 << 20)
/* a batch shorter than this is classified by one thread: the hand-over
 * costs more than half of it */
#define TWIN_MIN_LINES 64
/* the lines a thread takes at a time (~10 us of work): small enough that
 * waiting for the other thread's last piece costs little */
#define TWIN_PIECE 32

struct batch_line {
	size_t off, len; /* in text */
	bool cut, nul;
};

struct batch {
	char *text;
	struct batch_line *lines;
	struct log_event *evs;
	size_t n, next; /* lines read, the next to hand out */
	bool eof;
};

struct log_reader {
	FILE *f;
	bool own;
	const char *name;
	char *name_copy;
	struct log_counts counts;
	struct json_object *last_json;
	char error[128];
	char line[LOG_LINE_MAX + 1];
	char buf[64 << 10]; /* read ahead: a line is found with memchr, not getc */
	size_t pos, len;
	struct batch b;
	struct log_twin *twin;
	bool twin_tried; /* started at the first batch worth two threads */
	bool batched; /* b's buffers exist: next() hands out batches */
};

/* A call's failure whose part read no errno: the line may still print one
 * in a shape of its own (a provider's "ret=-12", glibc's "Unknown error
 * -95" for a number with no name, "[error code: 14]") */
static void errno_fallback(const char *s, const char *end, struct log_event *ev)
{
	int e;

	if (ev->kind == LOG_FAILURE_CALL && !ev->err && (e = log_errno_scan(s, (size_t)(end - s)))) {
		ev->err = e;
		ev->no_errno = false;
	}
}

/* A QP move whose part read no next state (NCCL's detail has one): a
 * program's "RTR -> RTS", "to RTS" says it as well, and the judge reads
 * only ev->qp.next_state */
static void qp_state_fallback(const char *s, const char *end, struct log_event *ev)
{
	static const char *const states[] = { "RTS", "RTR" };

	if (ev->kind != LOG_FAILURE_CALL || ev->op != OP_MODIFY_QP || ev->qp.next_state[0])
		return;
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		char arrow[8], to[8];
		snprintf(arrow, sizeof(arrow), "-> %s", states[i]);
		snprintf(to, sizeof(to), "to %s", states[i]);
		if (log_find(s, end, arrow) || log_find_nocase(s, end, to)) {
			snprintf(ev->qp.next_state, sizeof(ev->qp.next_state), "%s", states[i]);
			return;
		}
	}
}

void log_classify(const char *s, const char *end, struct log_event *ev, int depth)
{
	bool kernel = false;

	while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		end--;
	s = log_strip(s, end, ev, &kernel);
	if (s >= end) {
		ev->kind = LOG_NOT_FAILURE;
		if (kernel)
			ev->source = LOG_SRC_KERNEL;
		return;
	}
	struct json_object *keep;
	const char *msg;
	if (*s == '{' && log_parse_json(s, end, ev, depth, &keep, &msg)) {
		if (msg) {
			log_classify(msg, msg + strlen(msg), ev, depth + 1);
			json_object_put(keep);
		}
		return;
	}
	if (kernel && log_parse_kernel(s, end, true, ev))
		return;
	if (log_parse_job(s, end, ev) || log_parse_nccl(s, end, ev) || log_parse_framework(s, end, ev) || log_parse_ucx(s, end, ev) ||
	    log_parse_libfabric(s, end, ev) || log_parse_rdma_core(s, end, ev) ||
	    log_parse_tools(s, end, ev) || log_parse_kernel(s, end, false, ev) ||
	    log_parse_anycall(s, end, ev) || log_parse_completion(s, end, ev)) {
		errno_fallback(s, end, ev);
		qp_state_fallback(s, end, ev);
		return;
	}
	ev->kind = LOG_UNRECOGNISED;
}

void log_parts_prepare(void)
{
	log_shapes_prepare();
	log_anycall_prepare();
	log_bufword_prepare();
}

static void event_init(struct log_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->cuda_dev = -1;
	ev->rank = -1;
	ev->port = -1;
	ev->result_code = -1;
	ev->qp.gid_index = -1;
	ev->wc.status = ev->wc.opcode = -1;
	ev->wc.vendor_err = ev->wc.len = -1;
	ev->async_code = -1;
	ev->comm.rank = ev->comm.nranks = -1;
}

/* line..len classified up to its first NUL byte, nul (NULL: none) */
static void parse_upto(const char *line, size_t len, const char *nul, struct log_event *ev)
{
	event_init(ev);
	ev->raw_cut = len > LOG_RAW_MAX;
	str_copy_n(ev->raw, sizeof(ev->raw), line, len > LOG_RAW_MAX ? LOG_RAW_MAX : len);
	/* a NUL byte: the line is taken up to it for matching (counted) */
	log_classify(line, nul ? nul : line + len, ev, 0);
	ev->buf_word = (signed char)log_buffer_word(ev->raw, strlen(ev->raw));
	if (ev->kind == LOG_FAILURE_CALL && !ev->op)
		ev->op = log_op_of_call(ev->call);
}

void log_line_parse(const char *line, size_t len, struct log_event *ev)
{
	parse_upto(line, len, memchr(line, 0, len), ev);
}

struct log_reader *log_reader_new(FILE *f, const char *name)
{
	struct log_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->f = f;
	r->name = name ? name : "-";
	return r;
}

struct log_reader *log_reader_adopt(FILE *f, const char *path, bool gz, char *err, size_t errlen)
{
	struct log_reader *r = log_reader_new(f, NULL);
	char *copy = r ? strdup(path) : NULL;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		free(r);
		fclose(f);
		return NULL;
	}
	r->own = true;
	r->name = r->name_copy = copy;
	r->counts.gzip = gz;
	log_job_from_name(path, r->counts.job, sizeof(r->counts.job));
	return r;
}

struct log_reader *log_reader_open(const char *path, char *err, size_t errlen)
{
	bool gz;
	FILE *f = log_input_open(path, &gz, err, errlen);
	return f ? log_reader_adopt(f, path, gz, err, errlen) : NULL;
}

/* the next line into dst (LOG_LINE_MAX + 1 bytes): its kept length, *cut
 * when longer; -1 at the end */
static long read_line_into(struct log_reader *r, char *dst, bool *cut, bool *nul)
{
	size_t n = 0;
	bool any = false;

	*cut = *nul = false;
	for (;;) {
		if (r->pos == r->len) {
			r->pos = 0;
			r->len = fread(r->buf, 1, sizeof(r->buf), r->f);
			if (!r->len)
				break;
		}
		any = true;
		const char *p = r->buf + r->pos;
		size_t avail = r->len - r->pos;
		const char *nl = memchr(p, '\n', avail);
		size_t k = nl ? (size_t)(nl - p) : avail;
		r->pos += k + (nl != NULL);
		r->counts.bytes += k + (nl != NULL);
		if (memchr(p, 0, k))
			*nul = true;
		size_t keep = k < LOG_LINE_MAX - n ? k : LOG_LINE_MAX - n;
		memcpy(dst + n, p, keep);
		n += keep;
		*cut |= keep < k;
		if (nl)
			break;
	}
	if (!any)
		return -1;
	dst[n] = 0;
	return (long)n;
}

static long read_line(struct log_reader *r, bool *cut, bool *nul)
{
	return read_line_into(r, r->line, cut, nul);
}

/* ev, classified, counted and given the input's memory, in the input's
 * order (the classification itself may have run in another thread) */
static void account(struct log_reader *r, bool cut, bool nul, struct log_event *ev)
{
	json_object_put(r->last_json);
	r->last_json = NULL;
	ev->raw_cut |= cut;
	ev->input = r->name;
	struct log_counts *k = &r->counts;
	ev->lineno = (long)++k->lines;
	k->cut_lines += cut;
	k->nul_lines += nul;
	r->last_json = ev->json;
	if (ev->ctx == LOG_CTX_NCCL_VERSION || (ev->kind == LOG_FAILURE_SUMMARY && ev->nccl_version[0]))
		memcpy(k->nccl_version, ev->nccl_version, sizeof(k->nccl_version));
	else if (!ev->nccl_version[0])
		memcpy(ev->nccl_version, k->nccl_version, sizeof(ev->nccl_version));
	/* the job: a line that names it names it for the lines after it
	 * too; a journald entry says its own and is not carried on */
	if (ev->ctx == LOG_CTX_JOB)
		memcpy(k->job, ev->job, sizeof(k->job));
	else if (!ev->job[0])
		memcpy(ev->job, k->job, sizeof(ev->job));
	switch (ev->kind) {
	case LOG_FAILURE_CALL:
	case LOG_FAILURE_NOCALL:
	case LOG_FAILURE_SUMMARY:
		k->failures++;
		break;
	case LOG_CONTEXT:
		k->context++;
		/* fallthrough */
	case LOG_NOT_FAILURE:
		k->not_failures++;
		break;
	case LOG_RECORD:
		k->records++;
		break;
	case LOG_UNRECOGNISED:
	default:
		ev->kind = LOG_UNRECOGNISED;
		if (!k->unrecognised++) {
			k->first_unrecognised_line = ev->lineno;
			memcpy(k->first_unrecognised, ev->raw, sizeof(k->first_unrecognised));
		}
		break;
	}
}

/* r->line (n bytes) classified, counted and given the input's memory */
static void take_line(struct log_reader *r, size_t n, bool cut, bool nul, struct log_event *ev)
{
	/* read_line looked for a NUL already: a line without one (nearly
	 * all) is not searched again */
	parse_upto(r->line, n, nul ? memchr(r->line, 0, n) : NULL, ev);
	account(r, cut, nul, ev);
}

/* lines [from, to) of a batch, classified */
static void classify_part(void *ctx, size_t from, size_t to)
{
	struct batch *b = ctx;

	for (size_t i = from; i < to; i++) {
		const struct batch_line *l = &b->lines[i];
		const char *t = b->text + l->off;
		parse_upto(t, l->len, l->nul ? memchr(t, 0, l->len) : NULL, &b->evs[i]);
	}
}

static bool batch_alloc(struct log_reader *r)
{
	struct batch *b = &r->b;

	b->text = malloc(BATCH_BYTES + LOG_LINE_MAX + 1);
	b->lines = calloc(BATCH_LINES, sizeof(*b->lines));
	b->evs = calloc(BATCH_LINES, sizeof(*b->evs));
	if (!b->text || !b->lines || !b->evs) {
		free(b->text);
		free(b->lines);
		free(b->evs);
		memset(b, 0, sizeof(*b));
		return false;
	}
	return true;
}

/* the next batch read and classified: the halves by bytes, one each */
static void batch_fill(struct log_reader *r)
{
	struct batch *b = &r->b;
	size_t used = 0;
	long n;
	bool cut, nul;

	b->n = b->next = 0;
	while (b->n < BATCH_LINES && used <= BATCH_BYTES) {
		if ((n = read_line_into(r, b->text + used, &cut, &nul)) < 0) {
			b->eof = true;
			break;
		}
		b->lines[b->n++] = (struct batch_line){ used, (size_t)n, cut, nul };
		used += (size_t)n + 1;
	}
	/* a short input (most single-job logs are) is not worth a thread */
	if (b->n >= TWIN_MIN_LINES && !r->twin_tried) {
		r->twin_tried = true;
		/* the parts' tables are built once, here, before two threads use them */
		log_parts_prepare();
		r->twin = log_twin_start();
	}
	if (r->twin && b->n >= TWIN_MIN_LINES)
		log_twin_run(r->twin, classify_part, b, b->n, TWIN_PIECE);
	else
		classify_part(b, 0, b->n);
}

/* the end of the input: 0, or -1 with the read error */
static int at_end(struct log_reader *r)
{
	json_object_put(r->last_json);
	r->last_json = NULL;
	if (ferror(r->f)) {
		snprintf(r->error, sizeof(r->error), "%s: read error", r->name);
		clearerr(r->f);
		return -1;
	}
	return 0;
}

int log_reader_next(struct log_reader *r, struct log_event *ev)
{
	bool cut, nul;
	long n;

	if (!r->batched && r->f && !r->counts.lines)
		r->batched = batch_alloc(r);
	if (r->batched) {
		struct batch *b = &r->b;
		if (b->next == b->n) {
			if (b->eof)
				return at_end(r);
			batch_fill(r);
			if (!b->n)
				return at_end(r);
		}
		size_t i = b->next++;
		/* the event moves to the caller with its JSON reference */
		memcpy(ev, &b->evs[i], sizeof(*ev));
		b->evs[i].json = NULL;
		account(r, b->lines[i].cut, b->lines[i].nul, ev);
		return 1;
	}
	if ((n = read_line(r, &cut, &nul)) < 0)
		return at_end(r);
	take_line(r, (size_t)n, cut, nul, ev);
	return 1;
}

void log_reader_take(struct log_reader *r, const char *line, size_t len, long lineno, struct log_event *ev)
{
	size_t keep = len < LOG_LINE_MAX ? len : LOG_LINE_MAX;

	memcpy(r->line, line, keep);
	r->line[keep] = 0;
	r->counts.bytes += len;
	take_line(r, keep, keep < len, memchr(line, 0, len) != NULL, ev);
	if (lineno <= 0)
		return;
	/* the input's own numbering, the first unrecognised line's too */
	if (ev->kind == LOG_UNRECOGNISED && r->counts.unrecognised == 1)
		r->counts.first_unrecognised_line = lineno;
	ev->lineno = lineno;
}

bool log_reader_two_threads(const struct log_reader *r)
{
	return log_twin_worker_pieces(r->twin) > 0;
}

const struct log_counts *log_reader_counts(const struct log_reader *r)
{
	return &r->counts;
}

const char *log_reader_error(const struct log_reader *r)
{
	return r->error;
}

void log_reader_free(struct log_reader *r)
{
	if (!r)
		return;
	log_twin_stop(r->twin);
	for (size_t i = r->b.next; i < r->b.n; i++)
		json_object_put(r->b.evs[i].json);
	free(r->b.text);
	free(r->b.lines);
	free(r->b.evs);
	json_object_put(r->last_json);
	if (r->own)
		fclose(r->f);
	free(r->name_copy);
	free(r);
}

const char *log_kind_name(enum log_kind k)
{
	static const char *const n[] = { "not_failure", "unrecognised", "context", "failure_call",
					 "failure_nocall", "failure_summary", "record" };
	return (unsigned)k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}

const char *log_source_name(enum log_source s)
{
	static const char *const n[] = { "unknown", "nccl", "framework", "ucx", "libfabric",
					 "aws-ofi-nccl", "rdma-core", "kernel", "mrtrace", "journald",
					 "tool" };
	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

const char *log_nocall_name(enum log_nocall c)
{
	static const char *const n[] = { "none", "completion", "async_event", "cuda", "gdr_disabled",
					 "userspace_read", "kernel_event" };
	return (unsigned)c < sizeof(n) / sizeof(n[0]) ? n[c] : "?";
}
