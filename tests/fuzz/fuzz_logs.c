// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_logs.c - libFuzzer harness: any bytes as a log a user hands
 * `mrtrace explain` (user/logs): read line by line through the reader
 * (NUL bytes, lines past LOG_LINE_MAX, JSON that json-c takes or refuses,
 * formats matched with backtracking), and each event checked:
 *
 *   - every line lands in exactly one bucket, and the counts add up;
 *   - the strings of the event are terminated within their arrays;
 *   - a failure with a call names a known op or none, never garbage;
 *   - the whole input as one line reads the same without the prefilter
 *     (user/logs/prefilter.c): it skips only what no shape would read. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "explain/stream.h"
#include "logs/logline.h"
#include "logs/prefilter.h"

static struct log_event ev, without;

#define TERMINATED(a) assert(memchr((a), 0, sizeof(a)) != NULL)

/* The same bytes as an input that starts with a record (explain's record
 * stream with its log lines handed out, issue 46 item 4): every line
 * handed out is one line, with no end of line in it; the log reader fed
 * with them counts each. */
static void as_records(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct replay_stream *s = f ? replay_stream_new(f) : NULL;
	struct log_reader *r = log_reader_new(NULL, "fuzz");
	struct json_object *o;
	char err[256];
	uint64_t lines = 0;
	long line, last = 0;
	int rc;

	if (s && r) {
		replay_stream_keep_lines(s, true);
		while ((rc = replay_stream_next(s, &o, &line, err, sizeof(err))) != 0) {
			json_object_put(o);
			if (rc != 2)
				continue;
			size_t len;
			const char *t = replay_stream_line(s, &len);
			assert(len <= 64 * 1024 && !memchr(t, '\n', len));
			assert(line > last); /* one line handed out once */
			last = line;
			log_reader_take(r, t, len, line, &ev);
			assert(ev.lineno == line);
			lines++;
		}
		assert(log_reader_counts(r)->lines == lines);
	}
	log_reader_free(r);
	replay_stream_free(s);
	if (f)
		fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	if (!size) {
		fclose(f);
		return 0;
	}
	struct log_reader *r = log_reader_new(f, "fuzz");
	uint64_t n = 0;
	while (r && log_reader_next(r, &ev) == 1) {
		n++;
		assert(ev.kind <= LOG_RECORD);
		assert(ev.kind != LOG_RECORD || ev.json);
		TERMINATED(ev.raw);
		TERMINATED(ev.host);
		TERMINATED(ev.call);
		TERMINATED(ev.err_text);
		TERMINATED(ev.device);
		TERMINATED(ev.shm_path);
		TERMINATED(ev.mlx5.cmd);
		TERMINATED(ev.nccl_version);
		TERMINATED(ev.setting_value);
		TERMINATED(ev.job);
		assert(ev.err >= 0);
		assert(!ev.shape || ev.source == LOG_SRC_NCCL);
		assert(!(ev.no_errno && ev.err));
	}
	if (r) {
		const struct log_counts *k = log_reader_counts(r);
		assert(k->lines == n);
		assert(k->lines == k->failures + k->not_failures + k->unrecognised + k->records);
		assert(k->context <= k->not_failures);
		assert(!k->unrecognised || k->first_unrecognised_line > 0);
		TERMINATED(k->job);
	}
	log_reader_free(r);
	fclose(f);
	/* the whole input as one line, too, with the prefilter and without */
	log_line_parse((const char *)data, size, &ev);
	json_object_put(ev.json);
	log_prefilter_set(false);
	log_line_parse((const char *)data, size, &without);
	log_prefilter_set(true);
	json_object_put(without.json);
	ev.json = without.json = NULL;
	assert(!memcmp(&ev, &without, sizeof(ev)));
	as_records(data, size);
	return 0;
}
